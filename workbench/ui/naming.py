"""Widgets named for tests and style sheets (PySide6's stubs have no `objectName=` keyword)."""

from __future__ import annotations

from typing import TypeVar

from PySide6.QtCore import QObject

Named = TypeVar("Named", bound=QObject)


def named(widget: Named, name: str) -> Named:
    """`widget` with its objectName set to `name`."""
    widget.setObjectName(name)
    return widget
