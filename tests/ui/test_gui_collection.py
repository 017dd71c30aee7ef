"""The GUI's collector (workbench.ui.gui_collection): automatic collection is off while it runs,
garbage cycles are still freed at its ticks on the GUI thread, and what an import made is frozen
so that no later collection scans it again (a full scan of a session's libraries froze the window
for 150-300 ms)."""

from __future__ import annotations

import gc
import importlib
import sys
import weakref
from collections.abc import Iterator
from pathlib import Path

import pytest

from workbench.ui.gui_collection import GuiCollection


class Node:
    def __init__(self) -> None:
        self.other: Node | None = None


@pytest.fixture
def collection(qapp: object) -> Iterator[GuiCollection]:
    running = GuiCollection()
    yield running
    running.stop()


def test_automatic_collection_is_off_while_it_runs_and_back_on_after(qapp: object) -> None:
    running = GuiCollection()
    assert not gc.isenabled()
    running.stop()
    assert gc.isenabled()


def test_a_garbage_cycle_is_freed_at_its_tick(collection: GuiCollection) -> None:
    first, second = Node(), Node()
    first.other, second.other = second, first  # a cycle: reference counts never reach 0
    gone = weakref.ref(first)
    del first, second
    assert gone() is not None  # nothing collects on its own
    collection.collect()
    assert gone() is None


def test_what_an_import_made_is_frozen_at_the_next_tick(
    collection: GuiCollection, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "freshly_imported.py").write_text(
        "TABLE = [[n] for n in range(5000)]\n", encoding="utf-8"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    collection.collect()
    frozen = gc.get_freeze_count()
    module = importlib.import_module("freshly_imported")
    try:
        collection.collect()
        assert gc.get_freeze_count() >= frozen + len(module.TABLE)
        # a tick with no new module freezes nothing more
        after = gc.get_freeze_count()
        Node()
        collection.collect()
        assert gc.get_freeze_count() == after
    finally:
        sys.modules.pop("freshly_imported", None)
