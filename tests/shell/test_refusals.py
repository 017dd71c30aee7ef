"""Acceptance 4: `rm -rf /`-style requests, shell syntax, path escapes and programs not on the
allowlist are refused, saying why and which setting would allow them; nothing is run."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tests.shell.conftest import allow, configure, ran, refusal, run


@pytest.mark.parametrize(
    "command",
    [["rm", "-rf", "/"], "rm -rf /", ["rm", "-r", "-f", "/"], ["rm", "--recursive", "/"]],
)
def test_rm_rf_root_is_refused_even_when_rm_is_allowed(app: Any, command: Any) -> None:
    assert "never run" in refusal(app, command)
    allow(app, "rm")
    assert "never run" in refusal(app, command)


def test_recursive_deletes_of_the_workspace_or_outside_are_refused(
    app: Any, workspace: Path, tmp_path: Path
) -> None:
    allow(app, "rm")
    outside = tmp_path / "precious"
    outside.mkdir()
    (outside / "data.txt").write_text("keep")
    for command in (["rm", "-rf", "."], ["rm", "-rf", str(workspace)], ["rm", "-rf", str(outside)]):
        assert "never run" in refusal(app, command)
    assert "never run" in refusal(app, ["rm", "--no-preserve-root", "x"])
    assert (outside / "data.txt").exists() and (workspace / "workspace.sqlite").exists()


def test_rm_inside_the_workspace_runs_once_allowed(app: Any, workspace: Path) -> None:
    (workspace / "scratch" / "deep").mkdir(parents=True)
    (workspace / "scratch" / "deep" / "x.txt").write_text("x")
    message = refusal(app, ["rm", "-r", "scratch"])
    assert "rm is not an allowed program" in message
    assert "allowed_programs in [plugins.shell]" in message
    allow(app, "rm")
    assert run(app, ["rm", "-r", "scratch"]).ok
    assert not (workspace / "scratch").exists()


@pytest.mark.parametrize(
    "command",
    [
        ["ls", ";", "touch", "made.txt"],
        ["ls", "|", "wc"],
        ["ls", "&&", "touch", "made.txt"],
        ["ls", ">made.txt"],
        ["ls", "2>&1"],
        ["cat", "<", "notes.txt"],
        ["ls", "`touch made.txt`"],
        ["ls", "$(touch made.txt)"],
        ["ls", "$HOME"],
        ["ls", "${HOME}"],
        ["ls", "a;touch made.txt"],
        ["ls;touch", "made.txt"],
        ["ls|wc"],
        "ls; touch made.txt",
        "ls && touch made.txt",
        "ls > made.txt",
        "echo $(touch made.txt)",
    ],
)
def test_shell_syntax_is_refused(app: Any, workspace: Path, command: Any) -> None:
    allow(app, "touch", "echo")
    message = refusal(app, command)
    assert "shell" in message
    assert not (workspace / "made.txt").exists()


def test_regex_alternation_is_not_shell_syntax(app: Any, workspace: Path) -> None:
    (workspace / "notes.txt").write_text("volfrac 0.4\nrmin 1.5\nother\n")
    result = ran(app, ["grep", "-E", "volfrac|rmin$", "notes.txt"])
    assert result["stdout"] == "volfrac 0.4\n"  # rmin line ends with 1.5, not rmin


@pytest.mark.parametrize(
    "command",
    [
        ["cat", "../secret.txt"],
        ["cat", "outputs/../../secret.txt"],
        ["ls", "/etc"],
        ["cat", "/etc/passwd"],
        ["grep", "--file=/etc/passwd", "notes.txt"],
        ["grep", "-r", "root", "/"],
        ["ls", "~"],
    ],
)
def test_path_escapes_are_refused(app: Any, command: list[str]) -> None:
    message = refusal(app, command)
    assert "Refused argument" in message
    assert "'..'" in message or "outside the workspace" in message


def test_a_link_inside_the_workspace_that_leads_out_is_refused(
    app: Any, workspace: Path, tmp_path: Path
) -> None:
    secret = tmp_path / "elsewhere"
    secret.mkdir()
    (secret / "secret.txt").write_text("top secret")
    os.symlink(secret, workspace / "link")
    for command in (["cat", "link/secret.txt"], ["ls", "link"], ["find", "link"]):
        message = refusal(app, command)
        assert "symbolic link" in message and "top secret" not in message
    assert "symbolic link" in refusal(app, ["ls"], cwd="link")


def test_working_folder_outside_is_refused(app: Any, tmp_path: Path) -> None:
    assert "'..'" in refusal(app, ["ls"], cwd="..")
    message = refusal(app, ["ls"], cwd=str(tmp_path))
    assert "outside the workspace" in message and "allowed_folders" in message
    assert "does not exist" in refusal(app, ["ls"], cwd="missing")


def test_an_allowed_folder_may_be_used(app: Any, tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "datasheet.txt").write_text("E = 210 GPa\n")
    assert "allowed_folders" in refusal(app, ["cat", str(shared / "datasheet.txt")])
    configure(app, allowed_folders=[str(shared)])
    result = ran(app, ["cat", str(shared / "datasheet.txt")])
    assert result["stdout"] == "E = 210 GPa\n"


@pytest.mark.parametrize(
    ("command", "setting"),
    [
        (["curl", "http://example.com"], "allowed_programs"),
        (["bash"], "allowed_programs"),
        (["/bin/ls"], "bare name"),
        (["./ls"], "bare name"),
        (["python3", "-c", "print(1)"], "python_modules"),
        (["python3", "script.py"], "python_modules"),
        (["python3", "-m", "http.server"], "python_modules"),
        (["git", "-c", "core.pager=touch made.txt", "log"], "git_subcommands"),
        (["git", "push"], "git_subcommands"),
        (["git", "diff", "--ext-diff"], "git_subcommands"),
    ],
)
def test_programs_and_uses_not_allowed_are_refused(
    app: Any, workspace: Path, command: list[str], setting: str
) -> None:
    message = refusal(app, command)
    assert setting in message
    if setting != "bare name":
        assert "[plugins.shell]" in message
    assert not (workspace / "made.txt").exists()


@pytest.mark.parametrize("action", ["-exec", "-execdir", "-delete", "-ok", "-fprint"])
def test_find_actions_are_refused(app: Any, workspace: Path, action: str) -> None:
    (workspace / "keep.txt").write_text("x")
    message = refusal(app, ["find", ".", "-name", "keep.txt", action, "rm", "{}", "+"])
    assert action in message and "only list" in message
    assert (workspace / "keep.txt").exists()


def test_python_runs_an_allowed_module(app: Any, workspace: Path) -> None:
    (workspace / "design.json").write_text('{"volfrac": 0.4}')
    (workspace / "json").mkdir()  # a package here must not shadow the real json (safe path)
    (workspace / "json" / "__init__.py").write_text("raise SystemExit('workspace code ran')")
    result = ran(app, ["python3", "-m", "json.tool", "design.json"])
    assert result["exit_code"] == 0, result["stderr"]
    assert '"volfrac": 0.4' in result["stdout"]


def test_a_program_allowed_but_not_installed_says_so(app: Any) -> None:
    allow(app, "no-such-program-xyz")
    message = refusal(app, ["no-such-program-xyz"])
    assert "not found on PATH" in message and "doctor" in message
