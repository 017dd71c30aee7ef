"""One validation run (CI grid) shared by the validation, determinism and report tests: it is
the expensive part (about 15 Beams2D optimisations)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def workflow_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    home = tmp_path_factory.mktemp("workflow-home")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("WORKBENCH_HOME", str(home))
        yield home


@pytest.fixture(scope="session")
def validation(workflow_home: Path, tmp_path_factory: pytest.TempPathFactory):
    from workbench.core.context import AppContext
    from workbench_plugins.topopt.workflow.validate import CI_GRID, validate

    out = tmp_path_factory.mktemp("validation")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("WORKBENCH_HOME", str(workflow_home))
        context = AppContext.open()
        try:
            yield validate(context, out, CI_GRID)
        finally:
            context.close()
