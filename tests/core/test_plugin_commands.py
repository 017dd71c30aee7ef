"""Plugins add headless commands: `workbench --headless <plugin> <command> ...` parses and runs
them, and a plugin's commands module is imported only when one of its commands is asked for."""

from __future__ import annotations

import argparse
import subprocess
import sys
from typing import Any

import pytest

from workbench import cli
from workbench.core import plugins as plugin_module
from workbench.core.plugins import Plugin, PluginCommand, PluginSet

RAN: list[argparse.Namespace] = []


def _greet_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name")
    parser.add_argument("--loud", action="store_true")


def _greet(app: Any, args: argparse.Namespace) -> int:
    RAN.append(args)
    print(("HELLO " if args.loud else "hello ") + args.name + f" from {type(app).__name__}")
    return 3


def fake_commands() -> list[PluginCommand]:
    return [PluginCommand("greet", "say hello", _greet_arguments, _greet)]


def _installed(monkeypatch: pytest.MonkeyPatch, *extra: Plugin) -> None:
    greeter = Plugin("greeter", "Greeter", commands=f"{__name__}:fake_commands")
    found = PluginSet(plugins={p.name: p for p in (greeter, *extra)})
    monkeypatch.setattr(plugin_module, "discover", lambda *a, **k: found)


def test_a_plugin_command_runs_headless_with_its_arguments(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    RAN.clear()
    _installed(monkeypatch)
    assert cli.main(["--headless", "greeter", "greet", "Ada", "--loud"]) == 3
    assert RAN[-1].name == "Ada" and RAN[-1].loud
    assert "HELLO Ada from AppContext" in capsys.readouterr().out
    # like the built-in commands, it needs no --headless to be recognised
    assert cli.main(["greeter", "greet", "Bob"]) == 3 and RAN[-1].name == "Bob"


def test_help_lists_plugin_groups_without_importing_their_commands(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    unloadable = Plugin("broken", "Broken", commands="tests.core.no_such_module:commands")
    _installed(monkeypatch, unloadable)
    with pytest.raises(SystemExit) as done:
        cli.main(["--headless", "--help"])
    assert done.value.code == 0
    shown = capsys.readouterr().out
    assert "greeter" in shown and "broken" in shown
    # asking for the broken plugin's commands says so plainly
    assert cli.main(["--headless", "broken", "anything"]) == 2
    assert "broken plugin's commands could not be loaded" in capsys.readouterr().err


def test_a_plugin_group_without_a_command_is_an_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _installed(monkeypatch)
    with pytest.raises(SystemExit) as done:
        cli.main(["--headless", "greeter"])
    assert done.value.code == 2 and "COMMAND" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli.main(["--headless"])
    assert "greeter" in capsys.readouterr().err  # the error lists the plugin's group too


def test_tool_list_does_not_import_the_modelica_commands() -> None:
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "workbench", "--headless", "tool", "--list"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "workbench_plugins.modelica.specialist" in done.stderr  # the probe sees plugin imports
    assert "workbench_plugins.modelica.commands" not in done.stderr
