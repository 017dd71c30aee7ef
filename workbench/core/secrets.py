"""Secrets (API keys, passwords, passphrases) live in the system keyring and nowhere else.

Settings name a secret by key (e.g. "openai:api_key"), stored as the entry of that name under the
keyring service `workbench`; the value is fetched here when needed and is never written to
settings, logs, traces or reports. Tests install a keyring backend of their own.

A key can also be kept for this session only (`keep_for_session`): in this process's memory,
consulted by `get_secret` before the keyring, never written anywhere, gone when the app ends. It
is the way on with no keyring backend, or to try a key before storing it.

`keyring_status()` says which keyring backend is in use, how it was chosen and whether it works
(doctor's keyring line); `keyring_advice()` says what to install when there is none. A file
keyring is never chosen here behind the user's back: keyring picks it (or the user does), and
the status names it, a plaintext one as such.
"""

from __future__ import annotations

import configparser
import contextlib
import os
import sys
import threading
from dataclasses import dataclass
from typing import Literal

import keyring
import keyring.backend
import keyring.errors

SERVICE = "workbench"
PROBE_ENTRY = "doctor:probe"  # read (never written) to see that the backend answers
ENCRYPTED_FILE_BACKEND = "keyrings.alt.file.EncryptedKeyring"
CHOSEN_BY_KEYRING = "chosen by keyring"
_session: dict[str, str] = {}  # entry -> secret, this process only, never written
_session_lock = threading.Lock()  # the printers' loop reads while the GUI thread writes


class SecretUnavailable(RuntimeError):
    pass


def where(key: str) -> str:
    """How messages name an entry: the service and the entry, as `keyring set` takes them."""
    return f"the keyring (service '{SERVICE}', entry '{key}')"


def set_secret(key: str, value: str) -> None:
    try:
        keyring.set_password(SERVICE, key, value)
    except keyring.errors.KeyringError as error:
        raise SecretUnavailable(
            f"Cannot store the secret in {where(key)}: {error}. {keyring_advice()}"
        ) from error
    forget_session_secret(key)  # the stored one is the one meant from now on


def get_secret(key: str) -> str | None:
    """The secret of entry `key`: the one kept for this session, else the keyring's."""
    with _session_lock:
        kept = _session.get(key)
    if kept:
        return kept
    try:
        return keyring.get_password(SERVICE, key)
    except keyring.errors.KeyringError as error:
        raise SecretUnavailable(
            f"Cannot read the secret from {where(key)}: {error}. {keyring_advice()}"
        ) from error


def delete_secret(key: str) -> None:
    forget_session_secret(key)
    with contextlib.suppress(keyring.errors.PasswordDeleteError):
        keyring.delete_password(SERVICE, key)


def keep_for_session(key: str, value: str) -> None:
    """Use `value` as entry `key`'s secret until this process ends: kept in memory only, never
    written to the keyring, settings, logs or anywhere else."""
    if not value:
        raise ValueError("an empty secret cannot be kept; forget_session_secret removes one")
    with _session_lock:
        _session[key] = value


def forget_session_secret(key: str) -> None:
    with _session_lock:
        _session.pop(key, None)


def has_session_secret(key: str) -> bool:
    with _session_lock:
        return key in _session


def backend_name() -> str:
    return type(keyring.get_keyring()).__name__


# -- which keyring, and does it work -----------------------------------------------------------
KeyringKind = Literal["usable", "plaintext", "none"]


@dataclass(frozen=True)
class KeyringStatus:
    kind: KeyringKind  # "plaintext": works, but anyone who can read the file reads the secrets
    backend: str  # e.g. "keyring.backends.SecretService.Keyring" ("" when none could load)
    chosen_by: str  # "set by PYTHON_KEYRING_BACKEND", "set in <keyringrc.cfg>", "chosen by keyring"
    detail: str  # what is wrong or worth knowing, in words

    @property
    def usable(self) -> bool:
        return self.kind != "none"


def keyring_status() -> KeyringStatus:
    """The keyring backend in use, how it was chosen, and whether it answers (a read probe)."""
    try:
        backend = keyring.get_keyring()
    except Exception as error:  # a named backend that cannot load: keyring raises many kinds
        chosen_by = _chosen_by(None)
        detail = f"the backend {chosen_by} cannot load: {error}"
        return KeyringStatus("none", "", chosen_by, detail)
    name = _qualified(backend)
    chosen_by = _chosen_by(name)
    found = _members(backend)
    if not found:
        automatic = _is_fail(backend) and chosen_by == CHOSEN_BY_KEYRING
        detail = (
            f"keyring found none ({name})" if automatic else f"{name} ({chosen_by}) keeps nothing"
        )
        return KeyringStatus("none", name, chosen_by, detail)
    try:  # a locked or unreachable keyring only shows when asked
        backend.get_password(SERVICE, PROBE_ENTRY)
    except Exception as error:  # backends raise their own errors (D-Bus, crypto, OS)
        return KeyringStatus("none", name, chosen_by, f"{name} does not answer: {error}")
    plaintext = [member for member in found if _is_plaintext(member)]
    if plaintext:
        files = ", ".join(_file_of(member) for member in plaintext)
        detail = f"secrets are stored unencrypted in {files}"
        return KeyringStatus("plaintext", name, chosen_by, detail)
    return KeyringStatus("usable", name, chosen_by, "")


def keyring_advice() -> str:
    """What to install or set so that secrets can be stored (desktop or headless machine)."""
    desktop = (
        "install and unlock a Secret Service keyring: GNOME Keyring (apt-get install "
        "gnome-keyring) or KWallet, in a desktop session"
    )
    headless = (
        "pip install keyrings.alt pycryptodome and choose its encrypted file explicitly: "
        f"export PYTHON_KEYRING_BACKEND={ENCRYPTED_FILE_BACKEND} (it asks for a keyring "
        "password when first used)"
    )
    if sys.platform in ("darwin", "win32"):
        return "Use the system keychain (macOS Keychain / Windows Credential Manager) or " + (
            headless
        )
    if _has_desktop_session():
        return f"On this desktop, {desktop}; or, without one, {headless}."
    return f"No desktop session here: {headless}; or, on a desktop, {desktop}."


def _has_desktop_session() -> bool:
    return any(
        os.environ.get(name) for name in ("DBUS_SESSION_BUS_ADDRESS", "DISPLAY", "WAYLAND_DISPLAY")
    )


def _chosen_by(backend: str | None) -> str:
    """Where the choice of `backend` came from (None: the one that failed to load)."""
    named = os.environ.get("PYTHON_KEYRING_BACKEND")
    if named is not None and backend in (None, named):  # used even when empty (then fails)
        return f"set by PYTHON_KEYRING_BACKEND={named}"
    config, configured = _configured()
    if configured and backend in (None, configured):
        return f"set in {config}"
    if named is not None or configured:
        return "set by the program (keyring.set_keyring)"
    return CHOSEN_BY_KEYRING


def _configured() -> tuple[str, str]:
    """keyring's config file and the backend it names ("" when there is none)."""
    with contextlib.suppress(Exception):  # where the choice came from is only informative
        from keyring.core import _config_path

        path = _config_path()  # type: ignore[no-untyped-call]
        parser = configparser.RawConfigParser()
        if parser.read(path, encoding="utf-8") and parser.has_option("backend", "default-keyring"):
            return str(path), parser.get("backend", "default-keyring").strip()
    return "", ""


def _qualified(backend: keyring.backend.KeyringBackend) -> str:
    kind = type(backend)
    return f"{kind.__module__}.{kind.__qualname__}"


def _is_fail(backend: keyring.backend.KeyringBackend) -> bool:
    return _qualified(backend) == "keyring.backends.fail.Keyring"


def _members(backend: keyring.backend.KeyringBackend) -> list[keyring.backend.KeyringBackend]:
    """The backends that really store: a chainer's members; none for the fail and null ones."""
    if _qualified(backend) in ("keyring.backends.fail.Keyring", "keyring.backends.null.Keyring"):
        return []
    members = getattr(type(backend), "backends", None)
    if _qualified(backend) == "keyring.backends.chainer.ChainerBackend":
        return [member for member in members or [] if _members(member)]
    return [backend]


def _is_plaintext(backend: keyring.backend.KeyringBackend) -> bool:
    return "plaintext" in _qualified(backend).lower()


def _file_of(backend: keyring.backend.KeyringBackend) -> str:
    path = getattr(backend, "file_path", None)
    return f"{path} ({_qualified(backend)})" if path else _qualified(backend)
