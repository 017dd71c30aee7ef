"""One interface over the Modelica backends (rumoca embedded, OpenModelica through OMPython).

A backend loads a package (one or several .mo files plus library folders such as a Modelica
Standard Library copy), checks a model and simulates it. Whatever it reports comes back as
`Diagnostic`s in one format, so tools, views and the agent never see backend-specific errors.
Here: the result models, the helpers both backends share, and the `Backend` interface; choosing
a backend by name is `backends.backend_named`.
"""

from __future__ import annotations

import abc
import math
import time
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

Severity = Literal["error", "warning", "note"]
Stage = Literal["load", "parse", "check", "simulate"]


class Diagnostic(BaseModel):
    message: str
    severity: Severity = "error"
    stage: Stage = "check"
    file: str | None = None
    line: int | None = None
    column: int | None = None
    backend: str = ""
    located_by: Literal["backend", "search", ""] = Field(
        "", description="who found file/line: the backend itself, or a search of the source"
    )

    def explain(self) -> str:
        where = self.file or ""
        if self.line is not None:
            where += f":{self.line}" + (f":{self.column}" if self.column else "")
        return f"{self.severity}: {where + ': ' if where else ''}{self.message}"


class ModelSource(BaseModel):
    """What to load: the files of a package (first one declares the model) and library roots."""

    files: list[Path]
    model: str
    libraries: list[Path] = Field(default_factory=list)


class Structure(BaseModel):
    states: list[str] = Field(default_factory=list)
    algebraics: list[str] = Field(default_factory=list)
    parameters: dict[str, float | None] = Field(default_factory=dict)
    equations: int | None = None
    unknowns: int | None = None
    balanced: bool | None = None


class CheckResult(BaseModel):
    ok: bool
    model: str
    backend: str
    diagnostics: list[Diagnostic] = Field(default_factory=list)
    structure: Structure | None = None

    def explain(self) -> str:
        head = f"{self.model} checks on {self.backend}" if self.ok else f"{self.model} fails check"
        return "\n".join([head, *(d.explain() for d in self.diagnostics)])


class SimulationSettings(BaseModel):
    start_time: float = 0.0
    stop_time: float = Field(1.0, gt=0)
    intervals: int = Field(500, ge=1, le=1_000_000)
    tolerance: float = Field(1e-6, gt=0, lt=1)
    parameters: dict[str, float] = Field(default_factory=dict)
    # a run in the calling thread cannot be stopped from outside: the solver stops itself
    max_wall_s: float | None = Field(None, gt=0)


class SimulationResult(BaseModel):
    ok: bool
    model: str
    backend: str
    settings: SimulationSettings
    time: list[float] = Field(default_factory=list)
    series: dict[str, list[float]] = Field(default_factory=dict)
    diagnostics: list[Diagnostic] = Field(default_factory=list)
    elapsed_s: float = 0.0

    def final_values(self) -> dict[str, float | None]:
        # NaN/inf are not JSON: report them as None so the CLI output stays valid JSON
        return {
            name: (values[-1] if values and math.isfinite(values[-1]) else None)
            for name, values in self.series.items()
        }


def has_errors(problems: list[Diagnostic]) -> bool:
    return any(d.severity == "error" for d in problems)


def simulation_result(
    source: ModelSource,
    backend: str,
    settings: SimulationSettings,
    *,
    started: float,
    problems: list[Diagnostic],
    times: list[float] | None = None,
    series: dict[str, list[float]] | None = None,
    ok: bool | None = None,
) -> SimulationResult:
    """A backend's result for a simulation begun at `started` (a `time.perf_counter()` reading).

    `ok` defaults to "no diagnostic is an error"; a backend passes it when it knows better."""
    return SimulationResult(
        ok=not has_errors(problems) if ok is None else ok,
        model=source.model,
        backend=backend,
        settings=settings,
        time=times or [],
        series=series or {},
        diagnostics=problems,
        elapsed_s=time.perf_counter() - started,
    )


def non_finite(series: dict[str, list[float]], backend: str) -> Diagnostic | None:
    """An error naming the trajectories that hold NaN or infinity (the solver diverged)."""
    broken = sorted(n for n, v in series.items() if not all(math.isfinite(x) for x in v))
    if not broken:
        return None
    return Diagnostic(
        message=f"non-finite values (NaN or infinity) in {', '.join(broken)}",
        stage="simulate",
        backend=backend,
    )


def package_folder(path: Path) -> Path | None:
    """The top-level package folder holding `path` (climbing while there is a package.mo), or None.

    A file inside a package folder cannot be loaded alone (its `within` names the package), and
    loading the package is what Modelica tools do with it.
    """
    top = None
    folder = Path(path).resolve().parent
    while (folder / "package.mo").is_file() and folder.parent != folder:
        top, folder = folder, folder.parent
    return top


def what_to_load(files: list[Path]) -> tuple[list[Path], list[Path]]:
    """(standalone files, top-level package folders) for `files`, in order, without repeats.

    Only these are loaded: never the other .mo files that share a folder with them (an older copy
    in a subfolder would clash as a duplicate class), only what the call named.
    """
    standalone: list[Path] = []
    packages: list[Path] = []
    for file in files:
        package = package_folder(file)
        if package is None and Path(file).resolve() not in standalone:
            standalone.append(Path(file).resolve())
        elif package is not None and package not in packages:
            packages.append(package)
    return standalone, packages


class BackendUnavailable(RuntimeError):
    """The backend cannot run here (omc not installed, ...); the message says what to do."""


class Backend(abc.ABC):
    name: str = ""

    @abc.abstractmethod
    def available(self) -> tuple[bool, str]:
        """(usable, why not / version)."""

    @abc.abstractmethod
    def check(self, source: ModelSource) -> CheckResult: ...

    @abc.abstractmethod
    def simulate(self, source: ModelSource, settings: SimulationSettings) -> SimulationResult: ...
