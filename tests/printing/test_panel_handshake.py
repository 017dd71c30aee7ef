"""Issue 14, printer panel (acceptance 3): a USB printer counts as connected only once it answered
M115. On the Marlin emulator the print controls stay disabled until its firmware line came, and
the panel says what answered; on a pseudo-terminal with nothing behind it Connect is refused with
the reason and the port is released. Likely printers are offered first; the machine's built-in
/dev/ttyS0 is marked unlikely and never preselected; with no printer chosen nothing can print.
Screenshots of the panel before and after the handshake are kept.
"""

from __future__ import annotations

import os
import threading
import tty
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

import tests.rigs.gui  # noqa: F401  (first: skips, or fails in CI, without PySide6/pyqtgraph)

# isort: split
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from tests.rigs.marlin_emulator import MarlinEmulator, executed_commands
from tests.support.artifacts import artifact_folder
from tests.ui.conftest import gui_loop  # noqa: F401  (a qasync loop for start_task)
from workbench.ui.async_loop import running_tasks
from workbench_plugins.printing.config import PrinterProfile, PrintingSettings
from workbench_plugins.printing.printers import manager_for
from workbench_plugins.printing.usb.emulator import EmulatorOptions
from workbench_plugins.printing.usb.port_scan import SerialPort, list_serial_ports
from workbench_plugins.printing.views import PrinterPanel


@pytest.fixture
def panel(qtbot: QtBot, app: object) -> Iterator[PrinterPanel]:  # gui_loop is autouse
    manager_for(app).host_here()  # as the desktop app does when no other process hosts
    widget = PrinterPanel(app)  # type: ignore[arg-type]
    qtbot.addWidget(widget)
    widget.resize(900, 700)
    widget.show()
    yield widget
    widget.close()
    qtbot.waitUntil(lambda: running_tasks() == 0, timeout=10000)


def print_controls(panel: PrinterPanel) -> list[QWidget]:
    return [panel.print_button, *panel.action_buttons.values(), panel.command]


def enabled(panel: PrinterPanel) -> list[bool]:
    return [widget.isEnabled() for widget in print_controls(panel)]


@dataclass
class HeldM115Emulator(MarlinEmulator):
    """The Marlin emulator (the real one, on a pty), whose firmware holds its answer to M115
    until the test releases it: a printer slow to answer, without timing anything."""

    asked: threading.Event = field(default_factory=threading.Event)
    release: threading.Event = field(default_factory=threading.Event)

    def _receive(self, line: str) -> None:
        if "M115" in line.split("*")[0]:
            self.asked.set()
            self.release.wait(30)
        super()._receive(line)


def test_print_controls_stay_disabled_until_the_printer_answers_m115(
    qtbot: QtBot, panel: PrinterPanel, tmp_path: Path
) -> None:
    log = tmp_path / "executed.log"
    printer = HeldM115Emulator(EmulatorOptions(), log_path=log).start()
    try:
        panel.printer.setEditText(printer.port)
        assert enabled(panel) == [False] * 5  # chosen, not connected
        qtbot.mouseClick(panel.connect_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(printer.asked.is_set, timeout=10000)
        qtbot.waitUntil(lambda: panel.state.text() == "idle", timeout=10000)  # the port is open
        qtbot.wait(200)  # let any event in flight arrive: still nothing may be enabled
        assert enabled(panel) == [False] * 5 and not panel.ready
        assert "for the firmware's answer to M115" in panel.found.text()
        assert panel.grab().save(str(artifact_folder() / "printer_panel_before_handshake.png"))
        gcode = tmp_path / "cube.gcode"
        gcode.write_text("G28\nG1 Z0.2 F3000\nG1 X10 Y10 E1 F1200\nG1 X20 Y10 E2\n")
        panel.print_file(str(gcode))  # a call from elsewhere is refused too
        assert panel.confirmation is None
        assert "has not answered yet" in panel.terminal.toPlainText()

        printer.release.set()
        qtbot.waitUntil(lambda: panel.ready, timeout=10000)
        assert enabled(panel) == [True] * 5
        assert panel.found.text() == (
            f"{printer.port} answered M115: Prusa-Firmware 3.13.3 (emulated) on a Prusa i3 MK3S."
        )
        assert panel.terminal.toPlainText().count("Printing is possible now") == 1
        assert panel.grab().save(str(artifact_folder() / "printer_panel_after_handshake.png"))

        panel.printer.setEditText("/dev/ttyOTHER")  # another printer: it has not answered
        assert enabled(panel) == [False] * 5
        panel.printer.setEditText(printer.port)
        assert enabled(panel) == [True] * 5
        assert "M115" in executed_commands(log)
    finally:
        printer.release.set()
        printer.stop()


@pytest.fixture
def silent_port() -> Iterator[str]:
    """A pseudo-terminal with nothing behind it: it opens, takes bytes, never answers."""
    master, slave = os.openpty()
    tty.setraw(slave)
    try:
        yield os.ttyname(slave)
    finally:
        os.close(master)
        os.close(slave)


def test_connect_is_refused_on_a_port_that_does_not_answer(
    qtbot: QtBot, panel: PrinterPanel, silent_port: str, tmp_path: Path
) -> None:
    panel.handshake.timeout_s = 1.0  # waited for, not measured
    panel.printer.setEditText(silent_port)
    qtbot.mouseClick(panel.connect_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "No answer to M115" in panel.found.text(), timeout=20000)
    assert panel.found.text().startswith(
        f"No answer to M115 from {silent_port} within 1 s: not a printer, or the wrong baud rate "
        "(115200 now;"
    )
    assert enabled(panel) == [False] * 5 and not panel.ready
    qtbot.waitUntil(lambda: panel.state.text() == "not connected", timeout=10000)  # released
    listed = panel.manager.submit(panel.manager.serial("list")).result(10)
    assert silent_port not in [printer["port"] for printer in listed["printers"]]
    panel.request_action("pause")
    assert panel.confirmation is None  # nothing is asked, nothing sent
    assert panel.connect_button.isEnabled()  # the person may try again (another baud rate)


def test_likely_printers_come_first_and_ttys0_is_never_preselected(
    panel: PrinterPanel, app: object
) -> None:
    ports = [
        SerialPort("/dev/ttyS0"),
        SerialPort("/dev/ttyUSB3", 0x0BDA, 0x8153, "USB Ethernet"),
        SerialPort("/dev/ttyACM0", 0x2C99, 0x0002, "Original Prusa i3 MK3"),
        SerialPort("/dev/ttyUSB0", 0x1A86, 0x7523, "USB Serial"),
    ]
    panel.printer.fill([], ports)
    labels = [panel.printer.itemText(row) for row in range(panel.printer.count())]
    assert [label for label in labels if label] == [
        "/dev/ttyACM0 (Prusa Research)",
        "/dev/ttyUSB0 (CH340 USB-serial: many Marlin boards)",
        "/dev/ttyUSB3 (unlikely a printer)",
        "/dev/ttyS0 (unlikely a printer)",
    ]
    assert panel.name == "/dev/ttyACM0"  # the likely printer is preselected, by its port

    panel.printer.setEditText("")
    panel.printer.fill([], [SerialPort("/dev/ttyS0")])  # as on this machine: nothing likely
    assert panel.name == "" and panel.printer.currentText() == ""
    assert not panel.connect_button.isEnabled() and enabled(panel) == [False] * 5
    assert panel.printer.kind_of("/dev/ttyS0 (unlikely a printer)") == "unlikely"

    context = app  # a configured printer comes before every port, and is preselected
    context.settings = context.settings.with_plugin(  # type: ignore[attr-defined]
        "printing", PrintingSettings(printers=[PrinterProfile(name="MK3S lab", address="/dev/x")])
    )
    panel._profiles_changed()  # as when the Printers dialog closes
    assert panel.printer.itemText(0) == "MK3S lab" and panel.name == "MK3S lab"


def test_this_machines_ports_without_usb_ids_are_marked_unlikely(panel: PrinterPanel) -> None:
    """Whatever ports this machine has (here /dev/ttyS0): none without USB ids is offered as a
    printer, and none is preselected when no port is likely."""
    found = list_serial_ports()
    panel.printer.setEditText("")
    panel.printer.fill([])
    for port in found:
        if port.vid is None:
            assert panel.printer.findText(f"{port.device} (unlikely a printer)") >= 0
    if all(port.vid is None for port in found):
        assert panel.name == ""


def test_with_no_printer_chosen_nothing_can_print(
    qtbot: QtBot, panel: PrinterPanel, tmp_path: Path
) -> None:
    """Defect: "Start printing FILE on ?" was asked with no printer chosen."""
    panel.printer.setEditText("")
    assert panel.name == ""
    assert enabled(panel) == [False] * 5
    assert not panel.connect_button.isEnabled() and not panel.estop.isEnabled()
    gcode = tmp_path / "cube.gcode"
    gcode.write_text("G28\n")
    panel.print_file(str(gcode))
    assert panel.confirmation is None
    assert "Choose a printer first" in panel.terminal.toPlainText()
