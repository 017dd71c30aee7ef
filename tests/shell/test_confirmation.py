"""Acceptance 4: an allowlisted command runs only after a person confirmed the exact command; a
declined confirmation runs nothing (the command would have created a file: it does not exist)."""

from __future__ import annotations

import asyncio
import shlex
from pathlib import Path
from typing import Any

from langchain_core.messages import ToolCall

from tests.shell.conftest import allow, ran
from workbench.agents.graph.tools import human_request, run_call
from workbench.core.tools import ToolContext
from workbench_plugins.shell.tools.execute import CommandArgs, confirmation_text

SPECIALIST = ["execute_cli_command", "list_allowed_commands"]


def test_allowlisted_command_runs_after_confirmation(app: Any, workspace: Path) -> None:
    (workspace / "notes.txt").write_text("beam volfrac 0.4\nrmin 1.5\n")
    asked = app.registry.call(
        "execute_cli_command", {"command": ["cat", "notes.txt"]}, caller="agent:shell"
    )
    assert not asked.ok and asked.error.kind == "confirmation_required"

    result = ran(app, ["cat", "notes.txt"])

    assert result["stdout"] == "beam volfrac 0.4\nrmin 1.5\n"
    assert result["exit_code"] == 0 and result["state"] == "exit 0"
    assert result["command_line"] == "cat notes.txt"
    assert result["cwd"] == str(workspace.resolve())
    assert result["duration_s"] >= 0 and not result["truncated"]


def test_a_failing_command_reports_its_exit_code_and_stderr(app: Any) -> None:
    result = ran(app, ["ls", "no-such-file"])
    assert result["exit_code"] != 0
    assert "no-such-file" in result["stderr"]


def test_a_string_command_is_split_and_says_so(app: Any, workspace: Path) -> None:
    (workspace / "a b.txt").write_text("x\n")
    result = ran(app, "wc -l 'a b.txt'")
    assert result["command"] == ["wc", "-l", "a b.txt"]
    assert "split from a string with shlex" in result["note"]
    assert result["stdout"].split()[0] == "1"


def test_the_confirmation_shows_the_exact_command_and_folder(app: Any, workspace: Path) -> None:
    (workspace / "runs").mkdir()
    args = CommandArgs(command="grep -n 'rmin 1.5' notes.txt", cwd="runs")
    context = _tool_context(app)
    text = confirmation_text(args, context)
    assert f"Run: {shlex.join(['grep', '-n', 'rmin 1.5', 'notes.txt'])}" in text
    assert f"In: {(workspace / 'runs').resolve()}" in text


def test_every_confirmation_names_the_exact_command(app: Any, workspace: Path) -> None:
    allow(app, "touch")
    arguments = {"command": "touch 'made here.txt'", "cwd": "."}
    needed = app.registry.confirmation_needed("execute_cli_command", arguments)
    assert needed is not None
    assert "Run: touch 'made here.txt'" in needed.message
    assert f"In: {workspace.resolve()}" in needed.message
    call = ToolCall(name="execute_cli_command", args=arguments, id="c2", type="tool_call")
    request = human_request(app, "shell", SPECIALIST, call)
    assert request is not None and "Run: touch 'made here.txt'" in request["question"]
    assert not (workspace / "made here.txt").exists()


def test_agent_confirmation_declined_runs_nothing(app: Any, workspace: Path) -> None:
    allow(app, "touch")
    call = ToolCall(
        name="execute_cli_command",
        args={"command": ["touch", "made.txt"]},
        id="c1",
        type="tool_call",
    )
    request = human_request(app, "shell", SPECIALIST, call)
    assert request is not None and request["kind"] == "confirmation"
    assert request["arguments"]["command"] == ["touch", "made.txt"]

    declined = asyncio.run(run_call(app, "shell", SPECIALIST, call, {"c1": {"approved": False}}))

    assert "declined" in declined.content
    assert not (workspace / "made.txt").exists()
    approved = asyncio.run(run_call(app, "shell", SPECIALIST, call, {"c1": {"approved": True}}))
    assert approved.ok, approved.content
    assert (workspace / "made.txt").exists()  # the same call does create it once approved


def test_headless_call_without_yes_runs_nothing(app: Any, workspace: Path) -> None:
    allow(app, "touch")
    outcome = app.registry.call(
        "execute_cli_command", {"command": ["touch", "made.txt"]}, caller="cli"
    )
    assert outcome.error is not None and outcome.error.kind == "confirmation_required"
    assert not (workspace / "made.txt").exists()


def test_a_refused_command_is_not_asked_about(app: Any) -> None:
    """No one is asked to confirm what would be refused anyway: the refusal comes back."""
    assert app.registry.confirmation_needed("execute_cli_command", {"command": ["curl"]}) is None
    asked = app.registry.call("execute_cli_command", {"command": ["curl"]}, caller="agent")
    assert asked.error is not None and asked.error.kind == "failed"
    assert "allowed_programs" in asked.error.explain()


def test_list_allowed_commands_through_the_registry(app: Any, workspace: Path) -> None:
    outcome = app.registry.call("list_allowed_commands", {}, caller="agent:shell")
    assert outcome.ok and outcome.result is not None, outcome.error
    result = outcome.result
    programs = {p["program"]: p["found_at"] for p in result["programs"]}
    assert "ls" in programs and programs["ls"].endswith("/ls")
    assert "rm" not in programs
    assert result["workspace"] == str(workspace)
    assert result["timeout_s"] == 60


def _tool_context(app: Any) -> ToolContext:
    return ToolContext(app, "test", 0)
