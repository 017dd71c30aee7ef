"""Test rig: the real PrusaLink 0.8.1 (the pip package, in .rigs/prusalink with its own python,
made by packaging/rig-venvs.sh) on 127.0.0.1, in front of a printer on a pseudo-terminal.

The printer is OctoPrint's virtual printer (the rig tests/rigs/virtual_printer.py) run through
tests/rigs/prusa_printer_process.py, which makes it answer the Prusa-specific queries PrusaLink
needs before it accepts a port (see that file for why). PrusaLink runs in the foreground
(`prusalink -f -c prusalink.ini`) with everything in the rig's folder: its config, the printer
settings file `prusa_printer_settings.ini` holding the API key and the digest user and password
hash (realm "Administrator") and its log (prusalink.log); its G-code storage (`local`) is in a
folder of its own outside /tmp (PrusaLink ignores storage there), removed at the end. PrusaLink
waits 8 s for a printer to boot after opening the port, so the rig takes about 10 s to come up:
start it once per test module.

    with RealPrusaLink(tmp_path) as link:
        link.url, link.api_key, link.user, link.password, link.printer.received_commands()
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Self
from unittest import mock

from tests.rigs import virtual_printer
from tests.rigs.require import require_rig
from tests.rigs.virtual_printer import VirtualPrinter, require_virtual_printer

ROOT = Path(__file__).resolve().parents[2]
PRUSALINK = ROOT / ".rigs" / "prusalink" / "bin" / "prusalink"
PRUSA_RUNNER = Path(__file__).with_name("prusa_printer_process.py")
MISSING = (
    f"the real PrusaLink 0.8.1 needs its rig venv ({PRUSALINK}); make it with "
    "`packaging/rig-venvs.sh` (bootstrap.sh --dev does; it needs the Debian packages "
    "libcap-dev and libturbojpeg0)"
)
REALM = "Administrator"  # PrusaLink's digest realm
API_KEY = "rig-api-key-5d1f"
USER = "maker"
PASSWORD = "rig-password-7c2e"


def real_prusalink_available() -> bool:
    return PRUSALINK.exists()


def require_real_prusalink() -> None:
    """Skip the test here (or fail it in CI) when PrusaLink or the virtual printer is missing."""
    require_rig("prusalink", real_prusalink_available(), MISSING)
    require_virtual_printer()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _storage_folder() -> Path:
    """A folder for PrusaLink's G-code storage outside /tmp: PrusaLink ignores any storage under
    /tmp (its blacklist: /dev, /sys, /proc, /tmp), and pytest's tmp_path is there."""
    for parent in (Path("/var/tmp"), Path.home() / ".cache"):
        if parent.is_dir() and os.access(parent, os.W_OK):
            return Path(tempfile.mkdtemp(prefix="workbench-prusalink-", dir=parent))
    raise RuntimeError("no writable folder outside /tmp for PrusaLink's storage")


def _write_config(folder: Path, port: int, serial_port: str, storage: Path) -> Path:
    config = folder / "prusalink.ini"
    config.write_text(
        f"[daemon]\ndata_dir = {folder}\npid_file = ./prusalink.pid\n\n"
        f"[http]\naddress = 127.0.0.1\nport = {port}\n\n"
        f"[printer]\nport = {serial_port}\nsettings = ./prusa_printer_settings.ini\n"
        f"directory = {storage / 'PrusaLink gcodes'}\n\n"
        "[cameras]\nauto_detect = False\n"
    )
    digest = hashlib.md5(f"{USER}:{REALM}:{PASSWORD}".encode()).hexdigest()
    (folder / "prusa_printer_settings.ini").write_text(
        "[printer]\ntype = MK3S\nname = rig\n\n"
        "[service::connect]\nhostname = 127.0.0.1\ntls = False\nport = 9\ntoken =\n\n"
        f"[service::local]\nenable = 1\nusername = {USER}\ndigest = {digest}\n"
        f"api_key = {API_KEY}\n"
    )
    return config


class RealPrusaLink:
    """PrusaLink 0.8.1 in a child process, ready (its printer found and idle) when constructed."""

    def __init__(self, folder: Path, *, speed: float = 10.0, start_timeout_s: float = 60.0) -> None:
        require_real_prusalink()
        folder.mkdir(parents=True, exist_ok=True)
        self.folder = folder
        self.api_key, self.user, self.password = API_KEY, USER, PASSWORD
        started = time.monotonic()
        self._log = folder / "prusalink.log"
        self._process: subprocess.Popen[bytes] | None = None
        # OctoPrint's virtual printer through the Prusa-flavoured runner, on helper B's rig
        with mock.patch.object(virtual_printer, "RUNNER", PRUSA_RUNNER):
            self.printer = VirtualPrinter(folder / "printer", speed=speed)
        try:
            self.storage = _storage_folder()
        except BaseException:
            self.printer.close()
            raise
        try:
            port = _free_port()
            self.url = f"http://127.0.0.1:{port}"
            config = _write_config(folder, port, self.printer.port, self.storage)
            with self._log.open("w") as log:
                self._process = subprocess.Popen(
                    [str(PRUSALINK), "-f", "-c", str(config)],
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    cwd=folder,
                    start_new_session=True,  # its threads and children go with it
                    env={**os.environ, "HOME": str(folder), "PYTHONDONTWRITEBYTECODE": "1"},
                )
            self._wait_until_idle(start_timeout_s)
        except BaseException:
            self.close()
            raise
        self.startup_s = time.monotonic() - started

    def get(self, path: str) -> Any:
        """A JSON answer of the API with the key (None for 204), for the rig's own checks."""
        request = urllib.request.Request(
            self.url + path, headers={"X-Api-Key": self.api_key, "Accept": "application/json"}
        )
        with urllib.request.urlopen(request, timeout=5) as answer:
            body = answer.read()
        return json.loads(body) if body else None

    def state(self) -> str:
        return str(self.get("/api/v1/status")["printer"]["state"])

    def _wait_until_idle(self, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        last = "no answer"
        while time.monotonic() < deadline:
            if self._process is None or self._process.poll() is not None:
                break
            try:
                last = self.state()
                if last == "IDLE":
                    return
            except (OSError, urllib.error.URLError, ValueError) as error:
                last = str(error)  # 503 until PrusaLink has a printer
            time.sleep(0.3)
        raise RuntimeError(
            f"PrusaLink did not become IDLE within {timeout_s} s (last: {last}); its log:\n"
            + self.log()[-3000:]
        )

    def log(self) -> str:
        return self._log.read_text(errors="replace") if self._log.exists() else ""

    def close(self) -> None:
        """SIGTERM, then SIGKILL after a grace; then the printer."""
        process = self._process
        if process is not None and process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(5)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(5)
        self.printer.close()
        shutil.rmtree(self.storage, ignore_errors=True)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


if __name__ == "__main__":  # a quick look: python -m tests.rigs.real_prusalink /tmp/pl
    import sys

    with RealPrusaLink(Path(sys.argv[1])) as link:
        print(link.url, f"up in {link.startup_s:.1f} s", flush=True)
        input("press Enter to stop")
