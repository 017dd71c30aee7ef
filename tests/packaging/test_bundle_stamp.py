"""packaging/bundle_stamp.py: CI builds the bundle again exactly when what it is made of changed
(a file added or removed, an import line, packaging/), not when only a function's body did; a key
is skipped only after `record`."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "packaging" / "bundle_stamp.py"


@pytest.fixture
def stamp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """The module, pointed at a small tree of its own."""
    spec = importlib.util.spec_from_file_location("bundle_stamp", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for folder in ("packaging", "workbench", "plugins/topopt", "benchmarks/modelica"):
        (tmp_path / folder).mkdir(parents=True)
    (tmp_path / "packaging" / "workbench.spec").write_text("# spec\n")
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    (tmp_path / "plugins" / "topopt" / "engine.py").write_text(
        "import numpy\n\n\ndef run():\n    return 1\n"
    )
    monkeypatch.setattr(module, "ROOT", tmp_path)
    return module


def test_only_what_the_bundle_is_made_of_changes_the_key(stamp: ModuleType) -> None:
    root: Path = stamp.ROOT
    engine = root / "plugins" / "topopt" / "engine.py"
    first = stamp.bundle_key()
    engine.write_text("import numpy\n\n\ndef run():\n    return 2  # a body change\n")
    assert stamp.bundle_key() == first
    engine.write_text("import numpy\nimport scipy\n\n\ndef run():\n    return 2\n")
    with_import = stamp.bundle_key()
    assert with_import != first
    (root / "plugins" / "topopt" / "new_module.py").write_text("")
    with_module = stamp.bundle_key()
    assert with_module != with_import
    (root / "benchmarks" / "modelica" / "task.json").write_text("{}")
    with_data = stamp.bundle_key()
    assert with_data != with_module
    (root / "packaging" / "workbench.spec").write_text("# spec, changed\n")
    assert stamp.bundle_key() != with_data


def test_a_key_is_skipped_only_once_recorded(tmp_path: Path) -> None:
    environment = {"XDG_CACHE_HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}

    def run(*arguments: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, str(SCRIPT), *arguments],
            env=environment,
            capture_output=True,
            text=True,
            timeout=120,
        )

    key = run("key").stdout.strip()
    assert len(key) == 32
    assert run("check", key).returncode == 1
    assert run("record", key).returncode == 0
    checked = run("check", key)
    assert checked.returncode == 0 and checked.stdout.startswith("built and checked ")
    assert (tmp_path / "workbench" / "bundle-stamps" / key).is_file()
    assert run("check", "another-key").returncode == 1
