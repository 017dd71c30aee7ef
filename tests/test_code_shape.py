"""The house stays readable: no source file over 450 lines, no function over 80 (issue 12).

A function's length counts its nested closures, so a 400-line closure-builder fails here too.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ("workbench", "plugins", "resources")
MAX_FILE_LINES = 450
MAX_FUNCTION_LINES = 80


def _source_files() -> list[Path]:
    return sorted(p for folder in SOURCES for p in (ROOT / folder).rglob("*.py"))


def test_the_source_tree_is_found() -> None:
    names = {p.relative_to(ROOT).as_posix() for p in _source_files()}
    assert "workbench/core/tools.py" in names and "plugins/topopt/engine.py" in names


def test_no_source_file_is_over_450_lines() -> None:
    long = {
        p.relative_to(ROOT).as_posix(): n
        for p in _source_files()
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_FILE_LINES
    }
    assert not long, f"files over {MAX_FILE_LINES} lines: {long}"


def test_no_function_is_over_80_lines() -> None:
    long: dict[str, int] = {}
    for path in _source_files():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                length = (node.end_lineno or node.lineno) - first + 1
                if length > MAX_FUNCTION_LINES:
                    long[f"{path.relative_to(ROOT).as_posix()}:{node.lineno} {node.name}"] = length
    assert not long, f"functions over {MAX_FUNCTION_LINES} lines: {long}"


def test_production_code_narrows_types_without_assert() -> None:
    """`python -O` drops asserts: a check that guards behaviour must be an `if` that raises."""
    found = [
        f"{path.relative_to(ROOT).as_posix()}:{node.lineno}"
        for path in _source_files()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Assert)
    ]
    assert not found, f"assert statements in production code: {found}"
