"""Acceptance 2: the harness, driven by scripted fake policies (no language model involved)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.modelica.conftest import MODELS
from workbench.core.tools import ToolFailure
from workbench_plugins.modelica import harness
from workbench_plugins.modelica.turns import drive, turn_context

GOOD = (MODELS / "RCCharge.mo").read_text()
FAULTY = GOOD.replace("i = (V - vc) / R;", "i = (V - vc) / Rr;")  # undeclared variable
SETTLES = {
    "name": "charges_to_source",
    "proposition": "the capacitor charges to the source voltage within 10 s",
    "observables": ["vc(10)"],
    "condition": {"target": 5.0, "tolerance": 0.01},
}


class FakeScriptedPolicy:
    """A fake agent: plays a fixed list of tool calls, one per turn, then stops (None)."""

    def __init__(self, steps: list[tuple[str, dict[str, Any]]], *, forever: bool = False) -> None:
        self.steps = list(steps)
        self.forever = forever
        self.seen: list[str] = []
        self.results: list[dict[str, Any] | None] = []

    def __call__(self, context: str, last: dict[str, Any] | None) -> Any:
        self.seen.append(context)
        self.results.append(last)
        if self.steps:
            return self.steps.pop(0)
        return ("ledger_status", {}) if self.forever else None


def make_run(context, tmp_path: Path, driver: str = "", **task: Any) -> harness.Run:  # type: ignore[no-untyped-def]
    fields: dict[str, Any] = {
        "task_id": "rc",
        "profile": "repair",
        "model_name": "RCCharge",
        "brief": "Repair RCCharge so it charges to 5 V.",
        "files": {"RCCharge.mo": FAULTY},
        **task,
    }
    return harness.start_run(
        harness.Task(**fields), tmp_path / "task", context.ledger, driver=driver
    )


def caller(context):  # type: ignore[no-untyped-def]
    def call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        return context.registry.call(name, arguments, caller="fake-policy").model_dump(mode="json")

    return call


def call_ok(context, tool_name: str, **arguments: Any) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    outcome = context.registry.call(tool_name, arguments, caller="test")
    assert outcome.ok, outcome.error
    return outcome.result


def test_scripted_repair_run_submits_a_ready_candidate(inline_simulation, tmp_path: Path) -> None:
    context = inline_simulation
    run = make_run(context, tmp_path)
    policy = FakeScriptedPolicy(
        [
            ("add_invariant", SETTLES),
            ("check_model", {"model": "RCCharge"}),
            ("write_file", {"path": "RCCharge.mo", "text": GOOD}),
            ("check_model", {"model": "RCCharge"}),
            ("simulate", {"model": "RCCharge", "stop_time": 10, "intervals": 1000}),
            (
                "evaluate_observable",
                {
                    "sim": "sim1",
                    "observable": {"type": "value_at_time", "variable": "vc", "time": 10},
                    "condition": SETTLES["condition"],
                },
            ),
            (
                "record_evidence",
                {"invariant": "charges_to_source", "adjudication": "supported", "sim": "sim1"},
            ),
            ("submit", {"note": "fixed the undeclared Rr"}),
        ]
    )
    usage = {"input_uncached": 90, "cache_read": 10, "output": 5}
    outcome = drive(run, policy, caller(context), tokens=lambda shown: usage)
    results = policy.results[1:]
    assert results[1]["result"]["ok"] is False  # the faulty model fails check with a line
    line = next(n for n, t in enumerate(FAULTY.splitlines(), 1) if "Rr" in t)
    assert results[1]["result"]["diagnostics"][0]["line"] == line
    assert results[3]["result"]["ok"] is True
    assert results[5]["result"]["suggested_adjudication"] == "supported"
    assert outcome.status == "submitted" and not outcome.override
    assert outcome.turns == 8 and outcome.simulations == 1
    # the tokens the caller reported, nothing estimated: 8 turns of 105 logical tokens
    assert outcome.logical_tokens == 8 * 105 and outcome.tokens["cache_read"] == 80
    # each turn shows the ledger and the candidate, not the history
    assert "charges_to_source" in policy.seen[-1] and "Rr" not in policy.seen[-1]
    submitted = json.loads((run.output / "submission.json").read_text())
    assert submitted["final_model"] == GOOD


def test_evidence_for_c1_does_not_make_c2_ready(inline_simulation, tmp_path: Path) -> None:
    context = inline_simulation
    run = make_run(context, tmp_path, files={"RCCharge.mo": GOOD})
    call_ok(context, "add_invariant", run=run.id, **SETTLES)
    c1 = run.candidate.id
    sim = call_ok(context, "simulate", run=run.id, model="RCCharge", stop_time=10, intervals=100)
    assert sim["candidate_id"] == c1
    call_ok(context, "write_file", run=run.id, path="RCCharge.mo", text=GOOD.replace("5.0", "6.0"))
    c2 = run.candidate.id
    assert c2 != c1
    late = call_ok(
        context,
        "record_evidence",
        run=run.id,
        invariant="charges_to_source",
        adjudication="supported",
        sim=sim["sim_id"],
    )
    assert late["candidate_id"] == c1 and not late["current_candidate"]
    assert context.ledger.readiness(c1).ready
    assert not context.ledger.readiness(c2).ready
    status = call_ok(context, "ledger_status", run=run.id)
    assert status["current_candidate"] == c2 and status["invariants"] == {
        "charges_to_source": "open"
    }
    refused = context.registry.call("submit", {"run": run.id}, caller="test")
    assert not refused.ok and "not ready" in refused.error.message
    assert run.state == "running"
    # transitions are recorded: initial c1, then c1 -> c2 by write_file
    moves = [(t.source_id, t.target_id, t.action) for t in context.ledger.transitions(run.subject)]
    assert moves == [(None, c1, "initial"), (c1, c2, "write_file")]


def test_a_run_without_submit_is_a_failure_to_submit(inline_simulation, tmp_path: Path) -> None:
    context = inline_simulation
    run = make_run(context, tmp_path, files={"RCCharge.mo": GOOD})
    policy = FakeScriptedPolicy(
        [("simulate", {"model": "RCCharge", "stop_time": 1, "intervals": 10})]
    )
    outcome = drive(run, policy, caller(context))
    assert outcome.status == "failure_to_submit"
    assert "without an explicit submission" in outcome.reason
    assert outcome.submission_id is None and context.ledger.submissions(run.subject) == []
    after = context.registry.call("ledger_status", {"run": run.id}, caller="t").result
    assert after["state"] == "ended"


def test_submission_freezes_exactly_the_submitted_files(inline_simulation, tmp_path: Path) -> None:
    context = inline_simulation
    run = make_run(context, tmp_path, files={"RCCharge.mo": GOOD, "Notes.mo": "// notes\n"})
    done = call_ok(context, "submit", run=run.id, note="no invariants: vacuously ready")
    assert done["content"]["files"] == {"RCCharge.mo": GOOD, "Notes.mo": "// notes\n"}
    # the run is over: no more writes, and editing the disk does not touch the submission
    refused = context.registry.call(
        "write_file", {"run": run.id, "path": "RCCharge.mo", "text": "model X end X;"}, caller="t"
    )
    assert not refused.ok and "frozen" in refused.error.message
    (run.workspace.root / "RCCharge.mo").write_text("tampered")
    [stored] = context.ledger.submissions(run.subject)
    assert stored.content["files"]["RCCharge.mo"] == GOOD
    assert stored.candidate_id == done["candidate_id"]
    assert run.finish().status == "submitted"


def test_tuning_submission_freezes_exactly_the_parameters(
    inline_simulation, tmp_path: Path
) -> None:
    context = inline_simulation
    run = make_run(
        context,
        tmp_path,
        profile="tuning",
        files={"RCCharge.mo": GOOD},
        tunable_parameters=["R"],
        parameter_ranges={"R": (100.0, 5000.0)},
    )
    no_edit = context.registry.call(
        "write_file", {"run": run.id, "path": "RCCharge.mo", "text": GOOD}, caller="t"
    )
    assert not no_edit.ok and "not permitted" in no_edit.error.message
    for bad in ({"C": 1.0}, {"R": 1.0}):
        refused = context.registry.call(
            "simulate", {"run": run.id, "model": "RCCharge", "parameters": bad}, caller="t"
        )
        assert not refused.ok
    sim = call_ok(
        context,
        "simulate",
        run=run.id,
        model="RCCharge",
        stop_time=5,
        intervals=50,
        parameters={"R": 500.0},
    )
    call_ok(
        context,
        "simulate",
        run=run.id,
        model="RCCharge",
        stop_time=5,
        intervals=50,
        parameters={"R": 800.0},
    )
    done = call_ok(context, "submit", run=run.id, candidate=sim["candidate_id"], note="R=500")
    assert done["content"]["parameters"] == {"R": 500.0}
    assert done["candidate_id"] == sim["candidate_id"]
    submitted = json.loads((run.output / "submission.json").read_text())
    assert submitted == {"parameter_set": {"R": 500.0}, "final_report": "R=500"}


def test_turn_limit_ends_the_run(inline_simulation, tmp_path: Path) -> None:
    context = inline_simulation
    run = make_run(context, tmp_path, limits={"turns": 3})
    policy = FakeScriptedPolicy([], forever=True)
    outcome = drive(run, policy, caller(context))
    assert outcome.status == "failure_to_submit" and outcome.reason == "limit reached: 3 turns"
    assert len(policy.seen) == 3


def test_simulation_limit_ends_a_tuning_run(inline_simulation, tmp_path: Path) -> None:
    context = inline_simulation
    run = make_run(
        context,
        tmp_path,
        profile="tuning",
        files={"RCCharge.mo": GOOD},
        tunable_parameters=["R"],
        limits={"simulations": 2},
    )
    step = ("simulate", {"model": "RCCharge", "stop_time": 1, "intervals": 10})
    policy = FakeScriptedPolicy([step, step, step, ("submit", {})])
    outcome = drive(run, policy, caller(context))
    assert outcome.status == "failure_to_submit"
    assert outcome.reason == "limit reached: 2 simulations" and outcome.simulations == 2
    calls = context.store.tool_calls("simulate")
    assert [call["ok"] for call in calls] == [True, True, False]  # the third was refused
    assert len(policy.seen) == 3  # the run ended: the submit never happened


def test_the_paper_limits_count_simulations_in_tuning_only(tmp_path: Path) -> None:
    def task(profile: str, **extra: Any) -> harness.Task:
        return harness.Task(task_id="t", profile=profile, model_name="RCCharge", **extra)

    assert task("repair").limits.simulations is None
    assert task("generation").limits.simulations is None
    assert task("tuning").limits.simulations == 100
    assert task("tuning", limits={"turns": 5}).limits.simulations == 100
    paper = task("repair").limits
    assert (paper.wall_time_s, paper.verification_grace_s, paper.turns) == (900, 120, 100)


def test_repair_simulations_are_unlimited(inline_simulation, tmp_path: Path) -> None:
    context = inline_simulation
    run = make_run(context, tmp_path, files={"RCCharge.mo": GOOD})
    for _ in range(3):
        call_ok(context, "simulate", run=run.id, model="RCCharge", stop_time=1, intervals=5)
    status = call_ok(context, "ledger_status", run=run.id)
    assert status["simulations"] == 3 and status["state"] == "running"
    assert "simulations 3/unlimited" in status["text"] and "+120 s" in status["text"]


def test_wall_time_limit_ends_the_run(inline_simulation, tmp_path: Path) -> None:
    context = inline_simulation
    now = [0.0]
    task = harness.Task(
        task_id="slow",
        profile="repair",
        model_name="RCCharge",
        files={"RCCharge.mo": GOOD},
        limits={"wall_time_s": 900},
    )
    run = harness.start_run(task, tmp_path / "t", context.ledger, clock=lambda: now[0])

    def slow_policy(text: str, last: Any) -> Any:
        now[0] += 400.0  # a fake clock: each turn "takes" 400 s
        return ("ledger_status", {})

    outcome = drive(run, slow_policy, caller(context))
    assert outcome.status == "failure_to_submit"
    assert outcome.reason == "limit reached: wall time 900 s"
    assert outcome.wall_time_s >= 900


def grace_run(context, tmp_path: Path, verification_s: float, submit_at: float):  # type: ignore[no-untyped-def]
    """A run on a fake clock whose submission check (the public gates) takes `verification_s`."""
    now = [0.0]

    def verify(task: harness.Task, content: dict[str, Any]) -> list[str]:
        now[0] += verification_s
        return []

    task = harness.Task(
        task_id="late", profile="repair", model_name="RCCharge", files={"RCCharge.mo": GOOD}
    )
    run = harness.start_run(
        task, tmp_path / "late", context.ledger, clock=lambda: now[0], verify=verify
    )
    now[0] = submit_at
    return run


def test_a_verification_started_in_time_may_use_the_grace(context, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    run = grace_run(context, tmp_path, verification_s=110.0, submit_at=899.0)
    run.submit(note="just in time")
    assert run.finish().status == "submitted" and run.elapsed_s == 1009.0


def test_a_verification_past_the_grace_submits_nothing(context, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    run = grace_run(context, tmp_path, verification_s=130.0, submit_at=899.0)
    with pytest.raises(ToolFailure, match="120 s grace"):
        run.submit()
    outcome = run.finish()
    assert outcome.status == "failure_to_submit" and "120 s grace" in outcome.reason
    assert context.ledger.submissions(run.subject) == []


def test_a_submit_after_the_wall_time_is_refused(context, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    run = grace_run(context, tmp_path, verification_s=1.0, submit_at=901.0)
    with pytest.raises(ToolFailure, match="wall time 900 s"):
        run.submit()
    assert run.finish().reason == "limit reached: wall time 900 s"


def test_the_public_gates_refuse_a_submission(context, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    task = harness.Task(
        task_id="gated", profile="repair", model_name="RCCharge", files={"RCCharge.mo": GOOD}
    )
    run = harness.start_run(
        task, tmp_path / "g", context.ledger, verify=lambda t, c: ["S: the simulation failed"]
    )
    refused = context.registry.call("submit", {"run": run.id}, caller="t")
    assert not refused.ok and "S: the simulation failed" in refused.error.message
    assert run.state == "running"  # the agent may fix it and submit again


def test_turn_context_is_compact(inline_simulation, tmp_path: Path) -> None:
    run = make_run(inline_simulation, tmp_path)
    text = turn_context(run)
    assert "RCCharge" in text and "Permitted actions" in text and "Rr" in text


def test_a_run_driven_by_its_loop_is_acted_on_by_that_loop_only(
    inline_simulation, tmp_path: Path
) -> None:
    """A started task's loop drives its run; the chat's specialist (another caller) neither
    lands in it by default nor changes it by naming it, so what is evaluated is the loop's work.
    Reading its ledger stays open to anyone."""
    context = inline_simulation
    run = make_run(context, tmp_path, driver="agent:modelica-harness")
    try:
        by_default = context.registry.call(
            "write_file", {"path": "RCCharge.mo", "text": "model X end X;"}, caller="agent:modelica"
        )
        assert not by_default.ok and "No Modelica task run is active" in by_default.error.message
        named = context.registry.call(
            "write_file",
            {"run": run.id, "path": "RCCharge.mo", "text": "model X end X;"},
            caller="agent:modelica",
        )
        assert not named.ok and "driven by its own agent loop" in named.error.message
        assert run.workspace.read("RCCharge.mo") == FAULTY  # untouched
        watched = context.registry.call("ledger_status", {"run": run.id}, caller="agent:modelica")
        assert watched.ok and watched.result["run"] == run.id
        own = context.registry.call(
            "read_file", {"run": run.id, "path": "RCCharge.mo"}, caller="agent:modelica-harness"
        )
        assert own.ok and own.result["text"] == FAULTY
    finally:
        run.finish()
        harness.forget_run(run.id)
