"""Colours and marks of the chat, shared by its widgets; the controller names them by tone."""

from __future__ import annotations

COLOURS = {
    "you": "#0b57d0",
    "workbench": "#1f2328",
    "specialist": "#6639ba",
    "note": "#57606a",
    "ok": "#1a7f37",
    "error": "#cf222e",
    "running": "#9a6700",
    "declined": "#9a6700",
    "cancelled": "#57606a",  # by the person: not an error
}
STATUS_MARKS = {"running": "⏳", "ok": "✔", "error": "✖", "declined": "⊘", "cancelled": "■"}
MONO = "font-family: monospace; font-size: 9pt;"
# the menu arrow of an instant-popup QToolButton is drawn over its text in several styles
MENU_BUTTON_STYLE = "QToolButton::menu-indicator { image: none; width: 0px; }"
