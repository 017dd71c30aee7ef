"""The ledger view's evidence detail: choosing a candidate x invariant cell shows its evidence in
words and plots the trajectory it was drawn from with the invariant's bound (screenshots under
ledger-evidence/ in the test artifact folder)."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pyqtgraph as pg
import pytest
from pytestqt.qtbot import QtBot

from tests.modelica.conftest import MODELS
from tests.support.artifacts import artifact_folder
from workbench.core.context import AppContext
from workbench.ui.ledger_view import LedgerView
from workbench_plugins.modelica import harness

SUBJECT = "tank"


@pytest.fixture
def view(context: AppContext, qtbot: QtBot) -> Iterator[LedgerView]:
    ledger_view = LedgerView(context)
    qtbot.addWidget(ledger_view)
    ledger_view.resize(720, 820)
    ledger_view.show()
    qtbot.waitExposed(ledger_view)
    qtbot.waitUntil(lambda: not ledger_view._refreshing)
    yield ledger_view
    ledger_view.close()
    qtbot.waitUntil(lambda: not ledger_view._refreshing)


def stored_trajectory(context: AppContext, tmp_path: Path) -> tuple[int, list[float], list[float]]:
    """A tool call that kept a trajectory (level(t) = 2 (1 - exp(-t))) as an artifact."""
    time = [i * 0.05 for i in range(201)]
    level = [2.0 * (1.0 - math.exp(-t)) for t in time]
    flow = [2.0 * math.exp(-t) for t in time]
    path = tmp_path / "tank.trajectories.json"
    path.write_text(json.dumps({"time": time, "series": {"flow": flow, "level": level}}))
    call_id = context.store.begin_tool_call(tool="simulate", caller="test", arguments={})
    context.store.add_artifact(path, kind="trajectories", tool_call_id=call_id)
    context.store.finish_tool_call(call_id, ok=True, result={}, error=None, duration_s=0.1)
    return call_id, time, level


def choose_cell(view: LedgerView, qtbot: QtBot, row: int, column: int) -> None:
    with qtbot.waitSignal(view.evidence.shown, timeout=10000):
        view.status_table.setCurrentCell(row, column)


def bound_values(view: LedgerView) -> list[float]:
    return sorted(
        float(item.value())
        for item in view.evidence.bound_items
        if isinstance(item, pg.InfiniteLine)
    )


def test_evidence_detail_plots_the_trajectory_and_the_bound_band(
    view: LedgerView, context: AppContext, qtbot: QtBot, tmp_path: Path
) -> None:
    call_id, time, level = stored_trajectory(context, tmp_path)
    ledger = context.ledger
    with qtbot.waitSignal(view.refreshed, timeout=5000):
        ledger.define_invariant(
            SUBJECT,
            "fills",
            "the level reaches 2 m within 5 s",
            kind="behavioural",
            observables=["level(5)"],
            condition={"target": 2.0, "tolerance": 0.05},
        )
        candidate = ledger.propose(SUBJECT, "model", {"valve": 1}, label="first valve")
        ledger.record_evidence(
            candidate=candidate,
            invariant="fills",
            adjudication="supported",
            measurements={"simulation": "sim1", "level(5)": 1.9865},
            note="read at t = 5 s",
            tool_call_id=call_id,
        )
    qtbot.waitUntil(lambda: view.status_table.rowCount() == 1 and not view._refreshing)
    choose_cell(view, qtbot, 0, 1)

    panel = view.evidence
    assert panel.curve is not None and panel.plot.isVisible()
    xs, ys = panel.curve.getData()
    assert list(xs) == pytest.approx(time) and list(ys) == pytest.approx(level)  # the level
    assert bound_values(view) == pytest.approx([1.95, 2.05])  # target 2 +- 0.05
    regions = [i for i in panel.bound_items if isinstance(i, pg.LinearRegionItem)]
    assert len(regions) == 1 and regions[0].getRegion() == pytest.approx((1.95, 2.05))
    text = panel.text.text()
    for expected in ("fills", "supported", "level(5)", "1.9865", "target 2.0", "read at t = 5 s"):
        assert expected in text
    assert "On the trajectory: level(5) = 1.98652" in text  # 2 (1 - e^-5) = 1.986524
    picture = artifact_folder("ledger-evidence") / "band.png"
    assert view.grab().save(str(picture))


def test_a_cell_without_evidence_says_so_and_plots_nothing(
    view: LedgerView, context: AppContext, qtbot: QtBot
) -> None:
    with qtbot.waitSignal(view.refreshed, timeout=5000):
        context.ledger.define_invariant(
            SUBJECT, "fills", "fills", kind="behavioural", condition={"max": 3}
        )
        context.ledger.propose(SUBJECT, "model", {"valve": 1})
    qtbot.waitUntil(lambda: view.status_table.rowCount() == 1 and not view._refreshing)
    choose_cell(view, qtbot, 0, 1)
    assert "No evidence yet" in view.evidence.text.text()
    assert view.evidence.curve is None and not view.evidence.plot.isVisible()


def call_ok(context: AppContext, tool_name: str, **arguments: Any) -> dict[str, Any]:
    outcome = context.registry.call(tool_name, arguments, caller="test")
    assert outcome.ok, outcome.error
    return outcome.result


def test_evidence_from_a_modelica_simulation_plots_its_trajectory_and_max_bound(
    view: LedgerView, context: AppContext, qtbot: QtBot, tmp_path: Path
) -> None:
    """The real path: simulate (rumoca) and record_evidence through the tool registry."""
    context.settings.plugins["modelica"] = {"inline_max_intervals": 1_000_000}
    task = harness.Task(
        task_id="rc",
        profile="repair",
        model_name="RCCharge",
        files={"RCCharge.mo": (MODELS / "RCCharge.mo").read_text()},
    )
    run = harness.start_run(task, tmp_path / "task", context.ledger)

    def work() -> None:  # off the GUI thread, as the agent calls tools
        call_ok(
            context,
            "add_invariant",
            run=run.id,
            name="stays_below_source",
            proposition="the capacitor voltage vc never exceeds 5.2 V",
            observables=["max(vc)"],
            condition={"max": 5.2},
        )
        call_ok(context, "simulate", run=run.id, model="RCCharge", stop_time=10, intervals=400)
        call_ok(
            context,
            "record_evidence",
            run=run.id,
            invariant="stays_below_source",
            adjudication="supported",
            sim="sim1",
            observables=["max(vc)"],
            measurements={"max(vc)": 4.9999},
        )

    try:
        with ThreadPoolExecutor(1) as pool:
            future = pool.submit(work)
            qtbot.waitUntil(future.done, timeout=60000)
            future.result()
    finally:  # a run left running would be the default run of later tests' tool calls
        run.finish()
        harness.forget_run(run.id)
    qtbot.waitUntil(
        lambda: (
            view.snapshot.subject == run.subject
            and len(view.snapshot.invariants) == 1
            and view.status_table.rowCount() == 1
            and not view._refreshing
        ),
        timeout=10000,
    )
    choose_cell(view, qtbot, 0, 1)
    panel = view.evidence
    assert panel.detail is not None and panel.detail.trajectory is not None
    assert panel.detail.trajectory.variable == "vc"
    xs, ys = panel.curve.getData() if panel.curve is not None else ([], [])
    assert xs[-1] == pytest.approx(10.0) and 4.9 < ys[-1] < 5.0  # vc charges towards 5 V
    assert ys[0] == pytest.approx(0.0, abs=1e-6)
    assert bound_values(view) == [5.2]  # the max as one dashed line
    assert "simulation = sim1" in panel.text.text() and "rumoca" in panel.text.text()
    picture = artifact_folder("ledger-evidence") / "modelica_max.png"
    assert view.grab().save(str(picture))


def test_a_time_bound_is_drawn_across_the_time_axis(
    view: LedgerView, context: AppContext, qtbot: QtBot, tmp_path: Path
) -> None:
    """A settling-time limit is a time: its line is vertical, at the limit."""
    call_id, _time, level = stored_trajectory(context, tmp_path)
    ledger = context.ledger
    with qtbot.waitSignal(view.refreshed, timeout=5000):
        ledger.define_invariant(
            SUBJECT,
            "settles",
            "the level settles within 4 s",
            kind="behavioural",
            observables=["settling_time(level)"],
            condition={"max": 4.0},
        )
        candidate = ledger.propose(SUBJECT, "model", {"valve": 2})
        ledger.record_evidence(
            candidate=candidate, invariant="settles", adjudication="supported", tool_call_id=call_id
        )
    qtbot.waitUntil(lambda: view.status_table.rowCount() == 1 and not view._refreshing)
    choose_cell(view, qtbot, 0, 1)
    lines = [i for i in view.evidence.bound_items if isinstance(i, pg.InfiniteLine)]
    assert [(line.angle, line.value()) for line in lines] == [(90, 4.0)]
    assert view.evidence.curve is not None
    assert list(view.evidence.curve.getData()[1]) == pytest.approx(level)
