"""Issue 17: the chat's `start_modelica_task` tool starts a task run that a model works in the
background, and the run's progress arrives on the app's bus (the jobs bar and the views)."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from tests.agents.conftest import call, calls, say, write_script
from tests.modelica.test_driver import FAULTY, GOOD
from workbench.core.events import Event, JobFinished, JobProgress, JobStarted
from workbench_plugins.modelica.driver.background import handle_of
from workbench_plugins.modelica.events import TaskRunFinished, TaskRunStarted, TaskRunTurn

PUBLIC_TASK: dict[str, Any] = {
    "task_id": "wb_repair_tank_99",
    "benchmark": "Modelica Agent Workflow Benchmark",
    "benchmark_version": "v0.2-preview",
    "split": "hidden_official_v0.2",
    "task_type": "model_repair",
    "difficulty": "easy",
    "model_name": "Tank",
    "workflow_goal": "Repair Tank so that it checks and simulates; the level settles at 2.",
    "initial_model": FAULTY,
    "verification": {
        "tool": "OpenModelica",
        "check_model": True,
        "simulate": {"stop_time": 20, "intervals": 200},
    },
    "acceptance": ["checkModel passes and the simulation reaches the stop time"],
}


class Bus:
    """What the app's bus carried, and a way to wait for the run's end."""

    def __init__(self, app: Any) -> None:
        self.events: list[Event] = []
        self.finished = threading.Event()
        kinds = (JobStarted, JobProgress, JobFinished, TaskRunStarted, TaskRunTurn)
        for kind in kinds:
            app.bus.subscribe(kind, self.events.append)
        app.bus.subscribe(TaskRunFinished, self._finished)

    def _finished(self, event: TaskRunFinished) -> None:
        self.events.append(event)
        self.finished.set()

    def of(self, kind: type) -> list[Any]:
        return [e for e in self.events if isinstance(e, kind)]


def scripted_profile(app: Any, spec: str) -> str:
    """A model profile replaying the script `spec` names (the person's setting), and its name."""
    path = spec.removeprefix("scripted:")
    app.settings.model_profiles = [{"name": "scripted", "kind": "scripted", "model": path}]
    return "scripted"


def start(app: Any, **arguments: Any) -> dict[str, Any]:
    outcome = app.registry.call("start_modelica_task", arguments, caller="test")
    assert outcome.ok, outcome.error
    return outcome.result


def test_the_tool_starts_a_scripted_run_whose_events_arrive_on_the_bus(
    inline_simulation, tmp_path: Path
) -> None:
    app = inline_simulation
    model = write_script(
        tmp_path,
        [
            calls(call("write_file", {"path": "Tank.mo", "text": GOOD})),
            calls(call("submit", {"note": "declared k"})),
        ],
    )
    bus = Bus(app)
    model = scripted_profile(app, model)  # a caller names a model profile, never a file
    started = start(app, task=PUBLIC_TASK, model_name=model)

    assert started["task_id"] == "wb_repair_tank_99" and started["mode"] == "harness"
    assert started["limits"] == {
        "wall_time_s": 900.0,
        "verification_grace_s": 120.0,
        "turns": 100,
        "simulations": None,
    }
    assert Path(started["workspace"]).is_dir()
    assert bus.finished.wait(30), "the run never finished"
    handle = handle_of(started["run_id"])
    assert handle is not None and handle.wait(10) is not None
    assert handle.record is not None and handle.record.status == "submitted"

    [begun] = bus.of(TaskRunStarted)
    assert begun.run_id == started["run_id"] and begun.model == model
    assert [e.turn for e in bus.of(TaskRunTurn)] == [1, 2]
    assert bus.of(TaskRunTurn)[-1].last_tool == "submit"
    assert [e.job_id for e in bus.of(JobStarted)] == [started["job_id"]]
    assert len(bus.of(JobProgress)) == 2
    assert [(e.job_id, e.status) for e in bus.of(JobFinished)] == [(started["job_id"], "done")]
    [ended] = bus.of(TaskRunFinished)
    assert ended.status == "submitted"
    assert json.loads(Path(ended.submission_path).read_text()) == {"final_model": GOOD}
    # the model's workspace holds the task's model, never the submission or the run record
    assert sorted(p.name for p in Path(started["workspace"]).iterdir()) == ["Tank.mo"]


def test_the_tool_takes_a_task_file_and_a_brief_scripted(inline_simulation, tmp_path: Path) -> None:
    app = inline_simulation
    task_file = app.store.folder / "tank.json"
    task_file.write_text(json.dumps(PUBLIC_TASK))
    script = [calls(call("ledger_status")), say("Nothing to change.")]
    never_submits = scripted_profile(app, write_script(tmp_path, script, "idle.json"))
    bus = Bus(app)

    from_file = start(app, task_path=str(task_file), model_name=never_submits, mode="plain")
    assert from_file["task_id"] == "wb_repair_tank_99" and from_file["mode"] == "plain"
    assert bus.finished.wait(30)
    file_run = handle_of(from_file["run_id"])
    assert file_run is not None and file_run.wait(10) is not None
    # the plain loop may not call ledger tools: refused, and nothing was written, so no answer
    assert file_run.record is not None and file_run.record.status == "failure_to_submit"
    assert file_run.record.tool_calls == [{"name": "ledger_status", "ok": False}]
    assert file_run.record.turns == 2

    brief = "Write model Heater: a lumped thermal mass heated at 100 W."
    from_brief = start(app, brief=brief, model_name=never_submits)
    assert from_brief["profile"] == "generation" and from_brief["limits"]["simulations"] is None
    brief_run = handle_of(from_brief["run_id"])
    assert brief_run is not None
    brief_run.cancel()
    assert brief_run.wait(10) is not None


def test_the_tool_refuses_zero_or_two_tasks(context) -> None:  # type: ignore[no-untyped-def]
    for arguments in ({}, {"task": PUBLIC_TASK, "brief": "a heater"}):
        refused = context.registry.call("start_modelica_task", arguments, caller="test")
        assert not refused.ok and "exactly one task" in refused.error.message
    broken = context.registry.call(
        "start_modelica_task", {"task": {**PUBLIC_TASK, "extra": 1}}, caller="test"
    )
    assert not broken.ok and "extra" in broken.error.message
    no_model = context.registry.call(
        "start_modelica_task", {"brief": "model Heater", "model_name": "nonsense:x"}, caller="t"
    )
    assert not no_model.ok and no_model.error.kind == "failed"
    assert "'nonsense:x' is not a model profile" in no_model.error.message
