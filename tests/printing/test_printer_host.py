"""Acceptance 2 (defect 3): a USB print started from the command line keeps printing after the
command returns, because a printer host (`workbench --headless serve`, a real subprocess with its
own WORKBENCH_HOME) owns the port; later commands, the GUI panel and the agent act on it. Without a
host the CLI refuses; a second host is refused; the host's socket is private.

The printer is the project's Marlin emulator on a pseudo-terminal, slowed so a print outlasts the
commands. One host process serves the whole module (the CI budget is tight).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.rigs.marlin_emulator import executed_commands, running_emulator
from workbench.core.paths import AppPaths
from workbench_plugins.printing.host.client import HostClient
from workbench_plugins.printing.host.protocol import HostUnavailable, socket_path

ROOT = Path(__file__).resolve().parents[2]
SLOW_MOVE_S = 0.02  # each G1 takes this long: 3000 moves are a minute, longer than any test
WAIT_S = 60.0  # generous: only for waiting, never asserted


@dataclass
class Host:
    home: Path
    env: dict[str, str]
    process: subprocess.Popen[str]
    output: Path

    @property
    def paths(self) -> AppPaths:
        root = self.home.resolve()
        return AppPaths(root / "config", root / "data", root / "cache")

    @property
    def socket(self) -> Path:
        return socket_path(self.paths, create=False)

    @property
    def outputs(self) -> Path:
        folder = self.paths.default_workspace / "outputs" / "printing"
        folder.mkdir(parents=True, exist_ok=True)
        return folder


def environment(home: Path) -> dict[str, str]:
    return {
        **os.environ,
        "WORKBENCH_HOME": str(home),
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    }


def workbench(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "workbench", "--headless", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def tool(env: dict[str, str], name: str, arguments: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """`workbench --headless tool NAME JSON --yes` in a process of its own: (rc, outcome)."""
    done = workbench(env, "tool", name, json.dumps(arguments), "--yes")
    try:
        return done.returncode, json.loads(done.stdout)
    except json.JSONDecodeError:
        raise AssertionError(f"{name}: no JSON outcome; stderr: {done.stderr[-3000:]}") from None


def wait_until(condition: Callable[[], bool], what: str, timeout: float = WAIT_S) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(0.05)


def start_host(home: Path, output: Path) -> Host:
    env = environment(home)
    with output.open("w") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "workbench", "--headless", "serve"],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            text=True,
        )
    host = Host(home, env, process, output)

    def answers() -> bool:
        if process.poll() is not None:
            raise AssertionError(f"serve ended ({process.returncode}): {output.read_text()}")
        try:
            return bool(asyncio.run(HostClient(host.socket).hello()))
        except HostUnavailable:
            return False

    wait_until(answers, "the printer host to answer")
    return host


def stop_host(host: Host) -> str:
    """SIGTERM, as a service manager stops it; SIGKILL only if it hangs. Returns its output."""
    if host.process.poll() is None:
        host.process.send_signal(signal.SIGTERM)
        try:
            host.process.wait(WAIT_S)
        except subprocess.TimeoutExpired:
            host.process.kill()
            host.process.wait(10)
    return host.output.read_text()


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Host]:
    folder = tmp_path_factory.mktemp("printer-host")
    running = start_host(folder / "home", folder / "serve.log")
    yield running
    stop_host(running)


def slow_gcode(folder: Path, name: str = "slow.gcode", moves: int = 3000) -> Path:
    path = folder / name
    lines = ["G90", "G28", "G1 Z0.2 F600"] + [
        f"G1 X{10 + i % 100} Y{10 + (i // 100) % 100} F3000" for i in range(moves)
    ]
    path.write_text("\n".join(lines) + "\n")
    return path


PRINT_ARGS = {"override": True, "override_reason": "printer host test"}


@pytest.fixture
def release(host: Host) -> Iterator[Callable[[str], None]]:
    """Ports to hand back after the test, pass or fail: the print is cancelled and the port
    closed, so the next emulator (which may get the same pty name) meets no held print."""
    ports: list[str] = []
    yield ports.append
    for port in ports:
        for op in ("cancel", "disconnect"):
            with contextlib.suppress(Exception):
                asyncio.run(HostClient(host.socket).call(op, printer=port))


def calls_by(app: Any, tool: str, caller: str) -> list[dict[str, Any]]:
    """The ended calls of `tool` by `caller` (a call is recorded when it starts; the module's
    tests share one workspace)."""
    return [
        call
        for call in app.store.tool_calls(tool)
        if call["caller"] == caller and call["ok"] is not None
    ]


def test_a_cli_print_outlives_the_command_and_later_commands_act_on_it(
    host: Host, release: Callable[[str], None], tmp_path: Path
) -> None:
    gcode = slow_gcode(host.outputs)
    log = tmp_path / "executed.log"
    with running_emulator(log, command_delay_s=SLOW_MOVE_S) as printer:
        port = printer.port
        release(port)
        code, started = tool(
            host.env, "upload_and_print", {"printer": port, "gcode_path": gcode.name, **PRINT_ARGS}
        )
        assert code == 0 and started["result"]["state"] == "printing", started
        assert "goes on after this call" in started["result"]["message"]
        returned = len(executed_commands(log))
        # the command has ended; the host goes on streaming the file
        wait_until(lambda: len(executed_commands(log)) > returned + 20, "more lines after return")

        code, paused = tool(host.env, "pause_print", {"printer": port})
        assert code == 0, paused
        assert paused["result"]["state"] == "paused" and paused["result"]["confirmed"], paused
        code, status = tool(host.env, "get_printer_status", {"printer": port})
        assert status["result"]["state"] == "paused" and status["result"]["file"] == gcode.name
        assert 0 < status["result"]["progress"] < 1

        code, cancelled = tool(host.env, "cancel_print", {"printer": port})
        assert code == 0 and cancelled["result"]["confirmed"], cancelled
        assert cancelled["result"]["state"] not in ("printing", "paused")
        assert {"M104 S0", "M140 S0"} <= set(executed_commands(log))  # heaters off


def test_a_waiting_print_can_be_paused_and_cancelled_by_other_commands(
    host: Host, release: Callable[[str], None], tmp_path: Path
) -> None:
    """`wait: true` polls the host: the print stays in the host's hands meanwhile."""
    gcode = slow_gcode(host.outputs, "waited.gcode")
    log = tmp_path / "executed.log"
    with running_emulator(log, command_delay_s=SLOW_MOVE_S) as printer:
        port = printer.port
        release(port)
        arguments = {"printer": port, "gcode_path": gcode.name, "wait": True, **PRINT_ARGS}
        command = ["tool", "upload_and_print", json.dumps(arguments), "--yes"]
        waiting = subprocess.Popen(
            [sys.executable, "-m", "workbench", "--headless", *command],
            env=host.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            wait_until(lambda: len(executed_commands(log)) > 20, "the waited print to stream")
            code, paused = tool(host.env, "pause_print", {"printer": port})
            assert code == 0 and paused["result"]["confirmed"], paused
            assert waiting.poll() is None  # still waiting: a paused print has not ended
            code, cancelled = tool(host.env, "cancel_print", {"printer": port})
            assert code == 0 and cancelled["result"]["confirmed"], cancelled
            out, err = waiting.communicate(timeout=WAIT_S)
        finally:
            waiting.kill()
    assert waiting.returncode == 1, err[-2000:]
    message = json.loads(out)["error"]["message"]
    assert message.startswith(f"The print of waited.gcode on {port} ended before its last line")


def test_a_second_serve_is_refused_and_names_the_host(host: Host) -> None:
    done = workbench(host.env, "serve")
    assert done.returncode == 1
    assert "A printer host already runs" in done.stderr
    assert f"process {host.process.pid}" in done.stderr and "serve" in done.stderr
    assert host.process.poll() is None  # the first one is untouched


def test_the_hosts_socket_is_private(host: Host) -> None:
    socket = host.socket
    assert stat.S_ISSOCK(socket.stat().st_mode)
    assert socket.stat().st_mode & 0o077 == 0
    folder = socket.parent.stat()
    assert folder.st_uid == os.getuid() and stat.S_IMODE(folder.st_mode) == 0o700
    assert len(os.fsencode(socket)) <= 107


@pytest.fixture
def client_app(host: Host, workbench_home: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """An app in this process on the host's home: a client of the host, as a second window or
    a headless agent would be."""
    from workbench.core.context import AppContext

    monkeypatch.setenv("WORKBENCH_HOME", str(host.home))
    app = AppContext.open()
    yield app
    app.close()


def test_the_agent_pauses_the_hosts_print(
    host: Host, client_app: Any, release: Callable[[str], None], tmp_path: Path
) -> None:
    """The agent runtime (scripted model, the printing specialist, a policy approving the
    pause) in another process than the host acts on the host's print."""
    from workbench.agents import AgentRuntime, HeadlessPolicy, ScriptedChatModel
    from workbench_plugins.printing.printers import manager_for

    gcode = slow_gcode(host.outputs, "agent.gcode")
    call = client_app.registry.call
    with running_emulator(tmp_path / "executed.log", command_delay_s=SLOW_MOVE_S) as printer:
        port = printer.port
        release(port)
        arguments = {"printer": port, "gcode_path": gcode.name, **PRINT_ARGS}
        started = call("upload_and_print", arguments, caller="cli", confirmed=True)
        assert started.ok and started.result["state"] == "printing", started.error
        assert not manager_for(client_app).hosting  # the host process prints, not this one

        pause = {"name": "pause_print", "args": {"printer": port}}
        model = ScriptedChatModel(
            replies=[
                {"tool_calls": [{"name": "transfer_to_printing", "args": {"task": "Pause it."}}]},
                {"content": "", "tool_calls": [pause]},
                {"content": "The print is paused."},
                {"content": "Paused."},
            ]
        )
        policy = HeadlessPolicy(approve={"pause_print"})
        runtime = AgentRuntime(client_app, model, model_name="scripted:test", policy=policy)
        try:
            result = runtime.send_sync("pause", f"Pause the print on {port}.")
        finally:
            runtime.close()
        assert result.status == "done", result.error
        [recorded] = calls_by(client_app, "pause_print", "agent:printing")
        assert recorded["ok"], recorded
        assert recorded["result"]["state"] == "paused" and recorded["result"]["confirmed"]
        status = call("get_printer_status", {"printer": port}, caller="cli")
        assert status.result["state"] == "paused"
        listed = call("list_printers", {}, caller="cli")  # the host's state, not "unknown"
        [entry] = [p for p in listed.result["printers"] if p["address"] == port]
        assert entry["state"] == "paused" and entry["kind"] == "serial"
        assert call("cancel_print", {"printer": port}, caller="cli", confirmed=True).ok
        gone = call("disconnect_printer", {"printer": port}, caller="cli")
        assert gone.ok and gone.result["state"] == "not connected", gone.error


def test_the_panel_pauses_the_hosts_print(
    host: Host,
    client_app: Any,
    release: Callable[[str], None],
    qtbot: Any,
    qapp: Any,
    tmp_path: Path,
) -> None:
    """The printer panel of an app that does not host: it follows the host's event stream and
    pauses a print the CLI started, showing the state the printer confirmed."""
    import tests.rigs.gui  # noqa: F401  (skips, or fails in CI, without PySide6/pyqtgraph)

    # isort: split
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QMessageBox

    from tests.support.artifacts import artifact_folder
    from workbench.ui.async_loop import attached_event_loop, running_tasks
    from workbench_plugins.printing.views import PrinterPanel

    def answer_yes() -> None:
        qtbot.waitUntil(lambda: panel.confirmation is not None and panel.confirmation.isVisible())
        box = panel.confirmation
        qtbot.mouseClick(box.button(QMessageBox.StandardButton.Yes), Qt.MouseButton.LeftButton)

    gcode = slow_gcode(host.outputs, "panel.gcode")
    log = tmp_path / "executed.log"
    with attached_event_loop(qapp), running_emulator(log, command_delay_s=SLOW_MOVE_S) as printer:
        panel = PrinterPanel(client_app)
        qtbot.addWidget(panel)
        panel.resize(900, 700)
        panel.show()
        panel.printer.setEditText(printer.port)
        release(printer.port)
        code, started = tool(
            host.env,
            "upload_and_print",
            {"printer": printer.port, "gcode_path": gcode.name, **PRINT_ARGS},
        )
        assert code == 0, started
        qtbot.waitUntil(lambda: panel.state.text() == "printing", timeout=int(WAIT_S * 1000))
        qtbot.waitUntil(lambda: panel.progress.value() > 0, timeout=int(WAIT_S * 1000))

        panel.request_action("pause")
        answer_yes()
        qtbot.waitUntil(lambda: len(calls_by(client_app, "pause_print", "gui")) == 1)
        qtbot.waitUntil(lambda: running_tasks() == 0)
        [paused] = calls_by(client_app, "pause_print", "gui")
        assert paused["ok"] and paused["result"]["confirmed"], paused
        assert panel.state.text() == "paused"
        assert f"-- {paused['result']['message']}" in panel.terminal.toPlainText()
        assert panel.grab().save(str(artifact_folder() / "printer_panel_host_client.png"))

        panel.request_action("cancel")
        answer_yes()
        qtbot.waitUntil(lambda: len(calls_by(client_app, "cancel_print", "gui")) == 1)
        [cancelled] = calls_by(client_app, "cancel_print", "gui")
        assert cancelled["ok"] and cancelled["result"]["confirmed"], cancelled
        assert "M104 S0" in executed_commands(log)
        qtbot.waitUntil(lambda: running_tasks() == 0)
        panel.disconnect_printer()
        qtbot.waitUntil(lambda: panel.state.text() == "not connected", timeout=10000)
        panel.close()
        qtbot.waitUntil(lambda: running_tasks() == 0, timeout=5000)


def test_without_a_host_the_cli_refuses_a_usb_print(workbench_home: Path, tmp_path: Path) -> None:
    """Defect 3: no host runs for this home: the print never starts, and the message says how
    to start a host."""
    env = environment(workbench_home)
    outputs = workbench_home / "data" / "workspace" / "outputs" / "printing"
    outputs.mkdir(parents=True)
    gcode = slow_gcode(outputs, moves=10)
    log = tmp_path / "executed.log"
    with running_emulator(log) as printer:
        code, refused = tool(
            env,
            "upload_and_print",
            {"printer": printer.port, "gcode_path": gcode.name, **PRINT_ARGS},
        )
    assert code == 1 and refused["error"]["kind"] == "failed"
    assert "No printer host runs" in refused["error"]["message"]
    assert "`workbench --headless serve`" in refused["error"]["message"]
    assert executed_commands(log) == []  # the port was never opened


def test_stopping_the_host_with_a_print_running_says_so_and_turns_heaters_off(
    workbench_home: Path, tmp_path: Path
) -> None:
    served = start_host(workbench_home, tmp_path / "serve.log")
    try:
        outputs = served.outputs
        gcode = slow_gcode(outputs)
        log = tmp_path / "executed.log"
        with running_emulator(log, command_delay_s=SLOW_MOVE_S) as printer:
            code, started = tool(
                served.env,
                "upload_and_print",
                {"printer": printer.port, "gcode_path": gcode.name, **PRINT_ARGS},
            )
            assert code == 0, started
            wait_until(lambda: len(executed_commands(log)) > 10, "the print to stream")
            said = stop_host(served)
            assert served.process.returncode == 0, said
            assert f"Stopping: the USB print of {gcode.name} on {printer.port}" in said
            assert f"Stopped the print of {gcode.name} on {printer.port}" in said
            assert {"M104 S0", "M140 S0"} <= set(executed_commands(log))
        assert not served.socket.exists()
    finally:
        stop_host(served)
