"""Which serial ports are likely printers: configured printers first, then USB ports whose vendor
id is Prusa's or a common Marlin board's USB-serial chip, then every other port, marked unlikely.

A machine's built-in serial port (/dev/ttyS0, no USB ids) opens and swallows G-code without a
word, so it must never look like a printer. Only USB ids are read here (pyserial's list_ports);
whether a port really is a printer is the M115 handshake's business, never this module's.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

__all__ = [
    "PRINTER_USB_VENDORS",
    "PrinterChoice",
    "SerialPort",
    "likely_printer",
    "list_serial_ports",
    "printer_choices",
]

# USB vendor ids seen on 3D printers: the printer maker's own, or the USB-serial chip on the board
PRINTER_USB_VENDORS: dict[int, str] = {
    0x2C99: "Prusa Research",
    0x27B1: "UltiMachine: RAMBo boards",
    0x1A86: "CH340 USB-serial: many Marlin boards",
    0x0403: "FTDI USB-serial: older Marlin boards",
    0x10C4: "CP210x USB-serial: Creality and other Marlin boards",
    0x2341: "Arduino: RAMPS and other Marlin boards",
    0x2A03: "Arduino.org: RAMPS and other Marlin boards",
    0x1D50: "open-hardware USB ids: Marlin and Klipper boards",
    0x0483: "STM32 virtual COM port: 32-bit Marlin boards",
}

Kind = Literal["configured", "likely", "unlikely"]


@dataclass(frozen=True)
class SerialPort:
    device: str  # e.g. /dev/ttyACM0
    vid: int | None = None  # USB vendor id; None: not a USB port (a built-in or virtual one)
    pid: int | None = None
    description: str = ""

    @property
    def usb_ids(self) -> str:
        if self.vid is None:
            return ""
        return f"USB {self.vid:04x}:{self.pid or 0:04x}"


@dataclass(frozen=True)
class PrinterChoice:
    address: str  # what Connect uses: a printer's name, or a port
    label: str  # what the list shows
    kind: Kind
    detail: str  # why it is where it is in the list, in words


def list_serial_ports() -> list[SerialPort]:
    """The machine's serial ports with their USB ids (none without pyserial)."""
    try:
        from serial.tools import list_ports
    except ImportError:  # without pyserial the person types the port
        return []
    found = []
    for port in list_ports.comports():
        description = port.description if port.description not in (None, "n/a") else ""
        found.append(SerialPort(port.device, port.vid, port.pid, description or ""))
    return found


def likely_printer(port: SerialPort) -> str:
    """Why `port` is likely a printer (its USB vendor), or "" when it is not."""
    return PRINTER_USB_VENDORS.get(port.vid, "") if port.vid is not None else ""


def printer_choices(
    profiles: Iterable[tuple[str, str]], ports: Iterable[SerialPort]
) -> list[PrinterChoice]:
    """Configured printers (name, address) first, then likely USB printers, then the other
    ports marked unlikely; a port a printer profile already names is not listed again."""
    profiles = list(profiles)
    choices = [
        PrinterChoice(name, name, "configured", f"configured printer at {address}")
        for name, address in profiles
    ]
    taken = {address for _, address in profiles} | {name for name, _ in profiles}
    likely: list[PrinterChoice] = []
    unlikely: list[PrinterChoice] = []
    for port in sorted(ports, key=lambda port: port.vid is None):  # USB ports before built-in
        if port.device in taken:
            continue
        vendor = likely_printer(port)
        about = ", ".join(part for part in (port.usb_ids, port.description) if part)
        if vendor:
            detail = f"{vendor} ({about})"
            likely.append(PrinterChoice(port.device, f"{port.device} ({vendor})", "likely", detail))
            continue
        reason = (
            f"{about}: not a printer board's USB id"
            if port.vid is not None
            else "no USB ids: a built-in or virtual serial port"
        )
        label = f"{port.device} (unlikely a printer)"
        unlikely.append(PrinterChoice(port.device, label, "unlikely", reason))
    return choices + likely + unlikely
