"""A tool card opens the view of that tool's result (ViewSpec.shows), through a request the main
window handles (ViewRequested on the bus) — not the plugin's first view.

The whole main window with a SCRIPTED model (language models cannot run here) over the real
topopt tools: a short real optimisation, then a real STL export.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from tests.agents.conftest import call, calls, handoff, say, write_script
from workbench.core.context import AppContext
from workbench.core.plugins import ViewRequested, view_showing
from workbench.ui.async_loop import running_tasks
from workbench.ui.chat.cards import ToolCard
from workbench.ui.main_window import MainWindow

RUN_TIMEOUT_MS = 180_000  # a spawned worker imports EngiBench first; the machine may be busy
SHORT_BEAM = {"volfrac": 0.4, "forcedist": 0.65, "rmin": 4.0, "max_iter": 3}
OPTIMISE_AND_EXPORT = [
    handoff("topopt", "Optimise a beam and export it as STL."),
    calls(call("optimize_design", {"problem_type": "beams2d", "problem_config": SHORT_BEAM})),
    calls(call("convert_design_to_stl", {"problem_type": "beams2d", "npy_file_path": "last"})),
    say("Optimised and exported."),
    say("The beam is optimised and exported."),
]


def test_each_tool_names_the_view_that_shows_its_result(context: AppContext) -> None:
    plugins, owner = context.plugins, context.registry.owner

    def view(tool: str) -> str | None:
        spec = view_showing(plugins, tool, owner(tool))
        return spec.name if spec else None

    assert view("convert_design_to_stl") == "topopt.stl"  # not topopt.density, the first
    assert view("optimize_design") == "topopt.density"
    assert view("simulate") == "modelica.trajectory"
    assert view("check_model") == "modelica.editor"
    assert view("slice_model") == "printer"
    assert view("ledger_status") is None  # no view shows it: better no link than a wrong one
    assert view("list_artifacts") is None  # the workspace plugin has no views


def test_an_export_cards_link_opens_the_stl_view_with_scripted_model(
    context: AppContext, tmp_path: Path, open_window: Callable[..., MainWindow], qtbot: QtBot
) -> None:
    context.plugins.plugins = {"topopt": context.plugins.plugins["topopt"]}
    context.settings.model = write_script(tmp_path, OPTIMISE_AND_EXPORT)
    window = open_window(context)
    panel = window.chat_dock.panel
    requests: list[ViewRequested] = []
    context.bus.subscribe(ViewRequested, requests.append)
    with qtbot.waitSignal(panel.run_finished, timeout=RUN_TIMEOUT_MS) as finished:
        panel.input.setText("Optimise a beam and export it.")
        qtbot.keyClick(panel.input, Qt.Key.Key_Return)
    assert finished.args[0].status == "done", finished.args[0].error

    cards = {card.tool: card for card in panel.view.items() if isinstance(card, ToolCard)}
    export, optimise = cards["convert_design_to_stl"], cards["optimize_design"]
    assert export.status == "ok" and optimise.status == "ok"
    assert export.view_button.isVisible() and export.view_button.text() == "Show in STL view ↗"
    assert optimise.view_button.text() == "Show in Density view ↗"
    assert window.plugin_docks == {}

    qtbot.mouseClick(export.view_button, Qt.MouseButton.LeftButton)

    qtbot.waitUntil(lambda: "topopt.stl" in window.plugin_docks, timeout=10_000)
    dock = window.plugin_docks["topopt.stl"]
    assert dock.objectName() == "topopt.stl" and dock.isVisible()
    assert "topopt.density" not in window.plugin_docks  # not the plugin's first view
    assert [(r.view, r.tool, r.source) for r in requests] == [
        ("topopt.stl", "convert_design_to_stl", "chat")
    ]
    qtbot.waitUntil(lambda: running_tasks() == 0, timeout=RUN_TIMEOUT_MS)
