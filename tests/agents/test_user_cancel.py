"""A person's Cancel of a job that an agent's tool call started stops the run, and the model is
told so; a job cancelled by anything else stays an ordinary tool failure; stopping the run stops
the job. SCRIPTED models (language models cannot run here); the jobs are real worker processes
(the sample plugin's `sample_count`, which would count for 1000 s)."""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from typing import Any

from langchain_core.messages import ToolMessage

from tests.agents.conftest import add_specialist, call, calls, handoff, say
from workbench.agents.events import ToolFinished, ToolStarted
from workbench.agents.graph.run import USER_CANCELLED
from workbench.core.context import AppContext
from workbench.core.events import JobCancelRequested, JobProgress
from workbench.core.jobs import JobState

LONG_COUNT = {"to": 100_000}  # 0.01 s a step: far longer than any test waits


def cancel_when_running(app: AppContext, *, by_person: bool) -> list[str]:
    """Once a job reports progress, cancel it as the jobs bar does (person) or as a tool's own
    timeout does (not a person). Returns the cancelled job ids as they happen."""
    cancelled: list[str] = []

    def on_progress(event: JobProgress) -> None:
        if cancelled:
            return
        cancelled.append(event.job_id)
        if by_person:
            app.bus.publish(JobCancelRequested(job_id=event.job_id))
        job = app.jobs.get(event.job_id)
        if job is not None:
            job.cancel()

    app.bus.subscribe(JobProgress, on_progress)
    return cancelled


def count_turn(*after: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        handoff("counter", "Count to 100000, then add 1 and 2."),
        calls(call("sample_count", LONG_COUNT)),
        *after,
    ]


def test_a_persons_cancel_stops_the_run_and_the_model_hears_it_with_scripted_model(
    app: AppContext, scripted: Any
) -> None:
    add_specialist(app, "counter", ("sample_count", "sample_add"))
    # before the change the agent went on: the next reply (sample_add) ran and it reported
    replies = count_turn(
        calls(call("sample_add", {"a": 1, "b": 2})), say("Counted and added."), say("Done.")
    )
    runtime, model = scripted(replies)
    cancelled = cancel_when_running(app, by_person=True)

    result = runtime.send_sync("t1", "Count, then add.")

    assert result.status == "cancelled", result.error
    assert "You cancelled sample_count" in result.error and "send a message" in result.error
    assert model.position == 2  # no model call after the cancel: nothing else can run
    started = [e.tool for e in result.events if isinstance(e, ToolStarted)]
    assert started == ["sample_count"]
    assert app.store.tool_calls("sample_add") == []
    [finished] = [e for e in result.events if isinstance(e, ToolFinished)]
    assert not finished.ok and finished.error_kind == USER_CANCELLED
    assert "The user cancelled this sample_count call" in finished.error
    assert "rerun" not in finished.error and "again" not in finished.error.split(".")[0]
    job = app.jobs.get(cancelled[0])
    assert job is not None and job.state is JobState.CANCELLED

    # the next turn: the supervisor reads the specialist's report that the user cancelled
    model.replies[model.position :] = [say("You stopped the count; nothing was counted.")]
    after = runtime.send_sync("t1", "What happened?")
    assert after.status == "done" and after.answer.startswith("You stopped the count")
    told = [m for m in model.seen[-1]["messages"] if isinstance(m, ToolMessage)]
    assert any("The user cancelled sample_count" in str(m.content) for m in told)
    entries = asyncio.run(runtime.transcript("t1"))
    [tool_entry] = [e for e in entries if e["role"] == "tool"]
    assert tool_entry["error_kind"] == USER_CANCELLED
    assert "Do not call it again" in tool_entry["content"]


def test_a_job_cancelled_by_no_person_is_an_ordinary_failure_with_scripted_model(
    app: AppContext, scripted: Any
) -> None:
    add_specialist(app, "counter", ("sample_count", "sample_add"))
    runtime, _model = scripted(count_turn(say("The count failed."), say("It failed.")))
    cancel_when_running(app, by_person=False)  # e.g. a tool's own timeout

    result = runtime.send_sync("t2", "Count.")

    assert result.status == "done" and result.answer == "It failed."
    [finished] = [e for e in result.events if isinstance(e, ToolFinished)]
    assert not finished.ok and finished.error_kind not in ("", USER_CANCELLED)


def test_stopping_the_run_cancels_the_job_its_tool_call_started_with_scripted_model(
    app: AppContext, scripted: Any
) -> None:
    add_specialist(app, "counter", ("sample_count",))
    runtime, _ = scripted(count_turn(say("Counted."), say("Done.")))
    running = threading.Event()
    jobs: list[str] = []

    def on_progress(event: JobProgress) -> None:
        jobs.append(event.job_id)
        running.set()

    app.bus.subscribe(JobProgress, on_progress)

    async def scenario() -> None:
        run = asyncio.create_task(runtime.send("t3", "Count."))
        deadline = time.monotonic() + 120
        while not running.is_set() and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        assert running.is_set(), "the counting job never reported progress"
        run.cancel()  # the chat's Stop
        with contextlib.suppress(asyncio.CancelledError):
            await run

    asyncio.run(scenario())  # before the change: the job counted on and this waited for it
    job = app.jobs.get(jobs[0])
    assert job is not None and job.wait(30) and job.state is JobState.CANCELLED
