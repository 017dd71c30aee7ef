"""The supervisor with the routing prior: the model (a scripted fake) confirms or overrides the
real MiniLM prior by the rule in workbench/agents/routing/decision.py, and the `routed` event
says who decided. Every installed plugin's specialist competes, as at the desk."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any, NamedTuple

import pytest

from tests.agents.conftest import handoff, say
from tests.rigs.require import require_rig
from workbench.agents import AgentRuntime, RunResult, ScriptedChatModel
from workbench.agents.events import Routed
from workbench.agents.routing import default_prior
from workbench.agents.routing.embedder import INSTALL, minilm_installed
from workbench.core.context import AppContext


class Routing(NamedTuple):
    routed: list[Routed]
    result: RunResult
    runtime: AgentRuntime


BEAM = "optimise a 2D beam, volume fraction 0.4, then export an STL"


@pytest.fixture
def route(context: AppContext) -> Iterator[Any]:
    require_rig("offline MiniLM", minilm_installed(), INSTALL)
    assert {"topopt", "hpc"} <= {p.specialist.name for p in context.plugins if p.specialist}
    made: list[AgentRuntime] = []

    def run(text: str, replies: list[dict[str, Any]]) -> Routing:
        model = ScriptedChatModel(replies=replies)
        runtime = AgentRuntime(context, model, model_name="scripted:test", prior=default_prior())
        made.append(runtime)
        result = runtime.send_sync(runtime.new_thread(), text)
        assert result.status == "done", result.error
        return Routing([e for e in result.events if isinstance(e, Routed)], result, runtime)

    yield run
    for runtime in made:
        runtime.close()


def test_a_sure_prior_keeps_the_request_from_the_scripted_fakes_wrong_pick(route) -> None:
    # the failure: the beam request went to HPC
    routed, result, runtime = route(
        BEAM, [handoff("hpc", "submit a training job"), say("done"), say("ok")]
    )
    [first] = routed
    assert (first.specialist, first.how, first.proposed) == ("topopt", "kept", "hpc")
    assert first.task == BEAM  # the engineer's words, not a task written for HPC
    assert first.prior["topopt"] > first.prior["hpc"]
    assert result.answer == "ok"
    transcript = asyncio.run(runtime.transcript(result.thread_id))
    said = next(e for e in transcript if e["role"] == "assistant")
    assert said["tool_calls"][0]["name"] == "transfer_to_hpc"  # what the model said, kept
    [handed] = [e for e in transcript if e["role"] == "handoff"]
    assert (handed["specialist"], handed["how"]) == ("topopt", "kept")


def test_the_scripted_fake_confirms_the_prior(route) -> None:
    routed, _, _ = route(BEAM, [handoff("topopt", "Optimise, volfrac 0.4."), say("c=1"), say("ok")])
    [first] = routed
    assert (first.specialist, first.how) == ("topopt", "confirmed")
    # the model's instruction, and the engineer's words in case a small model garbled it
    assert first.task == f"Optimise, volfrac 0.4.\n\nThe engineer's request: {BEAM}"


def test_a_plain_answer_to_a_clear_request_goes_to_the_prior_choice(route) -> None:
    routed, result, _ = route(
        "Kill SLURM job 4821.", [say("Job killed!"), say("cancelled"), say("ok")]
    )
    [first] = routed
    assert (first.specialist, first.how, first.proposed) == ("hpc", "alone", "")
    assert result.answer == "ok"


def test_a_plain_answer_to_chit_chat_stands(route) -> None:
    routed, result, _ = route("thanks!", [say("You are welcome.")])
    assert routed == [] and result.answer == "You are welcome."


def test_an_unknown_specialist_is_replaced_by_the_prior_choice(route) -> None:
    routed, _, _ = route(
        "Slice part.stl for a Prusa MK4.", [handoff("slicer", "slice"), say("s"), say("ok")]
    )
    [first] = routed
    assert (first.specialist, first.how, first.proposed) == ("printing", "alone", "")


def test_a_later_hand_off_of_the_same_request_is_the_models(route) -> None:
    replies = [
        handoff("topopt", "optimise"),
        say("optimised"),
        handoff("printing", "slice the STL"),  # the prior would say topopt: not asked
        say("sliced"),
        say("ok"),
    ]
    routed, _, _ = route(BEAM, replies)
    assert [(r.specialist, r.how) for r in routed] == [
        ("topopt", "confirmed"),
        ("printing", "model"),
    ]
