"""Issue 28: Ctrl+C in `workbench --headless retrieval add` (and in `tool add_document`) stops it
cleanly: no traceback, the file being read left out of the index whole, the files done before
kept; the same command later goes on."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from tests.retrieval.test_add_bounded import write_text
from workbench_plugins.retrieval.index.database import DocumentIndex


def add_command(*paths: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "workbench", "--headless", "retrieval", "add", *map(str, paths)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "COLUMNS": "200"},
    )


def test_ctrl_c_stops_the_headless_add_cleanly(context: Any) -> None:
    workspace = Path(context.store.folder)
    folder = workspace / "docs"
    folder.mkdir()
    (folder / "a_notes.md").write_text("# Notes\nThe flange thickness is 9 mm.")
    write_text(folder / "b_big.txt", 12_000_000, marker="needleword")
    command = add_command(folder)
    assert command.stderr is not None
    seen: list[str] = []
    for line in command.stderr:  # the steps, as a person at the terminal sees them
        seen.append(line)
        if "b_big.txt: writing" in line:
            command.send_signal(signal.SIGINT)  # what Ctrl+C sends
            break
    _, rest = command.communicate(timeout=120)
    printed = "".join(seen) + rest
    assert command.returncode == 130, printed
    assert "Traceback" not in printed and "KeyboardInterrupt" not in printed
    assert "Cancelled while reading" in printed and "b_big.txt" in printed
    with DocumentIndex.of_workspace(workspace) as index:
        documents = index.documents()
        assert [Path(d.path).name for d in documents] == ["a_notes.md"]
        assert index.chunk_count() == sum(d.chunks for d in documents)
        assert index.keyword("needleword", 5) == []
    again = add_command(folder)
    _, rest = again.communicate(timeout=300)
    assert again.returncode == 0, rest
    with DocumentIndex.of_workspace(workspace) as index:
        assert len(index.documents()) == 2 and index.keyword("needleword", 5)


def test_ctrl_c_cancels_a_headless_tool_add_document(context: Any) -> None:
    context.paths.settings_file.parent.mkdir(parents=True, exist_ok=True)
    context.paths.settings_file.write_text('[plugins.retrieval]\ndense = "off"\n')
    workspace = Path(context.store.folder)
    folder = workspace / "docs"
    folder.mkdir()
    (folder / "a_notes.md").write_text("# Notes\nThe flange thickness is 9 mm.")
    write_text(folder / "b_big.txt", 19_000_000, marker="needleword")
    arguments = '{"path": "docs"}'
    command = subprocess.Popen(
        [sys.executable, "-m", "workbench", "--headless", "tool", "add_document", arguments],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and command.poll() is None:  # the notes are in: the
        with DocumentIndex.of_workspace(workspace) as index:  # big file is being read now
            if index.documents():
                break
        time.sleep(0.05)
    command.send_signal(signal.SIGINT)
    out, err = command.communicate(timeout=120)
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert command.returncode == 1 and "cancelled while reading docs/b_big.txt" in out, out + err
    with DocumentIndex.of_workspace(workspace) as index:
        documents = index.documents()
        assert [Path(d.path).name for d in documents] == ["a_notes.md"]
        assert index.chunk_count() == sum(d.chunks for d in documents)
