"""What the bundle leaves out is never imported on the app's own paths, and the spec's filters
drop what PyInstaller's hooks add back (packaging/bundle_contents.py). Building the bundle takes
minutes: CI does it in its own step (packaging/build-bundle.sh, check-bundle.sh)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from tests.conftest import ROOT

PACKAGING = ROOT / "packaging"


@pytest.fixture(scope="module")
def contents() -> Iterator[ModuleType]:
    sys.path.insert(0, str(PACKAGING))  # packaging/ is not a package
    try:
        import bundle_contents

        yield bundle_contents
    finally:
        sys.path.remove(str(PACKAGING))


def imported_modules(*arguments: str) -> set[str]:
    """Top-level modules a headless command imports (python -X importtime, in a subprocess)."""
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    env.pop("PYTHON_KEYRING_BACKEND", None)  # the tests' in-memory keyring lives in tests.support
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "workbench", "--headless", *arguments],
        capture_output=True,
        text=True,
        env=env,
        timeout=180,
    )
    assert "Traceback" not in done.stderr, done.stderr[-2000:]
    names = set()
    for line in done.stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            names.add(line.rsplit("|", 1)[1].strip().split(".")[0])
    assert "workbench_plugins" in names, "the command loaded no plugin"
    return names


@pytest.mark.parametrize("command", [("tool", "--list"), ("doctor",)])
def test_the_headless_commands_import_nothing_the_bundle_leaves_out(
    contents: ModuleType, command: tuple[str, ...]
) -> None:
    left_out = {name for name in contents.EXCLUDED if "." not in name}
    imported = imported_modules(*command)
    assert "keyring" in imported and not imported & left_out, imported & left_out


def test_metadata_and_libraries_of_left_out_parts_are_dropped(contents: ModuleType) -> None:
    assert not contents.kept_data("torch-2.13.0+cpu.dist-info/METADATA")
    assert not contents.kept_data("sentence_transformers-5.0.dist-info/RECORD")
    assert contents.kept_data("keyring-25.7.0.dist-info/entry_points.txt")
    assert contents.kept_data("workbench_plugins/shell/prompt.md")
    assert not contents.kept_binary("pyarrow/libarrow_flight.so.1900")
    assert contents.kept_binary("pyarrow/libarrow.so.1900")


def test_the_staged_sources_are_the_checkouts_packages(
    contents: ModuleType, tmp_path: Path
) -> None:
    staged = contents.stage_sources(tmp_path / "sources")
    contents.stage_sources(staged)  # again: a rebuild replaces the links
    for name, folder in contents.SOURCE_PACKAGES.items():
        link = staged / name
        assert link.is_symlink() and link.resolve() == (ROOT / folder).resolve()
        assert (link / "__init__.py").is_file()


def test_the_entry_point_runs_the_cli(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(PACKAGING / "workbench_entry.py"), "--headless", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0 and "doctor" in done.stdout, done.stderr
