"""Readiness where the design is (issue 29): after the Density view's default run, the view itself
says whether the design is ready, as the ledger has it ("Not ready: single_component violated"),
not only the Ledger view. A ledger with no invariant stated is never called ready: a Modelica
candidate with nothing checked says "nothing checked yet", and the Ledger view agrees."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from tests.support.artifacts import artifact_folder
from workbench.core.context import AppContext
from workbench.ui.async_loop import attached_event_loop, running_tasks
from workbench.ui.ledger_view import READY_COLOURS
from workbench_plugins.modelica.run_status import StatusOutput
from workbench_plugins.modelica.views.task_ledger import RunLedger
from workbench_plugins.topopt.views.density_view import DensityView

RUN_TIMEOUT_MS = 240_000  # a spawned worker imports EngiBench first; the machine may be busy


@pytest.fixture(autouse=True)
def gui_loop(qapp: object) -> Iterator[asyncio.AbstractEventLoop]:
    with attached_event_loop(qapp) as loop:  # type: ignore[arg-type]
        yield loop


@pytest.mark.slow
def test_the_default_run_says_its_readiness_beside_the_design(
    qtbot: QtBot, context: AppContext
) -> None:
    view = DensityView(context)
    qtbot.addWidget(view)
    view.resize(1000, 640)
    view.show()
    qtbot.waitExposed(view)
    assert not view.readiness_label.isVisible()  # no design yet: nothing to say
    with (
        qtbot.waitSignal(view.readiness_shown, timeout=RUN_TIMEOUT_MS),
        qtbot.waitSignal(view.run_finished, timeout=RUN_TIMEOUT_MS) as finished,
    ):
        qtbot.mouseClick(view.form.run_button, Qt.MouseButton.LeftButton)  # the defaults
    outcome = finished.args[0]
    assert outcome.ok, outcome.error
    checks = outcome.result["invariants"]  # what the tool adjudicated into the ledger
    said = view.readiness_label.text()
    assert view.readiness_label.isVisible()
    if checks.get("single_component") == "violated":  # the default run's case in issue 29
        assert said.startswith("Not ready:") and "single_component violated" in said, said
    assert said.startswith(("Ready:", "Not ready:")), said
    assert "watertight_export not checked yet" in said  # no STL exported yet: open, said so
    assert view.grab().save(str(artifact_folder("first-encounters") / "density-readiness.png"))
    context.jobs.cancel_all()
    qtbot.waitUntil(lambda: running_tasks() == 0, timeout=30_000)


def status(invariants: dict[str, str], ready: bool) -> StatusOutput:
    return StatusOutput(
        run="r1", profile="harness", state="running", reason="", current_candidate="c" * 40,
        ready=ready, readiness="Candidate cccc (task) is ready.", invariants=invariants,
        turns=1, simulations=0, limits={}, text="",
    )  # fmt: skip


def test_a_modelica_candidate_with_no_invariant_is_not_called_ready(
    qtbot: QtBot, context: AppContext
) -> None:
    ledger = RunLedger(context)
    qtbot.addWidget(ledger)
    ledger.show_status(status({}, ready=True))  # the ledger's rule holds vacuously
    said = ledger.readiness.text()
    assert "Nothing checked yet" in said and "is ready" not in said, said
    assert READY_COLOURS[True] not in ledger.readiness.styleSheet()
    ledger.show_status(status({"settles": "supported"}, ready=True))
    assert "is ready" in ledger.readiness.text()
    assert READY_COLOURS[True] in ledger.readiness.styleSheet()
