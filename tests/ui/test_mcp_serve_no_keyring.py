"""Serving over MCP on a box with no system keyring (issue 29), forced with keyring's own fail
backend: Start says one short sentence instead of a wall of keyring text, and offers a token for
this session only; with it the real server serves a real MCP client, and nothing was written to
a keyring or the settings file. A picture goes to $WORKBENCH_TEST_ARTIFACTS (else
tests/artifacts/) under first-encounters/."""

from __future__ import annotations

from collections.abc import Iterator

import keyring
import pytest
from keyring.backends import fail
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from tests.support.artifacts import artifact_folder
from tests.ui.test_mcp_serve_panel import START_TIMEOUT_MS, list_tools_from_a_client
from workbench.core.context import AppContext
from workbench.core.secrets import forget_session_secret, has_session_secret
from workbench.mcp.token import TOKEN_ENTRY
from workbench.ui.async_loop import running_tasks
from workbench.ui.mcp_serve import McpServePanel


@pytest.fixture
def no_keyring() -> Iterator[None]:
    keyring.set_keyring(fail.Keyring())  # the autouse memory keyring is put back after
    yield
    forget_session_secret(TOKEN_ENTRY)


def test_without_a_keyring_start_offers_a_session_token_that_serves(
    qtbot: QtBot, context: AppContext, no_keyring: None
) -> None:
    panel = McpServePanel(context)
    qtbot.addWidget(panel)
    panel.port.setValue(0)
    panel.show()
    with qtbot.waitSignal(panel.state_changed, timeout=START_TIMEOUT_MS) as signal:
        qtbot.mouseClick(panel.start_button, Qt.MouseButton.LeftButton)
    assert signal.args == ["failed"]
    said = panel.status.text()
    assert said.startswith("No system keyring") and len(said) < 160, said
    assert "keyring.errors" not in said and "pip install" not in said  # the advice: tooltip
    assert "keyrings.alt" in panel.status.toolTip()
    assert panel.session_button.isVisible()
    qtbot.wait(50)
    assert panel.grab().save(str(artifact_folder("first-encounters") / "mcp-no-keyring.png"))

    with qtbot.waitSignal(panel.state_changed, timeout=START_TIMEOUT_MS) as signal:
        qtbot.mouseClick(panel.session_button, Qt.MouseButton.LeftButton)
    assert signal.args == ["serving"], panel.status.text()
    assert "for this session only" in panel.status.text()
    assert not panel.session_button.isVisible()
    assert has_session_secret(TOKEN_ENTRY)
    token = panel.token_field.text()
    assert token
    assert list_tools_from_a_client(panel.url, token, qtbot)  # the real server, the real client
    assert not context.paths.settings_file.exists() or token not in (
        context.paths.settings_file.read_text(encoding="utf-8")
    )
    with qtbot.waitSignal(panel.state_changed, timeout=START_TIMEOUT_MS):
        panel.stop()
    qtbot.waitUntil(lambda: running_tasks() == 0, timeout=10_000)
