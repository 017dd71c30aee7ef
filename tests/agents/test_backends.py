"""Model specs, addresses and keys; clear errors for what a person must fix."""

from __future__ import annotations

import pytest
from langchain_ollama import ChatOllama
from langchain_openai import ChatOpenAI

from tests.agents.conftest import write_script
from workbench.agents import AgentRuntime, BackendError, make_chat_model, prompt_overhead
from workbench.agents.events import AgentError
from workbench.agents.ollama import ollama_base_url
from workbench.agents.scripted import ScriptedChatModel
from workbench.core import secrets
from workbench.core.settings import Settings


def test_ollama_spec_uses_ollama_host_settings_and_context_size(monkeypatch):
    settings = Settings()
    settings.ollama.context_size = 4096
    monkeypatch.setenv("OLLAMA_HOST", "10.0.0.5:1234")
    model = make_chat_model("ollama:qwen3:4b", settings)
    assert isinstance(model, ChatOllama)
    assert (model.model, model.base_url, model.num_ctx) == (
        "qwen3:4b",
        "http://10.0.0.5:1234",
        4096,
    )

    settings.ollama.base_url = "http://gpu-box:11434"  # an address set in settings wins
    assert ollama_base_url(settings) == "http://gpu-box:11434"
    monkeypatch.delenv("OLLAMA_HOST")
    assert ollama_base_url(Settings()) == "http://127.0.0.1:11434"
    assert make_chat_model("ollama:", Settings()).model == Settings().ollama.model


def test_openai_spec_takes_the_key_from_the_keyring():
    local = make_chat_model("openai:qwen@http://127.0.0.1:8080/v1", Settings())
    assert isinstance(local, ChatOpenAI) and local.openai_api_base == "http://127.0.0.1:8080/v1"
    with pytest.raises(BackendError, match="openai:api_key"):
        make_chat_model("openai:gpt-4o-mini", Settings())
    secrets.set_secret("openai:api_key", "sk-test-secret")
    cloud = make_chat_model("openai:gpt-4o-mini", Settings())
    assert cloud.openai_api_key.get_secret_value() == "sk-test-secret"
    assert "sk-test-secret" not in Settings().model_dump_json()


def test_unknown_and_unusable_specs_give_clear_errors(tmp_path):
    with pytest.raises(BackendError, match="Unknown model 'gpt4'"):
        make_chat_model("gpt4", Settings())
    with pytest.raises(BackendError, match="scripted model file"):
        make_chat_model(f"scripted:{tmp_path / 'missing.json'}", Settings())
    try:
        import llama_cpp  # noqa: F401
    except ImportError:
        with pytest.raises(BackendError, match="llama-cpp-python"):
            make_chat_model(f"llamacpp:{tmp_path / 'model.gguf'}", Settings())
    scripted = make_chat_model(write_script(tmp_path, [{"content": "hi"}]), Settings())
    assert isinstance(scripted, ScriptedChatModel) and scripted.invoke("x").content == "hi"


def test_unreachable_ollama_gives_a_clear_message_and_keeps_the_conversation(app):
    runtime = AgentRuntime(app, "ollama:qwen3:4b")  # OLLAMA_HOST points at a dead port in tests
    result = runtime.send_sync("down", "Add 2 and 3.")

    assert result.status == "error"
    assert "Ollama at http://127.0.0.1:9 is not reachable" in result.error
    assert "ollama serve" in result.error and "conversation is kept" in result.error
    [error] = [e for e in result.events if isinstance(e, AgentError)]
    assert error.kind == "model_unreachable"
    assert [c.thread_id for c in runtime.conversations()] == ["down"]
    assert app.store.runs("agent")[-1]["status"] == "error"
    runtime.close()


def test_script_running_out_is_an_error_not_a_crash(app, scripted):
    runtime, _ = scripted([])
    result = runtime.send_sync("empty-script", "hello")
    assert result.status == "error" and "no reply left" in result.error


def test_prompt_overhead_compares_specialists_with_a_single_agent(app):
    report = prompt_overhead(app)
    sample = report["specialists"]["sample"]
    assert sample["tools"] == 1 and sample["prompt_tokens"] > 0 and sample["tool_tokens"] > 0
    single = report["single_agent"]
    assert single["tools"] == len(app.registry.names())
    assert single["total_tokens"] > sample["total_tokens"]
    assert report["supervisor"]["tools"] == 1
    assert report["single_agent_to_largest_specialist"] > 1
    assert report["estimate"] == "characters/4"
