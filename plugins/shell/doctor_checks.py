"""Doctor checks of the shell plugin: the allowlist in use, and each allowed program on PATH."""

from __future__ import annotations

from typing import TYPE_CHECKING

from workbench.core.doctor import Check, CheckResult
from workbench.core.settings import SettingsError
from workbench_plugins.shell.config import SECTION, ShellSettings
from workbench_plugins.shell.policy import locate

if TYPE_CHECKING:
    from workbench.core.context import AppContext


def check_allowlist(context: AppContext) -> list[CheckResult]:
    try:
        settings = context.settings.plugin("shell", ShellSettings)
    except SettingsError as invalid:
        return [CheckResult("shell allowlist", "fail", f"not checked: {invalid}")]
    programs = settings.allowed_programs
    lines = [
        CheckResult(
            "shell allowlist",
            "ok",
            f"{len(programs)} program(s): {', '.join(programs) or 'none'}; python -m "
            f"{', '.join(settings.python_modules) or '(none)'}; git "
            f"{', '.join(settings.git_subcommands) or '(none)'}; timeout {settings.timeout_s:g} s, "
            f"output cap {settings.max_output_bytes} bytes",
        )
    ]
    found = {program: locate(program) for program in programs}
    missing = [program for program, path in found.items() if path is None]
    present = [f"{program}={path}" for program, path in found.items() if path]
    if present:
        lines.append(
            CheckResult("shell programs", "ok", f"{len(present)} found: {', '.join(present)}")
        )
    lines += [
        CheckResult(
            f"shell: {program}",
            "missing",
            "allowed but not found on PATH",
            f"install it, or remove it from allowed_programs in [{SECTION}]",
        )
        for program in missing
    ]
    return lines


def checks() -> list[Check]:
    return [check_allowlist]
