"""A G-code file as layers of printed segments, for previews (no Qt).

Reads what PrusaSlicer 2.5 writes: G0/G1 moves, G90/G91 (absolute/relative; G91 makes E relative
too), M82/M83 (E absolute/relative), G92 resets, `;LAYER_CHANGE` with `;Z:` and `;TYPE:`
comments. A segment is printed when the move goes somewhere in XY and the extruder pushes
filament; retractions, wipes (moving while retracting) and travels are not printed. Files with
layer markers get one layer per marker, and what comes before the first one (the start G-code's
purge line) belongs to no layer; files without markers get a new layer at each height printed at.

Everything is numpy over the file's bytes (where lines start, which command each starts with,
where each parameter letter stands and the number after it), then cumulative sums for positions,
extrusion and layers: a 10 MB file takes well under a second and no Python loop runs per line.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

WIDTH = 16  # bytes looked at: the start of each line, each number
SLICE = 1 << 14  # numbers converted at a time
_STOP = np.frombuffer(b" \t\r\n;", np.uint8)  # what may follow a command word
_NUMERIC = np.zeros(256, dtype=bool)
_NUMERIC[np.frombuffer(b"0123456789.+-", np.uint8)] = True
_COMMANDS = ("G0", "G1", "G00", "G01", "G90", "G91", "G92", "M82", "M83")
_EPS = 1e-9


class GcodeError(ValueError):
    """The file cannot be previewed; the message names the file and what to do."""


@dataclass(frozen=True)
class Layer:
    z: float
    segments: np.ndarray  # (n, 4) float64: x0, y0, x1, y1 of each printed move, in mm
    features: np.ndarray  # (n,) int: index into GcodeLayers.feature_names (;TYPE:), -1 unknown
    travels: np.ndarray  # (m, 4): moves in XY that print nothing (travels, wipes)

    @property
    def length(self) -> float:
        """Printed path length in mm."""
        d = self.segments[:, 2:] - self.segments[:, :2]
        return float(np.hypot(d[:, 0], d[:, 1]).sum())


@dataclass(frozen=True)
class GcodeLayers:
    path: Path
    layers: list[Layer]
    bounds: tuple[float, float, float, float]  # xmin, ymin, xmax, ymax of all printed segments
    feature_names: tuple[str, ...]

    @property
    def length(self) -> float:
        return sum(layer.length for layer in self.layers)


def _forward(marks: np.ndarray) -> np.ndarray:
    """For each row, the index of the last marked row at or before it (-1: none yet)."""
    return np.maximum.accumulate(np.where(marks, np.arange(len(marks)), -1))


def _track(
    value: np.ndarray, relative: np.ndarray, move: np.ndarray, reset: np.ndarray
) -> np.ndarray:
    """One axis' position after each row: absolute moves and G92 set it, relative moves add."""
    given = ~np.isnan(value)
    sets = given & ((move & ~relative) | reset)
    total = np.cumsum(np.where(given & move & relative, value, 0.0))
    last = _forward(sets)
    base = np.where(last >= 0, value[last] - total[last], 0.0)
    return base + total


def _number(text: bytes) -> float:
    try:
        return float(text)
    except ValueError:
        return float("nan")


def _numbers(buffer: np.ndarray, at: np.ndarray) -> np.ndarray:
    """The numbers written at the positions `at` of the file; NaN where there is none.

    In slices: numpy keeps the GIL while it turns text into numbers, and a GUI beside this thread
    should not wait for more than a few milliseconds at a time.
    """
    values = np.full(len(at), np.nan)
    for first in range(0, len(at), SLICE):
        window = buffer[at[first : first + SLICE, None] + np.arange(WIDTH)]
        inside = np.logical_and.accumulate(_NUMERIC[window], axis=1)
        text = np.where(inside, window, 0).view(f"S{WIDTH}").ravel()
        some = np.flatnonzero(inside[:, 0])
        try:
            values[first + some] = text[some].astype(np.float64)
        except ValueError:  # a malformed number such as "1.2.3": only that one is left out
            values[first + some] = [_number(item) for item in text[some]]
    return values


def _read(path: Path) -> bytes:
    what_to_do = "Choose a plain-text .gcode file written by a slicer (e.g. by slice_model)."
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise GcodeError(f"The G-code file {path} does not exist. {what_to_do}") from None
    except OSError as error:
        raise GcodeError(f"The G-code file {path} cannot be read ({error}). {what_to_do}") from None
    if not data.strip():
        raise GcodeError(f"The G-code file {path} is empty. {what_to_do}")
    if data.startswith(b"GCDE"):
        raise GcodeError(
            f"{path} is binary G-code (.bgcode), which the preview cannot read. Export plain-text "
            "G-code (turn off binary G-code in the printer settings) and choose that file."
        )
    if b"\0" in data[:65536]:
        raise GcodeError(f"{path} is a binary file, not G-code. {what_to_do}")
    return data


class _Lines:
    """The file as lines, looked at with numpy: where each starts, where its code ends."""

    def __init__(self, data: bytes) -> None:
        # a newline in front makes every line start after one; the padding lets windows run over
        self.buffer = np.frombuffer(b"\n" + data + b"\n" * (WIDTH + 2), np.uint8)
        text = self.buffer[: len(data) + 2]
        self.breaks = np.flatnonzero(text == ord("\n"))
        self.starts = self.breaks[:-1] + 1
        self.code_ends = self.breaks[1:].copy()  # up to a ';' comment
        comments = np.flatnonzero(text == ord(";"))
        line = np.searchsorted(self.breaks, comments, "right") - 1
        first = np.diff(line, prepend=-1) != 0
        self.code_ends[line[first]] = comments[first]
        self.heads = self.buffer[self.starts[:, None] + np.arange(WIDTH)]
        self.text = text
        self.markers = self.starting(b";LAYER_CHANGE", _STOP[:4])
        self.z_notes = self.starting(b";Z:", None)
        self.typed = self.starting(b";TYPE:", None)
        self.notes = self.markers | self.z_notes | self.typed

    def starting(self, word: bytes, then: np.ndarray | None = _STOP) -> np.ndarray:
        """Which lines start with `word` (followed by one of `then`)."""
        found = (self.heads[:, : len(word)] == np.frombuffer(word, np.uint8)).all(axis=1)
        return found if then is None else found & np.isin(self.heads[:, len(word)], then)

    def parameter(self, letter: int, lines: np.ndarray) -> np.ndarray:
        """The value of parameter `letter` on each line (NaN where absent), on lines `lines`."""
        at = np.flatnonzero(self.text == letter)
        line = np.searchsorted(self.breaks, at, "right") - 1
        keep = lines[line] & (at < self.code_ends[line])
        values = np.full(len(self.starts), np.nan)
        values[line[keep]] = _numbers(self.buffer, at[keep] + 1)
        return values

    def comments(self, lines: np.ndarray, skip: int) -> np.ndarray:
        """The text of the lines `lines` after their first `skip` bytes (few lines: a loop)."""
        ends = self.breaks[lines + 1]
        return np.array(
            [
                self.text[start + skip : end].tobytes().strip()
                for start, end in zip(self.starts[lines], ends, strict=True)
            ],
            dtype="S",
        )


def _positions(lines: _Lines) -> tuple[np.ndarray, ...]:
    """(rows, moves, x, y, z, e): the lines that matter, which are moves, positions after each."""
    word = {name: lines.starting(name.encode()) for name in _COMMANDS}
    moves = word["G0"] | word["G1"] | word["G00"] | word["G01"]
    axes = [lines.parameter(letter, moves | word["G92"]) for letter in b"XYZE"]
    modes = word["G90"] | word["G91"] | word["M82"] | word["M83"]
    rows = np.flatnonzero(moves | modes | word["G92"] | lines.notes)
    axes = [value[rows] for value in axes]
    move, reset = moves[rows], word["G92"][rows]
    bare = reset & np.all([np.isnan(value) for value in axes], axis=0)
    for value in axes:  # a bare G92 zeroes every axis
        value[bare] = 0.0
    # as PrusaSlicer's own G-code viewer reads it: E is relative under G91 or M83
    xyz_mode = _forward((word["G90"] | word["G91"])[rows])
    e_mode = _forward((word["M82"] | word["M83"])[rows])
    xyz_relative = (xyz_mode >= 0) & word["G91"][rows][xyz_mode]
    e_relative = xyz_relative | ((e_mode >= 0) & word["M83"][rows][e_mode])
    x, y, z = (_track(value, xyz_relative, move, reset) for value in axes[:3])
    return rows, move, x, y, z, _track(axes[3], e_relative, move, reset)


def read_layers(path: str | Path) -> GcodeLayers:
    """Parse a G-code file into layers; raises GcodeError for anything that is not printable G-code.

    Commands count where a line starts with them (`G1 X10 E.5`, not `N12 G1 ...` or lowercase).
    """
    path = Path(path)
    lines = _Lines(_read(path))
    rows, move, x, y, z, e = _positions(lines)
    if not move.any():
        raise GcodeError(
            f"{path} has no G0/G1 moves, so it is not G-code a printer would run. Choose a .gcode "
            "file written by a slicer (e.g. by slice_model)."
        )
    start_x, start_y = np.r_[0.0, x[:-1]], np.r_[0.0, y[:-1]]
    goes = move & ((x != start_x) | (y != start_y))
    printed = goes & (np.diff(e, prepend=0.0) > _EPS)
    travel = goes & ~printed
    if not printed.any():
        raise GcodeError(
            f"{path} has moves but none that extrude filament: nothing would be printed. Slice "
            "the model again and choose the new .gcode file."
        )

    typed = lines.typed[rows]
    names, codes = np.unique(lines.comments(rows[typed], len(b";TYPE:")), return_inverse=True)
    code_of_row = np.full(len(rows), -1)
    code_of_row[typed] = codes
    last_type = _forward(typed)
    feature = np.where(last_type >= 0, code_of_row[last_type], -1)

    marker = lines.markers[rows]
    if marker.any():  # one layer per marker; its height from its first ;Z: note
        layer_of_row = np.cumsum(marker) - 1
        count = int(marker.sum())
        heights = np.full(count, np.nan)
        noted = np.flatnonzero(lines.z_notes[rows] & (layer_of_row >= 0))[::-1]  # first wins
        heights[layer_of_row[noted]] = _numbers(lines.buffer, lines.starts[rows[noted]] + 3)
        at_marker = z[marker]
    else:  # a new layer wherever the printing height changes
        printing = np.flatnonzero(printed)
        starts = np.abs(np.diff(z[printing], prepend=np.inf)) > 1e-6
        layer_of_row = np.full(len(rows), -1)
        layer_of_row[printing[starts]] = np.arange(int(starts.sum()))
        layer_of_row = np.maximum.accumulate(layer_of_row)
        count = int(starts.sum())
        heights = at_marker = z[printing[starts]]
    printed &= layer_of_row >= 0  # the start G-code before the first marker prints no layer
    travel &= layer_of_row >= 0
    cuts = np.searchsorted(layer_of_row[printed], np.arange(count + 1))
    travel_cuts = np.searchsorted(layer_of_row[travel], np.arange(count + 1))
    segments = np.column_stack([start_x, start_y, x, y])
    printed_segments, features, travels = segments[printed], feature[printed], segments[travel]
    if not len(printed_segments):
        raise GcodeError(
            f"{path} prints nothing after its first ;LAYER_CHANGE marker. Slice the model again "
            "and choose the new .gcode file."
        )
    # a marker without a ;Z: note: the height the layer prints at (else where the marker was)
    first_z = z[printed][np.minimum(cuts[:-1], len(printed_segments) - 1)]
    fallback = np.where(cuts[:-1] < cuts[1:], first_z, at_marker)
    heights = np.where(np.isnan(heights), fallback, heights)
    layers = [
        Layer(
            z=float(heights[index]),
            segments=printed_segments[cuts[index] : cuts[index + 1]],
            features=features[cuts[index] : cuts[index + 1]],
            travels=travels[travel_cuts[index] : travel_cuts[index + 1]],
        )
        for index in range(count)
    ]
    points = printed_segments.reshape(-1, 2)
    low, high = points.min(axis=0), points.max(axis=0)
    return GcodeLayers(
        path=path,
        layers=layers,
        bounds=(float(low[0]), float(low[1]), float(high[0]), float(high[1])),
        feature_names=tuple(name.decode("utf-8", "replace") for name in names),
    )
