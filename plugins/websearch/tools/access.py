"""Reaching Tavily: the key from the keyring, how to store one, and the next step after a
failure (for the tool and doctor alike)."""

from __future__ import annotations

from workbench.core.secrets import SERVICE, SecretUnavailable, get_secret
from workbench_plugins.websearch import client
from workbench_plugins.websearch.config import KEY_ENTRY

SET_KEY = (
    f"Store your Tavily key (tavily.com, free tier) with `keyring set {SERVICE} {KEY_ENTRY}`, "
    "then restart Workbench."
)


def tavily_key() -> str | None:
    """The Tavily key from the keyring (or this session); None when there is none or no
    keyring answers."""
    try:
        return get_secret(KEY_ENTRY) or None
    except SecretUnavailable:
        return None


def what_to_do(error: client.TavilyError) -> str:
    """The next step after `error`, for a tool result and doctor alike."""
    return {
        "key": f"Store the right key: `keyring set {SERVICE} {KEY_ENTRY}`.",
        "limit": "Wait a minute, or check the plan's credits at app.tavily.com.",
        "unreachable": f"Check the network and that no firewall or proxy blocks {error.host}, "
        "or api_url in [plugins.websearch]; `workbench --headless doctor` tries it.",
        "answer": "Check api_url in [plugins.websearch] (default https://api.tavily.com).",
    }[error.cause]
