"""Where tests keep pictures for a person to look at: $WORKBENCH_TEST_ARTIFACTS, else
tests/artifacts/ in the repository (git-ignored)."""

from __future__ import annotations

import os
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[2]


def artifact_folder(name: str = "") -> Path:
    base = os.environ.get("WORKBENCH_TEST_ARTIFACTS")
    folder = (Path(base) if base else REPOSITORY / "tests" / "artifacts") / name
    folder.mkdir(parents=True, exist_ok=True)
    return folder
