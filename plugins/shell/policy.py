"""What the CLI specialist may run: one argument vector, checked before anything starts.

A command is refused (with why, and which setting would allow it) when:
- it only makes sense to a shell: operators (`;`, `|`, `&&`, redirections) as arguments, command
  or variable substitution (backticks, `$(`, `${`, `$NAME`). Nothing runs through a shell, so
  these would reach the program as literal text; refusing says so instead of surprising anyone;
- its program is not a bare name on the allowlist (`allowed_programs`), or breaks that program's
  rule: python only as `python -m <allowed module>`, git only with an allowed subcommand, find
  without the actions that run or delete (-exec, -delete, ...);
- git would run a program the repository's own configuration names: a repository that sets
  filters (clean, smudge, process) is refused; every other such program (diff.external, diff
  drivers and textconv, core.fsmonitor, pagers, gpg.program with log.showSignature) is switched
  off for every git command, by flags added to the command and config in its environment;
- it is a recursive delete of /, of a workspace or allowed folder itself, or of anything outside
  them: never run, whatever the settings say;
- an argument that names a path leaves the workspace and the allowed folders: `..`, an absolute
  path elsewhere, a link inside that leads out (the core's `Confinement` rule, without the
  confirmation escape: a command line is too easy to misread for a yes to cover it).
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from workbench.core.files import Confinement, PathRefused
from workbench.core.programs import python_program
from workbench.core.tool_errors import ToolFailure
from workbench_plugins.shell.config import SECTION, ShellSettings

SHELL_OPERATORS = frozenset({";", "|", "||", "&", "&&", ";;", "(", ")", "!", "{", "}"})
# redirections (`>out`, `2>&1`, `<<EOF`), substitutions and chaining inside one argument
_SHELL_ONLY = (
    (re.compile(r"^(\d*|&)(>>?|<<?|>&|<&)"), "a redirection"),
    (re.compile(r"`"), "a backtick command substitution"),
    (re.compile(r"\$\("), "a $( ) command substitution"),
    (re.compile(r"\$\{|\$[A-Za-z_]"), "a shell variable"),
    (re.compile(r"&&|\|\||;"), "a command separator (; && ||)"),
    (re.compile(r"[\n\r]"), "a line break"),
)
_PROGRAM_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+-]*$")
FIND_ACTIONS = frozenset(
    {"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"}
)
PYTHONS = frozenset({"python", "python3"})
_RECURSIVE = re.compile(r"^-[A-Za-z]*[rR][A-Za-z]*$")
# What a repository's configuration could make git run, pinned for every git command. Given as
# environment config (GIT_CONFIG_COUNT), which outranks every config file, the repository's too.
GIT_SAFE_CONFIG = (
    ("core.fsmonitor", "false"),
    ("core.hooksPath", os.devnull),
    ("core.pager", "cat"),
    ("log.showSignature", "false"),
    ("gpg.program", "gpg"),
    ("gpg.ssh.program", "ssh-keygen"),
    ("gpg.x509.program", "gpgsm"),
    ("core.sshCommand", "ssh"),
    ("credential.helper", ""),
    ("diff.submodule", "short"),
    ("status.submoduleSummary", "false"),
)
# flags added after the subcommand: diff drivers (diff.external, diff.<driver>.command and
# .textconv) off, and submodules (repositories of their own configuration) not looked into
_NO_DRIVERS = ("--no-ext-diff", "--no-textconv")
GIT_SAFE_FLAGS: dict[str, tuple[str, ...]] = {
    "status": ("--ignore-submodules=dirty",),
    "diff": (*_NO_DRIVERS, "--ignore-submodules=dirty"),
    "log": _NO_DRIVERS,
    "show": _NO_DRIVERS,
    "whatchanged": _NO_DRIVERS,
    "blame": ("--no-textconv",),
    "annotate": ("--no-textconv",),
    "grep": ("--no-textconv",),
}
# options that would switch a driver back on (git also takes them abbreviated: --ext, --textc)
_DRIVER_OPTIONS = re.compile(r"^--(ext(-(d(i(ff?)?)?)?)?|textc(o(n(v)?)?)?)(=|$)")
_GIT_FILTERS = r"^filter\..*\.(clean|smudge|process)$"
_REPOSITORY_SCOPES = ("local", "worktree")
GIT_CONFIG_TIMEOUT_S = 10.0


class CommandRefused(ToolFailure):
    """A command that is not run; the message says why, the hint how to allow it (if ever)."""


@dataclass(frozen=True)
class Prepared:
    """A command that passed every check: exactly what will run, and where."""

    argv: tuple[str, ...]
    cwd: Path
    executable: str  # the program found on PATH
    timeout_s: float
    max_output_bytes: int
    note: str = ""  # e.g. that the command was split from a string

    @property
    def command_line(self) -> str:
        return shlex.join(self.argv)


def allow_hint(what: str) -> str:
    return f"To allow it, add it to {what} in [{SECTION}] (the settings dialog's Shell section)."


def to_argv(command: Sequence[str] | str) -> tuple[tuple[str, ...], str]:
    """The argument vector, and a note when it was split from one string (with shlex)."""
    if isinstance(command, str):
        try:
            argv = tuple(shlex.split(command))
        except ValueError as bad:
            raise CommandRefused(
                f"Could not split {command!r} into arguments: {bad}.",
                "Give the command as a list of arguments, e.g. ['ls', '-l', 'outputs'].",
            ) from None
        note = f"split from a string with shlex into {len(argv)} argument(s)"
    else:
        argv, note = tuple(command), ""
    if not argv or not argv[0]:
        raise CommandRefused("The command is empty.", "Give a program and its arguments.")
    return argv, note


def prepare(
    command: Sequence[str] | str,
    cwd: str,
    timeout_s: float | None,
    settings: ShellSettings,
    confinement: Confinement,
) -> Prepared:
    """Check everything; raise CommandRefused for the first problem found, run nothing."""
    argv, note = to_argv(command)
    refuse_shell_syntax(argv)
    folder = working_folder(cwd, confinement)
    refuse_destructive(argv, folder, confinement)
    refuse_unlisted(argv, settings)
    refuse_by_program_rules(argv, settings)
    for argument in argv[1:]:
        check_path_argument(argument, folder, confinement)
    executable = locate(argv[0])
    if executable is None:
        raise CommandRefused(
            f"{argv[0]} is allowed but not installed: it is not found on PATH.",
            "Install it, or put its folder on PATH for the workbench; `workbench --headless "
            "doctor` lists the allowed programs it finds.",
        )
    if argv[0] == "git":
        refuse_repository_filters(executable, folder)
        argv = with_git_safe_flags(argv)
    return Prepared(
        argv=argv,
        cwd=folder,
        executable=executable,
        timeout_s=timeout_s if timeout_s is not None else settings.timeout_s,
        max_output_bytes=settings.max_output_bytes,
        note=note,
    )


def locate(program: str) -> str | None:
    """The file a program name runs: python is the workbench's own interpreter (the one whose
    modules, such as engibench, the engineer means; in a bundle the system's), anything else is
    looked up on PATH."""
    return python_program() if program in PYTHONS else shutil.which(program)


def refuse_shell_syntax(argv: Sequence[str]) -> None:
    if not _PROGRAM_NAME.match(argv[0]):
        raise CommandRefused(
            f"Refused program {argv[0]!r}: a program is a bare name like 'ls' (no path, no shell "
            "syntax such as ; | & $ ` > <).",
            "Commands run without a shell: give the program and each argument separately, one "
            "command per call.",
        )
    for argument in argv[1:]:
        why = _shell_meaning(argument)
        if why:
            raise CommandRefused(
                f"Refused argument {argument!r}: it is {why}, which only a shell understands, and "
                "commands here never run through a shell.",
                "Run one program per call with plain arguments; read its output instead of "
                "redirecting it, and call again for the next step.",
            )


def _shell_meaning(argument: str) -> str:
    if argument in SHELL_OPERATORS:
        return f"the shell operator {argument!r}"
    for pattern, meaning in _SHELL_ONLY:
        if pattern.search(argument):
            return meaning
    return ""


def working_folder(cwd: str, confinement: Confinement) -> Path:
    """The working directory: an existing folder inside the workspace or an allowed folder."""
    workspace = confinement.roots[0]
    try:
        access = confinement.check(cwd or ".", base=workspace, mode="read")
    except PathRefused as refused:
        raise CommandRefused(
            f"Working directory refused: {refused.message}", refused.hint
        ) from None
    if access.outside:
        raise CommandRefused(
            f"Working directory {access.path} is outside the workspace ({workspace}) and the "
            "allowed folders.",
            "Use a folder inside the workspace, or add the folder to allowed_folders in the "
            "settings.",
        )
    if not access.path.is_dir():
        raise CommandRefused(
            f"Working directory {access.path} does not exist or is not a folder.",
            "Give an existing folder inside the workspace ('.' is the workspace itself).",
        )
    return access.path


def refuse_destructive(argv: Sequence[str], folder: Path, confinement: Confinement) -> None:
    """A recursive rm of /, of a root itself or of anything outside: never, whatever is allowed."""
    if argv[0] != "rm":
        return
    options = [a for a in argv[1:] if a.startswith("-")]
    if "--no-preserve-root" in options:
        raise CommandRefused(
            "Refused: rm --no-preserve-root is never run.",
            "Delete named files inside the workspace.",
        )
    if not any(_RECURSIVE.match(a) or a == "--recursive" for a in options):
        return
    for target in (a for a in argv[1:] if not a.startswith("-")):
        resolved = Path(folder, target).expanduser().resolve()
        roots = {root.resolve() for root in confinement.roots}
        inside = any(resolved.is_relative_to(root) for root in roots)
        if ".." in Path(target).parts or resolved in roots or not inside:
            raise CommandRefused(
                f"Refused {shlex.join(argv)!r}: a recursive delete of {resolved} (/, a workspace "
                "or allowed folder itself, or something outside them) is never run, whatever "
                f"allowed_programs in [{SECTION}] says.",
                "Delete named files or subfolders inside the workspace instead.",
            )


def refuse_unlisted(argv: Sequence[str], settings: ShellSettings) -> None:
    if argv[0] in settings.allowed_programs:
        return
    raise CommandRefused(
        f"{argv[0]} is not an allowed program. Allowed: {', '.join(settings.allowed_programs)}.",
        allow_hint(f"'{argv[0]}' to allowed_programs") + " Only do this if the engineer agrees.",
    )


def refuse_by_program_rules(argv: Sequence[str], settings: ShellSettings) -> None:
    program, rest = argv[0], list(argv[1:])
    if program in PYTHONS:
        _python_rule(program, rest, settings)
    elif program == "git":
        _git_rule(rest, settings)
    elif program == "find":
        actions = sorted(FIND_ACTIONS.intersection(rest))
        if actions:
            raise CommandRefused(
                f"Refused find with {', '.join(actions)}: find may only list files here; its "
                "actions run other programs or delete.",
                "List the files with find, then call an allowed program on them.",
            )


def _python_rule(program: str, rest: list[str], settings: ShellSettings) -> None:
    module = rest[1] if len(rest) > 1 and rest[0] == "-m" else ""
    allowed = settings.python_modules
    if module and any(module == m or module.startswith(m + ".") for m in allowed):
        return
    raise CommandRefused(
        f"Refused {program} {shlex.join(rest)}: {program} runs only as `{program} -m MODULE` "
        f"with an allowed module ({', '.join(allowed) or 'none'}); scripts and -c code are never "
        "run.",
        allow_hint("the module to python_modules"),
    )


def _git_rule(rest: list[str], settings: ShellSettings) -> None:
    allowed = settings.git_subcommands
    drivers = [argument for argument in rest if _DRIVER_OPTIONS.match(argument)]
    if rest and rest[0] in allowed and not drivers:
        return
    given = shlex.join(drivers) if drivers and rest[0] in allowed else rest[0] if rest else ""
    raise CommandRefused(
        f"Refused git {given or '(none)'}: git runs only with an allowed subcommand right after "
        f"`git` ({', '.join(allowed)}), without global options, --ext-diff or --textconv (they "
        "run programs a repository's configuration names).",
        allow_hint("the subcommand to git_subcommands"),
    )


def git_environment() -> dict[str, str]:
    """The environment config every git command gets: repository-named programs off."""
    env = {
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_COUNT": str(len(GIT_SAFE_CONFIG)),
        "GIT_PAGER": "cat",
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_ASKPASS": "",  # empty: no askpass program (nor the repository's core.askPass)
    }
    for index, (key, value) in enumerate(GIT_SAFE_CONFIG):
        env[f"GIT_CONFIG_KEY_{index}"] = key
        env[f"GIT_CONFIG_VALUE_{index}"] = value
    return env


def without_git_variables() -> dict[str, str]:
    """The environment without GIT_* (GIT_DIR, GIT_EXTERNAL_DIFF, GIT_CONFIG_PARAMETERS...):
    every git command here runs on its working folder's repository with `git_environment`."""
    return {name: value for name, value in os.environ.items() if not name.startswith("GIT_")}


def with_git_safe_flags(argv: tuple[str, ...]) -> tuple[str, ...]:
    """`git SUBCOMMAND` with the flags that keep its diff drivers off, before the user's own."""
    return (argv[0], argv[1], *GIT_SAFE_FLAGS.get(argv[1], ()), *argv[2:])


def refuse_repository_filters(git: str, folder: Path) -> None:
    """Refuse a repository whose configuration sets filters: git runs them on files it reads
    (status and diff too), and no flag or setting of a single command switches them off."""
    try:
        found = subprocess.run(  # reads configuration only: runs no hook, filter or fsmonitor
            [git, "config", "--show-scope", "--includes", "--get-regexp", _GIT_FILTERS],
            cwd=folder,
            env={**without_git_variables(), **git_environment()},
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=GIT_CONFIG_TIMEOUT_S,
        )
    except (OSError, subprocess.TimeoutExpired) as failed:
        raise CommandRefused(
            f"Could not read the git configuration in {folder}: {failed}.",
            "Check the repository; nothing was run.",
        ) from None
    scoped = (line.split(None, 2) for line in found.stdout.splitlines())
    # the repository's own (its config, worktree config and what they include); the user's
    # global filters (git lfs install) are the user's choice, system ones are not read at all
    filters = [entry[1] for entry in scoped if len(entry) > 1 and entry[0] in _REPOSITORY_SCOPES]
    if found.returncode == 0 and filters:
        raise CommandRefused(
            f"Refused git in {folder}: its configuration sets filter programs ("
            f"{', '.join(filters)}), which git would run on the files it reads.",
            "Inspect the repository's .git/config (with cat) and remove those filters if they "
            "are not yours; git commands run here only without them.",
        )


def check_path_argument(argument: str, folder: Path, confinement: Confinement) -> None:
    """Refuse an argument that, read as a path, leaves the workspace and the allowed folders."""
    candidate = _path_part(argument)
    if not candidate:
        return
    try:
        access = confinement.check(candidate, base=folder, mode="read")
    except PathRefused as refused:
        raise CommandRefused(
            f"Refused argument {argument!r}: {refused.message}", refused.hint
        ) from None
    if access.outside:
        raise CommandRefused(
            f"Refused argument {argument!r}: {access.path} is outside the workspace "
            f"({confinement.roots[0]}) and the allowed folders.",
            "Use paths inside the workspace, or add the folder to allowed_folders in the settings "
            "(the settings dialog's General section).",
        )


def _path_part(argument: str) -> str:
    """The part of an argument a program could read as a path: the value of `--opt=VALUE`, the
    path glued to a short option (`-I/usr/include`), else the argument itself."""
    if argument.startswith("-"):
        if "=" in argument:
            return argument.split("=", 1)[1]
        slash = argument.find("/")
        return argument[slash:] if slash > 0 else ""
    return argument
