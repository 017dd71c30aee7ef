"""Quality gates: import rules (DESIGN.md), ruff, and a wheel that carries plugins and resources."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
# slow: handed out first (tests/rigs/sharing.py), so these run beside the rest of the tests
pytestmark = pytest.mark.slow


def test_import_rules_hold() -> None:
    done = subprocess.run(
        [str(BIN / "lint-imports"), "--no-cache"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout and "7 kept" in done.stdout


def test_ruff_is_clean() -> None:
    done = subprocess.run(
        [str(BIN / "ruff"), "check", "."], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout + done.stderr


# not copied for the wheel build: what the checkout holds besides its source
NOT_SOURCE = shutil.ignore_patterns(
    ".*", "__pycache__", "*.egg-info", "build", "dist", "bench-results", "artifacts"
)


def test_wheel_contains_plugins_and_resources(tmp_path: Path) -> None:
    # built from a copy: setuptools rewrites workbench.egg-info in the folder it builds, which the
    # tests running beside this one (xdist) read the plugins' entry points from
    source = tmp_path / "source"
    shutil.copytree(ROOT, source, ignore=NOT_SOURCE)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(tmp_path),
            str(source),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    [wheel] = tmp_path.glob("workbench-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "workbench_plugins/workspace/__init__.py" in names
    assert "workbench_plugins/workspace/tools/__init__.py" in names
    assert "workbench_resources/__init__.py" in names
    assert "workbench/core/ledger/ledger.py" in names
    [entry_points] = [n for n in names if n.endswith("entry_points.txt")]
    text = zipfile.ZipFile(wheel).read(entry_points).decode()
    assert "[workbench.plugins]" in text and "workbench_plugins.workspace:plugin" in text
    assert "workbench = workbench.cli:main" in text
    assert not any(n.startswith(("tests/", "plugins/")) for n in names)
