"""Issue 13, defect 8: the Settings dialog's generated form for [plugins.printing] leaves the
printer profiles to the Printers dialog (no JSON field to mangle them), and OK keeps what that
dialog saved while the Settings dialog was open."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import tests.rigs.gui  # noqa: F401  (first: skips, or fails in CI, without PySide6/pyqtgraph)

# isort: split
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox, QLabel, QLineEdit
from pytestqt.qtbot import QtBot

from tests.ui.conftest import gui_loop  # noqa: F401  (a qasync loop for start_task)
from workbench.core.context import AppContext
from workbench.ui.async_loop import running_tasks
from workbench.ui.settings_dialog import SettingsDialog
from workbench_plugins.printing.config import PrinterProfile, PrintingSettings
from workbench_plugins.printing.views.printer_settings import PrinterSettingsDialog

OPEN_PRINTERS = "workbench_plugins.printing.views.printer_settings:open_printer_settings"
TWO = [
    PrinterProfile(name="MK3S lab", address="http://192.168.1.20", storage="usb"),
    PrinterProfile(name="MINI", address="http://192.168.1.21", auth="digest", user="me"),
]


@pytest.fixture
def settings_dialog(qtbot: QtBot, context: AppContext) -> Iterator[SettingsDialog]:
    if "printing" not in {plugin.name for plugin in context.plugins}:
        raise RuntimeError("the printing plugin is not installed (pip install -e .)")
    context.settings = context.settings.with_plugin(
        "printing", PrintingSettings(printers=TWO, slice_timeout_s=300)
    )
    context.save_settings()
    dialog = SettingsDialog(context)
    qtbot.addWidget(dialog)
    dialog.show()
    yield dialog
    qtbot.waitUntil(lambda: running_tasks() == 0, timeout=10000)


def test_printers_are_a_count_and_survive_ok_untouched(
    qtbot: QtBot, settings_dialog: SettingsDialog, context: AppContext
) -> None:
    assert settings_dialog.findChild(QLineEdit, "setting:plugins.printing.printers") is None
    label = settings_dialog.findChild(QLabel, "kept:plugins.printing.printers")
    assert label is not None and label.text().startswith("2 configured")

    # the printers dialog saves a third printer while the Settings dialog is open
    printers = settings_dialog.open_editor("printing", OPEN_PRINTERS)
    assert isinstance(printers, PrinterSettingsDialog)
    printers.add_button.click()
    printers.editor.port.setEditText("/dev/ttyACM0")
    with qtbot.waitSignal(printers.accepted, timeout=5000):
        printers.buttons.button(QDialogButtonBox.StandardButton.Save).click()
    assert label.text().startswith("3 configured")

    timeout = settings_dialog.findChild(QLineEdit, "setting:plugins.printing.slice_timeout_s")
    assert timeout is not None
    timeout.setText("450")
    with qtbot.waitSignal(settings_dialog.accepted, timeout=5000):
        ok = settings_dialog.buttons.button(QDialogButtonBox.StandardButton.Ok)
        qtbot.mouseClick(ok, Qt.MouseButton.LeftButton)
    reopened = AppContext.open()
    try:
        printing = reopened.settings.plugin("printing", PrintingSettings)
    finally:
        reopened.close()
    assert printing.slice_timeout_s == 450
    assert printing.printers == [*TWO, PrinterProfile(address="/dev/ttyACM0")]
