"""Secrets (API keys, passwords, passphrases) live in the system keyring and nowhere else.

Settings name a secret by key (e.g. "openai:api_key"); the value is fetched here when needed and is
never written to settings, logs, traces or reports. Tests install a keyring backend of their own.
"""

from __future__ import annotations

import contextlib

import keyring
import keyring.errors

SERVICE = "workbench"


class SecretUnavailable(RuntimeError):
    pass


def set_secret(key: str, value: str) -> None:
    try:
        keyring.set_password(SERVICE, key, value)
    except keyring.errors.KeyringError as error:
        raise SecretUnavailable(
            f"Cannot store secret {key!r}: {error}. Install or unlock a keyring backend "
            "(e.g. GNOME Keyring, KWallet, or keyrings.alt for a file keyring you choose)."
        ) from error


def get_secret(key: str) -> str | None:
    try:
        return keyring.get_password(SERVICE, key)
    except keyring.errors.KeyringError as error:
        raise SecretUnavailable(f"Cannot read secret {key!r}: {error}.") from error


def delete_secret(key: str) -> None:
    with contextlib.suppress(keyring.errors.PasswordDeleteError):
        keyring.delete_password(SERVICE, key)


def backend_name() -> str:
    return type(keyring.get_keyring()).__name__
