"""The running side: a timeout or a Stop ends the whole process group; output is capped and says
so; doctor lists the allowlist and where each program is."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

from tests.shell.conftest import allow, configure, ran, run
from workbench_plugins.shell.doctor_checks import check_allowlist
from workbench_plugins.shell.events import CommandFinished, CommandStarted, CommandStopRequested

# a script in the workspace that leaves a grandchild behind and waits: only killing the process
# group ends both
SPAWN = """\
sleep 300 &
echo $! > child.pid
echo started
wait
"""


def alive(pid: int) -> bool:
    """Running (a zombie waiting for its reaper counts as ended)."""
    status = Path(f"/proc/{pid}/status")
    try:
        return "\nState:\tZ" not in status.read_text()
    except FileNotFoundError:
        return False


def wait_until(condition: Any, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return bool(condition())


def test_timeout_kills_the_process_group(app: Any, workspace: Path) -> None:
    allow(app, "sh")
    (workspace / "spawn.sh").write_text(SPAWN)
    result = ran(app, ["sh", "spawn.sh"], timeout=1)
    assert result["exit_code"] is None
    assert (
        result["state"].startswith("timed out after 1 s") and "group was killed" in result["state"]
    )
    assert result["stdout"] == "started\n"  # what came before the timeout is kept
    child = int((workspace / "child.pid").read_text())
    assert wait_until(lambda: not alive(child)), f"the grandchild {child} survived the timeout"


def test_default_timeout_comes_from_the_settings(app: Any, workspace: Path) -> None:
    allow(app, "sleep")
    configure(app, timeout_s=1)
    result = ran(app, ["sleep", "30"])
    assert result["state"].startswith("timed out after 1 s")


def test_output_is_capped_and_says_so(app: Any, workspace: Path) -> None:
    configure(app, max_output_bytes=1024)
    (workspace / "big.txt").write_text("".join(f"line {i:05d}\n" for i in range(5000)))
    result = ran(app, ["cat", "big.txt"])
    assert result["truncated"] and len(result["stdout"].encode()) == 1024
    assert result["stdout"].startswith("line 00000\n")
    assert "stdout was 55000 bytes; only the first 1024 are kept" in result["note"]
    assert "max_output_bytes" in result["note"]
    assert result["exit_code"] == 0  # the rest was drained, so cat finished normally


def test_a_stop_request_ends_the_running_command(app: Any, workspace: Path) -> None:
    allow(app, "sh")
    (workspace / "spawn.sh").write_text(SPAWN)
    started: list[CommandStarted] = []
    finished: list[CommandFinished] = []
    app.bus.subscribe(CommandStarted, started.append)
    app.bus.subscribe(CommandFinished, finished.append)
    outcomes: list[Any] = []
    worker = threading.Thread(target=lambda: outcomes.append(run(app, ["sh", "spawn.sh"])))
    worker.start()
    assert wait_until(lambda: bool(started) and (workspace / "child.pid").exists())
    app.bus.publish(CommandStopRequested(run_id=started[0].run_id))
    worker.join(30)
    assert outcomes and outcomes[0].ok, outcomes
    assert outcomes[0].result["state"].startswith("stopped by a person")
    assert finished and finished[0].run_id == started[0].run_id
    assert finished[0].argv == ["sh", "spawn.sh"]
    child = int((workspace / "child.pid").read_text())
    assert wait_until(lambda: not alive(child))


def test_doctor_lists_the_allowlist_and_finds_each_program(app: Any) -> None:
    allow(app, "no-such-program-xyz")
    lines = {result.name: result for result in check_allowlist(app)}
    summary = lines["shell allowlist"]
    assert summary.level == "ok" and "ls" in summary.detail and "json.tool" in summary.detail
    found = lines["shell programs"]
    assert found.level == "ok" and "ls=/" in found.detail and "grep=/" in found.detail
    assert "shell: ls" not in lines  # only what is missing gets a line of its own
    missing = lines["shell: no-such-program-xyz"]
    assert missing.level == "missing" and "allowed_programs" in missing.fix
