"""The printer panel: connect, temperatures, progress, pause/resume/stop/emergency stop, terminal.

Physical actions go through the tool registry (the same calls the agent makes) and only after the
person confirmed in a non-modal dialog; Connect is the person's own click, and the emergency stop
is the one action without a question, since it makes the machine safer. Results show the state the
printer confirmed; a resume the host refuses offers to resume from a layer, with its steps.
USB printers live in the printer host (this app, or `workbench --headless serve`); the panel
awaits it with start_task and hears back through PrinterEvents on the bus (subscribe_in_gui),
republished from the host's event stream when another process hosts. The GUI thread never waits.
The G-code chosen for printing is shown layer by layer in a GcodePreview.
"""

from __future__ import annotations

from collections import deque
from typing import Any

import shiboken6
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
from workbench_plugins.printing.control_print import OFFER_MARK
from workbench_plugins.printing.printers import PrinterEvent, manager_for
from workbench_plugins.printing.views.gcode_preview import GcodePreview
from workbench_plugins.printing.views.printer_dialogs import (
    confirmation_box,
    override_dialog,
    resume_offer_box,
)
from workbench_plugins.printing.views.temperature_plot import TemperaturePlot

POLL_MS = 2000  # PrusaLink status polling
ACTIONS = {"pause": "pause_print", "resume": "resume_print", "cancel": "cancel_print"}


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
        self.offer: QMessageBox | None = None  # offering to resume from a layer
        self.settings_dialog: QDialog | None = None
        self._address = ("", "")  # (name, address)
        self.setObjectName("printer-panel")

        self.printer = QComboBox(editable=True)
        self.printer.setToolTip("A printer's name, a serial port or a PrusaLink URL")
        self._fill_printers()
        self.connect_button = QPushButton("Connect")
        self.connect_button.clicked.connect(self.connect_printer)
        self.disconnect_button = QPushButton("Disconnect")
        self.disconnect_button.clicked.connect(self.disconnect_printer)
        self.settings_button = QPushButton("Printers…")
        self.settings_button.clicked.connect(self.open_settings)
        self.state = QLabel("not connected")
        top = QHBoxLayout()
        top.addWidget(self.printer, 1)
        for widget in (self.connect_button, self.disconnect_button, self.settings_button):
            top.addWidget(widget)
        top.addWidget(self.state)

        self.plot = TemperaturePlot()
        self.progress = QProgressBar()
        self.progress.setRange(0, 1000)
        self.time_left = QLabel("")
        progress_row = QHBoxLayout()
        progress_row.addWidget(self.progress, 1)
        progress_row.addWidget(self.time_left)
        self.preview = GcodePreview()
        views = QHBoxLayout()
        views.addWidget(self.plot, 1)
        views.addWidget(self.preview, 1)

        self.terminal = QPlainTextEdit(readOnly=True)
        self.terminal.setMaximumBlockCount(2000)
        self.command = QLineEdit(placeholderText="G-code, e.g. M105 (Enter sends)")
        self.command.returnPressed.connect(self._send_typed)

        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addLayout(views, 2)
        layout.addLayout(progress_row)
        layout.addLayout(self._action_buttons())
        layout.addWidget(self.terminal, 1)
        layout.addWidget(self.command)

        subscribe_in_gui(context.bus, PrinterEvent, self._on_event, self)
        if not self.manager.hosting:
            self.manager.follow_host()  # another process hosts: its events come to our bus
        self._poll = QTimer(self)
        self._poll.timeout.connect(self._poll_prusalink)

    def _action_buttons(self) -> QHBoxLayout:
        buttons = QHBoxLayout()
        self.print_button = QPushButton("Print G-code…")
        self.print_button.clicked.connect(self._choose_file)
        buttons.addWidget(self.print_button)
        self.action_buttons: dict[str, QPushButton] = {}
        for action in ACTIONS:
            button = QPushButton(action.capitalize() if action != "cancel" else "Stop")
            button.clicked.connect(lambda _=False, a=action: self.request_action(a))
            buttons.addWidget(button)
            self.action_buttons[action] = button
        self.estop = QPushButton("EMERGENCY STOP")
        self.estop.setStyleSheet("background: #c00; color: white; font-weight: bold")
        self.estop.clicked.connect(self.emergency_stop)
        buttons.addWidget(self.estop)
        return buttons

    def _fill_printers(self) -> None:
        current = self.printer.currentText()
        self.printer.clear()
        self.printer.addItems(self.manager.known() + _serial_ports())
        if current:
            self.printer.setEditText(current)

    def _profiles_changed(self) -> None:
        self._address = ("", "")
        self._fill_printers()

    @property
    def name(self) -> str:
        return self.printer.currentText().strip()

    @property
    def address(self) -> str:
        """The chosen printer's address (events name printers by it; remembered per name, as
        every event asks)."""
        name = self.name
        if self._address[0] != name:
            self._address = (name, self.manager.profile(name).address if name else "")
        return self._address[1]

    @property
    def samples(self) -> deque[tuple[float, float, float, float, float]]:
        return self.plot.samples

    # -- connection ---------------------------------------------------------------------------
    def connect_printer(self) -> None:
        if not self.name:
            self.say("Choose a printer, a serial port or a PrusaLink URL first.")
            return
        if self.manager.profile(self.name).transport == "prusalink":
            self._poll.start(POLL_MS)
            self._poll_prusalink()
            return
        self.state.setText("connecting…")
        # the click is the person's own request: no second question
        start_task(self._call("connect_printer", {"printer": self.name}), name="printer-connect")

    def disconnect_printer(self) -> None:
        self._poll.stop()
        if self.name:
            start_task(self._call("disconnect_printer", {"printer": self.name}), name="printer-dc")

    def open_settings(self) -> None:
        """D's printer profiles dialog; the printer list is read again when it closes."""
        try:
            from workbench_plugins.printing.views.printer_settings import open_printer_settings
        except ImportError as error:
            self.say(f"The Printers dialog is not available here ({error}).")
            return
        self.settings_dialog = open_printer_settings(self.context, self)
        self.settings_dialog.finished.connect(lambda *_: self._profiles_changed())

    def _poll_prusalink(self) -> None:
        start_task(self._status_call(self.name), name="printer-status")

    async def _status_call(self, name: str) -> dict[str, Any] | None:
        outcome = await self.context.registry.acall(
            "get_printer_status", {"printer": name}, caller="gui"
        )
        if not shiboken6.isValid(self):
            return None
        if outcome.ok and outcome.result is not None:
            self._show(outcome.result)
            return outcome.result
        if outcome.error is not None:
            self.say(outcome.error.explain())
        return None

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
        question = f"{action.capitalize()} the print on {self.name}?"
        self.confirm(ACTIONS[action], {"printer": self.name}, question)

    def confirm(self, tool: str, arguments: dict[str, Any], question: str) -> None:
        """Ask without blocking; the tool runs only on Yes."""
        box = self.confirmation = confirmation_box(self, question)

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
        if not shiboken6.isValid(self):
            return  # the panel was closed while the printer worked; the call is recorded
        if outcome.ok and outcome.result is not None:
            result = outcome.result
            if "temperatures" in result:  # a status (connect, disconnect)
                self._show(result)
            elif result.get("state"):
                self.state.setText(str(result["state"]))
            self.say(str(result.get("message") or f"{tool} done"))
            return
        if outcome.error is None:
            return
        if tool == "resume_print" and OFFER_MARK in outcome.error.message:
            self.say(outcome.error.message.split(OFFER_MARK)[0])  # the offer comes as a question
        else:
            self.say(outcome.error.explain())
        if tool == "connect_printer":
            self.state.setText("not connected")
        if tool == "upload_and_print" and outcome.error.message.startswith(gate.REFUSED):
            self.ask_override(arguments, outcome.error.message)
        if tool == "resume_print":
            await self._offer_resume_from_layer(arguments["printer"], outcome.error.message)

    def ask_override(self, arguments: dict[str, Any], refusal: str) -> None:
        """The print gate refused the file: the person may print anyway, giving a reason (the
        tool records it with the call and in the ledger)."""
        dialog = self.override = override_dialog(self, refusal)

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

    async def _offer_resume_from_layer(self, printer: str, refusal: str) -> None:
        """A refused resume: if the host offers a layer to resume from, show its steps and ask."""
        status = await self._status_call(printer)
        offer = (status or {}).get("resume_offer")
        if not offer:
            return
        reason = str(offer.get("reason") or refusal.split(OFFER_MARK)[0])
        box = self.offer = resume_offer_box(self, printer, reason, offer)
        arguments = {"printer": printer, "layer": int(offer["layer"])}

        def answered(button: int) -> None:
            self.offer = None
            if button == QMessageBox.StandardButton.Yes:
                start_task(self._call("resume_from_layer", arguments), name="printer-layer")
            else:
                self.say("Not resumed; the print is held. Resume from a layer, or Stop.")

        box.finished.connect(answered)
        box.open()

    def emergency_stop(self) -> None:
        """M112 through the host, no question: stopping is always safe."""
        if self.manager.profile(self.name).transport == "prusalink":
            self.say("Emergency stop works on USB printers; for PrusaLink use Stop.")
            return
        request = self.manager.serial("emergency_stop", printer=self.address)
        start_task(self._host_request(request), name="printer-estop")

    def _send_typed(self) -> None:
        text = self.command.text().strip()
        if not text:
            return
        if self.manager.profile(self.name).transport == "prusalink":
            self.say("The terminal talks to USB printers; connect one to use it.")
            return
        self.command.clear()
        self.terminal.appendPlainText(f">>> {text}")
        request = self.manager.serial("command", printer=self.address, text=text)
        start_task(self._host_request(request), name="printer-terminal")

    async def _host_request(self, request: Any) -> None:
        try:
            snapshot = await self.manager.run(request)
        except Exception as error:  # the host's words: not connected, no host, ...
            if shiboken6.isValid(self):
                self.say(str(error))
            return
        if shiboken6.isValid(self) and snapshot.get("state"):
            self._show(snapshot)

    # -- display ------------------------------------------------------------------------------
    def _on_event(self, event: PrinterEvent) -> None:
        if event.kind == "host":
            self.say(str(event.snapshot.get("message", "")))
            return
        if event.printer != self.address:
            return
        snap = event.snapshot
        if event.kind == "rx":
            self.terminal.appendPlainText(snap.get("message", ""))
            if "temperatures" not in snap:
                return
        elif event.kind == "disconnect":
            self.say(
                f"Disconnected: {snap.get('message')}. The print is held at line "
                f"{snap.get('line')} of {snap.get('total')}: Connect, then Resume or Stop."
            )
        self._show(snap)

    def _show(self, snap: dict[str, Any]) -> None:
        self.state.setText(str(snap.get("state", "")))
        temperatures = snap.get("temperatures") or {}
        if temperatures:
            self.plot.add(temperatures)
        if snap.get("progress") is not None:
            self.progress.setValue(int(snap["progress"] * 1000))
        left = snap.get("time_left_s")
        self.time_left.setText(f"{left / 60:.0f} min left" if left is not None else "")

    def say(self, text: str) -> None:
        self.terminal.appendPlainText(f"-- {text}")


def printer_panel(context: AppContext) -> QWidget:
    return PrinterPanel(context)
