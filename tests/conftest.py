"""Every test gets its own WORKBENCH_HOME, an in-memory keyring and Qt offscreen."""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import keyring
import pytest

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
FIXTURE_PLUGINS = TESTS / "fixtures" / "plugins"

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["PYTHON_KEYRING_BACKEND"] = "tests.support.memory_keyring.MemoryKeyring"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# the rig hooks: a missing rig skips locally and fails in CI (see tests/rigs/require.py); the
# tests side by side, the tests sharing a rig in one worker (see tests/rigs/sharing.py)
from tests.rigs.require import pytest_configure, pytest_runtest_setup  # noqa: E402, F401
from tests.rigs.sharing import (  # noqa: E402, F401
    pytest_collection_finish,
    pytest_collection_modifyitems,
)
from tests.support.memory_keyring import MemoryKeyring  # noqa: E402
from workbench.ui.qt_loading import load_qt  # noqa: E402

load_qt()  # as the app loads Qt: without PySide6's scan of every later import


@pytest.hookimpl(wrapper=True, tryfirst=True)  # outermost: after pytest-qt's own teardown
def pytest_runtest_teardown(item: pytest.Item) -> Iterator[None]:
    """Collect a test's garbage here, on the main (GUI) thread, then freeze what is left.

    Otherwise a collection started later on a worker thread (a job, a tool, a pool in another
    test) destroys the Qt objects a test left in garbage cycles off the GUI thread, and the next
    event processing crashes the worker (the app does the same with workbench.ui.gui_collection).
    Frozen objects are never collected again, so no later collection on any thread reaches them;
    and each collection only scans what the last test left (about 1 ms, not 230 ms)."""
    result = yield
    gc.collect()
    gc.freeze()
    return result


@pytest.fixture(autouse=True)
def workbench_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    monkeypatch.setenv("WORKBENCH_HOME", str(home))
    monkeypatch.setenv("OLLAMA_HOST", "http://127.0.0.1:9")  # never reach a real server
    # spawned workers and subprocesses must import tests.* too
    monkeypatch.setenv(
        "PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    )
    return home


@pytest.fixture(autouse=True)
def memory_keyring() -> Iterator[MemoryKeyring]:
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(previous)


@pytest.fixture(autouse=True)
def forget_modelica_runs() -> Iterator[None]:
    """The Modelica harness keeps the process's task runs: one a test started and left running
    would be the next test's "active run" in this worker (its workspace, its closed ledger)."""
    harness = sys.modules.get("workbench_plugins.modelica.harness")
    before = harness.run_ids() if harness is not None else set()
    yield
    harness = sys.modules.get("workbench_plugins.modelica.harness")
    if harness is not None:
        for run_id in harness.run_ids() - before:
            harness.forget_run(run_id)


@pytest.fixture
def sample_plugins(monkeypatch: pytest.MonkeyPatch) -> Path:
    """Install the test plugins (one good, one broken) through real entry points."""
    monkeypatch.syspath_prepend(str(FIXTURE_PLUGINS))
    monkeypatch.setenv(
        "PYTHONPATH", os.pathsep.join([str(FIXTURE_PLUGINS), os.environ["PYTHONPATH"]])
    )
    return FIXTURE_PLUGINS


@pytest.fixture
def context(workbench_home: Path) -> Iterator[object]:
    from workbench.core.context import AppContext

    app = AppContext.open()
    yield app
    app.close()
