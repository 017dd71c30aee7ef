"""The icon the app sets on start (workbench.ui.app.app_icon, from resources/icons): it loads and
draws at a taskbar's size."""

from __future__ import annotations

from PySide6.QtGui import QColor
from PySide6.QtWidgets import QApplication

from workbench.ui.app import app_icon


def test_the_app_icon_loads_and_draws(qapp: QApplication) -> None:
    icon = app_icon()
    assert not icon.isNull()
    image = icon.pixmap(64, 64).toImage()
    assert (image.width(), image.height()) == (64, 64)
    # drawn, not an empty square: the centre has an opaque colour
    assert QColor(image.pixel(32, 32)).alpha() == 255
