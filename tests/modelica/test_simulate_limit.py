"""Issue 28: a simulation outside a task run stops at the interactive wall-clock limit (settings),
with a message naming the setting, and leaves no worker computing. Real rumoca, a model that
oscillates fast over a huge stop_time (billions of solver steps), a small limit."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

FAST_OSCILLATOR = """model FastOscillator
  Real x(start = 1);
  Real v(start = 0);
equation
  der(x) = v;
  der(v) = -1000 * x;
end FastOscillator;
"""
LIMIT_S = 3.0


def test_a_long_interactive_simulation_stops_at_the_limit_naming_the_setting(
    context: Any,
) -> None:
    context.settings.plugins["modelica"] = {
        "backend": "rumoca",
        "interactive_simulation_limit_s": LIMIT_S,
    }
    model = Path(context.store.folder) / "FastOscillator.mo"
    model.write_text(FAST_OSCILLATOR)
    arguments = {"file": "FastOscillator.mo", "model": "FastOscillator", "stop_time": 1e7}
    started = time.monotonic()
    pool = ThreadPoolExecutor(1)  # without a limit the call would run on: wait bounded
    try:
        call = pool.submit(context.registry.call, "simulate", arguments, caller="test")
        outcome = call.result(timeout=120)
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
    elapsed = time.monotonic() - started
    assert not outcome.ok and outcome.error is not None
    assert "wall-clock limit of 3 s" in outcome.error.message
    assert "interactive_simulation_limit_s in [plugins.modelica]" in outcome.error.message
    assert "stop_time" in outcome.error.hint
    assert LIMIT_S <= elapsed < LIMIT_S + 20
    deadline = time.monotonic() + 10
    while context.jobs.running() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert context.jobs.running() == []  # the worker was stopped, not left computing
    # a short simulation of the same model under the same limit still runs
    short = context.registry.call("simulate", {**arguments, "stop_time": 0.1}, caller="test")
    assert short.ok and short.result is not None and short.result["ok"], short


def test_an_inline_simulation_stops_at_the_same_limit_inside_the_solver(context: Any) -> None:
    """Runs small enough for the calling thread (inline_max_intervals) cannot be stopped from
    outside: rumoca's own wall limit stops them, with the same message."""
    context.settings.plugins["modelica"] = {
        "backend": "rumoca",
        "interactive_simulation_limit_s": LIMIT_S,
        "inline_max_intervals": 1000,
    }
    (Path(context.store.folder) / "FastOscillator.mo").write_text(FAST_OSCILLATOR)
    arguments = {"file": "FastOscillator.mo", "model": "FastOscillator", "stop_time": 1e7}
    started = time.monotonic()
    outcome = context.registry.call("simulate", arguments, caller="test")
    elapsed = time.monotonic() - started
    assert not outcome.ok and outcome.error is not None
    assert "wall-clock limit of 3 s" in outcome.error.message, outcome.error.message
    assert elapsed < LIMIT_S + 20
    assert context.jobs.running() == []  # no worker: it ran in this thread
