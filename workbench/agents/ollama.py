"""Where the Ollama server is (settings, or OLLAMA_HOST as every Ollama client reads it) and
which models it has."""

from __future__ import annotations

import os

import httpx

from workbench.agents.errors import BackendError
from workbench.core.settings import OllamaSettings, Settings

DEFAULT_OLLAMA_URL = OllamaSettings.model_fields["base_url"].default


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
