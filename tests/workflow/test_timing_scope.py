"""A cell's EngiBench clock counts what its own cell runs, and nothing another cell runs beside it.

The clock follows the cell's context into the places its tools run: the direct policies' registry
calls (asyncio.run, then asyncio.to_thread), the agent runtime's event loop, and worker jobs
started from there. A simulation or job of another thread running at the same time is not
counted; a process-wide patch of engine.simulate, or a clock listening to every job, fails here.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from workbench_plugins.topopt import engine
from workbench_plugins.topopt.bench import policies, tasks
from workbench_plugins.topopt.bench.timing import EngiBenchClock

SMALL_BEAM = {"nelx": 20, "nely": 10, "max_iter": 3}


def simulate_small_beam() -> None:
    config = engine.parse_config("beams2d", SMALL_BEAM)
    engine.simulate("beams2d", config, engine.starting_design("beams2d", config))


def watch_while(app: Any, clock: EngiBenchClock, beside: Callable[[], Any]) -> None:
    """`clock` watches from its own thread (a cell) while `beside()` runs in this one."""
    watching, beside_done = threading.Event(), threading.Event()

    def cell() -> None:
        with clock.watching(app):
            watching.set()
            beside_done.wait(120)

    with ThreadPoolExecutor(1) as pool:
        watched = pool.submit(cell)
        watching.wait(60)
        try:
            beside()
        finally:
            beside_done.set()
        watched.result(60)


def test_a_clock_ignores_simulations_of_another_thread(context) -> None:
    clock = EngiBenchClock()
    watch_while(context, clock, simulate_small_beam)
    assert clock.total_s == 0.0

    with clock.watching(context):
        simulate_small_beam()
    assert clock.in_process_s > 0.0


def test_tool_calls_are_counted_by_their_own_cells_clock_only(context) -> None:
    def simulate_tool() -> None:
        arguments = {
            "problem_type": "beams2d",
            "problem_config": SMALL_BEAM,
            "design_description": "initial",
        }
        outcome = context.registry.call("simulate_design", arguments, caller="test")
        assert outcome.ok, outcome.error

    other_cell = EngiBenchClock()
    watch_while(context, other_cell, simulate_tool)
    assert other_cell.total_s == 0.0

    clock = EngiBenchClock()
    with clock.watching(context):
        simulate_tool()  # registry.call: asyncio.run, then the tool in asyncio.to_thread
    assert clock.in_process_s > 0.0


def test_worker_jobs_are_counted_by_the_cell_that_started_them(context) -> None:
    def optimize_tool() -> None:
        arguments = {"problem_type": "beams2d", "problem_config": SMALL_BEAM}
        outcome = context.registry.call("optimize_design", arguments, caller="test")
        assert outcome.ok, outcome.error

    clock, other_cell = EngiBenchClock(), EngiBenchClock()

    def own_cell() -> None:
        with clock.watching(context):
            optimize_tool()

    watch_while(context, other_cell, own_cell)
    assert clock.worker_s > 0.0
    assert other_cell.total_s == 0.0 and other_cell.streaming_s == 0.0


def test_an_agents_tool_calls_are_counted(context, tmp_path: Path) -> None:
    """The agent runtime's loop and tool threads inherit the cell's context."""
    simulate = {
        "name": "simulate_design",
        "args": {
            "problem_type": "beams2d",
            "problem_config": SMALL_BEAM,
            "design_description": "initial",
        },
    }
    script = [
        {"tool_calls": [{"name": "transfer_to_topopt", "args": {"task": "Simulate the beam."}}]},
        {"tool_calls": [simulate]},
        {"content": "Simulated."},
        {"content": "Done."},
        {"content": "Done."},
    ]
    path = tmp_path / "script.json"
    path.write_text(json.dumps(script))
    spec = tasks.build("beams2d", "W-RAND", 0, 0)

    clock = EngiBenchClock()
    with clock.watching(context):
        run = policies.play_agent(f"scripted:{path}", spec, context)
    assert [call.name for call in run.calls] == ["simulate_design"]
    assert run.calls[0].ok, run.calls[0].result
    assert clock.in_process_s > 0.0
