"""A settings value refused at start is shown in the window's notices (issue 28), naming the
setting and the keyring entry it belongs in, while the rest of the settings are in use."""

from __future__ import annotations

from collections.abc import Callable

from pytestqt.qtbot import QtBot

from workbench.core.context import AppContext
from workbench.core.paths import app_paths
from workbench.ui.main_window import MainWindow

PASSWORD = "hunter2-planted"


def test_a_refused_value_is_a_notice_in_the_window(
    open_window: Callable[..., MainWindow], qtbot: QtBot
) -> None:
    path = app_paths().settings_file
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        'model = "ollama:qwen3:8b"\n[[plugins.mcp_servers.servers]]\nname = "lab"\n'
        f'url = "http://lab:{PASSWORD}@10.0.0.5/mcp"\n'
    )
    context = AppContext.open()
    try:
        window = open_window(context)
        assert context.settings.model == "ollama:qwen3:8b"  # the rest is in use
        qtbot.waitUntil(lambda: window.notices_button.count >= 1)
        items = window.notices_button.dialog.list
        texts = [items.item(i).text() for i in range(items.count())]
        [shown] = [text for text in texts if "servers[lab].url" in text]
        assert "'mcp-server-lab'" in shown and PASSWORD not in shown
        window.close()
    finally:
        context.close()
