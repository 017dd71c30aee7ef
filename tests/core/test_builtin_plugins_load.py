"""Every plugin this project ships loads: discovery reports a failed import and goes on (a user
keeps the other plugins), so without this test a broken plugin would only make its tests skip or
its tools vanish while the suite stays green."""

from __future__ import annotations

import tomllib
from pathlib import Path

from workbench.bench.suite import is_suite
from workbench.core.plugins import ENTRY_POINT_GROUP, discover, is_plugin_command
from workbench.core.tools import is_tool

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


def shipped_plugins() -> set[str]:
    project = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]
    return set(project["entry-points"][ENTRY_POINT_GROUP])


def test_every_shipped_plugin_imports_without_failure() -> None:
    found = discover()
    failed = {failure.name: failure.explain() for failure in found.failures}
    shipped = shipped_plugins()
    assert not {name: failed[name] for name in shipped & set(failed)}
    assert shipped <= set(found.plugins), f"not installed: {sorted(shipped - set(found.plugins))}"


def test_every_shipped_plugin_contributes_without_failure() -> None:
    """Their tools, suites and commands load too (each failure would drop the plugin)."""
    found = discover()
    found.contributions("tools", "tools", is_tool)
    found.contributions("suites", "suites", is_suite)
    found.contributions("commands", "commands", is_plugin_command)
    shipped = shipped_plugins()
    assert not [failure.explain() for failure in found.failures if failure.name in shipped]
