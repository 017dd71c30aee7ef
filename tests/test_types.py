"""The whole tree type-checks with mypy: strict on workbench.core and workbench.bench (pyproject's
[tool.mypy]), default elsewhere (issue 12).

plugins/ installs as `workbench_plugins` through an editable-install import hook that mypy cannot
follow, so the check runs over a tree of symlinks that gives each folder its import name.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("workbench", "workbench_plugins")  # workbench is found from the working directory
# slow: handed out first (tests/rigs/sharing.py), so mypy runs beside the rest of the tests
pytestmark = pytest.mark.slow


def _import_tree() -> Path:
    tree = ROOT / ".mypy_cache" / "import-tree"
    tree.mkdir(parents=True, exist_ok=True)
    link = tree / "workbench_plugins"
    if not link.is_symlink():
        link.symlink_to(ROOT / "plugins", target_is_directory=True)
    return tree


@pytest.mark.timeout(900)  # a cold cache on a busy machine takes minutes
def test_mypy_is_clean() -> None:
    tree = _import_tree()
    done = subprocess.run(
        [sys.executable, "-m", "mypy", *(arg for name in PACKAGES for arg in ("-p", name))],
        cwd=ROOT,
        env={**os.environ, "MYPYPATH": str(tree)},
        capture_output=True,
        text=True,
        timeout=900,
    )
    report = done.stdout.replace(f"{tree}/workbench_plugins/", "plugins/")
    assert done.returncode == 0, report[-20000:] + done.stderr[-3000:]
    assert "Success: no issues found" in done.stdout
