"""Every plugin keeps the one layout (README "Where things live", issue 26): the same file for the
same purpose in every plugin folder, so a newcomer who knows one plugin knows them all.

The checker reads a plugin folder and its `Plugin` object and returns its problems, each naming
the plugin's file at fault; the last tests run it on a made-up plugin that breaks every rule, so
the layout tests cannot pass by checking nothing.
"""

from __future__ import annotations

import ast
import importlib
import tomllib
from fnmatch import fnmatch
from pathlib import Path

import pytest
from pydantic import BaseModel

from workbench.core.plugins import Plugin, ViewSpec

ROOT = Path(__file__).resolve().parent.parent
PLUGINS = ROOT / "plugins"
PACKAGE = "workbench_plugins"

# names that meant one of the layout's files: agent.py (specialist.py), settings.py and
# configs.py (config.py), tools.py and tool_*.py and control*.py (tools/), bench.py, *_bench.py,
# benchmark/, evaluation/ and workflow/ (bench/), views.py (views/)
RETIRED_FILES = ("agent.py", "settings.py", "configs.py", "tools.py", "tool_*.py", "control*.py")
RETIRED_FILES += ("bench.py", "*_bench.py", "views.py")
RETIRED_FOLDERS = ("benchmark", "evaluation", "workflow")
# package or module -> the name it must define, when the plugin has it
DEFINES = {"tools": "tools", "bench": "suites", "doctor_checks.py": "checks"}


def where(folder: Path, *parts: str) -> str:
    """A plugin's file as a failure names it: plugins/<name>/<parts>."""
    return f"plugins/{folder.name}/" + "/".join(parts)


def binds(module: Path, name: str) -> bool:
    """Whether the module's top level defines, assigns or imports `name` (read, not imported)."""
    for node in ast.parse(module.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            found = {node.name}
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            found = {t.id for t in targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.Import | ast.ImportFrom):
            found = {alias.asname or alias.name for alias in node.names}
        else:
            continue
        if name in found:
            return True
    return False


def file_problems(folder: Path) -> list[str]:
    """What in a plugin folder's files breaks the layout, each naming the file."""
    problems: list[str] = []
    for path in sorted(folder.iterdir()):
        retired = RETIRED_FOLDERS if path.is_dir() else RETIRED_FILES
        if any(fnmatch(path.name, pattern) for pattern in retired):
            problems.append(f"{where(folder, path.name)}: a retired name (see the layout)")
    for name, defined in DEFINES.items():
        path = folder / name
        module = path / "__init__.py" if path.is_dir() else path
        if path.exists() and not module.is_file():
            problems.append(f"{where(folder, name)}: must be a package (no __init__.py)")
        elif path.exists() and not binds(module, defined):
            problems.append(f"{where(folder, name)}: defines no `{defined}`")
    if (folder / "views").exists() and not (folder / "views" / "__init__.py").is_file():
        problems.append(f"{where(folder, 'views')}: must be a package (no __init__.py)")
    return problems + bench_problems(folder)


def bench_problems(folder: Path) -> list[str]:
    """One suite: bench/suite.py. Several: every bench/<suite>/ package has its suite.py."""
    bench = folder / "bench"
    if not bench.is_dir() or (bench / "suite.py").is_file():
        return []
    suites = [p for p in sorted(bench.iterdir()) if (p / "__init__.py").is_file()]
    if not suites:
        return [f"{where(folder, 'bench')}: has neither suite.py nor suite packages"]
    return [
        f"{where(folder, 'bench', suite.name, 'suite.py')}: missing (each suite package has one)"
        for suite in suites
        if not (suite / "suite.py").is_file()
    ]


def reference_problems(plugin: Plugin, folder: Path) -> list[str]:
    """The Plugin's "module:function" references point where the layout says."""
    base = f"{PACKAGE}.{folder.name}"
    exact = {
        "tools": f"{base}.tools:tools",
        "suites": f"{base}.bench:suites",
        "checks": f"{base}.doctor_checks:checks",
    }
    modules = {
        "commands": f"{base}.commands",
        "services": f"{base}.services",
        "executors": f"{base}.executor",
    }
    at = where(folder, "__init__.py")
    problems = [
        f"{at}: Plugin.{field} is {getattr(plugin, field)!r}, the layout says {wanted!r}"
        for field, wanted in exact.items()
        if getattr(plugin, field) not in (None, wanted)
    ]
    problems += [
        f"{at}: Plugin.{field} is {getattr(plugin, field)!r}, the layout says {wanted}:<function>"
        for field, wanted in modules.items()
        if getattr(plugin, field) is not None and getattr(plugin, field).split(":")[0] != wanted
    ]
    problems += [
        f"{at}: view {spec.name!r} is made by {spec.factory!r}, outside {base}.views"
        for spec in plugin.views
        if not _in_package(spec.factory.split(":")[0], f"{base}.views")
    ]
    if plugin.settings is not None and plugin.settings.__module__ != f"{base}.config":
        problems.append(
            f"{at}: Plugin.settings {plugin.settings.__name__} is defined in "
            f"{plugin.settings.__module__}, the layout says {base}.config"
        )
    if plugin.specialist is not None and not (folder / "specialist.py").is_file():
        problems.append(f"{where(folder, 'specialist.py')}: missing (Plugin.specialist is set)")
    return problems + missing_modules(plugin, folder)


def missing_modules(plugin: Plugin, folder: Path) -> list[str]:
    """Every module the Plugin's references name is a file of the plugin's folder."""
    base = f"{PACKAGE}.{folder.name}"
    fields = ("tools", "suites", "checks", "commands", "services", "executors")
    references = [getattr(plugin, field) for field in fields]
    references += [spec.factory for spec in plugin.views]
    problems = []
    for reference in filter(None, references):
        module = reference.split(":")[0]
        if not _in_package(module, base):
            continue  # named above as outside the layout
        parts = module.removeprefix(base).strip(".").split(".")
        path = folder.joinpath(*parts)
        if not (path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()):
            problems.append(f"{where(folder, *parts)}: missing ({reference!r} names it)")
    return problems


def _in_package(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def specialist_problems(plugin: Plugin, folder: Path) -> list[str]:
    """Plugin.specialist is the `specialist` of the plugin's specialist.py (imported)."""
    if plugin.specialist is None or not (folder / "specialist.py").is_file():
        return []
    module = importlib.import_module(f"{PACKAGE}.{folder.name}.specialist")
    if getattr(module, "specialist", None) is plugin.specialist:
        return []
    return [f"{where(folder, 'specialist.py')}: its `specialist` is not Plugin.specialist"]


def entry_points() -> dict[str, str]:
    """The plugins pyproject.toml installs: name -> "module:attribute"."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    points: dict[str, str] = project["entry-points"]["workbench.plugins"]
    return points


def folders() -> list[str]:
    return sorted(p.name for p in PLUGINS.iterdir() if (p / "__init__.py").is_file())


def loaded(reference: str) -> Plugin:
    """The Plugin an entry point names, as discovery makes it (a function is called)."""
    module, _, attribute = reference.partition(":")
    found = getattr(importlib.import_module(module), attribute)
    plugin = found if isinstance(found, Plugin) else found()
    assert isinstance(plugin, Plugin), f"{reference} is not a Plugin"
    return plugin


def test_every_plugin_folder_is_an_installed_plugin() -> None:
    points = entry_points()
    assert folders() == sorted(points), "plugins/ folders and pyproject entry points differ"
    assert all(ref == f"{PACKAGE}.{name}:plugin" for name, ref in points.items()), points


@pytest.mark.parametrize("name", folders())
def test_the_plugin_keeps_the_layout(name: str) -> None:
    folder = PLUGINS / name
    plugin = loaded(entry_points().get(name, f"{PACKAGE}.{name}:plugin"))
    problems = file_problems(folder) + reference_problems(plugin, folder)
    problems += specialist_problems(plugin, folder)
    assert not problems, f"plugin {name} leaves the layout:\n" + "\n".join(problems)


# -- the checker itself, on made-up plugins ------------------------------------------------------


class _Settings(BaseModel):
    """Settings defined here, not in the plugin's config.py."""


def _write(folder: Path, files: dict[str, str]) -> Path:
    for relative, text in files.items():
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return folder


def test_the_checker_names_each_file_that_leaves_the_layout(tmp_path: Path) -> None:
    folder = _write(
        tmp_path / "plugins" / "bad",
        {
            "__init__.py": "",
            "agent.py": "",
            "settings.py": "",
            "tool_jobs.py": "",
            "control_print.py": "",
            "tools/__init__.py": "TOOLS = []\n",
            "views.py": "",
            "workflow/__init__.py": "",
            "doctor_checks.py": "def run() -> None: ...\n",
            "bench/__init__.py": "def suites() -> list: ...\n",
            "bench/rag/__init__.py": "",
            "bench/search/suite.py": "",
            "bench/search/__init__.py": "",
        },
    )
    plugin = Plugin(
        name="bad",
        title="Bad",
        tools="workbench_plugins.bad.tool_jobs:tools",
        suites="workbench_plugins.bad.workflow:suites",
        checks="workbench_plugins.bad.checks:checks",
        commands="workbench_plugins.bad.cli:commands",
        settings=_Settings,
        views=(ViewSpec("panel", "Panel", "workbench_plugins.bad.panel:make"),),
    )
    problems = "\n".join(file_problems(folder) + reference_problems(plugin, folder))
    for named in ("agent.py", "settings.py", "tool_jobs.py", "control_print.py", "views.py"):
        assert f"plugins/bad/{named}: a retired name" in problems
    assert "plugins/bad/workflow: a retired name" in problems
    assert "plugins/bad/tools: defines no `tools`" in problems
    assert "plugins/bad/doctor_checks.py: defines no `checks`" in problems
    assert "plugins/bad/bench/rag/suite.py: missing" in problems
    assert "bench/search" not in problems  # that suite has its suite.py
    for field in ("tools", "suites", "checks", "commands", "settings"):
        assert f"plugins/bad/__init__.py: Plugin.{field} " in problems
    assert "plugins/bad/__init__.py: view 'panel' is made by" in problems
    assert "plugins/bad/tool_jobs: missing" not in problems  # a file that exists


def test_the_checker_names_a_module_the_plugin_points_to_but_lacks(tmp_path: Path) -> None:
    folder = _write(tmp_path / "plugins" / "thin", {"__init__.py": ""})
    plugin = Plugin(
        name="thin",
        title="Thin",
        tools="workbench_plugins.thin.tools:tools",
        commands="workbench_plugins.thin.commands:commands",
        views=(ViewSpec("panel", "Panel", "workbench_plugins.thin.views.panel:make"),),
    )
    problems = "\n".join(reference_problems(plugin, folder))
    for named in ("tools", "commands", "views/panel"):
        assert f"plugins/thin/{named}: missing" in problems


def test_the_checker_passes_a_plugin_in_the_layout(tmp_path: Path) -> None:
    folder = _write(
        tmp_path / "plugins" / "good",
        {
            "__init__.py": "",
            "config.py": "",
            "specialist.py": "",
            "tools/__init__.py": "def tools() -> list: ...\n",
            "tools/files.py": "",
            "views/__init__.py": "",
            "views/panel.py": "",
            "doctor_checks.py": "from x import checks\n",
            "bench/__init__.py": "suites = list\n",
            "bench/suite.py": "",
            "commands.py": "",
        },
    )
    plugin = Plugin(
        name="good",
        title="Good",
        tools="workbench_plugins.good.tools:tools",
        suites="workbench_plugins.good.bench:suites",
        checks="workbench_plugins.good.doctor_checks:checks",
        commands="workbench_plugins.good.commands:commands",
        views=(ViewSpec("panel", "Panel", "workbench_plugins.good.views.panel:make"),),
    )
    assert file_problems(folder) + reference_problems(plugin, folder) == []
