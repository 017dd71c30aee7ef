"""Model backends chosen by a string: `ollama:<model>`, `openai:<model>@<url>`, `llamacpp:<gguf>`,
`scripted:<file>`.

Errors a person can fix (server down, model not pulled, key missing) become one message naming the
server and what to do: `model_error_message`.
"""

from __future__ import annotations

import os
from typing import Any

import httpx
from langchain_core.language_models import BaseChatModel

from workbench.core import secrets
from workbench.core.settings import OllamaSettings, Settings

DEFAULT_OLLAMA_URL = OllamaSettings.model_fields["base_url"].default
OPENAI_KEY = "openai:api_key"
LOCAL_KEY_PLACEHOLDER = "not-needed"  # local OpenAI-compatible servers accept any key


class BackendError(ValueError):
    """The model spec or its configuration cannot be used; the message says how to fix it."""


def parse_ollama_host(host: str) -> str:
    """OLLAMA_HOST as the Ollama clients read it: scheme and port added when missing."""
    host = host.strip().rstrip("/")
    scheme, separator, rest = host.partition("://")
    if separator:
        default_port = "443" if scheme == "https" else "80"
    else:
        scheme, rest, default_port = "http", host, "11434"
    hostname, colon, port = rest.rpartition(":")
    if not colon:
        hostname, port = rest, ""
    return f"{scheme}://{hostname or '127.0.0.1'}:{port or default_port}"


def ollama_base_url(settings: Settings) -> str:
    """A base URL set in settings wins; otherwise OLLAMA_HOST (as every Ollama client honours it);
    otherwise the default."""
    configured = settings.ollama.base_url.rstrip("/")
    environment = os.environ.get("OLLAMA_HOST", "").strip()
    if environment and configured == DEFAULT_OLLAMA_URL:
        return parse_ollama_host(environment)
    return configured


def make_chat_model(spec: str, settings: Settings) -> BaseChatModel:
    kind, _, rest = spec.partition(":")
    if kind == "ollama":
        from langchain_ollama import ChatOllama

        return ChatOllama(
            model=rest or settings.ollama.model,
            base_url=ollama_base_url(settings),
            num_ctx=settings.ollama.context_size,
        )
    if kind == "openai":
        return _openai(rest)
    if kind == "llamacpp":
        from workbench.agents.defaults import resolve_gguf
        from workbench.agents.llamacpp import LlamaCppChatModel

        return LlamaCppChatModel.from_path(
            resolve_gguf(rest), context_size=settings.ollama.context_size
        )
    if kind == "scripted":
        from workbench.agents.scripted import ScriptedChatModel

        try:
            return ScriptedChatModel.from_file(rest)
        except (OSError, ValueError, KeyError) as error:
            raise BackendError(f"Cannot read the scripted model file {rest!r}: {error}.") from error
    raise BackendError(
        f"Unknown model {spec!r}. Use ollama:<model> (e.g. ollama:qwen3:4b), "
        "openai:<model>@<base-url>, llamacpp:<path-to-gguf> or scripted:<file.json>."
    )


def _openai(rest: str) -> BaseChatModel:
    from langchain_openai import ChatOpenAI

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


def backend_label(spec: str, settings: Settings) -> str:
    """Where the model runs, for messages ("Ollama at http://127.0.0.1:11434")."""
    kind, _, rest = spec.partition(":")
    if kind == "ollama":
        return f"Ollama at {ollama_base_url(settings)}"
    if kind == "openai":
        return f"The OpenAI-compatible server at {rest.partition('@')[2] or 'api.openai.com'}"
    return f"The {kind} model"


def model_error_message(error: BaseException, spec: str, settings: Settings) -> tuple[str, str]:
    """(kind, message) for a failed model call; kind is "model_unreachable" or "model_error"."""
    label = backend_label(spec, settings)
    kind = spec.partition(":")[0]
    start = (
        "Start `ollama serve` (or fix the Ollama address in settings / OLLAMA_HOST)"
        if kind == "ollama"
        else "Start the server or fix its address"
    )
    keep = "then send again: the conversation is kept."
    name = type(error).__name__
    unreachable = (ConnectionError, httpx.ConnectError, httpx.ConnectTimeout)
    if isinstance(error, unreachable) or name == "APIConnectionError":
        return "model_unreachable", f"{label} is not reachable: {error}. {start}, {keep}"
    if isinstance(error, httpx.TransportError):  # dropped mid-reply (killed, restarting)
        return (
            "model_unreachable",
            f"{label} stopped answering mid-reply ({name}: {error}). "
            f"It may be restarting; {start.lower()}, {keep}",
        )
    status = getattr(error, "status_code", None)
    if kind == "ollama" and status == 404:
        model = spec.partition(":")[2] or settings.ollama.model
        return (
            "model_error",
            f"{label} does not have the model {model!r} ({error}). "
            f"Run `ollama pull {model}` or pick another model, {keep}",
        )
    return "model_error", f"{label} failed: {name}: {error}. {keep[0].upper()}{keep[1:]}"


def is_model_error(error: BaseException) -> bool:
    """Did the model backend fail (rather than our own code)?"""
    from workbench.agents.scripted import ScriptExhausted

    if isinstance(error, ConnectionError | httpx.HTTPError | ScriptExhausted | BackendError):
        return True
    module = type(error).__module__.split(".")[0]
    return module in ("ollama", "openai", "httpx", "httpcore", "llama_cpp", "langchain_ollama")


def list_ollama_models(base_url: str, timeout_s: float = 3.0) -> list[str]:
    """Model names the Ollama server has (for a model picker); BackendError if unreachable."""
    try:
        response = httpx.get(f"{base_url.rstrip('/')}/api/tags", timeout=timeout_s)
        response.raise_for_status()
    except httpx.HTTPError as error:
        raise BackendError(
            f"Ollama at {base_url} is not reachable: {error}. Start `ollama serve` or fix "
            "the Ollama address in settings (or OLLAMA_HOST)."
        ) from error
    return sorted(item["name"] for item in response.json().get("models", []))
