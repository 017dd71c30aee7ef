"""The MCP servers view (real Qt offscreen, the REAL test server started by its Test button on a
worker thread): add a server, test it, mark a world tool, save; a failing test in words; a bad
name refused; a URL server's token into the keyring, never into the settings."""

from __future__ import annotations

import asyncio
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import tests.rigs.gui  # noqa: F401  (first: skips, or fails in CI, without PySide6/pyqtgraph)

# isort: split
import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from tests.conftest import ROOT
from tests.mcp_servers.conftest import configure, stdio_server
from workbench.core.context import AppContext
from workbench.core.secrets import get_secret
from workbench.ui.async_loop import attached_event_loop, running_tasks
from workbench.ui.settings_dialog import SettingsDialog
from workbench_plugins.mcp_servers.config import McpServersSettings
from workbench_plugins.mcp_servers.specialists import known_listing
from workbench_plugins.mcp_servers.views import McpServersDialog, McpServersView

SHOTS = Path("/tmp/h/shots")
TEST_TIMEOUT_MS = 30000


@pytest.fixture(autouse=True)
def gui_loop(qapp: object) -> Iterator[asyncio.AbstractEventLoop]:
    with attached_event_loop(qapp) as loop:  # type: ignore[arg-type]
        yield loop


def open_view(qtbot: QtBot, context: AppContext) -> McpServersView:
    view = McpServersView(context)
    qtbot.addWidget(view)
    view.resize(560, 640)
    view.show()
    qtbot.waitExposed(view)
    return view


def click(qtbot: QtBot, button: object) -> None:
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)  # type: ignore[arg-type]


def saved_servers(context: AppContext) -> list[dict[str, object]]:
    raw = tomllib.loads(context.paths.settings_file.read_text(encoding="utf-8"))
    return list(raw["plugins"]["mcp_servers"]["servers"])


def test_add_test_mark_a_world_tool_and_save(qtbot: QtBot, context: AppContext) -> None:
    view = open_view(qtbot, context)
    assert view.servers.count() == 0 and not view.form.isEnabled()

    click(qtbot, view.add_button)
    view.form.name.setText("bench")
    view.form.description.setText("Beam calculations and the stage")
    view.form.command.setText(f"{sys.executable} -m tests.rigs.mcp_test_server")
    view.form.cwd.setText(str(ROOT))
    click(qtbot, view.test_button)
    assert view.status.text().startswith("Testing stdio: ")
    assert not view.test_button.isEnabled()  # the GUI goes on while the server starts
    qtbot.waitUntil(lambda: view.tests_running == 0, timeout=TEST_TIMEOUT_MS)

    assert view.status.text().startswith("✓ Connected to stdio: "), view.status.text()
    assert "3 tools: beam_deflection, move_stage, refuse" in view.status.text()
    assert view.form.tools.rowCount() == 3
    box = view.form.world_box("move_stage")
    assert box is not None and box.checkState() == Qt.CheckState.Unchecked
    box.setCheckState(Qt.CheckState.Checked)
    assert view.status.text() == "Unsaved: Save to keep the change."

    SHOTS.mkdir(parents=True, exist_ok=True)
    qtbot.wait(100)  # the layout settles after the last message
    view.grab().save(str(SHOTS / "mcp_servers_view.png"))
    assert view.sizeHint().width() <= 600 and view.minimumSizeHint().width() <= 600

    click(qtbot, view.save_button)
    assert view.status.text().startswith("✓ Saved to ")
    [saved] = saved_servers(context)
    assert saved["name"] == "bench" and saved["command"] == sys.executable
    assert saved["args"] == ["-m", "tests.rigs.mcp_test_server"]
    assert saved["world_tools"] == ["move_stage"] and saved["enabled"] is True
    settings = context.settings.plugin("mcp_servers", McpServersSettings)
    # the test's listing is kept: the agent's next run need not list the server again
    assert known_listing(settings.servers[0]) is not None
    qtbot.waitUntil(lambda: running_tasks() == 0)


def test_a_failing_test_says_why_and_a_bad_name_is_not_saved(
    qtbot: QtBot, context: AppContext
) -> None:
    configure(context, stdio_server())
    SHOTS.mkdir(parents=True, exist_ok=True)
    view = open_view(qtbot, context)
    assert view.servers.count() == 1 and view.form.name.text() == "bench"

    view.form.command.setText("/nonexistent/mcp-server --stdio")
    click(qtbot, view.test_button)
    qtbot.waitUntil(lambda: view.tests_running == 0, timeout=TEST_TIMEOUT_MS)
    assert view.status.text().startswith(
        "✖ MCP server 'bench' (stdio: /nonexistent/mcp-server --stdio): cannot start"
    )
    assert "Check the command" in view.status.text()
    qtbot.wait(100)  # the layout settles after the last message
    view.grab().save(str(SHOTS / "mcp_servers_view_failed.png"))

    view.form.name.setText("Bench Stage")
    click(qtbot, view.save_button)
    assert view.status.text().startswith("✖ Not saved. server 1 (Bench Stage): the name must be")
    assert not context.paths.settings_file.exists()

    click(qtbot, view.remove_button)
    click(qtbot, view.save_button)
    assert saved_servers(context) == []
    qtbot.waitUntil(lambda: running_tasks() == 0)


def test_a_url_servers_token_goes_to_the_keyring_not_the_settings(
    qtbot: QtBot, context: AppContext
) -> None:
    view = open_view(qtbot, context)
    click(qtbot, view.add_button)
    view.form.name.setText("remote")
    view.form.kind.setCurrentIndex(1)
    assert view.form.url.isVisible() and not view.form.command.isVisible()
    view.form.url.setText("https://lab.example/mcp")
    view.form.token.setText("s3cret-token")
    click(qtbot, view.save_button)

    assert view.status.text().startswith("✓ Saved"), view.status.text()
    assert get_secret("mcp-server-remote") == "s3cret-token"
    assert "s3cret-token" not in context.paths.settings_file.read_text(encoding="utf-8")
    [saved] = saved_servers(context)
    assert saved["url"] == "https://lab.example/mcp" and saved["command"] == ""
    assert "a token is stored" in view.form.token_note.text()
    qtbot.wait(100)  # the layout settles after the last message
    view.grab().save(str(SHOTS / "mcp_servers_view_url.png"))


def test_the_settings_dialogs_editor_opens_the_view_in_a_dialog(
    qtbot: QtBot, context: AppContext
) -> None:
    configure(context, stdio_server())
    dialog = SettingsDialog(context)
    qtbot.addWidget(dialog)
    dialog.show()
    button, editor = dialog.plugin_forms["mcp_servers"].editor_buttons["servers"]
    assert editor == "workbench_plugins.mcp_servers.views:open_servers_dialog"
    click(qtbot, button)
    opened = dialog.findChild(McpServersDialog)
    assert opened is not None and opened.isVisible()
    assert opened.view.servers.count() == 1 and opened.view.form.name.text() == "bench"
    opened.view.form.enabled.setChecked(False)
    assert opened.view.save()
    opened.reject()
    [saved] = saved_servers(context)
    assert saved["enabled"] is False
