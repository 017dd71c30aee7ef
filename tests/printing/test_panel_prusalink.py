"""Issue 14, printer panel and PrusaLink: a key problem is said once over many polls (not every
2 s in the terminal, nor as a tool call the chat notes), with the ways on (the Printers dialog,
a key kept for this session only); with no keyring backend it says what to install, and a
session-only key then reaches the real PrusaLink; polling a printer that does not answer backs
off (the scheduled intervals are checked, not wall time), and a person's action resets it.
"""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import tests.rigs.gui  # noqa: F401  (first: skips, or fails in CI, without PySide6/pyqtgraph)

# isort: split
import keyring
from keyring.backends import fail
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from tests.rigs.real_prusalink import RealPrusaLink
from tests.support.artifacts import artifact_folder
from tests.ui.conftest import gui_loop  # noqa: F401  (a qasync loop for start_task)
from workbench.core import secrets
from workbench.core.context import AppContext
from workbench.ui.async_loop import running_tasks
from workbench_plugins.printing.config import PrinterProfile, PrintingSettings
from workbench_plugins.printing.prusalink import access as prusalink_access
from workbench_plugins.printing.views import PrinterPanel
from workbench_plugins.printing.views.prusalink_watch import Backoff

MakePanel = Callable[[PrinterProfile], PrinterPanel]


def closed_port_url() -> str:
    """A URL nothing listens on (connections are refused at once)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{probe.getsockname()[1]}"


@pytest.fixture
def make_panel(qtbot: QtBot, app: AppContext) -> Iterator[MakePanel]:
    """A printer panel with `profile` as the one configured printer (preselected)."""
    made: list[tuple[PrinterPanel, PrinterProfile]] = []

    def make(profile: PrinterProfile) -> PrinterPanel:
        app.settings = app.settings.with_plugin("printing", PrintingSettings(printers=[profile]))
        panel = PrinterPanel(app)
        qtbot.addWidget(panel)
        panel.resize(900, 700)
        panel.show()
        assert panel.name == profile.name
        made.append((panel, profile))
        return panel

    yield make
    for panel, profile in made:
        secrets.forget_session_secret(profile.secret_key)
        panel.close()
    qtbot.waitUntil(lambda: running_tasks() == 0, timeout=20000)


def poll(qtbot: QtBot, panel: PrinterPanel, times: int) -> None:
    """Poll `times` more times now (as the timer would, without waiting for it)."""
    for _ in range(times):
        wanted = panel.watch.polls + 1
        panel.watch.poll_now()
        qtbot.waitUntil(lambda wanted=wanted: panel.watch.polls == wanted, timeout=20000)


def connect(qtbot: QtBot, panel: PrinterPanel) -> None:
    done = panel.watch.polls
    qtbot.mouseClick(panel.connect_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: panel.watch.polls == done + 1, timeout=20000)


def test_a_missing_key_is_said_once_over_many_polls(
    qtbot: QtBot, make_panel: MakePanel, app: AppContext
) -> None:
    profile = PrinterProfile(name="MK4 lab", address=closed_port_url())
    panel = make_panel(profile)
    connect(qtbot, panel)
    poll(qtbot, panel, 4)
    said = panel.terminal.toPlainText()
    assert said.count("No PrusaLink API key") == 1, said
    assert not panel.print_button.isEnabled() and not panel.ready
    notice = panel.notice
    assert notice.isVisible() and "No PrusaLink API key" in notice.text.text()
    assert notice.enter_key.isVisible() and notice.session_key.isVisible()
    assert app.store.tool_calls("get_printer_status") == []  # polls are no tool calls (chat)
    assert panel.grab().save(str(artifact_folder() / "printer_panel_missing_key.png"))

    qtbot.mouseClick(notice.enter_key, Qt.MouseButton.LeftButton)
    dialog = panel.settings_dialog
    assert dialog is not None and dialog.isVisible()
    assert dialog.editor.url.text() == profile.address  # type: ignore[attr-defined]
    dialog.reject()
    qtbot.waitUntil(lambda: not dialog.isVisible())


def test_polling_a_printer_that_does_not_answer_backs_off(
    qtbot: QtBot, make_panel: MakePanel
) -> None:
    profile = PrinterProfile(name="MK3S far", address=closed_port_url())
    secrets.keep_for_session(profile.secret_key, "some-key")  # the key is not the problem here
    panel = make_panel(profile)
    connect(qtbot, panel)
    poll(qtbot, panel, 5)
    assert panel.watch.scheduled_s == [4.0, 8.0, 16.0, 32.0, 60.0, 60.0]
    assert panel.watch.interval_s == 60.0  # the timer really is set that far
    said = panel.terminal.toPlainText()
    assert said.count("MK3S far does not answer") == 1, said
    assert "at most every 60 s" in said

    connect(qtbot, panel)  # a person's action starts again from the shortest interval
    assert panel.watch.scheduled_s[-1] == 4.0
    assert panel.terminal.toPlainText().count("MK3S far does not answer") == 2


def test_backoff_doubles_up_to_its_cap_and_an_answer_resets_it() -> None:
    backoff = Backoff(base_s=2.0, cap_s=60.0)
    assert [backoff.failed() for _ in range(6)] == [4.0, 8.0, 16.0, 32.0, 60.0, 60.0]
    assert backoff.reset() == 2.0 and backoff.failed() == 4.0


def test_a_session_key_is_used_even_without_a_keyring_and_never_stored() -> None:
    """get_secret consults the session's keys first (a keyring that fails is not asked);
    storing a key in the keyring later replaces the session's."""
    profile = PrinterProfile(name="p", address="http://192.0.2.7")
    entry = profile.secret_key
    memory = keyring.get_keyring()
    secrets.keep_for_session(entry, "session-key")
    try:
        keyring.set_keyring(fail.Keyring())
        assert secrets.get_secret(entry) == "session-key"
        keyring.set_keyring(memory)
        assert keyring.get_password(secrets.SERVICE, entry) is None  # written nowhere
        secrets.set_secret(entry, "stored-key")
        assert not secrets.has_session_secret(entry)
        assert secrets.get_secret(entry) == "stored-key"
    finally:
        keyring.set_keyring(memory)
        secrets.forget_session_secret(entry)
    secrets.delete_secret(entry)
    with pytest.raises(prusalink_access.MissingSecret):
        prusalink_access.prusalink_client(profile)


@pytest.fixture
def link(real_prusalink: RealPrusaLink) -> RealPrusaLink:
    """The session's PrusaLink (tests/printing/conftest.py), idle: a print that another test
    stopped shows STOPPED for 11 s."""
    real_prusalink.wait_until_idle(30)
    return real_prusalink


@pytest.mark.slow  # the real PrusaLink takes ~10 s to come up
def test_without_a_keyring_it_says_what_to_install_once_and_a_session_key_reaches_prusalink(
    qtbot: QtBot, make_panel: MakePanel, link: RealPrusaLink, app: AppContext
) -> None:
    keyring.set_keyring(fail.Keyring())  # as on a headless Debian box (the fixture restores)
    profile = PrinterProfile(name="MK3S rig", address=link.url)
    panel = make_panel(profile)
    connect(qtbot, panel)
    poll(qtbot, panel, 3)
    said = panel.terminal.toPlainText()
    assert said.count("no usable keyring") == 1, said
    assert said.count(secrets.keyring_advice()) == 1
    assert panel.watch.scheduled_s == [4.0, 8.0, 16.0, 32.0]
    notice = panel.notice
    assert notice.session_key.isVisible() and not notice.enter_key.isVisible()
    assert not panel.print_button.isEnabled()
    assert panel.grab().save(str(artifact_folder() / "printer_panel_no_keyring.png"))

    qtbot.mouseClick(notice.session_key, Qt.MouseButton.LeftButton)
    dialog = panel.key_dialog
    assert dialog is not None and dialog.isVisible()
    dialog.setTextValue(link.api_key)
    dialog.accept()
    qtbot.waitUntil(lambda: panel.ready, timeout=20000)  # its status was read with that key
    assert panel.watch.scheduled_s[-1] == 2.0  # answered: back to the normal interval
    assert panel.print_button.isEnabled() and not notice.isVisible()
    assert panel.found.text().startswith("MK3S rig answers (PrusaLink): ")
    assert panel.state.text() == "idle"
    assert secrets.has_session_secret(profile.secret_key)
    settings_file = app.paths.settings_file
    assert not settings_file.exists() or link.api_key not in settings_file.read_text()
    assert not any(link.api_key in path.read_text(errors="replace") for path in _written(app))


def _written(app: AppContext) -> list[Path]:
    """Every text file the app wrote in its home (the key must be in none)."""
    home = app.paths.settings_file.parent
    return [path for path in home.rglob("*") if path.is_file() and path.stat().st_size < 10**6]
