"""Acceptance 6 and 5 (GUI path): the printer panel against the emulator shows temperatures and
progress updating; a print starts only after the person confirmed; a screenshot is kept."""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import tests.rigs.gui  # noqa: F401  (first: skips, or fails in CI, without PySide6/pyqtgraph)

# isort: split
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from tests.rigs.marlin_emulator import executed_commands, running_emulator
from tests.support.artifacts import artifact_folder
from tests.ui.conftest import gui_loop  # noqa: F401  (a qasync loop for start_task)
from workbench.ui.async_loop import running_tasks
from workbench_plugins.printing.printers import manager_for
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
    qtbot.waitUntil(lambda: running_tasks() == 0, timeout=5000)


def _finished_calls(panel: PrinterPanel, tool: str) -> list[dict[str, object]]:
    """Recorded calls of `tool` that have ended (a call is recorded when it starts)."""
    return [call for call in panel.context.store.tool_calls(tool) if call["ok"] is not None]


def answer(qtbot: QtBot, panel: PrinterPanel, button: QMessageBox.StandardButton) -> None:
    qtbot.waitUntil(lambda: panel.confirmation is not None and panel.confirmation.isVisible())
    box = panel.confirmation
    assert box is not None and "real machine" in box.text()
    qtbot.mouseClick(box.button(button), Qt.MouseButton.LeftButton)


def test_panel_streams_with_temperatures_progress_and_confirmation(
    qtbot: QtBot, panel: PrinterPanel, short_gcode: Path, tmp_path: Path
) -> None:
    log = tmp_path / "executed.log"
    gcode = tmp_path / "print.gcode"
    gcode.write_text("M104 S215\nM140 S60\n" + short_gcode.read_text())
    with running_emulator(log, command_delay_s=0.002, heat_rate_c_per_s=40.0) as printer:
        panel.printer.setEditText(printer.port)
        qtbot.mouseClick(panel.connect_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: panel.ready, timeout=10000)  # it answered M115

        # GUI path of acceptance 5: declining sends nothing of the file
        panel.print_file(str(gcode))
        answer(qtbot, panel, QMessageBox.StandardButton.No)
        qtbot.wait(300)
        assert "M104 S215" not in executed_commands(log)

        ticks: list[float] = []
        heartbeat = QTimer()
        heartbeat.timeout.connect(lambda: ticks.append(time.perf_counter()))
        heartbeat.start(10)
        panel.print_file(str(gcode))
        assert f"{gcode.resolve()} is outside the workspace" in panel.confirmation.text()
        answer(qtbot, panel, QMessageBox.StandardButton.Yes)
        # not sliced here from a ledger candidate: the gate refuses, the person overrides
        qtbot.waitUntil(lambda: panel.override is not None and panel.override.isVisible())
        assert "origin of print.gcode is unknown" in panel.override.labelText()
        panel.override.setTextValue("calibration print")
        panel.override.accept()
        qtbot.waitUntil(lambda: 0 < panel.progress.value() < 1000, timeout=10000)
        first = panel.progress.value()
        qtbot.waitUntil(lambda: panel.progress.value() > first, timeout=10000)
        qtbot.waitUntil(
            lambda: len(panel.samples) >= 3 and panel.samples[-1][1] > 100, timeout=10000
        )
        assert panel.grab().save(str(artifact_folder() / "printer_panel.png"))
        qtbot.waitUntil(lambda: panel.progress.value() == 1000, timeout=30000)
        heartbeat.stop()

    nozzle = [sample[1] for sample in panel.samples]
    assert nozzle[-1] > nozzle[0]  # the curve rose while heating
    assert panel.samples[-1][2] == 215.0 and panel.samples[-1][4] == 60.0
    assert executed_commands(log)[-1] == short_gcode.read_text().splitlines()[-1]
    gaps = [b - a for a, b in itertools.pairwise(ticks)]
    print(f"GUI heartbeat during streaming: max gap {max(gaps) * 1000:.1f} ms")
    assert (artifact_folder() / "printer_panel.png").stat().st_size > 1000
    printed = panel.context.store.tool_calls("upload_and_print")[-1]
    assert printed["ok"] and printed["arguments"]["override_reason"] == "calibration print"


def test_terminal_and_emergency_stop(qtbot: QtBot, panel: PrinterPanel, tmp_path: Path) -> None:
    log = tmp_path / "executed.log"
    with running_emulator(log) as printer:
        panel.printer.setEditText(printer.port)
        panel.connect_printer()
        qtbot.waitUntil(lambda: panel.ready, timeout=10000)  # it answered M115
        panel.command.setText("M105")
        panel.command.returnPressed.emit()
        qtbot.waitUntil(lambda: "ok T:" in panel.terminal.toPlainText(), timeout=5000)
        panel.emergency_stop()
        qtbot.waitUntil(lambda: printer.killed, timeout=5000)
        qtbot.waitUntil(lambda: panel.state.text() == "halted", timeout=5000)


def test_the_printers_button_opens_the_printer_profiles(qtbot: QtBot, panel: PrinterPanel) -> None:
    qtbot.mouseClick(panel.settings_button, Qt.MouseButton.LeftButton)
    dialog = panel.settings_dialog
    assert dialog is not None and dialog.isVisible()
    dialog.reject()
    qtbot.waitUntil(lambda: not dialog.isVisible())


def test_closing_the_window_while_a_usb_print_runs_asks_first(
    qtbot: QtBot, app: object, tmp_path: Path
) -> None:
    """The desktop app hosts the USB printers (its printer service); closing it would stop the
    print, so it asks, and only Yes closes (the service then stops the print, heaters off)."""
    from workbench.ui.main_window import MainWindow
    from workbench_plugins.printing.services import PrinterHostService

    service = PrinterHostService(app)  # type: ignore[arg-type]
    service.start()
    window = MainWindow(app, remember_layout=False, services=[service])  # type: ignore[arg-type]
    qtbot.addWidget(window)
    window.show()
    gcode = tmp_path / "long.gcode"
    gcode.write_text("".join(f"G1 X{i % 90} Y{i % 90}\n" for i in range(3000)))
    log = tmp_path / "executed.log"
    with running_emulator(log, command_delay_s=0.02) as printer:
        manager = manager_for(app)
        request = manager.serial("print", printer=printer.port, path=str(gcode))
        assert manager.submit(request).result(10)["state"] == "printing"

        assert not window.close()  # asked instead
        question = window.close_question
        assert question is not None and question.isVisible()
        assert f"the USB print of long.gcode on {printer.port}" in question.text()
        assert question.grab().save(str(artifact_folder() / "close_while_printing.png"))
        qtbot.mouseClick(question.button(QMessageBox.StandardButton.No), Qt.MouseButton.LeftButton)
        assert window.isVisible() and service.busy()  # still printing

        window.close()
        question = window.close_question
        assert question is not None
        qtbot.mouseClick(question.button(QMessageBox.StandardButton.Yes), Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: not window.isVisible())
        [said] = service.stop()
        assert said.startswith(f"Stopped the print of long.gcode on {printer.port}")
        assert {"M104 S0", "M140 S0"} <= set(executed_commands(log))


def test_a_refused_resume_offers_to_resume_from_a_layer(
    qtbot: QtBot, panel: PrinterPanel, short_gcode: Path, tmp_path: Path
) -> None:
    """Defect 4 (GUI side): the printer restarted mid-print, so Resume is refused; the panel shows
    the host's resume-from-layer offer with its steps and, on Yes, runs it."""
    log = tmp_path / "executed.log"
    with running_emulator(log, command_delay_s=0.004) as printer:
        panel.printer.setEditText(printer.port)
        panel.connect_printer()
        qtbot.waitUntil(lambda: panel.ready, timeout=10000)  # it answered M115
        manager = panel.manager
        request = manager.serial("print", printer=printer.port, path=str(short_gcode))
        assert manager.submit(request).result(10)["state"] == "printing"
        qtbot.waitUntil(lambda: panel.progress.value() > 500, timeout=30000)
        printer.send("start")  # the printer rebooted: it no longer knows where Z is
        qtbot.waitUntil(lambda: panel.state.text() == "paused", timeout=5000)

        panel.request_action("resume")
        answer(qtbot, panel, QMessageBox.StandardButton.Yes)
        qtbot.waitUntil(lambda: panel.offer is not None and panel.offer.isVisible(), timeout=10000)
        offer = panel.offer
        [refused] = panel.context.store.tool_calls("resume_print")
        assert not refused["ok"] and "Resume refused" in refused["error"]["message"]
        assert "resume_from_layer" in refused["error"]["message"]  # the agent is told the way
        assert "home X and Y only" in refused["error"]["message"]  # with every step
        assert "restarted" in offer.text() and "home X and Y only" in offer.text()
        assert panel.grab().save(str(artifact_folder() / "printer_panel_resume_offer.png"))
        assert offer.grab().save(str(artifact_folder() / "printer_resume_offer.png"))
        restarted_at = len(executed_commands(log))
        qtbot.mouseClick(offer.button(QMessageBox.StandardButton.Yes), Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: bool(_finished_calls(panel, "resume_from_layer")), timeout=30000)
        [resumed] = _finished_calls(panel, "resume_from_layer")
        assert resumed["ok"] and resumed["result"]["confirmed"], resumed
        assert resumed["result"]["state"] == "printing"
        assert "G28 X Y" in executed_commands(log)[restarted_at:]
        qtbot.waitUntil(lambda: panel.state.text() == "printing", timeout=5000)
        manager.submit(manager.serial("cancel", printer=printer.port)).result(30)
