"""Labels whose long words wrap anywhere: a path or an identifier longer than the chat is wide
would otherwise be cut off at the bubble's edge (QLabel wraps only at word boundaries).

What is shown gets zero-width spaces (break opportunities, invisible) after path separators and
every few characters of a long run; `text()` still gives the text as set, for copying and tests.
"""

from __future__ import annotations

import re

from PySide6.QtWidgets import QLabel, QWidget

ZERO_WIDTH_SPACE = "\u200b"
LONG_RUN = 24  # characters without a space after which a run may be broken
LONG_WORD = re.compile(rf"\S{{{LONG_RUN},}}")
SEPARATORS = "/\\_-.,:=&?"


def breakable(text: str) -> str:
    """`text` with break opportunities inside runs of more than LONG_RUN non-space characters;
    a Markdown link's target is left whole, or the link would no longer work."""
    return LONG_WORD.sub(lambda match: _break_run(match.group(0)), text)


def _break_run(run: str) -> str:
    if "](" in run:
        return run
    pieces: list[str] = []
    since_break = 0
    for character in run:
        pieces.append(character)
        since_break += 1
        if character in SEPARATORS or since_break >= LONG_RUN:
            pieces.append(ZERO_WIDTH_SPACE)
            since_break = 0
    return "".join(pieces).rstrip(ZERO_WIDTH_SPACE)


class WrappingLabel(QLabel):
    """A word-wrapped QLabel that also breaks long paths; `text()` is the text as given."""

    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWordWrap(True)
        self._given = ""
        self.setText(text)

    def setText(self, text: str) -> None:  # Qt override (Python callers)
        self._given = text
        super().setText(breakable(text))

    def text(self) -> str:  # Qt override (Python callers)
        return self._given
