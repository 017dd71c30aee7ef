"""Render the app icon's PNG from its SVG with Qt's SVG renderer (both files are committed).

    .venv/bin/python packaging/render_icon.py [--size 256]

Run it again after editing resources/icons/workbench.svg. It uses Qt offscreen: no display needed.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ICONS = Path(__file__).resolve().parent.parent / "resources" / "icons"
SVG = ICONS / "workbench.svg"


def render(svg: Path, png: Path, size: int) -> None:
    """Draw `svg` into a transparent size x size PNG; raise ValueError if either step fails."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    _app = QGuiApplication.instance() or QGuiApplication([])
    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise ValueError(f"{svg} is not an SVG Qt can draw")
    image = QImage(size, size, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter)
    painter.end()
    if not image.save(str(png)):
        raise ValueError(f"could not write {png}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=256, help="width and height in pixels")
    args = parser.parse_args(argv)
    png = ICONS / f"workbench-{args.size}.png"
    try:
        render(SVG, png, args.size)
    except ValueError as error:
        print(f"render_icon: {error}", file=sys.stderr)
        return 1
    print(png)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
