"""Rigs a test needs (Xvfb, PrusaSlicer, Chromium, the embedded model, PySide6/pyqtgraph, ...).

On a developer machine a missing rig skips the test and says why. In CI (`WORKBENCH_CI=1`, set by
.ci/run) it fails instead: CI installs every rig, so a missing one means the CI image is broken,
and a green run that silently skipped the tests of a whole component would be a lie. Components
that cannot be installed on CI machines (OpenModelica's omc) keep a plain `skipif` with a reason.

Three forms, one rule (`require_rig`):
- `require_rig(name, available, reason)` inside a test or fixture (or at module level);
- `require_module(module, reason)` instead of `pytest.importorskip`;
- `@needs_rig(name, available, reason)` as a mark, checked when the test is set up by the
  `pytest_runtest_setup` hook below (tests/conftest.py registers it).
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType

import pytest

CI_FLAG = "WORKBENCH_CI"


def in_ci() -> bool:
    return os.environ.get(CI_FLAG, "").strip() not in ("", "0")


def require_rig(name: str, available: bool, reason: str) -> None:
    """Return if the rig is there; else skip the test, or fail it in CI."""
    if available:
        return
    if in_ci():
        pytest.fail(
            f"rig {name!r} is missing and {CI_FLAG}=1 does not allow skipping: {reason}",
            pytrace=False,
        )
    pytest.skip(f"rig {name!r} is missing: {reason}", allow_module_level=True)


def require_module(module: str, reason: str) -> ModuleType:
    """`pytest.importorskip` that fails in CI."""
    try:
        return importlib.import_module(module)
    except ImportError as error:
        require_rig(module, False, f"{reason} ({error})")
        raise  # unreachable: require_rig skipped or failed


def needs_rig(name: str, available: bool, reason: str) -> pytest.MarkDecorator:
    """A mark for `require_rig`, evaluated when the test is set up (not at import)."""
    return pytest.mark.rig(name=name, available=available, reason=reason)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "rig(name, available, reason): needs a test rig")


def pytest_runtest_setup(item: pytest.Item) -> None:
    for mark in item.iter_markers("rig"):
        require_rig(mark.kwargs["name"], mark.kwargs["available"], mark.kwargs["reason"])
