"""Model profiles in the settings: what a caller (tool, agent, MCP client) may name, which key
entry belongs to which server, and the reproducible defaults (temperature 0, a fixed seed)."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from workbench.core.settings import Settings, load_settings, save_settings
from workbench.core.settings_model_access import (
    ModelNotAllowed,
    model_settings,
    resolve_for_caller,
    resolve_model,
    spec_of,
)

LAB = {
    "name": "lab",
    "kind": "openai-compatible",
    "model": "qwen",
    "base_url": "http://lab:8000/v1",
}
CLOUD = {"name": "cloud", "kind": "openai-compatible", "model": "gpt-4o-mini"}


def with_profiles(*profiles: dict[str, object]) -> Settings:
    return Settings(model_profiles=list(profiles))


@pytest.mark.parametrize(
    ("named", "said"),
    [
        ("openai:gpt-4o-mini@http://127.0.0.1:9/v1", "server address"),
        ("http://attacker.example/v1", "server address"),
        ("scripted:/etc/passwd", "as a file"),
        ("llamacpp:../../model.gguf", "as a file"),
        ("ollama:qwen3:4b", "backend spec"),
        ("gpt-4o", "not a model profile"),
    ],
)
def test_a_caller_may_name_only_a_profile(named: str, said: str) -> None:
    settings = with_profiles(LAB, CLOUD)
    with pytest.raises(ModelNotAllowed) as refused:
        resolve_for_caller(named, settings)
    message = str(refused.value)
    assert said in message
    assert "lab, cloud" in message and "Settings → Model profiles" in message
    assert "attacker" not in message  # a URL is not repeated back


def test_a_caller_may_name_a_profile_or_a_built_in() -> None:
    settings = with_profiles(LAB)
    settings.model = "scripted:/home/me/judge.json"  # the person's own choice, in their settings
    assert resolve_for_caller("lab", settings) == "lab"
    assert resolve_for_caller("", settings) == settings.model
    assert resolve_for_caller("default", settings) == settings.model
    assert resolve_for_caller("embedded", settings) == "embedded"
    assert resolve_for_caller("reference", settings, policies=("reference",)) == "reference"


def test_profiles_sample_reproducibly_by_default() -> None:
    settings = with_profiles(LAB)
    recorded = model_settings("lab", settings)
    assert recorded["temperature"] == 0.0 and recorded["seed"] == 0
    assert recorded["server"] == "http://lab:8000/v1" and recorded["kind"] == "openai-compatible"
    spec = model_settings("ollama:qwen3:4b", settings)  # a full spec samples the same way
    assert (spec["temperature"], spec["seed"], spec["model"]) == (0.0, 0, "qwen3:4b")
    assert model_settings("reference", settings)["kind"] == "policy"


def test_a_key_entry_belongs_to_one_server() -> None:
    shared = {**CLOUD, "base_url": "http://other:1/v1", "key_entry": "model:lab:api_key"}
    with pytest.raises(ValidationError, match="a key goes to one server only"):
        with_profiles(LAB, shared)
    stolen = {**LAB, "key_entry": "openai:api_key"}
    with pytest.raises(ValidationError, match="OpenAI API's key"):
        with_profiles(stolen)
    with pytest.raises(ValidationError, match="another profile has this name"):
        with_profiles(LAB, LAB)
    with pytest.raises(ValidationError, match="built in"):
        with_profiles({**LAB, "name": "default"})
    with pytest.raises(ValidationError, match="a name is letters"):
        with_profiles({**LAB, "name": "openai:x@http://y"})


def test_a_password_in_a_profile_url_is_refused_and_not_repeated() -> None:
    with pytest.raises(ValidationError) as refused:
        with_profiles({**LAB, "base_url": "http://me:hunter2@lab:8000/v1"})
    assert "hunter2" not in str(refused.value)
    assert "model:<profile name>:api_key" in str(refused.value)


def test_a_command_line_spec_takes_only_the_key_pinned_to_its_server() -> None:
    settings = with_profiles(LAB, CLOUD)
    same = resolve_model("openai:qwen@http://LAB:8000/v1/", settings)
    assert same.key_entries == ("model:lab:api_key",)
    elsewhere = resolve_model("openai:qwen@http://127.0.0.1:9/v1", settings)
    assert elsewhere.key_entries == () and elsewhere.key_env == "WORKBENCH_MODEL_API_KEY"
    openai = resolve_model("openai:gpt-4o", settings)
    assert openai.key_entries == ("model:cloud:api_key", "openai:api_key")


def test_profiles_survive_the_settings_file(tmp_path: Path) -> None:
    path = tmp_path / "settings.toml"
    save_settings(with_profiles(LAB, {**CLOUD, "temperature": 0.7, "seed": -1}), path)
    loaded, problem = load_settings(path)
    assert problem is None
    lab, cloud = loaded.model_profiles
    assert (lab.name, lab.temperature, lab.seed) == ("lab", 0.0, 0)
    assert (cloud.temperature, cloud.fixed_seed) == (0.7, None)
    assert "[[model_profiles]]" in path.read_text(encoding="utf-8")


def test_a_profile_stands_for_a_spec_without_its_key() -> None:
    settings = with_profiles(LAB, CLOUD, {"name": "box", "model": "qwen3:4b"})
    assert spec_of("lab", settings) == "openai:qwen@http://lab:8000/v1"
    assert spec_of("cloud", settings) == "openai:gpt-4o-mini"
    assert spec_of("box", settings) == "ollama:qwen3:4b"
    assert spec_of("embedded", settings) == "llamacpp:embedded"
    assert spec_of("reference", settings) == "reference"


def test_a_profile_that_would_leak_its_key_is_refused_and_the_rest_kept(tmp_path: Path) -> None:
    path = tmp_path / "settings.toml"
    path.write_text(
        'model = "ollama:llama3.2:3b"\n\n[[model_profiles]]\nname = "lab"\n'
        'kind = "openai-compatible"\nbase_url = "http://lab:8000/v1"\n'
        'key_entry = "openai:api_key"\n',
        encoding="utf-8",
    )
    loaded, problem = load_settings(path)
    assert loaded.model == "ollama:llama3.2:3b" and loaded.model_profiles == []
    assert problem is not None and "model_profiles" in problem and "OpenAI API's key" in problem
