"""Issue 17, acceptance 3 and 4: the `modelica` bench suite through the real bench runner.

The reference passes every task of the task set in both modes; each off-target policy, the two
that cheat included, passes none (the suite's own validation, run once for the module through
its command, as CI ran it before as a step of its own: 6 policies x every task x 2 modes);
every verdict is bound to the submission.json on disk by its sha256; a scripted model runs a
repair task in the harness and in the plain loop through the driver, and the report shows both
side by side with the tokens the model reported.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from workbench.bench.results import cell_folder, read_cells
from workbench.bench.runner import PlannedCell, run_bench
from workbench.core.context import AppContext
from workbench_plugins.modelica.bench import suites
from workbench_plugins.modelica.bench import validate as grid_validation
from workbench_plugins.modelica.bench.report import PAGE, PLOT, REPORT
from workbench_plugins.modelica.bench.suite import SUBMISSION, ModelicaSuite
from workbench_plugins.modelica.task_packages.contract import ModelAnswer

POLICIES = grid_validation.POLICIES
OFF_TARGET = [policy for policy in POLICIES if policy != "reference"]


@dataclass(frozen=True)
class Grid:
    out: Path
    exit_code: int
    printed: str  # the command's stdout and stderr
    records: dict[str, dict[str, Any]]
    suite: ModelicaSuite


@pytest.fixture(scope="module")
def grid(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Grid]:
    """The suite's validation grid through the runner, by its command (`python -m
    workbench_plugins.modelica.bench.validate --out DIR`): every policy x task x mode."""
    out = tmp_path_factory.mktemp("modelica-bench") / "out"
    done = subprocess.run(
        [sys.executable, "-m", grid_validation.__name__, "--out", str(out)],
        env={
            **os.environ,
            "WORKBENCH_HOME": str(out.parent / "home"),
            "OLLAMA_HOST": "http://127.0.0.1:9",
        },
        capture_output=True,
        text=True,
        timeout=900,  # 6 policies x 48 cells, slower on a shared machine
    )
    yield Grid(out, done.returncode, done.stdout + done.stderr, read_cells(out), ModelicaSuite())


def cells_of(records: dict[str, dict[str, Any]], model: str) -> list[dict[str, Any]]:
    return [record for record in records.values() if record["model"] == model]


def test_the_suite_is_the_task_set_in_both_modes() -> None:
    suite = next(s for s in suites() if s.name == "modelica")
    assert isinstance(suite, ModelicaSuite)
    tasks = suite.tasks()
    packages = suite.packages
    assert len(packages) >= 24
    assert len(tasks) == 2 * len(packages)
    assert {task.style for task in tasks} == {"harness", "plain"}
    assert {task.problem for task in tasks} == {"model_repair", "model_generation", "model_tuning"}
    assert {task.condition for task in tasks} == {"easy", "medium", "hard"}
    smoke = suite.smoke_tasks()
    assert len(smoke) == 2 and {task.style for task in smoke} == {"harness", "plain"}
    assert smoke[0].problem == "model_repair"


def test_the_reference_passes_every_task_in_both_modes(grid: Grid) -> None:
    reference = cells_of(grid.records, "reference")
    assert len(reference) == 2 * len(grid.suite.packages)
    for record in reference:
        assert record["status"] == "ok", record.get("error")
        assert record["scores"]["passed"] == 1.0, record["details"]["verdict"]
        assert record["details"]["failed_stage"] == ""
        # the harness path: explicit submission, the checks adjudicated in the ledger
        names = [call["name"] for call in record["details"]["tool_calls"]]
        if record["style"] == "harness":
            assert names[-1] == "submit" and "record_evidence" in names
            # the tools measured what the evaluator checks: every invariant supported, no
            # override needed
            assert record["details"]["run"]["override"] is False, record["details"]["run"]
        else:
            assert not {"submit", "add_invariant", "record_evidence"} & set(names)


def test_every_verdict_is_bound_to_the_submission_file_of_its_cell(grid: Grid) -> None:
    for record in cells_of(grid.records, "reference"):
        folder = cell_folder(grid.out, record["key"])
        digest = hashlib.sha256((folder / SUBMISSION).read_bytes()).hexdigest()
        sealed = record["details"]["submission"]
        assert sealed["sha256"] == digest == sealed["evaluated_sha256"] and sealed["matches"]
        submitted = json.loads((folder / SUBMISSION).read_text(encoding="utf-8"))
        assert set(submitted) in ({"final_model"}, {"parameter_set", "final_report"})
        assert not (folder / "workspace" / SUBMISSION).exists()  # outside the agent's reach


@pytest.mark.parametrize("policy", OFF_TARGET)
def test_each_off_target_policy_passes_no_task(grid: Grid, policy: str) -> None:
    played = cells_of(grid.records, policy)
    assert len(played) == 2 * len(grid.suite.packages)
    assert all(record["status"] == "ok" for record in played)
    assert sum(record["scores"]["passed"] for record in played) == 0


def test_off_target_variants_run_but_fail_at_behaviour(grid: Grid) -> None:
    """Every task's, repairs included: a repair's variant is not its faulty input again."""
    variants = cells_of(grid.records, "offtarget:variant")
    assert {r["problem"] for r in variants} == {"model_repair", "model_generation", "model_tuning"}
    for record in variants:
        assert record["details"]["failed_stage"] == "behaviour", record["details"]["verdict"]
        assert record["scores"]["executable_but_wrong"] == 1.0
        assert record["details"]["run"]["status"] == "submitted"


def test_a_run_that_never_submits_scores_zero_with_the_right_model_in_its_workspace(
    grid: Grid,
) -> None:
    for record in cells_of(grid.records, "offtarget:never-submits"):
        folder = cell_folder(grid.out, record["key"])
        package = grid.suite.packages[record["details"]["task_id"]]
        assert not (folder / SUBMISSION).exists()
        assert record["scores"]["submitted"] == 0.0 and record["scores"]["passed"] == 0.0
        answer = getattr(package.contract.known_valid, "final_model", None)
        if answer is not None:  # the work was done: the known-valid model sits unsubmitted
            written = folder / "workspace" / f"{package.task.model_name.rsplit('.', 1)[-1]}.mo"
            assert written.read_text(encoding="utf-8") == answer


def test_the_validation_finds_every_cell_as_designed(grid: Grid) -> None:
    assert grid.exit_code == 0, grid.printed[-5000:]
    checked = len(POLICIES) * 2 * len(grid.suite.packages)
    assert f"validation passed: {checked} cells checked in {grid.out}" in grid.printed


def test_the_report_shows_both_modes_side_by_side(grid: Grid) -> None:
    text = (grid.out / REPORT).read_text(encoding="utf-8")
    assert "| workflow | difficulty | tasks | harness passed | plain passed |" in text
    reference = text.split("## reference", 1)[1].split("\n## ", 1)[0]
    total = len(grid.suite.packages)
    assert f"| **all** | | {total} | **{total}/{total}** | **{total}/{total}** |" in reference
    variant = text.split("## offtarget:variant", 1)[1].split("\n## ", 1)[0]
    assert f"**0/{total}** | **0/{total}** |" in variant
    stages = [line for line in variant.splitlines() if line.startswith("| plain | ")]
    assert stages and stages[0].split("|")[3].strip() == "0"  # passed: none
    assert (grid.out / PLOT).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def _script(suite: ModelicaSuite, task_id: str) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """A scripted repair: write the fix, check it, say it is done (the plain loop stops
    there), then submit (the harness needs it). Each reply reports its usage."""
    package = suite.packages[task_id]
    answer = package.contract.known_valid
    assert isinstance(answer, ModelAnswer)
    fixed = answer.final_model
    model_file = f"{package.task.model_name.rsplit('.', 1)[-1]}.mo"
    calls = [
        {"tool_calls": [{"name": "write_file", "args": {"path": model_file, "text": fixed}}]},
        {"tool_calls": [{"name": "check_model", "args": {"model": package.task.model_name}}]},
        {"content": "The model is repaired."},
        {"tool_calls": [{"name": "submit", "args": {"override": True, "note": "repaired"}}]},
    ]
    for number, reply in enumerate(calls, start=1):
        reply["usage"] = {
            "input_tokens": 900 + 100 * number,
            "output_tokens": 20 + number,
            "input_token_details": {"cache_read": 300, "cache_creation": 40 * number},
        }
    return calls, {"harness": 4, "plain": 3}


def _expected_tokens(script: list[dict[str, Any]], calls: int) -> dict[str, float]:
    used = [reply["usage"] for reply in script[:calls]]
    cache_read = sum(u["input_token_details"]["cache_read"] for u in used)
    cache_creation = sum(u["input_token_details"]["cache_creation"] for u in used)
    uncached = sum(u["input_tokens"] for u in used) - cache_read - cache_creation
    output = sum(u["output_tokens"] for u in used)
    return {
        "tokens_input": uncached,
        "tokens_cache_read": cache_read,
        "tokens_cache_creation": cache_creation,
        "tokens_output": output,
        "tokens_logical": uncached + cache_read + cache_creation + output,
    }


def test_a_scripted_model_runs_a_repair_task_in_both_modes_with_real_tokens(
    tmp_path: Path, workbench_home: Path
) -> None:
    suite = ModelicaSuite()
    smoke = suite.smoke_tasks()
    script, model_calls = _script(suite, str(smoke[0].payload["task_id"]))
    script_file = tmp_path / "repair.json"
    script_file.write_text(json.dumps(script), encoding="utf-8")
    model = f"scripted:{script_file}"
    out = tmp_path / "out"
    context = AppContext.open(workspace=tmp_path / "session")
    try:
        cells = [PlannedCell(suite.name, task, model, 0) for task in smoke]
        outcome = run_bench(context, {suite.name: suite}, cells, out)
    finally:
        context.close()
    assert outcome.errors == []
    records = {record["style"]: record for record in read_cells(out).values()}
    text = (out / REPORT).read_text(encoding="utf-8")
    row = next(
        line for line in text.splitlines() if line.startswith(f"| {smoke[0].payload['task_id']} |")
    )
    for mode in ("harness", "plain"):
        record = records[mode]
        assert record["status"] == "ok" and record["scores"]["passed"] == 1.0
        assert record["details"]["policy"] == "agent"
        assert record["scores"]["model_calls"] == model_calls[mode]
        expected = _expected_tokens(script, model_calls[mode])
        assert {name: record["scores"][name] for name in expected} == expected
        assert expected["tokens_logical"] > 0
        assert f"| pass | {expected['tokens_logical']:,.0f} (" in row  # in its mode's columns
    names = {mode: [c["name"] for c in records[mode]["details"]["tool_calls"]] for mode in records}
    assert names == {
        "harness": ["write_file", "check_model", "submit"],
        "plain": ["write_file", "check_model"],
    }
    section = text.split(f"## {model}", 1)[1]
    assert "| **all** | | 1 | **1/1** | **1/1** |" in section


def test_the_bench_command_runs_the_suite(tmp_path: Path, workbench_home: Path) -> None:
    """`workbench --headless bench modelica --model reference`, narrowed to the smoke task."""
    task_id = ModelicaSuite().smoke_tasks()[0].payload["task_id"]
    out = tmp_path / "out"
    done = subprocess.run(
        [
            *(sys.executable, "-m", "workbench", "--headless", "bench", "modelica"),
            *("--model", "reference", "--tasks", f"{task_id}/*", "--out", str(out)),
        ],
        env={**os.environ, "WORKBENCH_HOME": str(workbench_home)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert (out / PAGE).is_file() and (out / REPORT).is_file()
    assert PAGE in done.stdout  # the compact table names each suite's report
    records = read_cells(out)
    assert len(records) == 2 and all(r["scores"]["passed"] == 1.0 for r in records.values())


def test_without_a_task_set_the_suite_has_no_tasks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An install without the repository's benchmarks lists the suite with no tasks, and
    `bench` keeps working for the other suites."""
    monkeypatch.setenv("WORKBENCH_MODELICA_BENCHMARK", str(tmp_path / "nowhere"))
    (suite,) = suites()
    assert suite.tasks() == [] and suite.smoke_tasks() == []
