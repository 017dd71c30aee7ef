"""The project's import-circle contract really catches a circle, however deep and however hidden
(an import inside a function), and keeps a one-way tree (issue 12). The contract is read from
pyproject.toml, so weakening it there fails this test; test_quality_gates runs it on the project."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import tomli_w

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def _project_contract() -> dict[str, object]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    [contract] = [
        c for c in config["tool"]["importlinter"]["contracts"] if c.get("id") == "no-import-circles"
    ]
    assert contract["ancestors"] == ["workbench", "workbench_plugins"]
    return contract


def _lint(tmp_path: Path, b_imports_a: bool) -> subprocess.CompletedProcess[str]:
    inner = tmp_path / "circlepkg" / "deep" / "inner"
    inner.mkdir(parents=True)
    for folder in (inner, inner.parent, inner.parent.parent):
        (folder / "__init__.py").write_text("")
    (inner / "a.py").write_text("from circlepkg.deep.inner import b\n\nVALUE = b.VALUE\n")
    back = "    from circlepkg.deep.inner import a\n\n    return a.VALUE\n"
    (inner / "b.py").write_text(
        "VALUE = 1\n\n\ndef later() -> int:\n" + (back if b_imports_a else "    return 2\n")
    )
    contract = {**_project_contract(), "ancestors": ["circlepkg"]}
    config = {"tool": {"importlinter": {"root_packages": ["circlepkg"], "contracts": [contract]}}}
    (tmp_path / "lint.toml").write_text(tomli_w.dumps(config))
    return subprocess.run(
        [str(BIN / "lint-imports"), "--no-cache", "lint.toml"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_circle_through_a_function_level_import_breaks_the_contract(tmp_path: Path) -> None:
    done = _lint(tmp_path, b_imports_a=True)
    assert done.returncode != 0, done.stdout + done.stderr
    assert "BROKEN" in done.stdout
    assert ".a -> .b" in done.stdout or ".b -> .a" in done.stdout


def test_a_one_way_tree_keeps_the_contract(tmp_path: Path) -> None:
    done = _lint(tmp_path, b_imports_a=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 kept, 0 broken" in done.stdout
