"""Every bench cell runs in a workspace of its own under --out: the user's workspace is never read
or written, and a cell cannot reach the designs of the user or of an earlier cell."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

from workbench.bench.results import bench_workspace, cell_folder, read_cells
from workbench.core.store import Store


def workbench(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", "workbench", "--headless", *args],
        env=dict(os.environ),
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def checksums(folder: Path) -> dict[str, str]:
    """sha256 of every file below `folder`, by relative path."""
    return {
        str(path.relative_to(folder)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def tool_calls(workspace: Path) -> list[tuple[str, str]]:
    store = Store(workspace)
    try:
        return [(row["tool"], row["caller"]) for row in store.query("SELECT * FROM tool_calls")]
    finally:
        store.close()


def test_cells_see_neither_the_users_designs_nor_an_earlier_cells(
    workbench_home: Path, tmp_path: Path
) -> None:
    """The user has an optimised design and a reference cell optimises before a scripted agent
    asks for "the last design" without optimising: the agent's calls must fail, and the user's
    workspace must come out byte-identical."""
    user_workspace = workbench_home / "data" / "workspace"
    quick = {"problem_type": "beams2d", "problem_config": {"max_iter": 5}, "seed": 0}
    workbench("tool", "optimize_design", json.dumps(quick))
    before = checksums(user_workspace)
    assert any(name.startswith("artifacts/") for name in before)  # the user's design is there

    last = {"problem_type": "beams2d", "design_description": "last", "seed": 0}
    script = [
        {"tool_calls": [{"name": "transfer_to_topopt", "args": {"task": "Export the design."}}]},
        {"tool_calls": [{"name": "simulate_design", "args": last}]},
        {"tool_calls": [{"name": "convert_design_to_stl", "args": {"npy_file_path": "last"}}]},
        *[{"content": "Done."}] * 6,
    ]
    script_file = tmp_path / "reuse-last.json"
    script_file.write_text(json.dumps(script))
    out = tmp_path / "out"
    task = "beams2d/W-RAND/e0"
    agent = f"scripted:{script_file}"
    workbench(
        *("bench", "workflow-beams2d", "--tasks", task, "--out", str(out)),
        *("--model", "reference", "--model", agent),
    )

    assert checksums(user_workspace) == before
    cells = read_cells(out)
    reference = cells[f"workflow-beams2d|{task}|reference|0"]
    assert reference["status"] == "ok" and reference["scores"]["task_completion"] == 1.0
    played = cells[f"workflow-beams2d|{task}|{agent}|0"]
    calls = {call["tool"]: call for call in played["details"]["calls"]}
    assert set(calls) == {"simulate_design", "convert_design_to_stl"}, played["details"]
    assert not calls["simulate_design"]["ok"] and not calls["convert_design_to_stl"]["ok"]
    assert played["scores"]["task_completion"] == 0.0

    # each cell's calls are recorded in its own workspace, the run in the results folder's
    reference_workspace = cell_folder(out, reference["key"])
    assert ("optimize_design", "bench:reference") in tool_calls(reference_workspace)
    agent_tools = {tool for tool, _ in tool_calls(cell_folder(out, played["key"]))}
    assert agent_tools == {"simulate_design", "convert_design_to_stl"}
    records = Store(bench_workspace(out))
    try:
        assert len(records.bench_cells("workflow-beams2d")) == 2
    finally:
        records.close()


def test_worker_processes_leave_the_users_workspace_alone(
    sample_plugins, workbench_home: Path, tmp_path: Path
) -> None:
    user_workspace = workbench_home / "data" / "workspace"
    workbench("tool", "sample_write_note", '{"text": "mine"}')
    before = checksums(user_workspace)
    out = tmp_path / "out"
    # registry_overhead calls a tool 200 times through the registry: each call is recorded
    workbench(
        *("bench", "sample", "spine", "--tasks", "t0,t1,registry_overhead"),
        *("--model", "reference", "--jobs", "2", "--out", str(out)),
    )
    assert len(read_cells(out)) == 3
    assert checksums(user_workspace) == before
    [cell] = [key for key in read_cells(out) if key.startswith("spine|")]
    recorded = tool_calls(cell_folder(out, cell))
    assert recorded.count(("workspace_info", f"bench:{cell_folder(out, cell).name}")) >= 200


def test_bench_never_creates_the_users_workspace(
    sample_plugins, workbench_home: Path, tmp_path: Path
) -> None:
    workbench("bench", "--list")
    workbench("bench", "sample", "--tasks", "t0", "--model", "reference", "--out", str(tmp_path))
    assert not (workbench_home / "data" / "workspace").exists()
