"""`workbench --headless mcp` as a command: no Qt, and the other commands (and the GUI's start,
which builds the same parser) never pay for the MCP SDK."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.cli.test_headless import imported_modules

GUI_MODULES = {"PySide6", "shiboken6", "qasync", "pyqtgraph"}
MCP_SERVING_MODULES = {"mcp", "mcp_types", "uvicorn", "starlette"}


def workbench(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "workbench", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_mcp_command_never_loads_qt_and_shows_its_token_when_asked() -> None:
    shown = workbench("--headless", "mcp", "--show-token")
    assert shown.returncode == 0, shown.stderr[-2000:]
    token = shown.stdout.strip()
    assert len(token) >= 40 and " " not in token  # the token alone, for `$(...)` in a shell
    modules = imported_modules(shown.stderr)
    assert "mcp" in modules and not GUI_MODULES & modules


def test_building_the_parser_does_not_import_the_mcp_server() -> None:
    """`workbench` (the GUI) and every command build the parser, `mcp` arguments included."""
    probe = (
        "import json, sys; from workbench.cli import build_parser; build_parser(); "
        "print(json.dumps(sorted({name.split('.')[0] for name in sys.modules})))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    loaded = set(json.loads(done.stdout))
    assert "workbench" in loaded and "argparse" in loaded
    assert not MCP_SERVING_MODULES & loaded
