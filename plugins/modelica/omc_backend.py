"""OpenModelica's omc through OMPython (>= 4.0): `OMCSessionLocal` and omc's scripting API.

We drive omc with scripting expressions (`loadFile`, `checkModel`, `simulate(..., outputFormat=
"csv")`) over an `OMCSessionLocal`. `ModelicaSystemOMC` wraps the same calls but then runs the
generated executable and parses its init XML itself; going through omc's own `simulate` keeps one
session, gives omc's messages and source positions directly, and keeps the protocol small enough
to contract-test against a fake omc (tests/rigs/fake_omc.py). omc is not installable here.
"""

from __future__ import annotations

import csv
import re
import tempfile
import time
from pathlib import Path
from typing import Any

from workbench_plugins.modelica import diagnostics
from workbench_plugins.modelica.backend_base import (
    Backend,
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

_COUNTS = re.compile(r"has (?P<eq>\d+) equation\(s\) and (?P<var>\d+) variable\(s\)")
_NAME = re.compile(r"^[A-Za-z_][\w.]*$")


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


class OmcBackend(Backend):
    name = "omc"

    def __init__(self, omc_home: str | None = None, timeout: float = 30.0) -> None:
        self.omc_home = omc_home
        self.timeout = timeout

    def available(self) -> tuple[bool, str]:
        try:
            import OMPython
        except ImportError:
            return False, "OMPython is not installed: pip install 'OMPython>=4.0'"
        try:
            home = OMPython.OMCSessionLocal._omc_home_get(omhome=self.omc_home)
        except Exception as error:
            return False, f"{error} (or set omc_home in the Modelica settings)"
        if not (home / "bin" / "omc").exists():
            return False, f"no omc in {home / 'bin'}; install OpenModelica or fix omc_home"
        return True, f"omc in {home / 'bin'}"

    def _session(self) -> Any:
        import OMPython

        return OMPython.OMCSessionLocal(omhome=self.omc_home, timeout=self.timeout)

    def _send(self, session: Any, expression: str, stage: Any) -> tuple[Any, list[Diagnostic]]:
        """(result, diagnostics); omc errors come back through OMSessionException's text."""
        import OMPython

        try:
            return session.sendExpression(expression), []
        except OMPython.OMSessionException as error:
            return None, diagnostics.from_omc_exception(str(error), stage=stage)

    def _load(self, session: Any, source: ModelSource) -> list[Diagnostic]:
        """Load the libraries, then the source's packages (by package.mo) and files: no more."""
        problems: list[Diagnostic] = []
        for library in source.libraries:
            for target in library_entries(Path(library)):
                problems += self._send(session, f'loadFile("{_escape(str(target))}")', "load")[1]
        standalone, packages = what_to_load(source.files)
        # a file inside a package folder is loaded with its package, as omc expects for `within`
        for path in [*(folder / "package.mo" for folder in packages), *standalone]:
            loaded, found = self._send(session, f'loadFile("{_escape(str(path))}")', "load")
            problems += found
            if loaded is False and not found:
                problems.append(
                    Diagnostic(message=f"omc could not load {path}", stage="load", backend="omc")
                )
        return problems

    def check(self, source: ModelSource) -> CheckResult:
        if not _NAME.match(source.model):
            return CheckResult(
                ok=False,
                model=source.model,
                backend=self.name,
                diagnostics=[Diagnostic(message=f"not a model name: {source.model!r}")],
            )
        counts = None
        session = self._session()
        try:
            problems = self._load(session, source)
            if not problems:
                text, found = self._send(session, f"checkModel({source.model})", "check")
                problems += found
                counts = _COUNTS.search(text or "")
                if counts is None and not found:
                    problems.append(
                        Diagnostic(message=text or "checkModel failed", backend=self.name)
                    )
        finally:
            del session  # OMPython quits omc in __del__
        structure = None
        if not problems and counts is not None:
            equations, unknowns = int(counts.group("eq")), int(counts.group("var"))
            structure = Structure(
                equations=equations, unknowns=unknowns, balanced=equations == unknowns
            )
        ok = not has_errors(problems)
        return CheckResult(
            ok=ok, model=source.model, backend=self.name, diagnostics=problems, structure=structure
        )

    def simulate(self, source: ModelSource, settings: SimulationSettings) -> SimulationResult:
        started = time.perf_counter()
        problems: list[Diagnostic] = []
        series: dict[str, list[float]] = {}
        times: list[float] = []
        overrides = ",".join(f"{k}={v!r}" for k, v in settings.parameters.items())
        session = self._session()
        try:
            with tempfile.TemporaryDirectory(prefix="wb-omc-") as folder:
                self._send(session, f'cd("{_escape(folder)}")', "simulate")
                problems += self._load(session, source)
                if not problems:
                    expression = (
                        f"simulate({source.model}, startTime={settings.start_time!r}, "
                        f"stopTime={settings.stop_time!r}, "
                        f"numberOfIntervals={settings.intervals}, "
                        f'tolerance={settings.tolerance!r}, outputFormat="csv"'
                        + (f', simflags="-override={overrides}"' if overrides else "")
                        + ")"
                    )
                    record, found = self._send(session, expression, "simulate")
                    problems += found
                    record = record if isinstance(record, dict) else {}
                    result_file = str(record.get("resultFile", ""))
                    messages = str(record.get("messages", ""))
                    if result_file and Path(result_file).is_file():
                        times, series = _read_csv(Path(result_file))
                    elif not found:
                        problems.append(
                            Diagnostic(
                                message=messages.strip() or "omc produced no result file",
                                stage="simulate",
                                backend=self.name,
                            )
                        )
        finally:
            del session
        if (diverged := non_finite(series, self.name)) is not None:
            problems.append(diverged)
        return simulation_result(
            source,
            self.name,
            settings,
            started=started,
            problems=problems,
            times=times,
            series=series,
            ok=bool(times) and not has_errors(problems),  # no result file is a failure too
        )


def library_entries(library: Path) -> list[Path]:
    """What loads a library folder: its package.mo if it is a package, else (a MODELICAPATH
    folder) each top-level package: `Name/package.mo` and single-file `Name.mo`."""
    if (library / "package.mo").is_file():
        return [library / "package.mo"]
    return sorted([*library.glob("*/package.mo"), *library.glob("*.mo")])


def _read_csv(path: Path) -> tuple[list[float], dict[str, list[float]]]:
    """omc's CSV result: a header of names, `time` first; derivatives and internals skipped."""
    with path.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    header = [name.strip().strip('"') for name in rows[0]]
    columns = list(zip(*[[float(x) for x in row] for row in rows[1:] if row], strict=True))
    data = dict(zip(header, columns, strict=True))
    times = list(data.pop("time"))
    series = {
        name: list(values)
        for name, values in data.items()
        if not name.startswith(("der(", "$")) and not name.startswith("_")
    }
    return times, series
