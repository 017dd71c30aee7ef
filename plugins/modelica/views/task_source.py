"""Where the task view's tasks come from: a task JSON of the public format, or a written brief.

No Qt here: both are plain functions the view runs off the GUI thread, and every refusal is a
`TaskSourceError` whose message says what was wrong and what to do.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

from workbench.core.tools import ToolFailure
from workbench_plugins.modelica import harness
from workbench_plugins.modelica.driver.task_source import task_from_public

MODEL_NAME = re.compile(r"^[A-Za-z_]\w*$")
MAX_STOP_TIME = 1e6
BRIEF_INTERVALS = 500


class TaskSourceError(ValueError):
    """A task that cannot start; the message is for a person."""


def load_task_file(path: Path) -> harness.Task:
    """The harness task of a public task JSON, with its library when it lies in a benchmark's
    tasks/ folder (the driver's `task_from_public` decides both)."""
    try:
        return task_from_public(Path(path))
    except ToolFailure as failure:
        hint = failure.hint or "Fix the file (public benchmark format) and open it again."
        raise TaskSourceError(f"{failure.message} {hint}") from None
    except OSError as error:
        raise TaskSourceError(
            f"The task or its library could not be read ({error}); check the file and open it "
            "again."
        ) from None


def brief_task(model_name: str, brief: str, stop_time: float) -> harness.Task:
    """A generation task written by a person: write model `model_name` as `brief` says."""
    name = model_name.strip()
    if not MODEL_NAME.match(name):
        raise TaskSourceError(
            f"Model name {name!r} is not a Modelica name: use letters, digits and _ , starting "
            "with a letter (e.g. TankLevel)."
        )
    text = brief.strip()
    if len(text) < 10:
        raise TaskSourceError(
            "The brief is empty or too short: say what the model must contain and how it must "
            "behave (e.g. 'a tank filled at 2 l/s, draining through a valve; the level settles')."
        )
    if not 0 < stop_time <= MAX_STOP_TIME:
        raise TaskSourceError(
            f"Stop time {stop_time:g} s is not usable: give a time above 0 and at most "
            f"{MAX_STOP_TIME:g} s."
        )
    return harness.Task(
        task_id=f"brief_{name}_{int(time.time())}",
        profile="generation",
        model_name=name,
        brief=text,
        stop_time=float(stop_time),
        intervals=BRIEF_INTERVALS,
    )
