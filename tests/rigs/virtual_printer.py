"""Test rig: OctoPrint's virtual printer (a Marlin simulation others wrote) on a pseudo-terminal.

The printer runs in its own process under the OctoPrint rig's python (.rigs/octoprint, made by
packaging/rig-venvs.sh), via tests/rigs/virtual_printer_process.py, which bridges it onto a pty
and links the pty at a stable path. Tests open `.port` like any serial port.

    with VirtualPrinter(tmp_path, settings={"simulated_errors": []}, speed=20) as printer:
        host = SerialHost(printer.port)
        ...
        printer.unplug(); printer.replug()   # the port goes away and comes back, same path
        printer.received()                   # every line the printer got, as sent

`settings` override the plugin's own defaults (octoprint/plugins/virtual_printer/__init__.py):
e.g. firmwareName, m115FormatString, okFormatString, sendWait, simulated_errors. Its defaults are
kept on purpose: errors injected at lines 100-115 (a resend, a resend whose `ok` never comes, a
missing line number, a checksum mismatch), `wait` when idle, `start` at power-on.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Self

from tests.rigs.require import require_rig

ROOT = Path(__file__).resolve().parents[2]
OCTOPRINT_PYTHON = ROOT / ".rigs" / "octoprint" / "bin" / "python"
RUNNER = Path(__file__).with_name("virtual_printer_process.py")
MISSING = (
    f"OctoPrint's virtual printer needs the OctoPrint rig venv ({OCTOPRINT_PYTHON}); "
    "make it with `packaging/rig-venvs.sh` (bootstrap.sh --dev does)"
)
_NUMBERED = re.compile(r"^N\d+\s+(.*?)\*\d+$")


def virtual_printer_available() -> bool:
    return OCTOPRINT_PYTHON.exists()


def require_virtual_printer() -> None:
    """Skip the test here (or fail it in CI) when the OctoPrint rig is missing."""
    require_rig("octoprint-virtual-printer", virtual_printer_available(), MISSING)


def command_of(line: str) -> str:
    """`N12 G1 X5*34` -> `G1 X5`; an unnumbered line as it is."""
    match = _NUMBERED.match(line)
    return match.group(1).strip() if match else line.strip()


class VirtualPrinter:
    """OctoPrint's VirtualPrinter in a child process, on a pty linked at `folder/ttyVIRTUAL`."""

    def __init__(
        self,
        folder: Path,
        *,
        settings: dict[str, Any] | None = None,
        speed: float = 1.0,
        start_timeout_s: float = 30.0,
    ) -> None:
        require_virtual_printer()
        folder.mkdir(parents=True, exist_ok=True)
        self.folder = folder
        self.port = str(folder / "ttyVIRTUAL")
        self._received = folder / "received.log"
        self._received.unlink(missing_ok=True)
        self._process = subprocess.Popen(
            [
                str(OCTOPRINT_PYTHON),
                str(RUNNER),
                f"--folder={folder}",
                f"--link={self.port}",
                f"--received={self._received}",
                f"--settings={json.dumps(settings or {})}",
                f"--speed={speed}",
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=(folder / "virtual_printer.stderr").open("w"),
            text=True,
            cwd=folder,
            env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
        )
        self._expect("ready", start_timeout_s)

    def _expect(self, word: str, timeout_s: float) -> None:
        stdout = self._process.stdout
        if stdout is None:
            raise RuntimeError("the virtual printer's stdout is not a pipe")
        os.set_blocking(stdout.fileno(), True)
        deadline = time.monotonic() + timeout_s
        import select

        while time.monotonic() < deadline:
            ready, _, _ = select.select([stdout], [], [], 0.2)
            if ready:
                line = stdout.readline()
                if line.startswith(word):
                    return
                if not line:
                    break
        self.close()
        errors = (self.folder / "virtual_printer.stderr").read_text(errors="replace")
        raise RuntimeError(f"the virtual printer did not say {word!r}: {errors[-2000:]}")

    def _tell(self, word: str, answer: str) -> None:
        stdin = self._process.stdin
        if stdin is None or self._process.poll() is not None:
            raise RuntimeError("the virtual printer is not running")
        stdin.write(word + "\n")
        stdin.flush()
        self._expect(answer, 10)

    def unplug(self) -> None:
        """The cable is pulled: the pty closes (the host reads EIO); the printer keeps running."""
        self._tell("unplug", "unplugged")

    def replug(self) -> None:
        """The cable is back: a new pty at the same path, the printer as it was."""
        self._tell("replug", "replugged")

    def restart(self) -> None:
        """The printer resets (a power blip, an MK3 opened): line numbers from 0, `start`."""
        self._tell("restart", "restarted")

    def received(self) -> list[str]:
        """Every line the printer received, in order, as it came off the wire."""
        if not self._received.exists():
            return []
        return self._received.read_text(encoding="utf-8", errors="replace").splitlines()

    def received_commands(self) -> list[str]:
        """`received()` without line numbers and checksums."""
        return [command_of(line) for line in self.received()]

    def close(self) -> None:
        """Ask it to quit; SIGKILL after a short grace (its threads may ignore SIGTERM)."""
        process = self._process
        if process.poll() is None:
            try:
                if process.stdin is not None:
                    process.stdin.write("quit\n")
                    process.stdin.flush()
                process.wait(2)
            except (OSError, ValueError, subprocess.TimeoutExpired):
                process.kill()
                process.wait(5)
        for stream in (process.stdin, process.stdout):
            if stream is not None:
                stream.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


if __name__ == "__main__":  # a quick look: python -m tests.rigs.virtual_printer /tmp/vp
    with VirtualPrinter(Path(sys.argv[1])) as printer:
        print(printer.port)
        input("press Enter to stop")
