"""Where the Ollama server is (settings, or OLLAMA_HOST as every Ollama client reads it) and
which models it has."""

from __future__ import annotations

import httpx

from workbench.agents.errors import BackendError
from workbench.core.settings import Settings


def ollama_base_url(settings: Settings) -> str:
    """The server's address (settings, else OLLAMA_HOST, else the default)."""
    return settings.ollama.address()


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
