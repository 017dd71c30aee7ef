"""The bearer token MCP clients present to the HTTP server: random, kept in the keyring only.

It is never written to settings or logs, and printed only when the user asks (`--show-token`).
"""

from __future__ import annotations

import secrets

from workbench.core.secrets import SecretUnavailable, backend_name, get_secret, set_secret, where

TOKEN_ENTRY = "mcp-token"
TOKEN_BYTES = 32  # 256 bits, 43 URL-safe characters


def mcp_token(create: bool = True) -> str:
    """The MCP server's token from the keyring; made and stored there on first use (`create`).

    "" when none is stored and `create` is False. Raises `SecretUnavailable` (its message says
    what to install) when there is no usable keyring."""
    token = get_secret(TOKEN_ENTRY)
    if token or not create:
        return token or ""
    token = secrets.token_urlsafe(TOKEN_BYTES)
    set_secret(TOKEN_ENTRY, token)
    if get_secret(TOKEN_ENTRY) != token:  # e.g. keyring's null backend accepts and forgets
        raise SecretUnavailable(
            f"The keyring backend ({backend_name()}) did not keep the MCP token in "
            f"{where(TOKEN_ENTRY)}."
        )
    return token


def token_location() -> str:
    """Where the token is kept, in words, for messages that must not show it."""
    return where(TOKEN_ENTRY)
