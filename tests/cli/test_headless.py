"""`workbench --headless tool|doctor|bench` from a shell, as scripts and CI use them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest


def workbench(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "workbench", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def imported_modules(stderr: str) -> set[str]:
    """Top-level names from `-X importtime` output."""
    names = set()
    for line in stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            names.add(line.rsplit("|", 1)[1].strip().split(".")[0])
    return names


@pytest.mark.parametrize(
    "args",
    [
        ("--headless", "tool", "--list"),
        ("--headless", "tool", "workspace_info", "{}"),
        ("--headless", "doctor"),
        ("--headless", "bench", "spine", "--examples", "1"),
    ],
)
def test_headless_commands_never_load_qt(args: tuple[str, ...], tmp_path: Path) -> None:
    if "bench" in args:
        args = (*args, "--out", str(tmp_path / "out"))
    done = workbench(*args)
    modules = imported_modules(done.stderr)
    assert "workbench" in modules and "pydantic" in modules  # the probe sees imports
    assert not {"PySide6", "shiboken6", "qasync", "pyqtgraph"} & modules
    assert done.returncode in (0, 1), done.stderr[-2000:]


def test_tool_list_and_call(sample_plugins) -> None:
    listed = workbench("--headless", "tool", "--list")
    assert listed.returncode == 0
    tools = {entry["name"]: entry for entry in json.loads(listed.stdout)}
    assert tools["sample_add"]["arguments"]["properties"]["a"]["minimum"] == 0
    assert tools["workspace_info"]["side_effect"] == "read"

    called = workbench("--headless", "tool", "sample_add", '{"a": 1.5, "b": 2}')
    assert called.returncode == 0
    assert json.loads(called.stdout)["result"] == {"total": 3.5}

    bad = workbench("--headless", "tool", "sample_add", '{"a": -3, "b": 2}')
    assert bad.returncode == 1
    error = json.loads(bad.stdout)["error"]
    assert error["kind"] == "invalid_arguments" and error["problems"][0]["field"] == "a"

    broken_json = workbench("--headless", "tool", "sample_add", "{a: 1}")
    assert broken_json.returncode == 2 and "not valid JSON" in broken_json.stderr

    refused = workbench("--headless", "tool", "sample_actuate")
    assert json.loads(refused.stdout)["error"]["kind"] == "confirmation_required"
    confirmed = workbench("--headless", "tool", "sample_actuate", "--yes")
    assert json.loads(confirmed.stdout)["ok"] is True
    flag_first = workbench("--headless", "tool", "sample_add", "--yes", '{"a": 1, "b": 2}')
    assert json.loads(flag_first.stdout)["result"] == {"total": 3.0}, flag_first.stderr


def test_doctor_prints_one_line_per_check_with_fixes(sample_plugins) -> None:
    done = workbench("--headless", "doctor")
    lines = done.stdout.splitlines()
    names = [line.split("]", 1)[1].split(":", 1)[0].strip() for line in lines]
    for check in (
        "python",
        "qt",
        "opengl",
        "ollama",
        "omc",
        "rumoca",
        "prusa-slicer",
        "ssh hosts",
        "printers",
        "plugin broken",
        "plugins",
    ):
        assert check in names, f"no {check} line in:\n{done.stdout}"
    ollama = next(line for line in lines if "] ollama:" in line)
    assert "not reachable" in ollama and "->" in ollama  # says what to do
    assert done.returncode == 1  # the broken plugin is a failure


def test_headless_without_command_is_an_error() -> None:
    done = workbench("--headless")
    assert done.returncode == 2 and "needs a command" in done.stderr


def test_tool_running_a_worker_job_shows_progress(sample_plugins) -> None:
    done = workbench("--headless", "tool", "sample_count", '{"to": 50}')
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout)["result"] == {"counted": 50}
    assert "sample count" in done.stderr and "done" in done.stderr


def test_serve_runs_the_services_without_qt_until_sigterm(tmp_path: Path) -> None:
    """`serve` runs the plugins' services (here the printer host) until SIGTERM, Qt-free."""
    import signal
    import time

    # `-X importtime` writes more than a pipe holds before serve says it is ready: a file, so the
    # child never blocks on a full stderr pipe nobody reads yet
    errors = tmp_path / "stderr.txt"
    with errors.open("w") as stderr_file:
        process = subprocess.Popen(
            [sys.executable, "-X", "importtime", "-m", "workbench", "--headless", "serve"],
            stdout=subprocess.PIPE,
            stderr=stderr_file,
            text=True,
        )
        try:
            assert process.stdout is not None
            said = []
            deadline = time.monotonic() + 60
            while not said or not said[-1].startswith("Serving until"):
                line = process.stdout.readline()  # serve prints and flushes these lines at start
                assert line and time.monotonic() < deadline, "".join(said)
                said.append(line)
            process.send_signal(signal.SIGTERM)
            out, _ = process.communicate(timeout=60)
        finally:
            process.kill()
    err = errors.read_text()
    assert process.returncode == 0, err[-2000:]
    assert any(line.startswith("Printer host: serving the USB printers") for line in said)
    assert "Stopping." in out and "Printer host stopped" in out
    assert not {"PySide6", "shiboken6", "qasync", "pyqtgraph"} & imported_modules(err)
