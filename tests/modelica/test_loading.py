"""check_model loads the named file, its package and the named libraries: nothing else.

A folder holding an older copy of the model (below it, or beside it) must not be loaded along
with it; a file inside a package folder is loaded with its package; a sibling file that the call
does not name is not loaded either. rumoca runs for real; omc is the FAKE omc (tests/rigs).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.rigs.fake_omc import install
from workbench_plugins.modelica.backend_base import ModelSource
from workbench_plugins.modelica.omc_backend import OmcBackend

DECAY = "model M\n  Real x(start = 1);\nequation\n  der(x) = -x;\nend M;\n"
OLDER = "model M\n  Real y;\nequation\n  y = 1;\nend M;\n"  # same name, other content


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def check(context: Any, **arguments: Any) -> dict[str, Any]:
    # the models lie in tmp_path, outside the workspace: confirmed as a person would
    outcome = context.registry.call("check_model", arguments, caller="test", confirmed=True)
    assert outcome.ok, outcome.error
    return outcome.result


@pytest.fixture
def folder_with_older_copies(tmp_path: Path) -> Path:
    model = write(tmp_path / "x" / "M.mo", DECAY)
    write(tmp_path / "x" / "old" / "M.mo", OLDER)
    write(tmp_path / "x" / "M_backup.mo", OLDER)  # beside it, too
    return model


@pytest.fixture
def package_beside_a_stale_copy(tmp_path: Path) -> Path:
    """x/Lib is a package (Lib.M in its own file, Lib.Sub a sub-package); x/Stale.mo is an
    older single-file copy of package Lib that must not be loaded."""
    lib = tmp_path / "x" / "Lib"
    write(lib / "package.mo", "package Lib\n  constant Real k = 2;\nend Lib;\n")
    write(
        lib / "Sub" / "package.mo", "within Lib;\npackage Sub\n  constant Real f = 1;\nend Sub;\n"
    )
    write(
        lib / "M.mo",
        "within Lib;\nmodel M\n  Real x(start = 1);\nequation\n  der(x) = -k*x + Sub.f;\nend M;\n",
    )
    write(tmp_path / "x" / "Stale.mo", "package Lib\n  constant Real k = 3;\nend Lib;\n")
    return lib


def test_rumoca_check_ignores_older_copies_below_and_beside(
    context: Any, folder_with_older_copies: Path
) -> None:
    result = check(context, file=str(folder_with_older_copies), model="M", backend="rumoca")
    assert result["ok"], result["diagnostics"]
    assert result["structure"]["states"] == ["x"]  # the named file's M, not an older copy


def test_rumoca_loads_a_file_in_a_package_with_its_package(
    context: Any, package_beside_a_stale_copy: Path
) -> None:
    for file in (package_beside_a_stale_copy / "M.mo", package_beside_a_stale_copy):
        result = check(context, file=str(file), model="Lib.M", backend="rumoca")
        assert result["ok"], (file, result["diagnostics"])
        assert result["structure"]["parameters"] == {} and result["structure"]["states"] == ["x"]


def test_only_named_files_and_libraries_are_loaded(context: Any, tmp_path: Path) -> None:
    user = write(tmp_path / "w" / "A.mo", "model A\n  B b;\n  Real v = b.k;\nend A;\n")
    write(tmp_path / "w" / "B.mo", "model B\n  parameter Real k = 3;\nend B;\n")
    unnamed = check(context, file=str(user), model="A", backend="rumoca")
    assert not unnamed["ok"]
    assert any("'B'" in d["message"] for d in unnamed["diagnostics"])
    # the same B as a library folder named in the call resolves
    library = tmp_path / "lib"
    write(library / "B.mo", "model B\n  parameter Real k = 3;\nend B;\n")
    named = check(context, file=str(user), model="A", backend="rumoca", libraries=[str(library)])
    assert named["ok"], named["diagnostics"]


@pytest.fixture
def omc(tmp_path: Path) -> OmcBackend:
    return OmcBackend(omc_home=str(install(tmp_path / "fake-openmodelica")), timeout=20)


def test_omc_check_ignores_older_copies(omc: OmcBackend, folder_with_older_copies: Path) -> None:
    checked = omc.check(ModelSource(files=[folder_with_older_copies], model="M"))
    assert checked.ok, checked.explain()


def test_omc_loads_a_file_in_a_package_by_its_package_mo(
    omc: OmcBackend, package_beside_a_stale_copy: Path
) -> None:
    source = ModelSource(files=[package_beside_a_stale_copy / "M.mo"], model="Lib.M")
    checked = omc.check(source)
    assert checked.ok, checked.explain()
    assert checked.structure is not None and checked.structure.equations == 1


def test_a_model_outside_the_workspace_needs_confirmation(
    context: Any, folder_with_older_copies: Path
) -> None:
    """Outside a task run the file and libraries are confined like every tool's files."""
    arguments = {"file": str(folder_with_older_copies), "model": "M", "backend": "rumoca"}
    refused = context.registry.call("check_model", arguments, caller="agent")
    assert not refused.ok and refused.error.kind == "confirmation_required"
    assert str(folder_with_older_copies) in refused.error.explain()
    library = {"file": "M.mo", "model": "M", "libraries": [str(folder_with_older_copies.parent)]}
    write(context.store.folder / "M.mo", DECAY)
    refused_library = context.registry.call("check_model", library, caller="agent")
    assert not refused_library.ok and refused_library.error.kind == "confirmation_required"
    inside = check(context, file="M.mo", model="M", backend="rumoca")
    assert inside["ok"], inside["diagnostics"]
