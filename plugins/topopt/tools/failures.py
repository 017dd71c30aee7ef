"""Turning engine and exporter refusals into tool failures."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from workbench.core.tools import ToolFailure
from workbench_plugins.topopt import engine
from workbench_plugins.topopt.stl import StlExportError


@contextmanager
def engine_errors() -> Iterator[None]:
    """Engine and exporter refusals become failures the agent can act on."""
    try:
        yield
    except (engine.EngineError, StlExportError) as error:
        raise ToolFailure(str(error)) from None
