"""Issue 28 (TOCTOU): read_file opens the checked path without following a link put there after
the check; a file swapped for a link to a secret between check and open is refused, unread."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.modelica.conftest import MODELS
from workbench_plugins.modelica import harness
from workbench_plugins.modelica.workspace_files import Workspace


def test_a_file_swapped_for_a_link_after_the_check_is_not_read(
    context: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    task = harness.Task(
        task_id="swap",
        profile="repair",
        model_name="RCCharge",
        files={"RCCharge.mo": (MODELS / "RCCharge.mo").read_text()},
    )
    run = harness.start_run(task, tmp_path / "task", context.ledger)
    secret = tmp_path / "secret.txt"
    secret.write_text("private key material")
    checked = Workspace.resolve

    def check_then_swap(self: Workspace, relative: str, mode: Any = "read") -> Path:
        path = checked(self, relative, mode)
        path.unlink()  # what a racing process does between the check and the open
        path.symlink_to(secret)
        return path

    monkeypatch.setattr(Workspace, "resolve", check_then_swap)
    try:
        read = context.registry.call(
            "read_file", {"run": run.id, "path": "RCCharge.mo"}, caller="t"
        )
    finally:
        harness.forget_run(run.id)
    assert not read.ok and read.error is not None
    assert "changed after it was checked" in read.error.message
    assert "private" not in read.model_dump_json()
