"""Whether a file is G-code a printer may be sent: checked before any port opens or upload starts.

A printer takes what it is sent as commands, so a file that is not G-code (a binary, a photo, an
STL, a text file) must be refused before anything reaches it, override or not: reading it with
replaced bytes would stream garbage as numbered lines. The check reads the whole file once:

- UTF-8 text (comments may hold any text; commands are ASCII, as they go over the wire), without
  control characters other than tab and line ends;
- lines no longer than MAX_LINE_BYTES (PrusaSlicer's longest, its config comments, are ~1-4 kB);
- every command (a line without its `;` comment) starts with a G, M or T code and fits, numbered
  and checksummed (`N<line> <command>*<sum>`), in the 96 bytes a Marlin or Prusa printer buffers;
- at least one command.
"""

from __future__ import annotations

import re
from pathlib import Path

MAX_LINE_BYTES = 65536  # whole lines, comments included
MAX_COMMAND_CHARS = 80  # + "N<up to 7 digits> " and "*<checksum>" stays within 96 bytes
BINARY_GCODE = b"GCDE"  # PrusaSlicer's binary G-code (.bgcode) starts with this
_CODE = re.compile(r"^([GM]\d+(\.\d+)?|T(\d+|[xc?]))$", re.IGNORECASE)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")  # tab (\x09) and line ends (\x0a) may be


class NotGcode(ValueError):
    """The file is not G-code a printer may be sent; the message says which line and why."""


def check_gcode(path: Path) -> int:
    """The number of commands in `path`; NotGcode (with the line and the reason) otherwise."""
    commands = 0
    with path.open("rb") as handle:
        if handle.read(len(BINARY_GCODE)) == BINARY_GCODE:
            raise NotGcode(
                f"{path.name} is binary G-code (.bgcode), which this host does not stream: "
                "export plain G-code (.gcode) instead. Nothing was sent to the printer."
            )
        handle.seek(0)
        number = 0
        while raw := handle.readline(MAX_LINE_BYTES + 3):  # + a line end: longer is refused
            number += 1
            problem = _problem(raw)
            if problem == "command":
                commands += 1
            elif problem:
                raise NotGcode(
                    f"{path.name} is not G-code a printer can take: line {number} {problem}. "
                    "Nothing was sent to the printer."
                )
    if not commands:
        raise NotGcode(
            f"{path.name} has no G-code commands to print (it is empty or only comments). "
            "Nothing was sent to the printer."
        )
    return commands


def _problem(raw: bytes) -> str:
    """What is wrong with one line: "" for a blank or comment line, "command" for a good command,
    else the reason for people."""
    raw = raw.rstrip(b"\r\n")
    if len(raw) > MAX_LINE_BYTES:
        return f"is longer than {MAX_LINE_BYTES} bytes"
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        return f"is not UTF-8 text (byte {raw[error.start]:#04x} at column {error.start + 1})"
    if found := _CONTROL.search(text):
        character, column = ord(found.group()), found.start() + 1
        return f"holds a control character ({character:#04x} at column {column})"
    command = text.split(";", 1)[0].strip()
    if not command:
        return ""
    if not command.isascii():
        return f"has a command with non-ASCII characters ({_shown(command)})"
    if len(command) > MAX_COMMAND_CHARS:
        return (
            f"has a command of {len(command)} characters ({_shown(command)}); a printer takes "
            f"at most {MAX_COMMAND_CHARS}"
        )
    if not _CODE.match(command.split()[0]):
        return f"is not a G, M or T command ({_shown(command)})"
    return "command"


def _shown(command: str) -> str:
    return repr(command if len(command) <= 40 else command[:40] + "...")
