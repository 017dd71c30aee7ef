"""The printer panel: connect, temperatures, progress, pause/resume/stop/emergency stop, terminal.

Physical actions go through the tool registry (the same calls the agent makes) and only after the
person confirmed in a non-modal dialog; Connect is the person's own click, and the emergency stop
is the one action without a question, since it makes the machine safer. Results show the state the
printer confirmed; a resume the host refuses offers to resume from a layer, with its steps.
USB printers live in the printer host (this app, or `workbench --headless serve`); the panel
awaits it with start_task and hears back through PrinterEvents on the bus (subscribe_in_gui),
republished from the host's event stream when another process hosts. The GUI thread never waits.
The G-code chosen for printing is shown layer by layer in a GcodePreview.

Nothing is printed on a printer that never answered: likely printers are offered first
(printer_picker), a USB printer counts as connected only once it answered M115
(serial_handshake), a PrusaLink one once its status was read (prusalink_watch), and Print, Pause,
Resume, Stop and the terminal stay disabled until then. Key problems are said once, with the
ways on (printer_notice): the Printers dialog, or a key kept for this session only.
"""

from __future__ import annotations

from collections import deque
from typing import Any

import shiboken6
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
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
from workbench_plugins.printing.printers import PrinterEvent, manager_for
from workbench_plugins.printing.tools.actions import OFFER_MARK
from workbench_plugins.printing.views.gcode_preview import GcodePreview
from workbench_plugins.printing.views.panel_connection import PrinterConnection
from workbench_plugins.printing.views.printer_dialogs import (
    confirmation_box,
    override_dialog,
    resume_offer_box,
)
from workbench_plugins.printing.views.printer_notice import PrinterNotice
from workbench_plugins.printing.views.printer_picker import PrinterPicker
from workbench_plugins.printing.views.prusalink_watch import PrusaLinkWatch
from workbench_plugins.printing.views.serial_handshake import SerialHandshake
from workbench_plugins.printing.views.temperature_plot import TemperaturePlot

ACTIONS = {"pause": "pause_print", "resume": "resume_print", "cancel": "cancel_print"}
NOT_LINKED = ("not connected", "halted")  # a USB printer that must answer again
ANSWERED = ("printing", "paused", "finished")  # with confirmed lines: the printer answered them
ESTOP_STYLE = (
    "QPushButton { background: #c00; color: white; font-weight: bold }"
    "QPushButton:disabled { background: #e6b3b3; color: #f7f7f7 }"
)
WAITING_TIP = "Enabled once the chosen printer answered: choose one, then Connect"


def _named(widget: QWidget, name: str) -> Any:
    widget.setObjectName(name)
    return widget


class PrinterPanel(PrinterConnection):
    def __init__(self, context: AppContext) -> None:
        super().__init__()
        self.context = context
        self.manager = manager_for(context)
        self.confirmation: QMessageBox | None = None
        self.override: QInputDialog | None = None  # asking for a reason to pass the print gate
        self.offer: QMessageBox | None = None  # offering to resume from a layer
        self.settings_dialog: QDialog | None = None
        self.key_dialog: QInputDialog | None = None  # a key for this session only
        self._address = ("", "")  # (name, address)
        self._ready_for = ""  # the printer that answered (M115, or its PrusaLink status)
        self.setObjectName("printer-panel")

        self.printer = PrinterPicker()
        self.connect_button = _named(QPushButton("Connect"), "printer-connect")
        self.connect_button.clicked.connect(self.connect_printer)
        self.disconnect_button = _named(QPushButton("Disconnect"), "printer-disconnect")
        self.disconnect_button.clicked.connect(self.disconnect_printer)
        self.settings_button = _named(QPushButton("Printers…"), "printer-open-settings")
        self.settings_button.clicked.connect(self.open_settings)
        self.state = _named(QLabel("not connected"), "printer-state")
        top = QHBoxLayout()
        top.addWidget(self.printer, 1)
        for widget in (self.connect_button, self.disconnect_button, self.settings_button):
            top.addWidget(widget)
        top.addWidget(self.state)
        self.found = _named(QLabel("No printer connected."), "printer-found")
        self.found.setWordWrap(True)
        self.notice = PrinterNotice()
        self.notice.enter_key.clicked.connect(self.enter_key)
        self.notice.session_key.clicked.connect(self.ask_session_key)

        self.plot = TemperaturePlot()
        self.progress = _named(QProgressBar(), "printer-progress")
        self.progress.setRange(0, 1000)
        self.time_left = QLabel("")
        progress_row = QHBoxLayout()
        progress_row.addWidget(self.progress, 1)
        progress_row.addWidget(self.time_left)
        self.preview = GcodePreview()
        views = QHBoxLayout()
        views.addWidget(self.plot, 1)
        views.addWidget(self.preview, 1)

        self.terminal = _named(QPlainTextEdit(readOnly=True), "printer-terminal")
        self.terminal.setMaximumBlockCount(2000)
        self.command = _named(QLineEdit(), "printer-command")
        self.command.setPlaceholderText("G-code, e.g. M105 (Enter sends)")
        self.command.returnPressed.connect(self._send_typed)

        layout = QVBoxLayout(self)
        for row in (top, self.found, self.notice, (views, 2), progress_row):
            if isinstance(row, tuple):
                layout.addLayout(row[0], row[1])
            elif isinstance(row, QWidget):
                layout.addWidget(row)
            else:
                layout.addLayout(row)
        layout.addLayout(self._action_buttons())
        layout.addWidget(self.terminal, 1)
        layout.addWidget(self.command)

        self.handshake = SerialHandshake(self)
        self.handshake.answered.connect(self._answered)
        self.handshake.silent.connect(self._silent)
        self.watch = PrusaLinkWatch(self.manager, self)
        self.watch.answered.connect(self._prusalink_answered)
        self.watch.trouble.connect(self._prusalink_trouble)
        self.printer.editTextChanged.connect(self._chosen_changed)
        self._fill_printers()
        subscribe_in_gui(context.bus, PrinterEvent, self._on_event, self)
        if not self.manager.hosting:
            self.manager.follow_host()  # another process hosts: its events come to our bus

    def _action_buttons(self) -> QHBoxLayout:
        buttons = QHBoxLayout()
        self.print_button = _named(QPushButton("Print G-code…"), "printer-print")
        self.print_button.clicked.connect(self._choose_file)
        buttons.addWidget(self.print_button)
        self.action_buttons: dict[str, QPushButton] = {}
        for action in ACTIONS:
            label = action.capitalize() if action != "cancel" else "Stop"
            button = _named(QPushButton(label), f"printer-{label.lower()}")
            button.clicked.connect(lambda _=False, a=action: self.request_action(a))
            buttons.addWidget(button)
            self.action_buttons[action] = button
        self.estop = _named(QPushButton("EMERGENCY STOP"), "printer-estop")
        self.estop.setStyleSheet(ESTOP_STYLE)
        self.estop.clicked.connect(self.emergency_stop)
        buttons.addWidget(self.estop)
        return buttons

    @property
    def samples(self) -> deque[tuple[float, float, float, float, float]]:
        return self.plot.samples

    def closeEvent(self, event: QCloseEvent) -> None:
        """No more polls or handshakes for a closed panel (the printer itself stays as it is)."""
        self.watch.stop()
        self.handshake.cancel()
        super().closeEvent(event)

    def _update_controls(self) -> None:
        ready, chosen = self.ready, bool(self.name)
        for button in (self.print_button, *self.action_buttons.values(), self.command):
            button.setEnabled(ready)
            button.setToolTip("" if ready else WAITING_TIP)
        self.connect_button.setEnabled(chosen and not self.handshake.running)
        self.disconnect_button.setEnabled(chosen)
        self.estop.setEnabled(chosen and not self.is_prusalink)

    # -- physical actions, confirmed --------------------------------------------------------
    def _choose_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "G-code to print", "", "G-code (*.gcode)")
        if path:
            self.print_file(path)

    def print_file(self, path: str, candidate_id: str | None = None) -> None:
        self.preview.load(path)
        if self._refused_unready("print"):
            return
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
        if self._refused_unready(action if action != "cancel" else "stop"):
            return
        question = f"{action.capitalize()} the print on {self.name}?"
        self.confirm(ACTIONS[action], {"printer": self.name}, question)

    def _refused_unready(self, action: str) -> bool:
        """The buttons are disabled until the printer answered; a call from elsewhere is
        refused in words, and nothing is sent."""
        if self.ready:
            return False
        if not self.name:
            self.say(f"Choose a printer first (the list above), then Connect; did not {action}.")
        else:
            self.say(
                f"{self.name} has not answered yet: Connect it first (a USB printer must answer "
                f"M115, a PrusaLink one its status); did not {action}, nothing was sent."
            )
        return True

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
            if tool == "connect_printer":  # open, but not yet known to be a printer
                self.say(f"Opened {result.get('address')}; asking the firmware (M115)…")
                self._port_opened(result)
                return
            self.say(str(result.get("message") or f"{tool} done"))
            return
        if outcome.error is None:
            return
        if tool == "resume_print" and OFFER_MARK in outcome.error.message:
            self.say(outcome.error.message.split(OFFER_MARK)[0])  # the offer comes as a question
        else:
            self.say(outcome.error.explain())
        if tool == "connect_printer":
            self.handshake.cancel()
            self.state.setText("not connected")
            self.found.setText(outcome.error.message)
            self._update_controls()
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
        if self.is_prusalink:
            self.say("Emergency stop works on USB printers; for PrusaLink use Stop.")
            return
        request = self.manager.serial("emergency_stop", printer=self.address)
        start_task(self._host_request(request), name="printer-estop")

    def _send_typed(self) -> None:
        text = self.command.text().strip()
        if not text:
            return
        if self.is_prusalink or not self.ready:
            self.say("The terminal talks to a connected USB printer: choose one and Connect.")
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
            line = str(snap.get("message", ""))
            self.terminal.appendPlainText(line)
            self._heard(line)
            if "temperatures" not in snap:
                return
        elif event.kind == "disconnect":
            self.handshake.lost(event.printer, str(snap.get("message")))
            held = (
                f" The print is held at line {snap.get('line')} of {snap.get('total')}: "
                "Connect, then Resume or Stop."
                if snap.get("total")
                else ""
            )
            self.say(f"Disconnected: {snap.get('message')}.{held}")
        self._show(snap)

    def _show(self, snap: dict[str, Any]) -> None:
        state = str(snap.get("state", ""))
        if state == "disconnected":  # the host's word for a closed port; the panel says one
            state = "not connected"
        self.state.setText(state)
        if not self.is_prusalink and not self.handshake.running:
            if state in NOT_LINKED and self.ready:
                self._set_ready(False)
                self.found.setText(f"{self.name} is {state}: Connect asks it again (M115).")
            elif state in ANSWERED and snap.get("line") and not self.ready:
                self._answered(self.address, "")  # it confirmed lines of a print: it answers
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
