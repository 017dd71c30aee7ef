"""The printer panel's connection side: which printer is chosen, Connect and Disconnect, the M115
handshake of a USB printer, the PrusaLink status watch, and the ways to a key (the Printers
dialog, or a key kept for this session only). A printer counts as ready only once it answered:
`ready` is what enables printing (PrinterPanel._update_controls).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QDialog, QInputDialog, QLabel, QWidget

from workbench.core.context import AppContext
from workbench.core.secrets import keep_for_session
from workbench.ui.async_loop import start_task
from workbench_plugins.printing.printers import PrinterManager
from workbench_plugins.printing.views.printer_dialogs import session_key_dialog
from workbench_plugins.printing.views.printer_notice import PrinterNotice
from workbench_plugins.printing.views.printer_picker import PrinterPicker
from workbench_plugins.printing.views.prusalink_watch import KEY_TROUBLES, PrusaLinkWatch
from workbench_plugins.printing.views.serial_handshake import (
    SerialHandshake,
    describe_firmware,
    speaks_gcode,
)


class PrinterConnection(QWidget):
    """PrinterPanel's base: the panel makes these widgets and provides the methods below."""

    context: AppContext
    manager: PrinterManager
    printer: PrinterPicker
    state: QLabel
    found: QLabel
    notice: PrinterNotice
    handshake: SerialHandshake
    watch: PrusaLinkWatch
    settings_dialog: QDialog | None
    key_dialog: QInputDialog | None
    _address: tuple[str, str]
    _ready_for: str

    def say(self, text: str) -> None:
        raise NotImplementedError

    def _update_controls(self) -> None:
        raise NotImplementedError

    def _show(self, snap: dict[str, Any]) -> None:
        raise NotImplementedError

    async def _call(self, tool: str, arguments: dict[str, Any]) -> None:
        raise NotImplementedError

    async def _host_request(self, request: Any) -> None:
        raise NotImplementedError

    def _fill_printers(self) -> None:
        self.printer.fill([(profile.name, profile.address) for profile in self.manager.profiles()])

    def _profiles_changed(self) -> None:
        """The Printers dialog closed: something may have changed (a key entered)."""
        self._address = ("", "")
        self._fill_printers()
        if self.watch.printer:
            self.watch.start(self.watch.printer)

    @property
    def name(self) -> str:
        return self.printer.chosen

    @property
    def address(self) -> str:
        """The chosen printer's address (events name printers by it; remembered per name, as
        every event asks)."""
        name = self.name
        if self._address[0] != name:
            self._address = (name, self.manager.profile(name).address if name else "")
        return self._address[1]

    @property
    def is_prusalink(self) -> bool:
        return bool(self.name) and self.manager.profile(self.name).transport == "prusalink"

    @property
    def ready(self) -> bool:
        """The chosen printer answered (M115, or its PrusaLink status): it may be printed on."""
        return bool(self._ready_for) and self._ready_for == self.name

    def _chosen_changed(self, _text: str = "") -> None:
        name = self.name
        if self.watch.printer and self.watch.printer != name:
            self.watch.stop()
            self.notice.clear()
        if self.handshake.running and self.handshake.port != self.address:
            self.handshake.cancel()
        if not self.ready:
            kind = self.printer.kind_of(self.printer.currentText())
            self.found.setText(
                "This port is unlikely a printer (no printer's USB ids); Connect checks it."
                if kind == "unlikely"
                else "Not connected: Connect asks the printer (M115) before anything is sent."
                if name
                else "Choose a printer: configured ones first, then likely USB printers."
            )
        self._update_controls()

    def _set_ready(self, ready: bool) -> None:
        self._ready_for = self.name if ready else ""
        self._update_controls()

    # -- connection ---------------------------------------------------------------------------
    def connect_printer(self) -> None:
        if not self.name:
            self.say("Choose a printer, a serial port or a PrusaLink URL first.")
            return
        if self.is_prusalink:
            self.found.setText(f"Asking {self.name} for its status…")
            self.watch.start(self.name)
            return
        profile = self.manager.profile(self.name)
        self.handshake.begin(profile.address, profile.baudrate)
        self.state.setText("connecting…")
        self.found.setText(f"Opening {profile.address}, then asking the firmware (M115)…")
        self._update_controls()
        # the click is the person's own request: no second question
        start_task(self._call("connect_printer", {"printer": self.name}), name="printer-connect")

    def disconnect_printer(self) -> None:
        self.watch.stop()
        self.handshake.cancel()
        self.notice.clear()
        self._set_ready(False)
        if self.name:
            start_task(self._call("disconnect_printer", {"printer": self.name}), name="printer-dc")

    def _port_opened(self, snapshot: dict[str, Any]) -> None:
        if self.handshake.running:
            self.found.setText(
                f"Opened {self.handshake.port}; waiting up to {self.handshake.timeout_s:g} s "
                "for the firmware's answer to M115…"
            )
        if self.handshake.port_open(snapshot):  # connected before: nothing was asked yet
            request = self.manager.serial("command", printer=self.handshake.port, text="M115")
            start_task(self._host_request(request), name="printer-m115")

    def _answered(self, port: str, firmware: str) -> None:
        if port != self.address:
            return
        described = describe_firmware(firmware)
        text = (
            f"{port} answered M115: {described}."
            if described
            else f"{port} answers G-code, but did not name its firmware (M115)."
        )
        if self.ready and text == self.found.text():
            return  # asked again (M115 typed in the terminal): nothing new to say
        self.found.setText(text)
        self.say(f"{text} Printing is possible now.")
        self._set_ready(True)

    def _silent(self, port: str, why: str) -> None:
        self.found.setText(why)
        self.say(why)
        if port == self.address:
            self._set_ready(False)
        request = self.manager.serial("disconnect", printer=port)
        start_task(self._host_request(request), name="printer-release")

    def _heard(self, line: str) -> None:
        """A line from the chosen USB printer: the handshake's answer, or a printer already
        connected (by another window or process) that is talking."""
        if self.handshake.running:
            self.handshake.heard(self.address, line)
            return
        if "FIRMWARE_NAME:" in line or (not self.ready and speaks_gcode(line)):
            self._answered(self.address, line if "FIRMWARE_NAME:" in line else "")

    def open_settings(self) -> None:
        """D's printer profiles dialog; the printer list is read again when it closes."""
        try:
            from workbench_plugins.printing.views.printer_settings import open_printer_settings
        except ImportError as error:
            self.say(f"The Printers dialog is not available here ({error}).")
            return
        self.settings_dialog = open_printer_settings(self.context, self)
        self.settings_dialog.finished.connect(lambda *_: self._profiles_changed())

    def enter_key(self) -> None:
        """The Printers dialog, at the chosen printer, to store its key in the keyring."""
        address = self.address
        self.open_settings()
        rows = getattr(self.settings_dialog, "drafts", [])
        for row, draft in enumerate(rows):
            if draft.values.get("address") == address:
                self.settings_dialog.printers.setCurrentRow(row)  # type: ignore[union-attr]

    def ask_session_key(self) -> None:
        """A key for this session only: in memory until the app closes, written nowhere."""
        name = self.name
        profile = self.manager.profile(name)
        what = "API key" if profile.auth == "api_key" else f"password of user '{profile.user}'"
        dialog = self.key_dialog = session_key_dialog(self, name, what)

        def answered(result: int) -> None:
            self.key_dialog = None
            key = dialog.textValue().strip()
            if result != QDialog.DialogCode.Accepted or not key:
                self.say("No key given; nothing changed.")
                return
            keep_for_session(profile.secret_key, key)
            self.say(f"Using the {what} of {name} for this session only (never written).")
            self.watch.start(name)

        dialog.finished.connect(answered)
        dialog.open()

    def _prusalink_answered(self, status: dict[str, Any]) -> None:
        self.notice.clear()
        if not self.ready:
            text = f"{self.watch.printer} answers (PrusaLink): {status.get('message', '')}"
            self.found.setText(text)
            self.say(text)
            self._set_ready(True)
        self._show(status)

    def _prusalink_trouble(self, kind: str, message: str) -> None:
        self.say(message)  # once per kind of trouble: the watch says when it changed
        self.found.setText(f"{self.watch.printer}: {kind}")
        keys = kind in KEY_TROUBLES
        self.notice.show_problem(message, enter_key=keys and kind != "no keyring", session_key=keys)
