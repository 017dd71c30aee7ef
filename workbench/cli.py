"""`workbench` opens the GUI; `workbench --headless <command>` never imports Qt.

Headless commands: `bench` (benchmark suites), `tool` (call any registered tool with JSON), `chat`
(one request to the agent, events as JSON lines: cli_chat.py), `doctor`
(check the environment), `serve` (run the plugins' services, e.g. the printer host, until stopped),
and each plugin's own commands under its name (`workbench --headless modelica validate`): only the
plugins' descriptors are read to know their names; a plugin's commands module is imported only
when one of its commands is asked for.
"""

from __future__ import annotations

import argparse
import json
import logging
import signal
import sys
import threading
from collections.abc import Iterable
from contextlib import ExitStack
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported when a command runs: `workbench` alone must start the GUI quickly
    from workbench.core.context import AppContext
    from workbench.core.plugins import Plugin

COMMANDS = ("bench", "tool", "doctor", "serve", "mcp", "chat")


def build_parser(plugins: Iterable[Plugin] = (), chosen: str = "") -> argparse.ArgumentParser:
    """The parser; `plugins` add a command group each, and the `chosen` one's commands are
    imported and declared (the others only show their name)."""
    parser = argparse.ArgumentParser(
        prog="workbench",
        description="Engineering workbench. Without --headless it opens the desktop app.",
    )
    parser.add_argument("--headless", action="store_true", help="run a command without the GUI")
    commands = parser.add_subparsers(dest="command")

    _add_bench_parser(commands)

    tool = commands.add_parser("tool", help="call a registered tool with JSON arguments")
    tool.add_argument("name", nargs="?", help="tool name")
    tool.add_argument("arguments", nargs="?", default="{}", help="JSON object of arguments")
    tool.add_argument("--list", action="store_true", help="list tools and their schemas")
    tool.add_argument(
        "--yes",
        action="store_true",
        help="confirm a tool that needs a person's confirmation (physical actions, files "
        "outside the workspace and the allowed folders)",
    )

    commands.add_parser("doctor", help="check the environment; one line per check")
    commands.add_parser(
        "serve",
        help="run the services plugins contribute (e.g. the printer host that keeps USB prints "
        "going between commands) until Ctrl+C or SIGTERM",
    )
    _add_mcp_parser(commands)
    _add_chat_parser(commands)
    _add_plugin_parsers(commands, plugins, chosen)
    return parser


def _add_mcp_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from workbench.mcp.arguments import add_mcp_arguments

    mcp = commands.add_parser(
        "mcp",
        help="serve the tools to MCP clients (Claude Code, Cursor, ...) over stdio, or over "
        "HTTP on 127.0.0.1 with a token (--http)",
    )
    add_mcp_arguments(mcp)


def _add_chat_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from workbench.cli_chat import add_chat_arguments

    chat = commands.add_parser(
        "chat",
        help="one request to the desk's agent, its events as JSON lines (workbench --headless "
        "chat --help)",
    )
    add_chat_arguments(chat)


def _add_plugin_parsers(
    commands: argparse._SubParsersAction[argparse.ArgumentParser],
    plugins: Iterable[Plugin],
    chosen: str,
) -> None:
    from workbench.core.plugins import plugin_commands

    for plugin in plugins:
        group = commands.add_parser(
            plugin.name,
            help=f"{plugin.title} commands (workbench --headless {plugin.name} --help)",
        )
        if plugin.name != chosen:
            continue
        subcommands = group.add_subparsers(dest="plugin_command", metavar="COMMAND", required=True)
        for command in plugin_commands(plugin):
            parser = subcommands.add_parser(
                command.name, help=command.help, description=command.help
            )
            command.add_arguments(parser)
            parser.set_defaults(plugin_run=command.run)


def _commanding_plugins(argv: list[str]) -> dict[str, Plugin]:
    """The installed plugins that add commands (descriptors only, no command module imported);
    none when there are no arguments: `workbench` alone opens the GUI at once."""
    if not argv:
        return {}
    from workbench.core.plugins import discover

    return {p.name: p for p in discover() if p.commands and p.name not in COMMANDS}


def _add_bench_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    bench = commands.add_parser("bench", help="run benchmark suites contributed by plugins")
    bench.add_argument(
        "suites",
        nargs="*",
        metavar="SUITE",
        help="suites to run in full (none: the smoke selection of every suite)",
    )
    bench.add_argument(
        "--model",
        action="append",
        dest="models",
        metavar="M",
        help="model to evaluate (repeatable; default: reference)",
    )
    bench.add_argument(
        "--judge",
        default="",
        metavar="MODEL",
        help="the judge model of suites that grade with one (engjudge): any model spec, or "
        "'rubric' (a rule-based stand-in for CI); default: 'rubric' for the reference and "
        "off-target policies, the --model itself for a model",
    )
    bench.add_argument(
        "--preset",
        default="",
        metavar="NAME",
        help="named settings of the suites that offer them, e.g. 'paper' (workflow suites: "
        "EngiBench's default optimiser settings, as the EngiAI paper ran); default: each "
        "suite's fast defaults",
    )
    bench.add_argument("--seeds", nargs="+", type=int, default=[0], metavar="S")
    bench.add_argument(
        "--examples", type=int, metavar="N", help="the first N examples of every task style"
    )
    bench.add_argument(
        "--tasks",
        action="append",
        dest="patterns",
        default=[],
        metavar="PATTERN",
        help="only tasks whose id or style matches a glob, e.g. 'W-RAND' or 'beams2d/*/e0' "
        "(repeatable or comma-separated; with no suite named, searched in every suite)",
    )
    bench.add_argument(
        "--out",
        type=Path,
        default=Path("bench-results"),
        metavar="DIR",
        help="results folder, with every cell's workspace; rerunning with it resumes",
    )
    bench.add_argument("--jobs", type=int, default=1, metavar="N", help="worker processes")
    bench.add_argument(
        "--executor",
        default="local",
        metavar="NAME",
        help="where the cells run: local (default) or one a plugin adds, e.g. slurm (the cells "
        "as one job array on --host)",
    )
    bench.add_argument("--host", default="", metavar="NAME", help="cluster host (--executor slurm)")
    bench.add_argument(
        "--partition", default="", metavar="P", help="Slurm partition (default: the host's)"
    )
    bench.add_argument(
        "--remote-python",
        default="",
        metavar="PATH",
        help="python with workbench installed on the host (default: the host's setting, else "
        "this python's path)",
    )
    bench.add_argument("--list", action="store_true", help="list suites and their tasks")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    plugins = _commanding_plugins(argv)
    names = (*COMMANDS, *plugins)
    chosen = next((arg for arg in argv if arg in names), "")
    try:
        parser = build_parser(plugins.values(), chosen if chosen in plugins else "")
    except Exception as error:  # a plugin's commands module that does not import
        print(f"The {chosen} plugin's commands could not be loaded: {error}", file=sys.stderr)
        return 2
    asks_help = any(arg in ("-h", "--help") for arg in argv)
    if not asks_help and not chosen:
        if "--headless" in argv:
            parser.error("--headless needs a command: " + ", ".join(names))
        from workbench.ui.qt_loading import load_qt  # the only place the CLI reaches Qt

        load_qt()  # before the window's modules are imported
        from workbench.ui.app import run_gui

        return run_gui(argv)
    args = _parse(parser, argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    with ExitStack() as stack:
        context = _open_context(args, stack)
        handler = {
            "bench": run_bench_command,
            "tool": run_tool_command,
            "doctor": run_doctor,
            "serve": run_serve,
            "mcp": run_mcp_command,
            "chat": run_chat_command,
        }
        if args.command in plugins:  # a plugin's command: its own run function
            exit_code: int = args.plugin_run(context, args)
            return exit_code
        return handler[args.command](context, args)


def _parse(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace:
    """Parse; `tool NAME --yes JSON` is taken as `tool NAME JSON --yes` (argparse would stop at
    a flag between two optional positionals)."""
    args, extra = parser.parse_known_args(argv)
    if args.command == "tool" and args.name and args.arguments == "{}" and len(extra) == 1:
        args.arguments = extra.pop()
    if extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    return args


def _open_context(args: argparse.Namespace, stack: ExitStack) -> AppContext:
    """On the user's workspace, except for `bench`, which never opens it: its cells run in
    workspaces of their own under --out and its run records go to <out>/workspace, so its own
    context only needs a scratch one."""
    from workbench.core.context import AppContext

    workspace = None
    if args.command == "bench":
        workspace = Path(stack.enter_context(TemporaryDirectory(prefix="workbench-bench-")))
    context = AppContext.open(workspace=workspace)
    stack.callback(context.close)
    return context


def run_tool_command(context: AppContext, args: argparse.Namespace) -> int:
    if args.list:
        print(json.dumps(context.registry.describe(), indent=2))
        return 0
    if not args.name:
        print("Name a tool, e.g. `workbench --headless tool --list`.", file=sys.stderr)
        return 2
    try:
        arguments = json.loads(args.arguments)
    except json.JSONDecodeError as error:
        print(
            f"Arguments are not valid JSON ({error}); pass an object such as '{{\"x\": 1}}'.",
            file=sys.stderr,
        )
        return 2
    if not isinstance(arguments, dict):
        print("Arguments must be a JSON object such as '{\"x\": 1}'.", file=sys.stderr)
        return 2
    from workbench.cli_progress import job_progress

    with job_progress(context.bus):
        outcome = context.registry.call(args.name, arguments, caller="cli", confirmed=args.yes)
    print(json.dumps(outcome.model_dump(mode="json"), indent=2))
    return 0 if outcome.ok else 1


def run_chat_command(context: AppContext, args: argparse.Namespace) -> int:
    from workbench.cli_chat import run_chat

    return run_chat(context, args)


def run_mcp_command(context: AppContext, args: argparse.Namespace) -> int:
    from workbench.mcp.command import run_mcp

    return run_mcp(context, args)


def run_doctor(context: AppContext, args: argparse.Namespace) -> int:
    from workbench.core.doctor import run_checks

    results = run_checks(context)
    for result in results:
        print(result.line())
    return 1 if any(result.level == "fail" for result in results) else 0


def run_bench_command(context: AppContext, args: argparse.Namespace) -> int:
    from workbench.bench.cli import bench_command

    if not args.models and not args.list:
        from workbench.agents.defaults import default_model

        choice = default_model(context.settings)
        print(f"bench: model {choice.spec}: {choice.reason}", file=sys.stderr)
        args.models = [choice.spec]
    return bench_command(context, args)


def run_serve(context: AppContext, args: argparse.Namespace) -> int:
    """Start every service, wait for SIGINT or SIGTERM, stop them (saying what stopping did)."""
    services = context.services()
    if not services:
        print("No installed plugin provides a service; there is nothing to serve.", file=sys.stderr)
        return 1
    stopping = threading.Event()
    for number in (signal.SIGINT, signal.SIGTERM):
        signal.signal(number, lambda *_: stopping.set())
    started = []
    try:
        for service in services:
            try:
                service.start()
            except Exception as error:  # another process serves it, or it cannot start: say so
                print(f"Not serving: {error}", file=sys.stderr)
                return 1
            started.append(service)
            print(service.describe(), flush=True)
        print("Serving until Ctrl+C (SIGINT) or SIGTERM.", flush=True)
        while not stopping.wait(0.5):
            pass
        busy = [line for service in started for line in service.busy()]
        print("Stopping" + (": " + "; ".join(busy) if busy else "."), flush=True)
    finally:
        for service in reversed(started):
            for line in service.stop():
                print(line, flush=True)
    return 0
