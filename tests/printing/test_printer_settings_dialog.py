"""Issue 13, defect 8 (GUI): the Printers dialog edits per-printer settings (name, connection,
address, sign-in, storage, speed), keeps the key or password in the keyring under the entry it
names, and "Test connection" really connects: to the project's PrusaLink rig and to the Marlin
emulator on a pseudo-terminal, off the GUI thread. A screenshot is kept for a person to look at.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import tests.rigs.gui  # noqa: F401  (first: skips, or fails in CI, without PySide6/pyqtgraph)

# isort: split
import keyring
from keyring.backends import fail
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox, QLabel
from pytestqt.qtbot import QtBot

from tests.rigs.marlin_emulator import running_emulator
from tests.rigs.prusalink_server import running_prusalink
from tests.support.artifacts import artifact_folder
from tests.support.memory_keyring import MemoryKeyring
from tests.ui.conftest import gui_loop  # noqa: F401  (a qasync loop for start_task)
from workbench.core.context import AppContext
from workbench.core.secrets import forget_session_secret, get_secret, has_session_secret
from workbench.ui.async_loop import running_tasks
from workbench.ui.settings_form import ERROR_STYLE
from workbench_plugins.printing import doctor_checks
from workbench_plugins.printing.config import PrinterProfile, PrintingSettings
from workbench_plugins.printing.usb.serial_port import open_exclusive
from workbench_plugins.printing.views.printer_settings import (
    PrinterSettingsDialog,
    open_printer_settings,
)

KEY = "secret-key"  # the PrusaLink rig's API key
PASSWORD = "secret-pass"  # and its digest password


@pytest.fixture(autouse=True)
def short_timeouts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(doctor_checks, "SERIAL_TIMEOUT_S", 2.0)
    monkeypatch.setattr(doctor_checks, "HTTP_TIMEOUT_S", 2.0)


@pytest.fixture
def opened(qtbot: QtBot, context: AppContext) -> Iterator[Any]:
    """Open the dialog on the test's context (after the test set things up); close it after."""
    dialogs: list[PrinterSettingsDialog] = []

    def make() -> PrinterSettingsDialog:
        dialog = open_printer_settings(context, None)
        if not isinstance(dialog, PrinterSettingsDialog):
            raise TypeError(f"open_printer_settings returned {type(dialog).__name__}")
        qtbot.addWidget(dialog)
        qtbot.waitUntil(dialog.isVisible)
        dialogs.append(dialog)
        return dialog

    yield make
    for dialog in dialogs:
        dialog.close()
    qtbot.waitUntil(lambda: running_tasks() == 0, timeout=20000)


def saved_file(context: AppContext) -> dict[str, Any]:
    path = context.paths.settings_file
    return tomllib.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def press_save(qtbot: QtBot, dialog: PrinterSettingsDialog) -> None:
    button = dialog.buttons.button(QDialogButtonBox.StandardButton.Save)
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


def add_prusalink(dialog: PrinterSettingsDialog, url: str, *, digest: bool = False) -> None:
    qtbot_free_click(dialog.add_button)
    editor = dialog.editor
    editor.name.setText("MK3S lab")
    editor.transport.setCurrentIndex(editor.transport.findData("prusalink"))
    editor.url.setText(url)
    editor.auth.setCurrentIndex(editor.auth.findData("digest" if digest else "api_key"))
    editor.user.setText("maker")


def qtbot_free_click(button: Any) -> None:
    button.click()  # a plain click: no pointer needed for a button that is not under test


def error_under(dialog: PrinterSettingsDialog, key: str) -> str:
    label = dialog.editor.findChild(QLabel, f"error:{key}")
    assert label is not None, f"no error label for {key}"
    return label.text() if label.isVisible() else ""


def test_a_prusalink_printer_is_saved_with_its_password_in_the_keyring(
    qtbot: QtBot, opened: Any, context: AppContext, memory_keyring: MemoryKeyring
) -> None:
    dialog = opened()
    add_prusalink(dialog, "http://192.168.1.20/", digest=True)
    dialog.editor.storage.setText("usb")
    dialog.editor.secret.setText("digest-password")
    entry = "prusalink:http://192.168.1.20:password"
    dialog.editor.url.editingFinished.emit()
    assert f"service 'workbench', entry '{entry}'" in dialog.editor.secret_entry.text()
    assert "not stored yet" in dialog.editor.secret_entry.text()
    with qtbot.waitSignal(dialog.accepted, timeout=5000):
        press_save(qtbot, dialog)

    [printer] = saved_file(context)["plugins"]["printing"]["printers"]
    assert printer == {
        "name": "MK3S lab",
        "address": "http://192.168.1.20",
        "auth": "digest",
        "user": "maker",
        "storage": "usb",
        "baudrate": 115200,
    }
    assert "digest-password" not in context.paths.settings_file.read_text(encoding="utf-8")
    assert memory_keyring.secrets[("workbench", entry)] == "digest-password"
    # the app sees the profile, its entry is the one the dialog named
    profile = context.settings.plugin("printing", PrintingSettings).profile("MK3S lab")
    assert profile.secret_key == entry

    again = opened()  # reopened: the key is not shown, only that it is stored
    assert again.editor.secret.text() == ""
    assert "stored there" in again.editor.secret_entry.text()


def test_wrong_fields_are_named_under_them_and_nothing_is_saved(
    qtbot: QtBot, opened: Any, context: AppContext
) -> None:
    dialog = opened()
    dialog.add_button.click()
    dialog.editor.name.setText("bench printer")
    dialog.editor.baudrate.setEditText("fast")
    press_save(qtbot, dialog)
    assert dialog.isVisible() and saved_file(context) == {}
    assert error_under(dialog, "port") == "Enter the printer's serial port or PrusaLink address."
    assert error_under(dialog, "baudrate").startswith("A whole number")
    assert "Not saved. Fix 2 field(s)" in dialog.summary.text()
    # nothing typed was lost
    assert dialog.editor.name.text() == "bench printer"
    assert dialog.editor.baudrate.currentText() == "fast"

    dialog.editor.port.setEditText("/dev/ttyACM0")
    dialog.editor.baudrate.setEditText("250000")
    with qtbot.waitSignal(dialog.accepted, timeout=5000):
        press_save(qtbot, dialog)
    [printer] = saved_file(context)["plugins"]["printing"]["printers"]
    assert printer["address"] == "/dev/ttyACM0" and printer["baudrate"] == 250000


def test_a_url_without_scheme_and_a_duplicate_name_are_refused(
    qtbot: QtBot, opened: Any, context: AppContext
) -> None:
    context.settings = context.settings.with_plugin(
        "printing", PrintingSettings(printers=[PrinterProfile(name="MK3S lab", address="/dev/x")])
    )
    dialog = opened()
    add_prusalink(dialog, "192.168.1.20")
    press_save(qtbot, dialog)
    assert (
        error_under(dialog, "url") == "Start the address with http:// (e.g. http://192.168.1.20)."
    )
    dialog.editor.url.setText("http://192.168.1.20")
    press_save(qtbot, dialog)
    assert error_under(dialog, "name") == "Another printer is already called 'MK3S lab'."
    assert saved_file(context) == {}


def test_without_a_keyring_the_dialog_says_so_and_saves_the_rest(
    qtbot: QtBot, opened: Any, context: AppContext
) -> None:
    keyring.set_keyring(fail.Keyring())  # keyring's own "no backend"
    dialog = opened()
    assert dialog.keyring.isVisible()
    assert "No system keyring" in dialog.keyring.text()
    assert "pip install keyrings.alt" in dialog.keyring.toolTip()  # the advice, not a wall
    assert dialog.keyring.styleSheet() != ERROR_STYLE  # a fact of the box, not an error
    assert "Saved to" not in " ".join(label.text() for label in dialog.findChildren(QLabel))
    dialog.session_keys.setChecked(False)  # declined: the key cannot be stored
    add_prusalink(dialog, "http://192.168.1.20")
    dialog.editor.secret.setText("typed-key")
    press_save(qtbot, dialog)

    [printer] = saved_file(context)["plugins"]["printing"]["printers"]
    assert printer["address"] == "http://192.168.1.20"  # the other edits are saved
    assert dialog.isVisible()  # but the dialog stays, saying why the key is not stored
    message = error_under(dialog, "secret")
    assert "service 'workbench', entry 'prusalink:http://192.168.1.20:api_key'" in message
    assert "keyrings.alt" in message
    assert dialog.editor.secret.text() == "typed-key"  # still typed, not lost
    assert "typed-key" not in context.paths.settings_file.read_text(encoding="utf-8")


def test_without_a_keyring_a_key_is_kept_for_this_session_only(
    qtbot: QtBot, opened: Any, context: AppContext
) -> None:
    keyring.set_keyring(fail.Keyring())
    dialog = opened()
    assert dialog.session_keys.isVisible() and dialog.session_keys.isChecked()
    add_prusalink(dialog, "http://192.168.1.20")
    dialog.editor.secret.setText("typed-key")
    assert dialog.grab().save(str(artifact_folder("printing") / "printers-no-keyring.png"))
    entry = "prusalink:http://192.168.1.20:api_key"
    try:
        with qtbot.waitSignal(dialog.accepted, timeout=5000):
            press_save(qtbot, dialog)
        assert has_session_secret(entry) and get_secret(entry) == "typed-key"
        assert "typed-key" not in context.paths.settings_file.read_text(encoding="utf-8")
    finally:
        forget_session_secret(entry)


def test_bare_addresses_from_settings_are_listed_and_kept_where_they_are(
    qtbot: QtBot, opened: Any, context: AppContext
) -> None:
    context.settings.printers = ["/dev/ttyUSB3"]
    dialog = opened()
    assert dialog.printers.item(0).text() == "/dev/ttyUSB3  (from Settings: Printers)"
    dialog.remove_button.click()
    assert dialog.printers.count() == 1  # removed where it is configured, not here
    assert "remove it there" in dialog.status.text()
    with qtbot.waitSignal(dialog.accepted, timeout=5000):
        press_save(qtbot, dialog)
    assert saved_file(context)["plugins"]["printing"]["printers"] == []


def run_test(qtbot: QtBot, dialog: PrinterSettingsDialog) -> str:
    qtbot.mouseClick(dialog.editor.test_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.tests_running == 0, timeout=20000)
    return dialog.editor.test_result.text()


def test_connection_to_prusalink_with_the_right_and_a_wrong_key(
    qtbot: QtBot, opened: Any, context: AppContext, memory_keyring: MemoryKeyring
) -> None:
    with running_prusalink() as server:
        dialog = opened()
        add_prusalink(dialog, server.url)
        dialog.editor.secret.setText("not-the-key")
        result = run_test(qtbot, dialog)
        entry = f"prusalink:{server.url}:api_key"
        assert result.startswith("Failed: bad key") and entry in result
        assert "not-the-key" not in result

        dialog.editor.secret.setText(KEY)
        server.printer.stall_next = [1.0]  # a slow printer: the dialog must not wait for it
        qtbot.mouseClick(dialog.editor.test_button, Qt.MouseButton.LeftButton)
        # the click returned while the check still waits for the answer: it runs off this thread
        assert dialog.tests_running == 1
        assert dialog.editor.test_result.text() == f"Testing {server.url}…"
        assert not dialog.editor.test_button.isEnabled()
        qtbot.waitUntil(lambda: dialog.tests_running == 0, timeout=20000)
        result = dialog.editor.test_result.text()
        assert result.startswith("Connected: PrusaLink"), result
        assert "key accepted" in result
        assert ("GET", "/api/version") in server.printer.requests
    assert memory_keyring.secrets[("workbench", entry)] == KEY  # stored to be tested


def test_connection_to_prusalink_with_digest(
    qtbot: QtBot, opened: Any, context: AppContext
) -> None:
    with running_prusalink() as server:
        dialog = opened()
        add_prusalink(dialog, server.url, digest=True)
        dialog.editor.secret.setText(PASSWORD)
        assert run_test(qtbot, dialog).startswith("Connected: PrusaLink")


def test_connection_to_a_usb_printer_and_to_a_busy_port(
    qtbot: QtBot, opened: Any, context: AppContext, tmp_path: Path
) -> None:
    with running_emulator(tmp_path / "executed.log") as printer:
        dialog = opened()
        dialog.add_button.click()
        dialog.editor.port.setEditText(printer.port)
        result = run_test(qtbot, dialog)
        assert result.startswith("Connected: answered M115"), result
        assert "FIRMWARE_NAME:Prusa-Firmware" in result

        held = open_exclusive(printer.port, 115200, timeout=1, write_timeout=1)
        try:  # another program holds the port: it may be printing, so it is left alone
            result = run_test(qtbot, dialog)
        finally:
            held.close()
        assert result.startswith("Not tested") and "a print may be running" in result


def test_screenshot_of_the_dialog(qtbot: QtBot, opened: Any, context: AppContext) -> None:
    context.settings.printers = ["/dev/ttyACM0"]
    with running_prusalink() as server:
        dialog = opened()
        dialog.resize(860, 560)
        add_prusalink(dialog, server.url)
        dialog.editor.secret.setText(KEY)
        assert run_test(qtbot, dialog).startswith("Connected")
        path = artifact_folder() / "printer_settings.png"
        assert dialog.grab().save(str(path))
    assert path.stat().st_size > 10_000
