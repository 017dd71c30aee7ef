"""A failed model call, told to a person: did the backend fail (rather than our own code), and
one message naming the server and what to do (server down, model not pulled, dropped reply)."""

from __future__ import annotations

import httpx

from workbench.agents.defaults import unreachable_hint
from workbench.agents.errors import BackendError
from workbench.agents.ollama import ollama_base_url
from workbench.agents.scripted import ScriptExhausted
from workbench.core.settings import Settings
from workbench.core.settings_model_access import resolve_model, spec_of


def backend_label(spec: str, settings: Settings) -> str:
    """Where the model runs, for messages ("Ollama at http://127.0.0.1:11434")."""
    kind, _, rest = spec_of(spec, settings).partition(":")  # a profile: what it stands for
    if kind == "ollama":
        server = resolve_model(spec, settings).server  # the profile's own, or the settings'
        return f"Ollama at {server or ollama_base_url(settings)}"
    if kind == "openai":
        return f"The OpenAI-compatible server at {rest.partition('@')[2] or 'api.openai.com'}"
    return f"The {kind} model"


def model_error_message(error: BaseException, spec: str, settings: Settings) -> tuple[str, str]:
    """(kind, message) for a failed model call; kind is "model_unreachable" or "model_error"."""
    label = backend_label(spec, settings)
    spec = spec_of(spec, settings)
    kind = spec.partition(":")[0]
    start = (
        "Start `ollama serve` (or fix the Ollama address in settings / OLLAMA_HOST)"
        if kind == "ollama"
        else "Start the server or fix its address"
    )
    keep = "then send again: the conversation is kept."
    name = type(error).__name__
    hint = unreachable_hint(spec)  # no server needed: the embedded model
    unreachable = (ConnectionError, httpx.ConnectError, httpx.ConnectTimeout)
    if isinstance(error, unreachable) or name == "APIConnectionError":
        return "model_unreachable", f"{label} is not reachable: {error}. {start}, {keep}{hint}"
    if isinstance(error, httpx.TransportError):  # dropped mid-reply (killed, restarting)
        return (
            "model_unreachable",
            f"{label} stopped answering mid-reply ({name}: {error}). "
            f"It may be restarting; {start.lower()}, {keep}{hint}",
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
    if isinstance(error, ConnectionError | httpx.HTTPError | ScriptExhausted | BackendError):
        return True
    module = type(error).__module__.split(".")[0]
    return module in ("ollama", "openai", "httpx", "httpcore", "llama_cpp", "langchain_ollama")
