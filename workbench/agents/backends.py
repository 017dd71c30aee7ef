"""The model factory: a backend chosen by a string, `ollama:<model>`, `openai:<model>@<url>`,
`llamacpp:<gguf>` or `scripted:<file>`.

A spec that cannot be used raises `BackendError` saying how to fix it; failed calls are told to
a person by `workbench.agents.model_errors`.
"""

from __future__ import annotations

from typing import Any

from langchain_core.language_models import BaseChatModel

from workbench.agents.defaults import resolve_gguf
from workbench.agents.errors import BackendError
from workbench.agents.llamacpp import LlamaCppChatModel
from workbench.agents.ollama import ollama_base_url
from workbench.agents.scripted import ScriptedChatModel
from workbench.core import secrets
from workbench.core.settings import Settings

OPENAI_KEY = "openai:api_key"
LOCAL_KEY_PLACEHOLDER = "not-needed"  # local OpenAI-compatible servers accept any key


def make_chat_model(spec: str, settings: Settings) -> BaseChatModel:
    kind, _, rest = spec.partition(":")
    if kind == "ollama":
        from langchain_ollama import ChatOllama  # imported only when this backend is chosen

        return ChatOllama(
            model=rest or settings.ollama.model,
            base_url=ollama_base_url(settings),
            num_ctx=settings.ollama.context_size,
        )
    if kind == "openai":
        return _openai(rest)
    if kind == "llamacpp":
        return LlamaCppChatModel.from_path(
            resolve_gguf(rest), context_size=settings.ollama.context_size
        )
    if kind == "scripted":
        try:
            return ScriptedChatModel.from_file(rest)
        except (OSError, ValueError, KeyError) as error:
            raise BackendError(f"Cannot read the scripted model file {rest!r}: {error}.") from error
    raise BackendError(
        f"Unknown model {spec!r}. Use ollama:<model> (e.g. ollama:qwen3:4b), "
        "openai:<model>@<base-url>, llamacpp:<path-to-gguf> or scripted:<file.json>."
    )


def _openai(rest: str) -> BaseChatModel:
    from langchain_openai import ChatOpenAI  # imported only when this backend is chosen

    model, _, base_url = rest.partition("@")
    if not model:
        raise BackendError("openai: needs a model name, e.g. openai:gpt-4o-mini@http://host/v1.")
    key = secrets.get_secret(OPENAI_KEY)
    if not key and not base_url:
        raise BackendError(
            f"No API key for the OpenAI API: store one in the keyring as {OPENAI_KEY!r} "
            "(settings dialog), or name a local server with openai:<model>@<base-url>."
        )
    arguments: dict[str, Any] = {"model": model, "api_key": key or LOCAL_KEY_PLACEHOLDER}
    if base_url:
        arguments["base_url"] = base_url
    return ChatOpenAI(**arguments, max_retries=1, stream_usage=True)
