"""Issue 13, defect 8 and acceptance 4: doctor says whether a keyring backend exists, names it, and
says what to install when there is none; secret messages name the service and the entry.

Backends here are keyring's own (fail, null, chainer) and small stand-ins written for these tests
(an in-memory one from tests/support, a plaintext file one like keyrings.alt's, a locked one).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import keyring
import keyring.errors
import pytest
from keyring.backend import KeyringBackend
from keyring.backends import chainer, fail, null

from tests.support.memory_keyring import MemoryKeyring
from workbench.core import secrets
from workbench.core.doctor import CheckResult, check_keyring, run_checks

ROOT = Path(__file__).resolve().parents[2]


class PlaintextKeyring(MemoryKeyring):
    """Stand-in for keyrings.alt.file.PlaintextKeyring: same class name, a file_path."""

    file_path = "/home/someone/.local/share/python_keyring/keyring_pass.cfg"


class LockedKeyring(MemoryKeyring):
    """A keyring that exists but refuses to answer (a locked GNOME Keyring does this)."""

    def get_password(self, service: str, username: str) -> str | None:
        raise keyring.errors.KeyringLocked("the collection is locked")


@pytest.fixture
def no_desktop(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("DBUS_SESSION_BUS_ADDRESS", "DISPLAY", "WAYLAND_DISPLAY"):
        monkeypatch.delenv(name, raising=False)


def keyring_line(context: Any) -> CheckResult:
    [line] = [result for result in run_checks(context) if result.name == "keyring"]
    return line


def test_no_backend_fails_and_says_what_to_install(context: Any, no_desktop: None) -> None:
    keyring.set_keyring(fail.Keyring())
    line = keyring_line(context)
    assert line.level == "fail"
    assert "no usable keyring backend" in line.detail and "service 'workbench'" in line.detail
    assert "pip install keyrings.alt" in line.fix
    assert "PYTHON_KEYRING_BACKEND=keyrings.alt.file.EncryptedKeyring" in line.fix
    assert "GNOME Keyring" in line.fix and "KWallet" in line.fix
    assert line.fix.startswith("No desktop session here")  # headless: the file keyring first


def test_on_a_desktop_the_secret_service_comes_first(monkeypatch: pytest.MonkeyPatch) -> None:
    keyring.set_keyring(fail.Keyring())
    monkeypatch.setenv("DISPLAY", ":0")
    line = check_keyring(None)  # type: ignore[arg-type]
    assert line.level == "fail" and line.fix.startswith("On this desktop")
    assert line.fix.index("GNOME Keyring") < line.fix.index("keyrings.alt")


def test_a_working_backend_is_ok_and_named(context: Any) -> None:
    line = keyring_line(context)  # conftest installs the in-memory backend
    assert line.level == "ok"
    assert "tests.support.memory_keyring.MemoryKeyring" in line.detail
    assert "service 'workbench'" in line.detail


def test_the_null_backend_keeps_nothing_and_fails() -> None:
    keyring.set_keyring(null.Keyring())
    line = check_keyring(None)  # type: ignore[arg-type]
    assert line.level == "fail" and "keyring.backends.null.Keyring" in line.detail
    assert "keeps nothing" in line.detail


def test_a_plaintext_file_backend_is_named_as_such_and_warns() -> None:
    keyring.set_keyring(PlaintextKeyring())
    line = check_keyring(None)  # type: ignore[arg-type]
    assert line.level == "warn"
    assert line.detail.startswith("plaintext file backend") and "unencrypted" in line.detail
    assert PlaintextKeyring.file_path in line.detail
    assert "EncryptedKeyring" in line.fix


def test_a_locked_backend_fails_saying_it_does_not_answer() -> None:
    keyring.set_keyring(LockedKeyring())
    line = check_keyring(None)  # type: ignore[arg-type]
    assert line.level == "fail" and "does not answer: the collection is locked" in line.detail


def test_a_chain_names_the_backend_and_warns_for_a_plaintext_member(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    members: list[KeyringBackend] = [MemoryKeyring(), PlaintextKeyring()]
    monkeypatch.setattr(chainer.ChainerBackend, "backends", members)
    keyring.set_keyring(chainer.ChainerBackend())
    line = check_keyring(None)  # type: ignore[arg-type]
    assert line.level == "warn" and "ChainerBackend" in line.detail
    monkeypatch.setattr(chainer.ChainerBackend, "backends", members[:1])
    assert check_keyring(None).level == "ok"  # type: ignore[arg-type]
    monkeypatch.setattr(chainer.ChainerBackend, "backends", [])
    assert check_keyring(None).level == "fail"  # type: ignore[arg-type]


def test_secret_messages_name_the_service_the_entry_and_the_fix() -> None:
    keyring.set_keyring(fail.Keyring())
    entry = "prusalink:http://192.168.1.20:api_key"
    with pytest.raises(secrets.SecretUnavailable) as stored:
        secrets.set_secret(entry, "not shown")
    with pytest.raises(secrets.SecretUnavailable) as read:
        secrets.get_secret(entry)
    for error in (stored.value, read.value):
        message = str(error)
        assert f"service 'workbench', entry '{entry}'" in message
        assert "keyrings.alt" in message and "not shown" not in message


def test_headless_doctor_without_a_keyring_fails_on_that_line(tmp_path: Path) -> None:
    """The real command, with keyring's own "no backend" chosen the way a user would."""
    env = {
        **os.environ,
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
        "WORKBENCH_HOME": str(tmp_path / "home"),
    }
    done = subprocess.run(
        [sys.executable, "-m", "workbench", "--headless", "doctor"],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=ROOT,
    )
    [line] = [text for text in done.stdout.splitlines() if "] keyring:" in text]
    assert done.returncode == 1
    assert line.startswith("[   fail] keyring: no usable keyring backend")
    assert "set by PYTHON_KEYRING_BACKEND=keyring.backends.fail.Keyring" in line
    assert "pip install keyrings.alt" in line
