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
from workbench_plugins.printing.views import PrinterPanel


@pytest.fixture
def panel(qtbot: QtBot, app: object) -> Iterator[PrinterPanel]:  # gui_loop is autouse
    widget = PrinterPanel(app)  # type: ignore[arg-type]
    qtbot.addWidget(widget)
    widget.resize(900, 700)
    widget.show()
    yield widget
    widget.close()
    qtbot.waitUntil(lambda: running_tasks() == 0, timeout=5000)


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
        qtbot.waitUntil(lambda: panel.state.text() == "idle", timeout=5000)

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
        qtbot.waitUntil(lambda: panel.state.text() == "idle", timeout=5000)
        panel.command.setText("M105")
        panel.command.returnPressed.emit()
        qtbot.waitUntil(lambda: "ok T:" in panel.terminal.toPlainText(), timeout=5000)
        panel.emergency_stop()
        qtbot.waitUntil(lambda: printer.killed, timeout=5000)
        qtbot.waitUntil(lambda: panel.state.text() == "halted", timeout=5000)
