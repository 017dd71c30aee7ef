"""Window layout on disk: geometry, dock arrangement and open plugin views, as JSON.

The blobs hold the dock sizes too, so a restart shows the docks as wide as they were.
Qt's blobs are base64 so the file stays readable and diffable; a broken file is ignored (and
reported) rather than stopping the window from opening.
"""

from __future__ import annotations

import base64
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from PySide6.QtCore import QByteArray

LAYOUT_VERSION = 1


@dataclass
class WindowLayout:
    geometry: QByteArray = field(default_factory=QByteArray)
    state: QByteArray = field(default_factory=QByteArray)
    views_state: QByteArray = field(default_factory=QByteArray)
    open_views: list[str] = field(default_factory=list)
    # False once the person sized a dock by hand; older files did not say: follow the window.
    docks_follow_window: bool = True


def _encode(blob: QByteArray) -> str:
    return base64.b64encode(bytes(blob.data())).decode("ascii")


def _decode(text: object) -> QByteArray:
    if not isinstance(text, str):
        return QByteArray()
    return QByteArray(base64.b64decode(text.encode("ascii"), validate=True))


def save_layout(layout: WindowLayout, path: Path) -> None:
    document = {
        "version": LAYOUT_VERSION,
        "geometry": _encode(layout.geometry),
        "state": _encode(layout.state),
        "views_state": _encode(layout.views_state),
        "open_views": layout.open_views,
        "docks_follow_window": layout.docks_follow_window,
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".json.part")
    partial.write_text(json.dumps(document, indent=2), encoding="utf-8")
    os.replace(partial, path)  # atomic: a crash mid-write keeps the previous layout


def load_layout(path: Path) -> tuple[WindowLayout | None, str]:
    """The saved layout (None if there is none) and, if the file was unusable, why."""
    if not path.exists():
        return None, ""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(document, dict) or document.get("version") != LAYOUT_VERSION:
            return None, f"{path} is from another version of Workbench; using the default layout."
        views = document.get("open_views", [])
        return WindowLayout(
            geometry=_decode(document.get("geometry")),
            state=_decode(document.get("state")),
            views_state=_decode(document.get("views_state")),
            open_views=[name for name in views if isinstance(name, str)],
            docks_follow_window=document.get("docks_follow_window") is not False,
        ), ""
    except (OSError, ValueError) as error:
        return None, f"The window layout {path} could not be read ({error}); using the default."
