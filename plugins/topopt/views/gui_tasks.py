"""Starting the views' asyncio tasks from the GUI thread, tolerating a missing event loop."""

from __future__ import annotations

import logging
from collections.abc import Coroutine
from typing import Any

from workbench.ui.async_loop import start_task

log = logging.getLogger(__name__)


def start_gui_task(coroutine: Coroutine[Any, Any, Any], name: str) -> bool:
    """Start a GUI task; False (and the coroutine closed) when no asyncio loop is attached."""
    try:
        start_task(coroutine, name=name)
    except RuntimeError as error:
        log.warning("%s not started: %s", name, error)
        return False
    return True
