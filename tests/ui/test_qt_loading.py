"""`load_qt` puts Python's own import back after PySide6 replaced it: with PySide6's import, every
module imported afterwards had its whole source read (to look for "PySide6") on the importing
thread, which froze the window while views imported their libraries."""

from __future__ import annotations

import builtins
import importlib
import sys
from pathlib import Path

import pytest

from workbench.ui.qt_loading import load_qt


def test_modules_imported_after_qt_are_not_scanned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from PySide6.support import feature  # type: ignore[attr-defined]

    load_qt()
    assert builtins.__import__ is builtins.__orig_import__  # type: ignore[attr-defined]
    (tmp_path / "imported_after_qt.py").write_text("VALUE = 1\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        exec("import imported_after_qt", {})  # an import statement, as a module makes it
        assert sys.modules["imported_after_qt"].VALUE == 1
        assert "imported_after_qt" not in feature.pyside_feature_dict
    finally:
        sys.modules.pop("imported_after_qt", None)


def test_loading_twice_changes_nothing() -> None:
    load_qt()
    first = builtins.__import__
    load_qt()
    assert builtins.__import__ is first
    assert importlib.import_module("json").dumps([1]) == "[1]"
