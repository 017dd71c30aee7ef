"""The printer panel: connect, temperatures, progress, pause/resume/stop/emergency stop, terminal.

Physical actions go through the tool registry (the same calls the agent makes) and only after the
person confirmed in a non-modal dialog; the emergency stop is the one exception, since it makes
the machine safer. Serial I/O runs on the printers' own loop; the panel awaits it with start_task
and hears back through PrinterEvents on the bus (subscribe_in_gui), so the GUI thread never waits.
The G-code chosen for printing is shown layer by layer in a GcodePreview.
"""

from __future__ import annotations

import time
from collections import deque
from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QFileDialog,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from workbench.core.context import AppContext
from workbench.ui.async_loop import start_task
from workbench.ui.bridge import subscribe_in_gui
from workbench_plugins.printing import gate
from workbench_plugins.printing.printers import PrinterEvent, is_url, manager_for
from workbench_plugins.printing.views.gcode_preview import GcodePreview

HISTORY_S = 600.0  # how much temperature history the plot keeps
POLL_MS = 2000  # PrusaLink status polling


def _serial_ports() -> list[str]:
    try:
        from serial.tools import list_ports

        return [port.device for port in list_ports.comports()]
    except Exception:  # no pyserial or no ports: the user types one
        return []


class PrinterPanel(QWidget):
    def __init__(self, context: AppContext) -> None:
        super().__init__()
        self.context = context
        self.manager = manager_for(context)
        self.confirmation: QMessageBox | None = None
        self.override: QInputDialog | None = None  # asking for a reason to pass the print gate
        self.samples: deque[tuple[float, float, float, float, float]] = deque()
        self._started = time.monotonic()
        self.setObjectName("printer-panel")

        self.printer = QComboBox(editable=True)
        self.printer.addItems(self.manager.known() + _serial_ports())
        self.connect_button = QPushButton("Connect")
        self.connect_button.clicked.connect(self.connect_printer)
        self.state = QLabel("not connected")
        top = QHBoxLayout()
        top.addWidget(self.printer, 1)
        top.addWidget(self.connect_button)
        top.addWidget(self.state)

        self.plot = pg.PlotWidget(title="Temperatures (°C)")
        self.plot.addLegend()
        self.curves = {
            name: self.plot.plot(name=name, pen=pg.mkPen(colour, style=style, width=2))
            for name, colour, style in [
                ("nozzle", "r", pg.QtCore.Qt.PenStyle.SolidLine),
                ("nozzle target", "r", pg.QtCore.Qt.PenStyle.DashLine),
                ("bed", "b", pg.QtCore.Qt.PenStyle.SolidLine),
                ("bed target", "b", pg.QtCore.Qt.PenStyle.DashLine),
            ]
        }
        self.progress = QProgressBar()
        self.progress.setRange(0, 1000)
        self.time_left = QLabel("")
        progress_row = QHBoxLayout()
        progress_row.addWidget(self.progress, 1)
        progress_row.addWidget(self.time_left)

        buttons = QHBoxLayout()
        self.print_button = QPushButton("Print G-code…")
        self.print_button.clicked.connect(self._choose_file)
        buttons.addWidget(self.print_button)
        for action in ("pause", "resume", "cancel"):
            button = QPushButton(action.capitalize() if action != "cancel" else "Stop")
            button.clicked.connect(lambda _=False, a=action: self.request_action(a))
            buttons.addWidget(button)
        self.estop = QPushButton("EMERGENCY STOP")
        self.estop.setStyleSheet("background: #c00; color: white; font-weight: bold")
        self.estop.clicked.connect(self.emergency_stop)
        buttons.addWidget(self.estop)

        self.terminal = QPlainTextEdit(readOnly=True)
        self.terminal.setMaximumBlockCount(2000)
        self.command = QLineEdit(placeholderText="G-code, e.g. M105 (Enter sends)")
        self.command.returnPressed.connect(self._send_typed)

        self.preview = GcodePreview()
        views = QHBoxLayout()
        views.addWidget(self.plot, 1)
        views.addWidget(self.preview, 1)

        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addLayout(views, 2)
        layout.addLayout(progress_row)
        layout.addLayout(buttons)
        layout.addWidget(self.terminal, 1)
        layout.addWidget(self.command)

        subscribe_in_gui(context.bus, PrinterEvent, self._on_event, self)
        self._poll = QTimer(self)
        self._poll.timeout.connect(self._poll_prusalink)

    @property
    def name(self) -> str:
        return self.printer.currentText().strip()

    # -- connection ---------------------------------------------------------------------------
    def connect_printer(self) -> None:
        name = self.name
        if not name:
            self.say("Choose a serial port or a PrusaLink URL first.")
            return
        if is_url(name):
            self._poll.start(POLL_MS)
            self._poll_prusalink()
            return
        self.state.setText("connecting…")
        start_task(self._connect_serial(name), name="printer-connect")

    async def _connect_serial(self, port: str) -> None:
        try:
            await self.manager.run(self.manager.serial(port))
        except Exception as error:
            self.say(f"Cannot connect: {error}")
            self.state.setText("not connected")

    def _poll_prusalink(self) -> None:
        start_task(self._status_call(self.name), name="printer-status")

    async def _status_call(self, name: str) -> None:
        outcome = await self.context.registry.acall(
            "get_printer_status", {"printer": name}, caller="gui"
        )
        if outcome.ok and outcome.result is not None:
            self._show(outcome.result)
        elif outcome.error is not None:
            self.say(outcome.error.explain())

    # -- physical actions, confirmed --------------------------------------------------------
    def _choose_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "G-code to print", "", "G-code (*.gcode)")
        if path:
            self.print_file(path)

    def print_file(self, path: str, candidate_id: str | None = None) -> None:
        self.preview.load(path)
        arguments: dict[str, Any] = {"printer": self.name, "gcode_path": path}
        if candidate_id:
            arguments["candidate_id"] = candidate_id
        # the one Yes also covers a file outside the workspace: the question says so
        needed = self.context.registry.confirmation_needed("upload_and_print", arguments)
        paths = needed.paths if needed else []
        outside = "".join(f"\n{path} is outside the workspace." for path in paths)
        self.confirm(
            "upload_and_print", arguments, f"Start printing {path} on {self.name}?{outside}"
        )

    def request_action(self, action: str) -> None:
        tool = {"pause": "pause_print", "resume": "resume_print", "cancel": "cancel_print"}[action]
        self.confirm(
            tool, {"printer": self.name}, f"{action.capitalize()} the print on {self.name}?"
        )

    def confirm(self, tool: str, arguments: dict[str, Any], question: str) -> None:
        """Ask without blocking; the tool runs only on Yes."""
        box = QMessageBox(
            QMessageBox.Icon.Question,
            "Confirm printer action",
            f"{question}\n\nThis moves a real machine.",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            self,
        )
        box.setObjectName("confirm-printer-action")
        self.confirmation = box

        def answered(button: int) -> None:
            self.confirmation = None
            if button == QMessageBox.StandardButton.Yes:
                start_task(self._call(tool, arguments), name=f"printer-{tool}")
            else:
                self.say(f"{tool} declined; nothing was sent.")

        box.finished.connect(answered)
        box.open()

    async def _call(self, tool: str, arguments: dict[str, Any]) -> None:
        outcome = await self.context.registry.acall(tool, arguments, caller="gui", confirmed=True)
        if outcome.ok and outcome.result is not None:
            self.say(outcome.result.get("message", f"{tool} done"))
        elif outcome.error is not None:
            self.say(outcome.error.explain())
            if tool == "upload_and_print" and outcome.error.message.startswith(gate.REFUSED):
                self.ask_override(arguments, outcome.error.message)

    def ask_override(self, arguments: dict[str, Any], refusal: str) -> None:
        """The print gate refused the file: the person may print anyway, giving a reason (the
        tool records it with the call and in the ledger)."""
        dialog = QInputDialog(self)
        dialog.setObjectName("print-override")
        dialog.setWindowTitle("The print gate refused this file")
        dialog.setLabelText(f"{refusal}\n\nTo print anyway, say why (it is recorded):")
        self.override = dialog

        def answered(result: int) -> None:
            self.override = None
            reason = dialog.textValue().strip()
            if result == QDialog.DialogCode.Accepted and reason:
                overridden = {**arguments, "override": True, "override_reason": reason}
                start_task(self._call("upload_and_print", overridden), name="printer-override")
            else:
                self.say("Not printed: the gate refused the file and no reason was given.")

        dialog.finished.connect(answered)
        dialog.open()  # non-modal, like the confirmation: the GUI thread never waits

    def emergency_stop(self) -> None:
        host = self.manager.hosts.get(self.name)
        if host is None:
            self.say("Emergency stop: no serial printer connected here. For PrusaLink use Stop.")
            return
        self.manager.call_soon(host.emergency_stop)  # no dialog: stopping is always safe

    def _send_typed(self) -> None:
        text = self.command.text().strip()
        host = self.manager.hosts.get(self.name)
        if not text:
            return
        if host is None or not host.connected:
            self.say("Connect a serial printer to use the terminal.")
            return
        self.command.clear()
        self.terminal.appendPlainText(f">>> {text}")
        self.manager.call_soon(self._send_safely, host, text)

    def _send_safely(self, host: Any, text: str) -> None:
        try:  # on the printers' loop
            host.send_command(text)
        except Exception as error:
            self.context.bus.publish(
                PrinterEvent(printer=host.port, kind="rx", snapshot={"message": f"!! {error}"})
            )

    # -- display ------------------------------------------------------------------------------
    def _on_event(self, event: PrinterEvent) -> None:
        if event.printer != self.name:
            return
        snap = event.snapshot
        if event.kind == "rx":
            self.terminal.appendPlainText(snap.get("message", ""))
            if "temperatures" not in snap:
                return
        elif event.kind == "disconnect":
            self.say(
                f"Disconnected: {snap.get('message')}. The print is held at line "
                f"{snap.get('line')} of {snap.get('total')}: reconnect, then resume or stop."
            )
        self._show(snap)

    def _show(self, snap: dict[str, Any]) -> None:
        self.state.setText(str(snap.get("state", "")))
        temps = snap.get("temperatures") or {}
        if temps:
            nozzle = temps.get("nozzle", [0.0, 0.0])
            bed = temps.get("bed", [0.0, 0.0])
            now = time.monotonic() - self._started
            self.samples.append((now, nozzle[0], nozzle[1], bed[0], bed[1]))
            while self.samples and now - self.samples[0][0] > HISTORY_S:
                self.samples.popleft()
            columns = list(zip(*self.samples, strict=True))
            for index, name in enumerate(("nozzle", "nozzle target", "bed", "bed target"), 1):
                self.curves[name].setData(columns[0], columns[index])
        if snap.get("progress") is not None:
            self.progress.setValue(int(snap["progress"] * 1000))
        left = snap.get("time_left_s")
        self.time_left.setText(f"{left / 60:.0f} min left" if left is not None else "")

    def say(self, text: str) -> None:
        self.terminal.appendPlainText(f"-- {text}")


def printer_panel(context: AppContext) -> QWidget:
    return PrinterPanel(context)
