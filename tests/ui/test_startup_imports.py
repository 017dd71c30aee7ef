"""Issue 29: the desktop app starts without what only later work needs. When `workbench` reports
its window interactive (the start-up benchmark's hook), none of the agent runtime (LangChain,
LangGraph), VTK, matplotlib, pyqtgraph or torch has been imported: they load when the first
message is sent, or a view that draws with them is first shown, off the GUI thread."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from workbench.ui.chat.wording import USER_CANCELLED
from workbench.ui.startup.variables import LAUNCH_VARIABLE, REPORT_VARIABLE

ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT_S = 120
NOT_AT_START = (
    "langchain",
    "langchain_core",
    "langchain_ollama",
    "langgraph",
    "langsmith",
    "vtk",
    "vtkmodules",
    "pyvista",
    "pyvistaqt",
    "matplotlib",
    "pyqtgraph",
    "torch",
)


def test_the_window_is_interactive_before_the_agent_runtime_and_plotting_are_imported(
    tmp_path: Path,
) -> None:
    report = tmp_path / "interactive.json"
    environment = {
        **{k: v for k, v in os.environ.items() if k not in (REPORT_VARIABLE, LAUNCH_VARIABLE)},
        REPORT_VARIABLE: str(report),
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
        "OLLAMA_HOST": "http://127.0.0.1:9",  # no model server: nothing answers
    }
    done = subprocess.run(
        [sys.executable, "-m", "workbench"],
        env=environment,
        capture_output=True,
        text=True,
        timeout=START_TIMEOUT_S,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    packages = set(json.loads(report.read_text(encoding="utf-8"))["packages"])
    assert "PySide6" in packages and "workbench" in packages  # the report sees the imports
    imported = sorted(packages.intersection(NOT_AT_START))
    assert imported == [], f"imported before the window was interactive: {imported}"


def test_the_chats_cancel_word_is_the_runtimes() -> None:
    """The chat spells the runtime's USER_CANCELLED out so as not to import LangGraph."""
    from workbench.agents.graph.run import USER_CANCELLED as RUNTIMES

    assert USER_CANCELLED == RUNTIMES
