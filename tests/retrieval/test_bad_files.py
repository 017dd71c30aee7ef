"""Acceptance 5: files the index cannot read give a clear error and leave the index unchanged;
an interrupted folder import resumes without duplicates. Read-only mode refuses writes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pypdf import PdfReader, PdfWriter

from tests.retrieval.conftest import call, listed, ok
from workbench_plugins.retrieval.config import RetrievalSettings
from workbench_plugins.retrieval.index.adding import add_folder
from workbench_plugins.retrieval.index.database import DocumentIndex
from workbench_plugins.retrieval.sample_pdf import write_fact_pdf


def _encrypted(good: Path, path: Path) -> None:
    writer = PdfWriter(clone_from=PdfReader(good))
    writer.encrypt(user_password="secret", owner_password="owner", algorithm="AES-256")
    with path.open("wb") as out:
        writer.write(out)


def _bad_files(folder: Path) -> dict[str, str]:
    """file name -> words its error must contain."""
    good = write_fact_pdf(folder / "good.pdf", 2)
    data = good.read_bytes()
    (folder / "corrupt.pdf").write_bytes(data[:200] + bytes(range(256)) * 4)
    _encrypted(good, folder / "locked.pdf")
    good.unlink()
    (folder / "blank.txt").write_text("   \n\n  ")
    (folder / "zero.txt").write_bytes(b"")
    (folder / "image.txt").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(64))
    (folder / "model.step").write_text("ISO-10303-21;")
    return {
        "corrupt.pdf": "not a readable PDF",
        "locked.pdf": "encrypted",
        "blank.txt": "holds no text",
        "zero.txt": "empty (0 bytes)",
        "image.txt": "binary file",
        "model.step": "not a supported type",
    }


def test_each_bad_file_is_refused_clearly_and_changes_nothing(app: Any, workspace: Path) -> None:
    (workspace / "keep.md").write_text("# Keep\nThe shaft diameter is 12 mm.")
    ok(app, "add_document", path="keep.md")
    before = listed(app)
    bad = workspace / "bad"
    bad.mkdir()
    for name, words in _bad_files(bad).items():
        outcome = call(app, "add_document", path=f"bad/{name}")
        assert not outcome.ok and outcome.error is not None
        assert outcome.error.kind == "failed"
        assert name in outcome.error.message and words in outcome.error.message
        assert outcome.error.hint  # what to do
        assert listed(app) == before

    folder = ok(app, "add_document", path="bad")  # a folder: each failure listed, none fatal
    assert folder["added"] == [] and folder["skipped_types"] == 1
    assert sorted(line.split(":")[0] for line in folder["failed"]) == sorted(
        f"bad/{n}" for n in ("corrupt.pdf", "locked.pdf", "blank.txt", "zero.txt", "image.txt")
    )
    assert listed(app) == before


class Interrupted(Exception):
    pass


def test_interrupted_folder_import_resumes_without_duplicates(app: Any, workspace: Path) -> None:
    folder = workspace / "reports"
    folder.mkdir()
    for number in range(6):
        (folder / f"r{number}.md").write_text(
            f"# Report {number}\nGauge G{number} read 4{number} bar."
        )

    def stop_after_three(done: int, total: int, path: Path) -> None:
        if done == 3:
            raise Interrupted(path.name)

    with DocumentIndex.of_workspace(workspace) as index, pytest.raises(Interrupted):
        add_folder(index, folder, progress=stop_after_three)
    assert [source for source, _, _ in listed(app)] == [f"reports/r{n}.md" for n in range(3)]

    resumed = ok(app, "add_document", path="reports")
    assert resumed["unchanged"] == [f"reports/r{n}.md" for n in range(3)]
    assert resumed["added"] == [f"reports/r{n}.md" for n in range(3, 6)]
    sources = [source for source, _, _ in listed(app)]
    assert sources == [f"reports/r{n}.md" for n in range(6)]
    hits = ok(app, "search_documents", query="gauge bar", num_results=20)["passages"]
    assert len(hits) == 6 and len({h["source"] for h in hits}) == 6  # one passage each


def test_read_only_mode_refuses_add_and_delete(app: Any, workspace: Path) -> None:
    (workspace / "a.txt").write_text("Rated speed 3000 rpm.")
    ok(app, "add_document", path="a.txt")
    before = listed(app)
    app.settings = app.settings.with_plugin("retrieval", RetrievalSettings(read_only=True))
    (workspace / "b.txt").write_text("Rated torque 5 Nm.")
    for tool in ("add_document", "delete_document"):
        path = "b.txt" if tool == "add_document" else "a.txt"
        outcome = call(app, tool, path=path)
        assert not outcome.ok and outcome.error is not None
        assert "read-only" in outcome.error.message and "read_only" in outcome.error.hint
    assert listed(app) == before
    assert ok(app, "search_documents", query="rated speed")["passages"][0]["source"] == "a.txt"


def test_paths_outside_the_workspace_need_confirmation(
    app: Any, workspace: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "x.txt").write_text("Outside value 7.")
    outcome = call(app, "add_document", path=str(outside / "x.txt"))
    assert not outcome.ok and outcome.error is not None
    assert outcome.error.kind == "confirmation_required"
    assert listed(app) == []
    refused = call(app, "add_document", path="../elsewhere/x.txt")
    assert refused.error is not None and "'..'" in refused.error.message

    confirmed = app.registry.call(
        "add_document", {"path": str(outside / "x.txt")}, caller="agent", confirmed=True
    )
    assert confirmed.ok
    assert listed(app)[0][0] == str((outside / "x.txt").resolve())


def test_deleting_what_is_not_indexed_names_what_is(app: Any, workspace: Path) -> None:
    (workspace / "a.txt").write_text("Rated speed 3000 rpm.")
    ok(app, "add_document", path="a.txt")
    outcome = call(app, "delete_document", path="nothere.pdf")
    assert outcome.error is not None and "not in the document index" in outcome.error.message
    assert "a.txt" in outcome.error.hint


def test_headless_folder_import_shows_progress_and_failures(tmp_path: Path) -> None:
    import io

    from rich.console import Console

    from workbench_plugins.retrieval.commands import index_paths

    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.md").write_text("# A\nValve Cv 2.4.")
    (folder / "b.txt").write_bytes(b"")
    output = io.StringIO()
    failed = index_paths(tmp_path / "ws", [folder], Console(file=output, width=500))
    text = output.getvalue()
    assert failed == 1
    assert "Indexing docs" in text and "2/2" in text
    assert "b.txt" in text and "empty (0 bytes)" in text and "1 documents in" in text


def test_a_link_in_a_folder_never_reads_outside(app: Any, workspace: Path, tmp_path: Path) -> None:
    secret = tmp_path / "private.txt"
    secret.write_text("Private salary figures.")
    folder = workspace / "mixed"
    folder.mkdir()
    (folder / "fine.txt").write_text("Nozzle diameter 0.4 mm.")
    (folder / "sneaky.txt").symlink_to(secret)
    added = ok(app, "add_document", path="mixed")
    assert added["added"] == ["mixed/fine.txt"]
    assert len(added["failed"]) == 1 and "sneaky.txt is a link to" in added["failed"][0]
    # dense search always ranks the nearest passages: what matters is that none is the secret
    found = ok(app, "search_documents", query="salary")["passages"]
    assert not [p for p in found if "salary" in p["text"].lower()]
    assert ok(app, "search_documents", query="salary", mode="keyword")["passages"] == []
