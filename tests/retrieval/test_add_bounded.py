"""Issue 28: add_document is bounded. A file over the size limit is refused before it is read,
naming the setting; a large file reports job progress and a person's Cancel stops it midway,
leaving the index as it was before that file."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from tests.retrieval.conftest import call, listed, ok
from workbench.core.events import JobCancelRequested, JobFinished, JobProgress, JobStarted
from workbench_plugins.retrieval.index.database import DocumentIndex

WORDS = [f"term{i}" for i in range(3000)]


def write_text(path: Path, size: int, marker: str = "") -> Path:
    """`size` bytes of varied words (one passage ~ 220 of them), `marker` in the middle."""
    chooser = random.Random(7)
    lines: list[str] = []
    written = 0
    while written < size:
        line = " ".join(chooser.choices(WORDS, k=150))
        if marker and written < size // 2 <= written + len(line):
            line += f" {marker}"
        lines.append(line)
        written += len(line) + 1
    path.write_text("\n".join(lines) + "\n")
    return path


def keyword_only(app: Any, **more: Any) -> None:
    app.settings.plugins["retrieval"] = {"dense": "off", **more}


def test_a_file_over_the_limit_is_refused_naming_the_setting(app: Any, workspace: Path) -> None:
    keyword_only(app, max_document_mb=1)
    (workspace / "keep.md").write_text("# Keep\nThe shaft diameter is 12 mm.")
    ok(app, "add_document", path="keep.md")
    before = listed(app)
    write_text(workspace / "huge.txt", 1_500_000)
    outcome = call(app, "add_document", path="huge.txt")
    assert not outcome.ok and outcome.error is not None
    assert "huge.txt" in outcome.error.message and "1.5 MB" in outcome.error.message
    assert "max_document_mb in [plugins.retrieval]" in outcome.error.message
    assert "max_document_mb" in outcome.error.hint
    assert listed(app) == before
    # in a folder the one file is refused and reported, the others are indexed
    folder = workspace / "papers"
    folder.mkdir()
    (folder / "small.md").write_text("# Small\nThe bolt grade is 8.8.")
    (workspace / "huge.txt").rename(folder / "huge.txt")
    result = ok(app, "add_document", path="papers")
    assert result["added"] == ["papers/small.md"]
    assert len(result["failed"]) == 1 and "max_document_mb" in result["failed"][0]


def test_a_large_file_shows_progress_and_cancel_leaves_the_index_consistent(
    app: Any, workspace: Path
) -> None:
    keyword_only(app)  # 20 MB default: 6 MB is allowed
    folder = workspace / "docs"
    folder.mkdir()
    (folder / "a_notes.md").write_text("# Notes\nThe flange thickness is 9 mm.")
    write_text(folder / "b_big.txt", 6_000_000, marker="needleword")
    (workspace / "keep.md").write_text("# Keep\nThe shaft diameter is 12 mm.")
    ok(app, "add_document", path="keep.md")
    started: list[JobStarted] = []
    progress: list[JobProgress] = []
    finished: list[JobFinished] = []
    bus = app.bus

    def on_progress(event: JobProgress) -> None:
        progress.append(event)
        # a person presses Cancel in the jobs bar once writing the big file is under way
        if "b_big.txt: writing" in event.message and len(progress) >= 3:
            bus.publish(JobCancelRequested(job_id=event.job_id))

    unsubscribers = [
        bus.subscribe(JobStarted, started.append),
        bus.subscribe(JobProgress, on_progress),
        bus.subscribe(JobFinished, finished.append),
    ]
    try:
        outcome = call(app, "add_document", path="docs")
    finally:
        for unsubscribe in unsubscribers:
            unsubscribe()
    assert not outcome.ok and outcome.error is not None
    assert "cancelled while reading docs/b_big.txt" in outcome.error.message
    assert "1 added" in outcome.error.message  # the file done before the cancel is kept
    mine = started[-1].job_id
    assert [f.status for f in finished if f.job_id == mine] == ["cancelled"]
    fractions = [p.fraction or 0.0 for p in progress if p.job_id == mine]
    assert len(fractions) >= 3 and fractions == sorted(fractions) and fractions[-1] < 1.0
    # consistent: the notes whole, nothing of the big file, no passage without its document
    assert [source for source, _, _ in listed(app)] == ["docs/a_notes.md", "keep.md"]
    with DocumentIndex.of_workspace(workspace) as index:
        assert index.chunk_count() == sum(passages for _, _, passages in listed(app))
        assert index.keyword("needleword", 5) == []
    # added again, it goes on: the notes are skipped, the big file is indexed whole
    result = ok(app, "add_document", path="docs")
    assert result["unchanged"] == ["docs/a_notes.md"] and result["added"] == ["docs/b_big.txt"]
    with DocumentIndex.of_workspace(workspace) as index:
        assert index.keyword("needleword", 5)


def test_a_blank_query_is_refused_clearly(app: Any, workspace: Path) -> None:
    keyword_only(app)
    (workspace / "keep.md").write_text("# Keep\nThe shaft diameter is 12 mm.")
    ok(app, "add_document", path="keep.md")
    for blank in ("", "   ", "\n\t "):
        outcome = call(app, "search_documents", query=blank)
        assert not outcome.ok and outcome.error is not None
        assert "blank" in outcome.error.explain(), outcome.error.explain()
    assert ok(app, "search_documents", query="shaft diameter")["passages"]
