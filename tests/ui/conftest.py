"""GUI test fixtures: a qasync loop on the test's QApplication, main windows cleaned up after, and
the address of a model server that refuses connections (`closed_url`).

tests/conftest.py already gives every test its own WORKBENCH_HOME, Qt offscreen and an in-memory
keyring, and provides `context` and `sample_plugins`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator

import pytest
import shiboken6
from pytestqt.qtbot import QtBot

from tests.rigs.fake_ollama import FakeOllama
from workbench.core.context import AppContext
from workbench.ui.async_loop import attached_event_loop, running_tasks
from workbench.ui.main_window import MainWindow


@pytest.fixture(autouse=True)
def gui_loop(qapp: object) -> Iterator[asyncio.AbstractEventLoop]:
    with attached_event_loop(qapp) as loop:  # type: ignore[arg-type]
        yield loop


@pytest.fixture
def closed_url() -> str:
    """The address of a port that refuses connections, like a stopped `ollama serve`."""
    server = FakeOllama().start()
    server.kill()
    return server.url


@pytest.fixture
def open_window(qtbot: QtBot, context: AppContext) -> Iterator[Callable[..., MainWindow]]:
    """Create shown main windows (default: on the test's context); close them afterwards."""
    windows: list[MainWindow] = []

    def make(on: AppContext | None = None) -> MainWindow:
        window = MainWindow(on or context)
        qtbot.addWidget(window)
        window.show()
        qtbot.waitExposed(window)
        qtbot.waitUntil(lambda: running_tasks() == 0)  # the ledger's first read
        windows.append(window)
        return window

    yield make
    for window in windows:
        if shiboken6.isValid(window):
            window.close()
    qtbot.waitUntil(lambda: running_tasks() == 0)
