"""The engineering (topopt) specialist through the real graph and the real EngiBench tools,
driven by a scripted (fake) model: optimise, simulate, render."""

from __future__ import annotations

from tests.agents.conftest import add_specialist, call, calls, handoff, say
from workbench.agents import AgentRuntime, ScriptedChatModel
from workbench.agents.events import Routed, ToolFinished
from workbench.core.context import AppContext

CONFIG = {"volfrac": 0.4, "forcedist": 0.65, "rmin": 4.0}


def test_supervisor_topopt_optimize_simulate_render_with_scripted_model(
    context: AppContext,
) -> None:
    context.plugins.plugins = {"topopt": context.plugins.plugins["topopt"]}
    replies = [
        handoff("topopt", "Optimise a beam with volfrac 0.4, forcedist 0.65, rmin 4, seed 42."),
        calls(
            call(
                "optimize_design", {"problem_type": "beams2d", "problem_config": CONFIG, "seed": 42}
            )
        ),
        calls(
            call(
                "simulate_design",
                {
                    "problem_type": "beams2d",
                    "design_description": "optimized design",
                    "problem_config": CONFIG,
                    "seed": 42,
                },
            )
        ),
        calls(
            call(
                "render_design",
                {
                    "problem_type": "beams2d",
                    "design_description": "optimized design",
                    "problem_config": CONFIG,
                    "save_path": "beam.png",
                },
            )
        ),
        say("Optimised, simulated and rendered."),
        say("Done: compliance about 30.9."),
    ]
    runtime = AgentRuntime(context, ScriptedChatModel(replies=replies), model_name="scripted:t")
    try:
        result = runtime.send_sync("eng", "Design a beam: volfrac 0.4, forcedist 0.65, rmin 4.")
    finally:
        runtime.close()
    assert result.status == "done", result.error
    assert [e.specialist for e in result.events if isinstance(e, Routed)] == ["topopt"]
    finished = [e for e in result.events if isinstance(e, ToolFinished)]
    assert [(e.tool, e.ok) for e in finished] == [
        ("optimize_design", True),
        ("simulate_design", True),
        ("render_design", True),
    ]
    optimised = finished[0].result
    assert abs(optimised["final_c"] - 30.909) < 0.01
    assert abs(finished[1].result["c"] - 30.909) < 0.01
    recorded = context.store.tool_calls()
    assert [(r["tool"], r["caller"]) for r in recorded if r["tool"] != "workspace_info"] == [
        ("optimize_design", "agent:topopt"),
        ("simulate_design", "agent:topopt"),
        ("render_design", "agent:topopt"),
    ]
    assert recorded[0]["arguments"]["problem_config"] == CONFIG


def test_chain_retrieval_then_engineering_with_scripted_model(context: AppContext) -> None:
    # no retrieval plugin yet: a retrieval specialist over the workspace's artifact listing
    context.plugins.plugins = {"topopt": context.plugins.plugins["topopt"]}
    add_specialist(context, "retrieval", ("list_artifacts",), "Finds the engineer's documents")
    replies = [
        handoff("retrieval", "Find earlier beam designs."),
        calls(call("list_artifacts", {"kind": "topopt.design"})),
        say("No earlier designs."),
        handoff("topopt", "Optimise the beam with defaults, seed 1."),
        calls(
            call(
                "optimize_design",
                {"problem_type": "beams2d", "problem_config": {"nelx": 40, "nely": 20}, "seed": 1},
            )
        ),
        say("Optimised."),
        say("There were no earlier designs, so I optimised a new beam."),
    ]
    runtime = AgentRuntime(context, ScriptedChatModel(replies=replies), model_name="scripted:t")
    try:
        result = runtime.send_sync("chain", "Look for earlier beams, else design one.")
    finally:
        runtime.close()
    assert result.status == "done", result.error
    assert [e.specialist for e in result.events if isinstance(e, Routed)] == ["retrieval", "topopt"]
    finished = [(e.agent, e.tool, e.ok) for e in result.events if isinstance(e, ToolFinished)]
    assert finished == [("retrieval", "list_artifacts", True), ("topopt", "optimize_design", True)]
