"""A job started inside an agent's tool call names that call (JobStarted.tool_call_id), so the
chat's card of the call can show the job's progress; a job started outside any call names none.
SCRIPTED model (language models cannot run here); the jobs are real worker processes (the sample
plugin's `sample_count`)."""

from __future__ import annotations

import threading
from typing import Any

from tests.agents.conftest import add_specialist, call, calls, handoff, say
from workbench.agents.events import ToolStarted
from workbench.core.context import AppContext
from workbench.core.events import JobStarted
from workbench.core.jobs import Reporter

TWO_COUNTS = [
    handoff("counter", "Count to 5, twice."),
    calls(call("sample_count", {"to": 5}), call("sample_count", {"to": 3})),
    say("Counted twice."),
    say("Counted to 5 and to 3."),
]


def started_jobs(app: AppContext) -> list[JobStarted]:
    seen: list[JobStarted] = []
    lock = threading.Lock()

    def on_started(event: JobStarted) -> None:
        with lock:
            seen.append(event)

    app.bus.subscribe(JobStarted, on_started)
    return seen


def test_a_job_started_inside_a_tool_call_carries_that_calls_id_with_scripted_model(
    app: AppContext, scripted: Any
) -> None:
    add_specialist(app, "counter", ("sample_count",))
    runtime, _model = scripted(TWO_COUNTS)
    jobs = started_jobs(app)

    result = runtime.send_sync("t1", "Count to 5 and to 3.")

    assert result.status == "done", result.error
    call_ids = [e.tool_call_id for e in result.events if isinstance(e, ToolStarted)]
    assert len(call_ids) == 2 and all(call_ids) and call_ids[0] != call_ids[1]
    # each call's own job, in the order the calls ran
    assert [job.tool_call_id for job in jobs] == call_ids
    assert [job.title for job in jobs] == ["sample count", "sample count"]


def test_a_job_started_outside_a_tool_call_names_no_call(app: AppContext) -> None:
    jobs = started_jobs(app)

    job = app.jobs.submit(_count_to_two, title="outside any call")

    assert job.result(timeout=60) == 2
    [started] = jobs
    assert started.title == "outside any call" and started.tool_call_id == ""


def _count_to_two(reporter: Reporter) -> int:
    reporter.progress(1.0, "counted")
    return 2
