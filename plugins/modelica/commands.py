"""Headless commands of the Modelica plugin: `workbench --headless modelica validate|run`.

`validate` runs the evaluator validation over the task packages (CI runs it); `run` drives one
task with a model, in the harness or the plain loop, and writes submission.json and a run record.
What they need is imported when they run, so listing commands stays quick.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from workbench.core.plugins import PluginCommand


def _validate_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--backend", choices=("rumoca", "omc"), default="rumoca")
    parser.add_argument(
        "--root",
        type=Path,
        default=None,
        metavar="DIR",
        help="task packages folder (tasks/, contracts/, library/); default: "
        "$WORKBENCH_MODELICA_BENCHMARK, else the repository's benchmarks/modelica",
    )


def run_validate(app: Any, args: argparse.Namespace) -> int:
    """One line per check as it is made, then a summary; 0 iff every check holds."""
    from workbench_plugins.modelica.evaluator.validate import summary, validate

    started = time.perf_counter()
    lines = validate(args.root, args.backend, on_line=lambda line: print(line.line(), flush=True))
    print(summary(lines, args.backend, time.perf_counter() - started))
    return 0 if lines and all(line.ok for line in lines) else 1


def _run_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("task", type=Path, metavar="TASK.json", help="a public task file")
    parser.add_argument("--model", required=True, metavar="M", help="model spec, e.g. ollama:qwen3")
    parser.add_argument(
        "--out",
        required=True,
        type=Path,
        metavar="DIR",
        help="where submission.json and run.json go",
    )
    parser.add_argument("--mode", choices=("harness", "plain"), default="harness")
    parser.add_argument(
        "--backend",
        choices=("rumoca", "omc"),
        default=None,
        help="Modelica backend for the run's tools (default: the settings')",
    )


def run_task_command(app: Any, args: argparse.Namespace) -> int:
    """Drive one task; print the record's summary. 0 when the run submitted."""
    from workbench_plugins.modelica.task_packages.task_format import (
        TaskFormatError,
        load_public_task,
    )

    try:
        load_public_task(args.task)  # a bad task file is said plainly, before any model starts
    except TaskFormatError as error:
        print(f"Cannot run {args.task}: {error}", file=sys.stderr)
        return 2
    if args.backend:
        app.settings.plugins.setdefault("modelica", {})["backend"] = args.backend
    from workbench_plugins.modelica.driver.run_task import run_task_file

    cancel = threading.Event()
    try:
        with _first_interrupt_cancels(cancel):
            record = run_task_file(
                app,
                args.task,
                model=args.model,
                out=args.out,
                mode=args.mode,
                on_event=_print_progress,
                cancel=cancel,
            )
    except (OSError, ValueError, RuntimeError) as error:
        print(f"The run of {args.task} failed: {error}", file=sys.stderr)
        return 1
    for line in record_summary(record):
        print(line)
    return 0 if record.status == "submitted" else 1


def _print_progress(event: Any) -> None:
    """One line per turn on stderr, so a run of many minutes shows it is working."""
    from workbench_plugins.modelica.events import TaskRunTurn

    if isinstance(event, TaskRunTurn):
        simulations = f"{event.simulations}" + (
            f"/{event.max_simulations}" if event.max_simulations is not None else ""
        )
        last = (
            f", {event.last_tool} {'ok' if event.last_ok else 'failed'}" if event.last_tool else ""
        )
        print(
            f"turn {event.turn}/{event.max_turns}, {event.elapsed_s:.0f}/"
            f"{event.wall_time_s:g} s, simulations {simulations}, "
            f"{event.logical_tokens:,} tokens{last}",
            file=sys.stderr,
            flush=True,
        )


@contextmanager
def _first_interrupt_cancels(cancel: threading.Event) -> Iterator[None]:
    """Ctrl+C once: the run stops at its next step and its record is still written; twice: at
    once."""
    previous = signal.getsignal(signal.SIGINT)

    def interrupted(number: int, frame: Any) -> None:
        if cancel.is_set():
            raise KeyboardInterrupt
        cancel.set()
        print("Cancelling the run (Ctrl+C again stops at once)...", file=sys.stderr, flush=True)

    in_main_thread = threading.current_thread() is threading.main_thread()
    if in_main_thread:
        signal.signal(signal.SIGINT, interrupted)
    try:
        yield
    finally:
        if in_main_thread:
            signal.signal(signal.SIGINT, previous)


def record_summary(record: Any) -> list[str]:
    """A task run record in a few lines for people."""
    tokens = record.tokens or {}
    submitted = record.submission_path or "none"
    return [
        f"{record.task_id} ({record.mode}, {record.model}): {record.status}"
        + (f" - {record.reason}" if record.reason else ""),
        f"turns {record.turns}, model calls {record.model_calls}, simulations "
        f"{record.simulations}, wall time {record.wall_time_s:.1f} s",
        "tokens: "
        + ", ".join(f"{name} {tokens.get(name, 0)}" for name in _TOKEN_KINDS if name in tokens),
        f"submission: {submitted}",
    ]


_TOKEN_KINDS = ("logical", "input_uncached", "cache_creation", "cache_read", "output")


def commands() -> list[PluginCommand]:
    return [
        PluginCommand(
            "validate",
            "evaluator validation: every repair input fails at its intended stage, every "
            "known-valid answer passes, every off-target variant fails the behaviour gate",
            _validate_arguments,
            run_validate,
        ),
        PluginCommand(
            "run",
            "run one task JSON with a model (harness or plain loop); writes submission.json "
            "and run.json to --out",
            _run_arguments,
            run_task_command,
        ),
    ]
