"""Doctor checks of the printing plugin: the Prusa profiles and pyserial (core checks the CLI)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from workbench.core.doctor import CheckResult, module_check
from workbench_plugins.printing.profiles import DEFAULT_BUNDLE

if TYPE_CHECKING:
    from workbench.core.context import AppContext


def check_profiles(_: AppContext) -> CheckResult:
    if DEFAULT_BUNDLE.is_file():
        return CheckResult("prusa profiles", "ok", str(DEFAULT_BUNDLE))
    return CheckResult(
        "prusa profiles",
        "missing",
        f"{DEFAULT_BUNDLE} not found",
        "apt-get install prusa-slicer (or set profiles_path in [plugins.printing])",
    )


def checks() -> list:
    return [
        check_profiles,
        module_check("pyserial", "serial", "pip install pyserial"),
    ]
