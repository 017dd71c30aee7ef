"""Issue 28 (TOCTOU): add_document opens the checked file without following a link put there
after the check; a file swapped for a link to a secret is refused and nothing of it indexed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.retrieval.conftest import call, listed
from workbench_plugins.retrieval.index import loaders


def test_a_file_swapped_for_a_link_after_the_check_is_not_indexed(
    app: Any, workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app.settings.plugins["retrieval"] = {"dense": "off"}
    secret = tmp_path / "salaries.txt"
    secret.write_text("Private salary figures.")
    notes = workspace / "notes.txt"
    notes.write_text("Nozzle diameter 0.4 mm.")
    kind_of = loaders.kind_of

    def swap_after_check(path: Path) -> str:  # runs after the tool checked the path
        if path == notes.resolve() and not path.is_symlink():
            path.unlink()
            path.symlink_to(secret)
        return kind_of(path)

    monkeypatch.setattr(loaders, "kind_of", swap_after_check)
    outcome = call(app, "add_document", path="notes.txt")
    assert not outcome.ok and outcome.error is not None
    assert "changed after it was checked" in outcome.error.message
    assert listed(app) == []
