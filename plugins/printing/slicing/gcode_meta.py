"""What a PrusaSlicer G-code file says about itself: estimates, filament, layers, printer check.

PrusaSlicer 2.5 writes `; key = value` lines at the end of the file (statistics, then the whole
config); the body has `;LAYER_CHANGE` markers and `M73 P<pct> R<min>` progress lines.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

TAIL_BYTES = 256 * 1024  # the statistics and config block; ~40 kB for a typical print
_DURATION = re.compile(r"(?:(\d+)d\s*)?(?:(\d+)h\s*)?(?:(\d+)m\s*)?(?:(\d+)s)?")
_MOTION = re.compile(r"^(G0|G1|G2|G3|G28|G29|G80|M104|M109|M140|M190)\b")


@dataclass(frozen=True)
class GcodeMeta:
    estimated_time_s: float | None
    estimated_time_text: str
    filament_mm: float | None
    filament_g: float | None
    filament_cm3: float | None
    layer_height: float | None
    first_layer_height: float | None
    layers: int
    printer_model: str
    printer_check: str  # the M862.3 line, if any, before the first move or heat command
    print_preset: str
    filament_preset: str
    printer_preset: str
    filament_type: str
    nozzle_diameter: float | None
    command_lines: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def parse_duration(text: str) -> float | None:
    """'1d 2h 3m 4s' -> seconds."""
    match = _DURATION.fullmatch(text.strip())
    if not match or not any(match.groups()):
        return None
    d, h, m, s = (int(part or 0) for part in match.groups())
    return float(((d * 24 + h) * 60 + m) * 60 + s)


def _number(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return float(value.split(",")[0].strip())
    except ValueError:
        return None


def tail_values(path: Path) -> dict[str, str]:
    with path.open("rb") as handle:
        handle.seek(0, 2)
        size = handle.tell()
        handle.seek(max(0, size - TAIL_BYTES))
        tail = handle.read().decode("utf-8", errors="replace")
    values: dict[str, str] = {}
    for line in tail.splitlines():
        if line.startswith("; ") and " = " in line:
            key, _, value = line[2:].partition(" = ")
            values[key.strip()] = value.strip()
    return values


def command(line: str) -> str:
    """The G-code of a line without its comment and surrounding blanks."""
    return line.split(";", 1)[0].strip()


def scan_body(path: Path) -> tuple[int, int, str]:
    """(layers, command lines, printer check) from one pass over the file."""
    layers = commands = 0
    check = ""
    moved = False
    with path.open(encoding="utf-8", errors="replace") as handle:
        for line in handle:
            if line.startswith(";LAYER_CHANGE"):
                layers += 1
            code = command(line)
            if not code:
                continue
            commands += 1
            if not moved:
                if code.startswith("M862.3"):
                    check = code
                elif _MOTION.match(code):
                    moved = True
    return layers, commands, check


def read_meta(path: Path) -> GcodeMeta:
    values = tail_values(path)
    layers, commands, check = scan_body(path)
    time_text = values.get("estimated printing time (normal mode)", "")
    return GcodeMeta(
        estimated_time_s=parse_duration(time_text) if time_text else None,
        estimated_time_text=time_text,
        filament_mm=_number(values.get("filament used [mm]")),
        filament_g=_number(values.get("filament used [g]")),
        filament_cm3=_number(values.get("filament used [cm3]")),
        layer_height=_number(values.get("layer_height")),
        first_layer_height=_number(values.get("first_layer_height")),
        layers=layers,
        printer_model=values.get("printer_model", ""),
        printer_check=check,
        print_preset=values.get("print_settings_id", "").strip('"'),
        filament_preset=values.get("filament_settings_id", "").strip('"'),
        printer_preset=values.get("printer_settings_id", "").strip('"'),
        filament_type=values.get("filament_type", ""),
        nozzle_diameter=_number(values.get("nozzle_diameter")),
        command_lines=commands,
    )


def gcode_commands(path: Path) -> list[str]:
    """The file's commands in order, comments and blank lines dropped (what a host sends)."""
    with path.open(encoding="utf-8", errors="replace") as handle:
        return [code for code in (command(line) for line in handle) if code]
