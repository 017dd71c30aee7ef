"""The start-up benchmark: the hook in the real app, the benchmark command end to end (one run of
each start kind), and page-cache eviction checked against the kernel's own count (mincore, and
util-linux's fincore where installed).

The benchmark runs once per module (it starts Workbench twice: --warm-ups 0). It uses its own
display choice ("auto": an Xvfb of its own where installed, as in CI) and --no-drop-caches, so a
test run never empties the page cache of the whole machine under the other tests.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QObject
from PySide6.QtWidgets import QApplication, QLabel
from pytestqt.qtbot import QtBot

from workbench.ui.startup.interactive import FirstPaint, report_when_interactive
from workbench.ui.startup.page_cache import PAGE_SIZE, cached_pages, evict, supported
from workbench.ui.startup.variables import LAUNCH_VARIABLE, REPORT_VARIABLE

ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT_S = 120


def _environment(**extra: str) -> dict[str, str]:
    """The children's environment: this checkout importable (tests' keyring backend), no real
    model server, and no report or launch time inherited."""
    environment = {
        name: value
        for name, value in os.environ.items()
        if name not in (REPORT_VARIABLE, LAUNCH_VARIABLE)
    }
    environment["PYTHONPATH"] = os.pathsep.join(
        filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])
    )
    environment["OLLAMA_HOST"] = "http://127.0.0.1:9"
    environment.update(extra)
    return environment


@pytest.fixture(scope="module")
def benchmark_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], Path, str]:
    out = tmp_path_factory.mktemp("startup-benchmark")
    command = [sys.executable, "-m", "workbench.ui.startup_benchmark", "--runs", "1"]
    command += ["--warm-ups", "0", "--out", str(out), "--no-drop-caches"]
    command += ["--timeout", str(START_TIMEOUT_S)]
    finished = subprocess.run(
        command, env=_environment(), capture_output=True, text=True, timeout=6 * START_TIMEOUT_S
    )
    assert finished.returncode == 0, finished.stdout + finished.stderr
    return json.loads((out / "startup.json").read_text()), out, finished.stdout


def test_the_hook_reports_the_time_to_an_interactive_window_and_the_app_quits(
    tmp_path: Path,
) -> None:
    home, report = tmp_path / "home", tmp_path / "interactive.json"
    environment = _environment(
        WORKBENCH_HOME=str(home), QT_QPA_PLATFORM="offscreen", **{REPORT_VARIABLE: str(report)}
    )
    launched = time.time()
    finished = subprocess.run(
        [sys.executable, "-m", "workbench"],
        env=environment,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=START_TIMEOUT_S,
    )
    elapsed = time.time() - launched
    assert finished.returncode == 0, finished.stderr  # it quit by itself, cleanly
    found = json.loads(report.read_text())
    # no launch time given: the process's own start (10 ms ticks) is the origin
    assert found["clock"].startswith("process start")
    assert 0.05 < found["seconds"] <= elapsed + 0.05
    assert 0 < found["first_paint_seconds"] <= found["seconds"]
    assert found["cpu_seconds"] > 0
    assert found["platform"] == "offscreen"
    assert any("libQt6Widgets" in path for path in found["mapped_files"])
    # closed like a person closes it: the window saved its layout on the way out
    assert (home / "config" / "window-layout.json").exists()


def test_without_the_variable_the_hook_installs_nothing(
    qtbot: QtBot, qapp: QApplication, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(REPORT_VARIABLE, raising=False)
    window = QLabel("no report wanted")
    qtbot.addWidget(window)
    assert report_when_interactive(qapp, window) is False
    assert not [child for child in window.findChildren(QObject) if isinstance(child, FirstPaint)]


def test_the_benchmark_gives_warm_and_cold_rows_with_the_ratio_to_the_bare_window(
    benchmark_run: tuple[dict[str, Any], Path, str],
) -> None:
    results, out, printed = benchmark_run
    assert set(results["phases"]) == {"warm", "cold"}
    for figures in results["phases"].values():
        workbench, bare = figures["workbench"], figures["bare"]
        assert workbench["runs"] == bare["runs"] == 1
        assert 0 < bare["median"] < workbench["median"] < START_TIMEOUT_S
        assert figures["ratio"] == pytest.approx(workbench["median"] / bare["median"])
        assert 0 < figures["cpu"]["bare"]["median"] < figures["cpu"]["workbench"]["median"]
    table = (out / "startup.md").read_text()
    assert "| warm | 1 |" in table and "| cold (page cache evicted) | 1 |" in table
    assert table.strip() in printed  # the command prints the table it wrote
    assert "posix_fadvise(DONTNEED) only (--no-drop-caches)" in results["setup"]["eviction"]


def test_eviction_drops_a_files_cached_pages(tmp_path: Path) -> None:
    if not supported():
        pytest.skip("this OS has no posix_fadvise")
    path = tmp_path / "payload.bin"
    with path.open("wb") as file:
        file.write(os.urandom(256 * PAGE_SIZE))
        file.flush()
        os.fsync(file.fileno())  # dirty pages are not dropped: write them out first
    path.read_bytes()  # every page in the cache now
    assert cached_pages(path) == (256, 256)
    assert _fincore_pages(path) in (None, 256)

    eviction = evict([path])

    assert (eviction.files, eviction.bytes) == (1, 256 * PAGE_SIZE)
    in_memory, pages = cached_pages(path)
    assert pages == 256 and in_memory < 256 // 4
    assert _fincore_pages(path) in (None, in_memory)


def _fincore_pages(path: Path) -> int | None:
    """util-linux's count of the file's cached pages, to check ours against; None if absent."""
    fincore = shutil.which("fincore")
    if fincore is None:
        return None
    output = subprocess.run(
        [fincore, "--noheadings", "--output", "PAGES", str(path)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return int(output.strip())
