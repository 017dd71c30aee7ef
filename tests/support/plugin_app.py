"""The `app` and `workspace` fixtures a plugin's tests share: the app context with the plugin's
tools registered (when this checkout has not installed its entry point yet), and its workspace."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest


def plugin_app_fixtures(owner: str) -> tuple[Callable[..., Any], Callable[..., Path]]:
    """(app, workspace) fixtures for `workbench_plugins.<owner>`; a conftest binds them by name:
    `app, workspace = plugin_app_fixtures("shell")`."""

    @pytest.fixture
    def app(context: Any) -> Any:
        # imported here, once the test's WORKBENCH_HOME is set, as the entry point would be
        tools = importlib.import_module(f"workbench_plugins.{owner}.tools").tools
        for tool in tools():
            if context.registry.get(tool.name) is None:
                context.registry.register(tool, owner=owner)
        return context

    @pytest.fixture
    def workspace(app: Any) -> Path:
        return Path(app.store.folder)

    return app, workspace
