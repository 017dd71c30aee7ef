"""A tool card copes with a flood of progress: however many reports a job publishes, the GUI gets
one queued repaint at a time and shows the latest report; other calls' jobs are not shown, and a
finished call shows nothing, even when its jobs report late."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from workbench.core.events import EventBus, JobFinished, JobProgress, JobStarted
from workbench.ui.chat.cards import ToolCard

REPORTS = 20_000


def shown_texts(card: ToolCard) -> list[str]:
    """Every text the card's progress line is given (a spy on the real label)."""
    texts: list[str] = []
    label = card.progress.label
    set_text = label.setText

    def recording(text: str) -> None:
        texts.append(text)
        set_text(text)

    label.setText = recording  # type: ignore[method-assign]
    return texts


def test_a_flood_of_progress_is_one_repaint_of_the_latest(qtbot: QtBot) -> None:
    bus = EventBus()
    card = ToolCard("optimize_design", {"problem_type": "beams2d"}, agent="topopt", bus=bus)
    qtbot.addWidget(card)
    card.show()
    card.follow_jobs("call_1")
    texts = shown_texts(card)

    bus.publish(JobStarted(job_id="job-a", title="optimize beams2d", tool_call_id="call_1"))
    bus.publish(JobStarted(job_id="job-b", title="another call's job", tool_call_id="call_2"))
    # published while the GUI thread is busy (here: publishing): nothing is repainted meanwhile
    for step in range(REPORTS):
        bus.publish(
            JobProgress(
                job_id="job-a",
                fraction=(step + 1) / REPORTS,
                message="iteration",
                data={"iteration": step, "objective": 1.5},
            )
        )
        bus.publish(JobProgress(job_id="job-b", fraction=0.5, message="not this card's"))

    last = f"optimize beams2d: iteration {REPORTS}/{REPORTS}, objective 1.5"
    qtbot.waitUntil(lambda: card.progress.text() == last)
    assert texts == [last]  # one repaint for the whole flood, with the latest report
    assert card.progress.bar.value() == card.progress.bar.maximum()

    card.finish(True, duration_s=1.0, summary="design saved")
    bus.publish(JobProgress(job_id="job-a", fraction=1.0, message="late report"))
    bus.publish(JobFinished(job_id="job-a", status="done"))
    qtbot.wait(250)  # longer than a repaint's delay: a late report must not show up again
    assert card.progress.isHidden() and card.progress.text() == ""
    assert texts == [last]
    assert "optimize beams2d:" not in card.plain_text()


def test_a_slurm_monitor_shows_its_state_and_a_finished_job_leaves_no_line(qtbot: QtBot) -> None:
    bus = EventBus()
    card = ToolCard("monitor_job_until_complete", {"job_id": "42"}, agent="hpc", bus=bus)
    qtbot.addWidget(card)
    card.show()
    card.follow_jobs("call_7")
    title = "Slurm job 42 on local"
    bus.publish(JobStarted(job_id="slurm:local:42", title=title, tool_call_id="call_7"))
    bus.publish(JobProgress(job_id="slurm:local:42", message="RUNNING 0:37"))

    qtbot.waitUntil(lambda: card.progress.text() == "Slurm job 42 on local: RUNNING 0:37")
    assert card.progress.bar.maximum() == 0  # busy: a Slurm job's length is unknown
    assert "Slurm job 42 on local: RUNNING 0:37" in card.plain_text()

    bus.publish(JobFinished(job_id="slurm:local:42", status="done"))
    qtbot.waitUntil(card.progress.isHidden)  # the job ended; the call may still be working
    assert card.status == "running"
