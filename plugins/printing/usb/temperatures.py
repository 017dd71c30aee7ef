"""Temperatures over serial: asking Marlin to report them, and reading its `T:`/`B:` reports.

With `M155 S<n>` the printer reports every n seconds by itself (auto-report), so the host never
polls; the same `T:... B:...` text also comes on the `ok` of an M105.
"""

from __future__ import annotations

import re

_TEMPERATURE = re.compile(r"\b(T|B)\s*:\s*(-?[\d.]+)(?:\s*/\s*(-?[\d.]+))?")
_HEATERS = {"T": "nozzle", "B": "bed"}


def autoreport_command(interval_s: int) -> str:
    """The command that makes the printer report its temperatures every `interval_s` seconds."""
    return f"M155 S{interval_s}"


def parse_temperatures(
    line: str, known: dict[str, tuple[float, float]] | None = None
) -> dict[str, tuple[float, float]]:
    """`T:210.1 /215.0 B:59.8 /60.0` -> {"nozzle": (210.1, 215.0), "bed": (59.8, 60.0)}.

    A heat-up report without targets (`T:180.5 E:0 W:?`) keeps the target from `known`.
    """
    known = known or {}
    found = {}
    for name, actual, target in _TEMPERATURE.findall(line):
        heater = _HEATERS[name]
        aim = float(target) if target else known.get(heater, (0.0, 0.0))[1]
        found[heater] = (float(actual), aim)
    return found
