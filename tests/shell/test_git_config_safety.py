"""git through the shell never runs a program the repository's own configuration names (issue 28).

A repository in the workspace (cloned, unpacked, written by a tool) may set diff.external, a
textconv driver, a clean filter, core.fsmonitor, or gpg.program with log.showSignature: each makes
`git diff`, `git status`, `git show` or `git log` run a program of its choosing. Each is set here
to a script that leaves a marker file; after the allowed git commands ran, no marker may exist.
A repository whose configuration sets filters is refused, naming them.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.shell.conftest import ran, refusal

SCRIPT = '#!/bin/sh\necho ran >> "{marker}"\ncat "$1" 2>/dev/null\nexit 0\n'
COMMIT_AS = ["-c", "user.name=Test", "-c", "user.email=test@example.org"]


def git(folder: Path, *args: str) -> None:
    """git for setting the repository up (not through the shell tool)."""
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
    subprocess.run(["git", *args], cwd=folder, env=env, check=True, capture_output=True)


def planted_script(tmp_path: Path, name: str) -> tuple[Path, Path]:
    """(a script outside the workspace that notes each run in its marker, the marker)."""
    marker = tmp_path / f"ran-{name}"
    script = tmp_path / f"{name}.sh"
    script.write_text(SCRIPT.format(marker=marker))
    script.chmod(0o755)
    return script, marker


@pytest.fixture
def repository(workspace: Path) -> Path:
    """A repository in the workspace with one committed file, changed since the commit."""
    folder = workspace / "project"
    folder.mkdir()
    git(folder, "init", "-q")
    (folder / "notes.txt").write_text("first\n")
    git(folder, "add", "notes.txt")
    git(folder, *COMMIT_AS, "commit", "-q", "-m", "first")
    (folder / "notes.txt").write_text("first\nsecond\n")
    return folder


def sign_head(folder: Path) -> None:
    """A commit on top carrying a (made-up) PGP signature: showing it asks gpg.program."""
    tree = subprocess.run(
        ["git", "rev-parse", "HEAD^{tree}"], cwd=folder, capture_output=True, text=True
    ).stdout.strip()
    commit = (
        f"tree {tree}\nauthor Test <test@example.org> 0 +0000\n"
        "committer Test <test@example.org> 0 +0000\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n"
        " iQEzBAABCAAdFiEE\n -----END PGP SIGNATURE-----\n\nsigned\n"
    )
    made = subprocess.run(
        ["git", "hash-object", "-t", "commit", "-w", "--stdin"],
        cwd=folder,
        input=commit,
        capture_output=True,
        text=True,
        check=True,
    )
    git(folder, "update-ref", "HEAD", made.stdout.strip())


READ_COMMANDS = (
    ["git", "status"],
    ["git", "diff"],
    ["git", "diff", "HEAD"],
    ["git", "show", "HEAD"],
    ["git", "log", "-p"],
)


def run_every_read_command(app: Any) -> list[str]:
    outputs = []
    for command in READ_COMMANDS:
        result = ran(app, command, cwd="project")
        assert result["exit_code"] == 0, (command, result)
        outputs.append(result["stdout"])
    return outputs


@pytest.mark.parametrize(
    ("setting", "attributes"),
    [
        ("diff.external", ""),
        ("diff.planted.textconv", "*.txt diff=planted\n"),
        ("diff.planted.command", "*.txt diff=planted\n"),
        ("core.fsmonitor", ""),
        ("core.pager", ""),
    ],
)
def test_a_program_the_repository_configures_is_never_run(
    app: Any, repository: Path, tmp_path: Path, setting: str, attributes: str
) -> None:
    script, marker = planted_script(tmp_path, setting.replace(".", "-"))
    git(repository, "config", setting, str(script))
    if attributes:
        (repository / ".gitattributes").write_text(attributes)
    outputs = run_every_read_command(app)
    assert not marker.exists(), f"{setting} ran: {marker.read_text()}"
    assert "+second" in outputs[1]  # the diff is git's own, shown as usual


def test_a_signature_check_never_runs_the_repositorys_gpg_program(
    app: Any, repository: Path, tmp_path: Path
) -> None:
    script, marker = planted_script(tmp_path, "gpg")
    sign_head(repository)
    git(repository, "config", "log.showSignature", "true")
    git(repository, "config", "gpg.program", str(script))
    git(repository, "config", "gpg.ssh.program", str(script))
    run_every_read_command(app)
    ran(app, ["git", "log", "--show-signature"], cwd="project")
    assert not marker.exists()


def test_a_repository_with_a_filter_is_refused_naming_it(
    app: Any, repository: Path, tmp_path: Path
) -> None:
    script, marker = planted_script(tmp_path, "filter")
    git(repository, "config", "filter.planted.clean", str(script))
    (repository / ".gitattributes").write_text("*.txt filter=planted\n")
    for command in (["git", "status"], ["git", "diff"]):
        refused = refusal(app, command, cwd="project")
        assert "filter.planted.clean" in refused
    assert not marker.exists()


def test_asking_for_an_external_diff_or_textconv_is_refused(app: Any, repository: Path) -> None:
    for option in ("--ext-diff", "--textconv"):
        assert option in refusal(app, ["git", "diff", option], cwd="project")


def test_a_filter_included_by_the_repositorys_config_is_refused_too(
    app: Any, repository: Path, tmp_path: Path
) -> None:
    script, marker = planted_script(tmp_path, "included")
    (repository / "extra.cfg").write_text(f'[filter "planted"]\n\tsmudge = {script}\n')
    git(repository, "config", "include.path", "../extra.cfg")
    assert "filter.planted.smudge" in refusal(app, ["git", "status"], cwd="project")
    assert not marker.exists()


def test_the_users_own_global_filters_do_not_block_git(
    app: Any, repository: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`git lfs install` writes filters to the user's ~/.gitconfig: the user's choice, not the
    repository's, so git still runs."""
    home = tmp_path / "user-home"
    home.mkdir()
    (home / ".gitconfig").write_text('[filter "lfs"]\n\tclean = git-lfs clean -- %f\n')
    monkeypatch.setenv("HOME", str(home))
    assert ran(app, ["git", "status"], cwd="project")["exit_code"] == 0
