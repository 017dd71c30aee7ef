"""Issue 17, acceptance 4: a model (scripted, through the real turn loop and real rumoca) drives a
repair task end to end in the harness and in the plain loop, with real token counts, and the
paper's limits end runs the way the harness says."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tests.agents.conftest import call, calls, say
from workbench.agents import ScriptedChatModel
from workbench.agents.accounting import AgentLog
from workbench.agents.events import ModelCalled, ToolFinished, ToolStarted
from workbench.core.events import Event, JobCancelRequested, JobFinished, JobStarted
from workbench_plugins.modelica import harness
from workbench_plugins.modelica.driver.background import start_task_run
from workbench_plugins.modelica.driver.modes import REMINDER
from workbench_plugins.modelica.driver.run_task import run_task
from workbench_plugins.modelica.events import TaskRunFinished, TaskRunStarted, TaskRunTurn
from workbench_plugins.modelica.specialist import PLAIN_TOOL_NAMES, RUN_TOOL_NAMES

# a small tank: the faulty one uses an outflow coefficient it never declares
GOOD = """model Tank "a tank filled at q, drained through k*h"
  parameter Real A = 2.0 "area";
  parameter Real q = 1.0 "inflow";
  parameter Real k = 0.5 "outflow coefficient";
  Real h(start = 0, fixed = true) "level";
equation
  A * der(h) = q - k * h;
end Tank;
"""
FAULTY = GOOD.replace('  parameter Real k = 0.5 "outflow coefficient";\n', "")
LEVEL = {"target": 1.99, "tolerance": 0.02}  # h(20) = 2 (1 - exp(-5)) = 1.987
SIMULATE = {"model": "Tank", "stop_time": 20, "intervals": 200}


def usage(inputs: int, output: int, cache_read: int = 0, cache_creation: int = 0) -> dict:
    return {
        "input_tokens": inputs,
        "output_tokens": output,
        "input_token_details": {"cache_read": cache_read, "cache_creation": cache_creation},
    }


def reply(*tool_calls: dict[str, Any], tokens: dict, content: str = "") -> dict[str, Any]:
    return {**calls(*tool_calls, content=content), "usage": tokens}


def tank_task(**fields: Any) -> harness.Task:
    base: dict[str, Any] = {
        "task_id": "tank_repair",
        "profile": "repair",
        "model_name": "Tank",
        "brief": "Repair Tank: the level settles at q/k = 2 within 20 s.",
        "files": {"Tank.mo": FAULTY},
        "stop_time": 20.0,
        "intervals": 200,
    }
    return harness.Task(**{**base, **fields})


class Heard:
    """Every event a run hands its on_event callback."""

    def __init__(self) -> None:
        self.events: list[Event] = []

    def __call__(self, event: Event) -> None:
        self.events.append(event)

    def of(self, kind: type) -> list[Any]:
        return [e for e in self.events if isinstance(e, kind)]


HARNESS_SCRIPT = [
    reply(
        call(
            "add_invariant",
            {
                "name": "level_settles",
                "proposition": "the level settles at q/k",
                "observables": ["h(20)"],
                "condition": LEVEL,
            },
        ),
        tokens=usage(900, 40, cache_creation=800),
    ),
    reply(call("check_model", {"model": "Tank"}), tokens=usage(950, 12, cache_read=800)),
    reply(call("write_file", {"path": "Tank.mo", "text": GOOD}), tokens=usage(1000, 150, 800, 0)),
    reply(call("simulate", SIMULATE), tokens=usage(1100, 20, cache_read=800)),
    reply(
        call(
            "evaluate_observable",
            {
                "sim": "sim1",
                "observable": {"type": "value_at_time", "variable": "h", "time": 20},
                "condition": LEVEL,
            },
        ),
        tokens=usage(1150, 45, cache_read=800),
    ),
    reply(
        call(
            "record_evidence",
            {"invariant": "level_settles", "adjudication": "supported", "sim": "sim1"},
        ),
        tokens=usage(1200, 30, cache_read=800),
    ),
    reply(call("submit", {"note": "declared k"}), tokens=usage(1250, 10, cache_read=800)),
]


def expected_tokens(script: list[dict[str, Any]]) -> dict[str, int]:
    kinds = {"input_uncached": 0, "cache_creation": 0, "cache_read": 0, "output": 0}
    for step in script:
        tokens = step["usage"]
        details = tokens["input_token_details"]
        kinds["cache_creation"] += details["cache_creation"]
        kinds["cache_read"] += details["cache_read"]
        kinds["input_uncached"] += (
            tokens["input_tokens"] - details["cache_creation"] - details["cache_read"]
        )
        kinds["output"] += tokens["output_tokens"]
    return {**kinds, "logical": sum(kinds.values())}


def test_scripted_model_repairs_a_task_in_harness_mode(inline_simulation, tmp_path: Path) -> None:
    app = inline_simulation
    model = ScriptedChatModel(replies=HARNESS_SCRIPT)
    heard = Heard()
    record = run_task(app, tank_task(), model, tmp_path / "out", on_event=heard)

    assert record.status == "submitted", record.reason
    assert record.turns == record.model_calls == 7 and record.simulations == 1
    assert [c["name"] for c in record.tool_calls] == [
        "add_invariant",
        "check_model",
        "write_file",
        "simulate",
        "evaluate_observable",
        "record_evidence",
        "submit",
    ]
    assert all(c["ok"] for c in record.tool_calls)
    # real tokens: exactly the sums of what the model reported, by kind
    assert record.tokens == expected_tokens(HARNESS_SCRIPT)
    stored = json.loads((tmp_path / "out" / "run.json").read_text())
    assert stored["tokens"] == record.tokens and stored["status"] == "submitted"
    assert json.loads((tmp_path / "out" / "submission.json").read_text()) == {"final_model": GOOD}
    assert record.submission_path == str(tmp_path / "out" / "submission.json")

    # each call saw the system prompt and the compact context only, bound to the run's tools
    seen = model.seen
    assert all(len(s["messages"]) == 2 for s in seen)
    assert seen[0]["tools"] == list(RUN_TOOL_NAMES)
    after_check = seen[2]["messages"][1].content
    assert '"tool": "check_model"' in after_check and '"ok": false' in after_check
    last = seen[-1]["messages"][1].content
    assert "level_settles" in last and "supported" in last and "Turns 6/100" in last

    # the calls are logged like every agent call, and the events went out
    log = AgentLog(app.store.folder)
    try:
        logged = [c for c in log.calls() if c["agent"] == "modelica-harness"]
    finally:
        log.close()
    assert [c["output_tokens"] for c in logged] == [40, 12, 150, 20, 45, 30, 10]
    assert sum(c["cache_read_tokens"] for c in logged) == record.tokens["cache_read"]
    assert len(heard.of(ModelCalled)) == 7
    assert len(heard.of(ToolStarted)) == len(heard.of(ToolFinished)) == 7
    assert [e.turn for e in heard.of(TaskRunTurn)] == list(range(1, 8))
    assert heard.of(TaskRunTurn)[-1].logical_tokens == record.tokens["logical"]
    assert heard.of(TaskRunStarted)[0].limits["simulations"] is None
    assert heard.of(TaskRunFinished)[0].status == "submitted"
    # every tool call reached the registry as the agent, on this run
    agent_calls = [c for c in app.store.tool_calls() if c["caller"] == "agent:modelica-harness"]
    assert len(agent_calls) == 7
    assert all(c["arguments"]["run"] == record.run_id for c in agent_calls)


def test_scripted_plain_loop_submits_the_last_written_model(
    inline_simulation, tmp_path: Path
) -> None:
    app = inline_simulation
    script = [
        reply(call("read_file", {"path": "Tank.mo"}), tokens=usage(400, 10)),
        reply(call("check_model", {"model": "Tank"}), tokens=usage(700, 12, cache_read=300)),
        reply(call("write_file", {"path": "Tank.mo", "text": GOOD}), tokens=usage(900, 150)),
        reply(call("simulate", SIMULATE), tokens=usage(1300, 20, cache_read=900)),
        {
            **say("Declared the outflow coefficient k; the level settles at 2."),
            "usage": usage(1600, 15),
        },
    ]
    model = ScriptedChatModel(replies=script)
    record = run_task(app, tank_task(), model, tmp_path / "plain", mode="plain")

    assert record.status == "submitted" and record.mode == "plain"
    assert record.turns == 5 and model.remaining == 0
    assert record.tokens == expected_tokens(script)
    submitted = json.loads((tmp_path / "plain" / "submission.json").read_text())
    assert submitted == {"final_model": GOOD}
    # same model, files/check/simulate only, and the full history grows each call
    assert all(s["tools"] == list(PLAIN_TOOL_NAMES) for s in model.seen)
    assert [len(s["messages"]) for s in model.seen] == [2, 4, 6, 8, 10]
    [stored] = app.ledger.submissions(f"modelica:{record.run_id}")
    assert stored.content["files"]["Tank.mo"] == GOOD
    assert "level settles" in stored.note  # the model's last words are its report


def test_scripted_plain_loop_that_never_writes_submits_nothing(
    inline_simulation, tmp_path: Path
) -> None:
    model = ScriptedChatModel(replies=[say("The model looks fine to me.")])
    record = run_task(inline_simulation, tank_task(), model, tmp_path / "o", mode="plain")
    assert record.status == "failure_to_submit" and record.submission_path == ""
    assert not (tmp_path / "o" / "submission.json").exists()


def test_scripted_turn_limit_ends_a_harness_run_without_submission(
    inline_simulation, tmp_path: Path
) -> None:
    status = call("ledger_status")
    script = [reply(status, tokens=usage(100, 5)) for _ in range(5)]
    model = ScriptedChatModel(replies=script)
    record = run_task(
        inline_simulation, tank_task(), model, tmp_path / "o", limits=harness.Limits(turns=3)
    )
    assert record.status == "failure_to_submit"
    assert record.reason == "limit reached: 3 turns"
    assert record.turns == record.model_calls == 3 and model.remaining == 2
    assert record.tokens["logical"] == 3 * 105


def test_scripted_reply_without_a_tool_call_costs_a_turn_and_is_reminded(
    inline_simulation, tmp_path: Path
) -> None:
    script = [
        {**say("Let me think about the tank first."), "usage": usage(300, 9)},
        reply(call("submit", {"note": "already right"}), tokens=usage(320, 8)),
    ]
    model = ScriptedChatModel(replies=script)
    task = tank_task(files={"Tank.mo": GOOD})  # no invariants: vacuously ready
    record = run_task(inline_simulation, task, model, tmp_path / "o")
    assert record.status == "submitted"  # the talk did not end the run
    assert record.turns == 2 and record.tool_calls == [{"name": "submit", "ok": True}]
    first, second = (s["messages"][1].content for s in model.seen)
    assert REMINDER not in first and REMINDER in second
    assert "Turns 1/100" in second


def test_scripted_tuning_run_stops_at_its_simulation_limit(
    inline_simulation, tmp_path: Path
) -> None:
    simulate = call("simulate", {**SIMULATE, "parameters": {"k": 0.4}})
    script = [reply(simulate, tokens=usage(100, 5)) for _ in range(3)]
    script.append(reply(call("submit"), tokens=usage(100, 5)))
    model = ScriptedChatModel(replies=script)
    task = tank_task(
        profile="tuning",
        files={"Tank.mo": GOOD},
        tunable_parameters=["k"],
        parameter_ranges={"k": (0.1, 1.0)},
        limits={"simulations": 2},
    )
    record = run_task(inline_simulation, task, model, tmp_path / "o")
    assert record.status == "failure_to_submit"
    assert record.reason == "limit reached: 2 simulations" and record.simulations == 2
    assert [c["ok"] for c in record.tool_calls] == [True, True, False]
    assert model.remaining == 1  # the run ended before the submit was even asked for


class HangingModel(ScriptedChatModel):
    """Answers its first call, then hangs (a slow local model) until `release` is set."""

    release: Any = None

    def _chunks(self, messages: list, tools: list[dict]) -> list:  # type: ignore[override]
        if self.position >= 1:
            self.release.wait(10)
        return super()._chunks(messages, tools)


def test_cancel_stops_a_scripted_background_run(inline_simulation, tmp_path: Path) -> None:
    app = inline_simulation
    release = threading.Event()
    model = HangingModel(
        replies=[reply(call("ledger_status"), tokens=usage(50, 5))] * 3, release=release
    )
    on_bus: list[Event] = []
    for kind in (JobStarted, JobFinished, TaskRunStarted, TaskRunTurn, TaskRunFinished):
        app.bus.subscribe(kind, on_bus.append)
    handle = start_task_run(app, tank_task(), model=model, out=tmp_path / "bg")
    try:
        deadline = time.monotonic() + 10
        while not any(isinstance(e, TaskRunTurn) for e in on_bus):
            assert time.monotonic() < deadline, "the run never finished its first turn"
            time.sleep(0.02)
        started = time.monotonic()
        app.bus.publish(JobCancelRequested(job_id=handle.job_id))  # the jobs bar's Cancel
        record = handle.wait(5)
        stopped_in = time.monotonic() - started
    finally:
        release.set()
    assert handle.done() and record is not None
    assert stopped_in < 3  # the hanging reply was cut short, not waited for
    assert record.status == "failure_to_submit"
    assert record.reason == "cancelled by the engineer" and record.turns == 1
    finished = [e for e in on_bus if isinstance(e, JobFinished)]
    assert [(e.job_id, e.status) for e in finished] == [(handle.job_id, "cancelled")]
    assert [e.job_id for e in on_bus if isinstance(e, JobStarted)] == [handle.job_id]
    assert [e.status for e in on_bus if isinstance(e, TaskRunFinished)] == ["failure_to_submit"]


@pytest.mark.parametrize("mode", ["harness", "plain"])
def test_an_unknown_model_spec_is_a_clear_error(
    inline_simulation, tmp_path: Path, mode: str
) -> None:
    from workbench.agents import BackendError

    with pytest.raises(BackendError, match="Unknown model"):
        run_task(inline_simulation, tank_task(), "nonsense:x", tmp_path / "o", mode=mode)


def test_scripted_submit_of_a_model_that_fails_check_is_refused_by_the_public_gates(
    inline_simulation, tmp_path: Path
) -> None:
    script = [
        reply(call("submit", {"note": "as it came"}), tokens=usage(100, 5)),
        reply(call("write_file", {"path": "Tank.mo", "text": GOOD}), tokens=usage(100, 5)),
        reply(call("submit", {"note": "declared k"}), tokens=usage(100, 5)),
    ]
    model = ScriptedChatModel(replies=script)
    record = run_task(inline_simulation, tank_task(), model, tmp_path / "o")
    assert [(c["name"], c["ok"]) for c in record.tool_calls] == [
        ("submit", False),
        ("write_file", True),
        ("submit", True),
    ]
    refusal = model.seen[1]["messages"][1].content  # what the model heard of its first submit
    assert "submission contract is not met" in refusal and "check:" in refusal
    assert record.status == "submitted"


def test_scripted_runs_of_a_benchmark_task_file_pass_the_evaluator(
    inline_simulation, tmp_path: Path
) -> None:
    """A task file of the task set, run headless as `modelica run` does, in both modes; the
    scripted model writes the contract's known-valid model. The evaluator judges the file."""
    from workbench_plugins.modelica.driver.run_task import run_task_file
    from workbench_plugins.modelica.evaluator import evaluate
    from workbench_plugins.modelica.task_packages.packages import load_packages
    from workbench_plugins.modelica.task_packages.submissions import read_submission

    package = next(p for p in load_packages() if p.task.task_type == "model_repair")
    fixed = package.contract.known_valid.final_model
    name = f"{package.task.model_name}.mo"
    write = call("write_file", {"path": name, "text": fixed})
    scripts = {
        "harness": [calls(write), calls(call("submit", {"note": "repaired"}))],
        "plain": [calls(write), say("Repaired.")],
    }
    for mode, script in scripts.items():
        out = tmp_path / mode
        spec = "scripted:" + str(tmp_path / f"{mode}.json")
        Path(spec.removeprefix("scripted:")).write_text(json.dumps(script))
        record = run_task_file(inline_simulation, package.task_path, model=spec, out=out, mode=mode)
        assert record.status == "submitted", (mode, record.reason)
        assert record.model == spec and record.tokens["logical"] > 0
        root = out / "workspace"
        workspace = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.mo"))
        library = [p.relative_to(package.library_root or p.parent) for p in package.library]
        assert workspace == sorted([name, *(f"library/{p.as_posix()}" for p in library)])
        submitted = read_submission(out / "submission.json")
        verdict = evaluate(package, submitted, work_dir=tmp_path / f"eval-{mode}")
        assert verdict.passed, (mode, verdict.failed_stage, verdict.gates)
