"""What the printer has been told so far by a streamed G-code file, and where its layers start.

`GcodeState` follows the commands the printer CONFIRMED (its `ok`), one at a time: absolute or
relative XYZ (G90/G91), absolute or relative E (M82/M83), the logical position X Y Z E (moves and
G92), the feed rate F, the target temperatures (M104/M109, M140/M190), the part fan (M106/M107)
and the last machine settings the file set (accelerations, flow, linear advance...). A resume
rebuilds the printer's state from it; see resume_plan.py.

E follows Prusa firmware (the printers this host is for): E is relative under G91 or after M83,
and G90 does not undo M83 (Marlin 2 resets E to absolute on G90). PrusaSlicer writes M83 after
every G90, so both firmwares read its files the same; a resume sends G90/G91 and then M82/M83
explicitly, which is right on both.

`read_print` reads a file once into the commands a host sends (comments dropped) and the index of
each layer's first command: from PrusaSlicer's `;LAYER_CHANGE` / `;Z:` markers when the file has
them, else where an extruding move first prints at a new height (the index of the move that went
to that height).
"""

from __future__ import annotations

import contextlib
import copy
import re
from dataclasses import dataclass, field
from pathlib import Path

from workbench_plugins.printing.slicing.gcode_meta import command as strip_comment

_PARAM = re.compile(r"([A-Z])\s*(-?\d*\.?\d+)")
_MOVES = ("G0", "G1", "G2", "G3")
# machine settings a printer forgets when it restarts: replayed before resuming from a layer
SETTING_CODES = ("M201", "M203", "M204", "M205", "M220", "M221", "M900", "M907", "G21")
_EPS = 1e-6


def code_of(command: str) -> str:
    """`G1 X5 E1` -> `G1`; `G01` -> `G1` (numbers without leading zeros)."""
    word = command.split(maxsplit=1)[0].upper() if command.strip() else ""
    if len(word) > 1 and word[0] in "GMT" and word[1:].isdigit():
        return word[0] + str(int(word[1:]))
    return word


def parameters(command: str) -> dict[str, float]:
    """`G1 X5 Y-2.5 F1800` -> {"X": 5.0, "Y": -2.5, "F": 1800.0} (the first of each letter)."""
    found: dict[str, float] = {}
    for letter, number in _PARAM.findall(command.upper()[len(code_of(command)) :]):
        found.setdefault(letter, float(number))
    return found


@dataclass
class GcodeState:
    absolute_xyz: bool = True  # G90 (the firmware default) / G91
    relative_e: bool = False  # M83 / M82
    x: float | None = None  # logical position; None until the file set it
    y: float | None = None
    z: float | None = None
    e: float = 0.0
    feed: float | None = None  # mm/min, the last F
    nozzle: float = 0.0  # target temperatures, degC
    bed: float = 0.0
    fan: int = 0  # part fan, 0..255
    homed: bool = False  # a G28 ran
    shifted_xyz: bool = False  # a G92 redefined X, Y or Z (only E is restored safely)
    settings: dict[str, str] = field(default_factory=dict)  # code -> its last command

    @property
    def e_relative(self) -> bool:
        return self.relative_e or not self.absolute_xyz

    def copy(self) -> GcodeState:
        return copy.deepcopy(self)

    def apply(self, command: str) -> None:
        """Follow one command the printer accepted."""
        code = code_of(command)
        if code in _MOVES:
            self._move(parameters(command))
        elif code == "G92":
            self._set_position(parameters(command))
        elif code in ("G90", "G91"):
            self.absolute_xyz = code == "G90"
        elif code in ("M82", "M83"):
            self.relative_e = code == "M83"
        elif code in ("M104", "M109", "M140", "M190"):
            self._heat(code, parameters(command))
        elif code in ("M106", "M107"):
            speed = parameters(command).get("S", 255.0) if code == "M106" else 0.0
            self.fan = max(0, min(255, round(speed)))
        elif code == "G28":
            self._home(command)
        elif code in SETTING_CODES:
            self.settings[code] = command

    def _move(self, values: dict[str, float]) -> None:
        for axis in ("X", "Y", "Z"):
            if axis in values:
                current = getattr(self, axis.lower())
                relative = not self.absolute_xyz and current is not None
                setattr(self, axis.lower(), current + values[axis] if relative else values[axis])
        if "E" in values:
            self.e = self.e + values["E"] if self.e_relative else values["E"]
        if "F" in values:
            self.feed = values["F"]

    def _set_position(self, values: dict[str, float]) -> None:
        if not values:  # a bare G92 zeroes every axis
            values = {"X": 0.0, "Y": 0.0, "Z": 0.0, "E": 0.0}
        for axis in ("X", "Y", "Z"):
            if axis in values:
                self.shifted_xyz = True
                setattr(self, axis.lower(), values[axis])
        if "E" in values:
            self.e = values["E"]

    def _heat(self, code: str, values: dict[str, float]) -> None:
        target = values.get("S", values.get("R"))
        if target is None:
            return
        if code in ("M104", "M109"):
            self.nozzle = target
        else:
            self.bed = target

    def _home(self, command: str) -> None:
        axes = [axis for axis in "XYZ" if axis in command.upper()[len(code_of(command)) :]]
        for axis in axes or "XYZ":
            setattr(self, axis.lower(), None)  # at the firmware's home, which the file cannot say
        self.homed = True


@dataclass(frozen=True)
class LayerStart:
    number: int  # 1 is the first layer
    z: float  # the layer's print height, mm
    index: int  # the index of its first command in the job's command list

    def to_dict(self) -> dict[str, float | int]:
        return {"layer": self.number, "z": self.z, "line": self.index}


def read_print(path: Path) -> tuple[list[str], list[LayerStart]]:
    """The commands a host sends for `path` and where each layer starts among them."""
    commands: list[str] = []
    marked: list[tuple[int, float | None]] = []  # (index of the next command, ;Z: height)
    with path.open(encoding="utf-8", errors="replace") as handle:
        for line in handle:
            if line.startswith(";LAYER_CHANGE"):
                marked.append((len(commands), None))
            elif line.startswith(";Z:") and marked and marked[-1][1] is None:
                with contextlib.suppress(ValueError):  # a broken note: the Z moves tell
                    marked[-1] = (marked[-1][0], float(line[3:]))
            elif code := strip_comment(line):
                commands.append(code)
    if marked:
        return commands, _marked_layers(commands, marked)
    return commands, layers_by_height(commands)


def _marked_layers(commands: list[str], marked: list[tuple[int, float | None]]) -> list[LayerStart]:
    layers = []
    for number, (index, z) in enumerate(marked, start=1):
        if z is None:  # a marker without ;Z: the first Z the layer moves to
            z = next((parameters(c)["Z"] for c in commands[index:] if "Z" in parameters(c)), 0.0)
        layers.append(LayerStart(number, z, index))
    return layers


def layers_by_height(commands: list[str]) -> list[LayerStart]:
    """Layers of a file without markers: a new one where extrusion first happens higher up."""
    state = GcodeState()
    layers: list[LayerStart] = []
    z_reached_at = 0  # index of the command that moved to the current height
    for index, command in enumerate(commands):
        before_z, before_e = state.z, state.e
        state.apply(command)
        if state.z != before_z:
            z_reached_at = index
        extruding = code_of(command) in _MOVES and state.e > before_e + _EPS
        moved_xy = bool({"X", "Y"} & parameters(command).keys())
        higher = state.z is not None and (not layers or state.z > layers[-1].z + _EPS)
        if extruding and moved_xy and higher and state.z is not None:
            layers.append(LayerStart(len(layers) + 1, state.z, z_reached_at))
    return layers


def state_before(commands: list[str], index: int) -> GcodeState:
    """The state after commands[0:index] ran (replayed from the start)."""
    state = GcodeState()
    for command in commands[:index]:
        state.apply(command)
    return state
