"""The embedded backend: rumoca (PyPI), a Modelica compiler and solver in Rust with a Python API.

Loading takes exactly what the call names: the model's file, the other files of the source, the
packages they belong to (a file inside a folder with package.mo loads its top-level package) and
the library folders (e.g. an MSL copy). Never a whole folder: rumoca scans a root folder
recursively and `Session.load(path)` also reads every sibling .mo file, so an older copy next to
or below the model would clash ("Duplicate class"). A standalone model file is therefore compiled
from its text with a file name in an empty folder, and other files are roots one by one.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any

from workbench_plugins.modelica import diagnostics
from workbench_plugins.modelica.backend_base import (
    Backend,
    BackendUnavailable,
    CheckResult,
    Diagnostic,
    ModelSource,
    SimulationResult,
    SimulationSettings,
    Structure,
    has_errors,
    non_finite,
    simulation_result,
    what_to_load,
)


def _rumoca() -> Any:
    try:
        import rumoca
    except ImportError as error:  # the headless install always has it; a broken venv may not
        raise BackendUnavailable("rumoca is not installed: pip install 'rumoca>=0.10'") from error
    return rumoca


def roots_for(source: ModelSource) -> list[str]:
    """rumoca roots: package folders, the other standalone files one by one, library folders."""
    standalone, packages = what_to_load(source.files)
    first = Path(source.files[0]).resolve()
    others = [file for file in standalone if file != first]
    roots = [str(Path(path).resolve()) for path in [*packages, *others, *source.libraries]]
    return list(dict.fromkeys(roots))


def _compile(rumoca: Any, source: ModelSource) -> Any:
    """The compiled model; raises rumoca.RumocaError."""
    session = rumoca.Session(roots=roots_for(source))
    first = Path(source.files[0]).resolve()
    standalone, _ = what_to_load([first])
    if not standalone:  # inside a package: its folder is a root, siblings belong to it
        return session.load(str(first), model=source.model)
    with tempfile.TemporaryDirectory(prefix="wb-rumoca-") as empty:
        alone = Path(empty) / first.name  # a file name with no siblings to pull in
        try:
            return session.loads(
                first.read_text(encoding="utf-8"), model=source.model, filename=str(alone)
            )
        except rumoca.RumocaError as error:  # name the real file, not the stand-in
            raise type(error)(str(error).replace(str(alone), str(first))) from None


class RumocaBackend(Backend):
    name = "rumoca"

    def available(self) -> tuple[bool, str]:
        try:
            return True, f"rumoca {_rumoca().version()}"
        except BackendUnavailable as error:
            return False, str(error)

    # -- loading -----------------------------------------------------------------------------
    def _load(self, source: ModelSource) -> tuple[Any, list[Diagnostic]]:
        """(compiled model or None, diagnostics). Syntax is validated first: it has lines."""
        rumoca = _rumoca()
        problems: list[Diagnostic] = []
        for path in source.files:
            if not Path(path).is_file():
                problems.append(
                    Diagnostic(message=f"No such file: {path}", stage="load", backend=self.name)
                )
                continue
            problems += diagnostics.from_rumoca_diagnostics(rumoca.validate(str(path)))
        if has_errors(problems):
            return None, problems
        try:
            model = _compile(rumoca, source)
        except rumoca.RumocaError as error:
            text = str(error)
            if "resolve/parse failed" in text:
                text = (
                    f"no model named '{source.model}' could be resolved in "
                    f"{', '.join(str(f) for f in source.files)} (check the name, including its "
                    "package prefix, and the library folders)"
                )
            problems += diagnostics.from_rumoca_text(
                text, stage="check", files=source.files, model=source.model
            )
            return None, problems
        return model, problems

    def check(self, source: ModelSource) -> CheckResult:
        model, problems = self._load(source)
        if model is None:
            return CheckResult(
                ok=False, model=source.model, backend=self.name, diagnostics=problems
            )
        info = model.structure()
        structure = Structure(
            states=list(model.states.names),
            algebraics=list(model.algebraics.names),
            parameters={p.name: p.value for p in model.parameters},
            equations=info.n_equations,
            unknowns=info.n_unknowns,
            balanced=info.is_balanced,
        )
        if not info.is_balanced:
            problems.append(
                diagnostics.locate(
                    Diagnostic(
                        message=(
                            f"unbalanced model: {info.n_equations} equations, "
                            f"{info.n_unknowns} unknowns"
                        ),
                        backend=self.name,
                    ),
                    [Path(f) for f in source.files],
                    source.model,
                )
            )
        ok = not has_errors(problems)
        return CheckResult(
            ok=ok, model=source.model, backend=self.name, diagnostics=problems, structure=structure
        )

    # -- simulating --------------------------------------------------------------------------
    def simulate(self, source: ModelSource, settings: SimulationSettings) -> SimulationResult:
        rumoca = _rumoca()
        started = time.perf_counter()

        def failed(problems: list[Diagnostic]) -> SimulationResult:
            return simulation_result(
                source, self.name, settings, started=started, problems=problems, ok=False
            )

        model, problems = self._load(source)
        if model is None:
            return failed(problems)
        if (unknown := self._unknown_parameters(model, source, settings)) is not None:
            return failed([unknown])
        try:
            result = _solve(rumoca, model, settings)
        except rumoca.RumocaError as error:
            return failed(
                diagnostics.from_rumoca_text(
                    str(error), stage="simulate", files=source.files, model=source.model
                )
            )
        times = [float(t) for t in result.time]
        series = {name: [float(v) for v in result[name]] for name in result.names}
        if (diverged := non_finite(series, self.name)) is not None:
            problems.append(diverged)
        if (early := self._stopped_early(times, settings, result)) is not None:
            problems.append(early)
        return simulation_result(
            source,
            self.name,
            settings,
            started=started,
            problems=problems,
            times=times,
            series=series,
        )

    def _unknown_parameters(
        self, model: Any, source: ModelSource, settings: SimulationSettings
    ) -> Diagnostic | None:
        """An error naming overrides the model has no parameter for (and the ones it has)."""
        known = set(model.parameters.names)
        unknown = sorted(set(settings.parameters) - known)
        if not unknown:
            return None
        return Diagnostic(
            message=(
                f"no parameter {', '.join(unknown)} in {source.model} (its parameters: "
                f"{', '.join(sorted(known)) or 'none'})"
            ),
            stage="simulate",
            backend=self.name,
        )

    def _stopped_early(
        self, times: list[float], settings: SimulationSettings, result: Any
    ) -> Diagnostic | None:
        """An error when the solver gave up before the stop time (rumoca says why, if it can)."""
        end = settings.stop_time - 1e-9 * max(1.0, abs(settings.stop_time))
        if not (times and times[-1] < end):
            return None
        return Diagnostic(
            message=(
                f"integration stopped at t={times[-1]:g} before stop time "
                f"{settings.stop_time:g} ({result.termination or 'no reason given'})"
            ),
            stage="simulate",
            backend=self.name,
        )


def _solve(rumoca: Any, model: Any, settings: SimulationSettings) -> Any:
    """rumoca's result of simulating `model`; raises rumoca.RumocaError."""
    span = settings.stop_time - settings.start_time
    config = rumoca.SimConfig(
        rtol=settings.tolerance,
        atol=settings.tolerance * 1e-2,
        max_wall_seconds=settings.max_wall_s,
    )
    try:
        return model.simulate(
            t=(settings.start_time, settings.stop_time),
            dt=span / settings.intervals,
            config=config,
            params=settings.parameters or None,
        )
    except rumoca.StructuralParamError:
        # a structural parameter (array size, ...) needs a recompiled model
        model = model.with_params(recompile=True, **settings.parameters)
        return model.simulate(
            t=(settings.start_time, settings.stop_time),
            dt=span / settings.intervals,
            config=config,
        )
