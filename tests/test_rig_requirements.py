"""A missing rig skips a test on a developer machine and fails it under WORKBENCH_CI=1.

The check runs a small test suite in a fresh pytest process (so this run's own environment and
hooks do not leak in), once without and once with the CI flag, and counts the outcomes.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT

SUITE = """
from tests.rigs.require import needs_rig, require_module, require_rig


def test_rig_checked_inside_the_test():
    require_rig("absent-tool", False, "absent-tool is not installed here")


@needs_rig("absent-mark", False, "absent-mark is not installed here")
def test_rig_as_a_mark():
    pass


def test_module_inside_the_test():
    require_module("no_such_module_for_rig_tests", "the extra is not installed")


@needs_rig("present-tool", True, "present-tool is installed")
def test_rig_that_is_present_runs():
    require_rig("present-tool", True, "present-tool is installed")
"""

# as tests/rigs/gui.py: a module whose import checks the rig, imported before what needs it
RIG_MODULE = """
from tests.rigs.require import require_module

require_module("no_such_module_for_rig_tests", "the extra is not installed")
"""

MODULE_LEVEL = """
import rig_module  # noqa: F401


def test_never_collected_without_the_module():
    pass
"""


def outcomes(folder: Path, ci: str | None) -> tuple[dict[str, int], str]:
    env = {k: v for k, v in os.environ.items() if k != "WORKBENCH_CI"}
    if ci is not None:
        env["WORKBENCH_CI"] = ci
    env["PYTHONPATH"] = str(ROOT)
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"  # speed: the suite needs none of them
    done = subprocess.run(
        [
            *(sys.executable, "-m", "pytest", "-p", "tests.rigs.require", "-q", "-rA"),
            *("-p", "no:cacheprovider", "--continue-on-collection-errors", str(folder)),
        ],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    summary = done.stdout.strip().splitlines()[-1]
    counts = {word.rstrip("s"): int(n) for n, word in re.findall(r"(\d+) (\w+)", summary)}
    return counts, done.stdout


def test_missing_rigs_skip_locally_and_fail_in_ci(tmp_path: Path) -> None:
    (tmp_path / "test_suite.py").write_text(SUITE)
    (tmp_path / "test_module_level.py").write_text(MODULE_LEVEL)
    (tmp_path / "rig_module.py").write_text(RIG_MODULE)

    local, text = outcomes(tmp_path, None)
    assert local == {"passed": 1, "skipped": 4}, text
    assert "absent-tool is not installed here" in text  # the skip says why

    off, text = outcomes(tmp_path, "0")
    assert off == local, text

    ci, text = outcomes(tmp_path, "1")
    # in a test body: failures; as a mark (setup) and at import (collection): errors
    assert ci == {"failed": 2, "error": 2, "passed": 1}, text
    assert "WORKBENCH_CI=1 does not allow skipping" in text
    assert "absent-mark is not installed here" in text
