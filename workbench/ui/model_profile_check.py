"""The Models dialog's connection test, Qt-free and blocking (the dialog runs it on a worker
thread): ask the profile's own server for its model list, with the profile's own key.

Nothing here sends a key anywhere but to the profile's server: the key typed in the dialog, or
the one stored under the profile's pinned entry.
"""

from __future__ import annotations

from pathlib import Path

import httpx

from workbench.agents.backends import model_api_key
from workbench.agents.defaults import EMBEDDED_INSTALL, embedded_available
from workbench.core.settings import Settings
from workbench.core.settings_model_access import ResolvedModel, resolve_model

TEST_TIMEOUT_S = 5.0


def check_profile(name: str, settings: Settings, typed_key: str = "") -> tuple[bool, str]:
    """(works, what was found) for profile `name` of `settings`, as a person reads it."""
    resolved = resolve_model(name, settings)
    profile = resolved.profile
    if profile.kind == "embedded":
        if embedded_available():
            return True, "the embedded model is installed"
        return False, f"the embedded model is not installed: {EMBEDDED_INSTALL}"
    if profile.kind in ("llamacpp", "scripted"):
        path = Path(profile.model).expanduser()
        return (True, f"{path} exists") if path.is_file() else (False, f"no file at {path}")
    try:
        key = typed_key or model_api_key(resolved)
    except Exception as error:  # the keyring's own errors: said, not raised into the GUI
        return False, f"the keyring cannot be read: {error}"
    return _ask_server(resolved, key)


def _ask_server(resolved: ResolvedModel, key: str | None) -> tuple[bool, str]:
    server, wanted = resolved.server, resolved.profile.model
    ollama = resolved.profile.kind == "ollama"
    url = f"{server}/api/tags" if ollama else f"{server}/models"
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    try:
        response = httpx.get(url, headers=headers, timeout=TEST_TIMEOUT_S)
    except httpx.HTTPError as error:
        return False, f"no answer from {server}: {error}"
    if response.status_code in (401, 403):
        entry = resolved.key_entries[0] if resolved.key_entries else "its key entry"
        status = response.status_code
        return False, f"{server} wants an API key (HTTP {status}): store it as {entry}"
    if not response.is_success:
        return False, f"{server} answered HTTP {response.status_code} to {url}"
    try:
        body = response.json()
        items = body.get("models" if ollama else "data") or []
        names = [str(item.get("name" if ollama else "id", "")) for item in items]
    except (ValueError, AttributeError):
        return False, f"{server} answers, but not as an {'Ollama' if ollama else 'OpenAI'} API"
    if wanted and names and wanted not in names:
        shown = ", ".join(names[:8]) + (" …" if len(names) > 8 else "")
        return False, f"{server} answers but has no model {wanted!r} (it has: {shown})"
    return True, f"{server} answers ({len(names)} models)"
