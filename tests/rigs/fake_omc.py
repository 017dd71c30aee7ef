"""A FAKE omc for contract tests: speaks the ZMQ protocol OMPython's OMCSessionLocal uses.

OpenModelica cannot be installed here, so this stands in for `omc --interactive=zmq -z=<id>`:
it prints "Dumped server port in file: <path>" to its log, writes the port file, and answers
scripting expressions on a ZMQ REP socket in omc's textual formats (strings, booleans,
`record SimulationResult`, `OpenModelica.Scripting.ErrorMessage` records). Checking and simulating
are delegated to rumoca, so results are real; only the transport and formats are imitated.

Supported: getVersion(), cd("dir"), loadFile("f"), checkModel(M), simulate(M, startTime=,
stopTime=, numberOfIntervals=, tolerance=, outputFormat="csv", simflags="-override=a=1,b=2"),
getMessagesStringInternal(), getErrorString(), quit(). Anything else gets an error record.
`install(folder)` makes `<folder>/bin/omc` so `OMCSessionLocal(omhome=folder)` starts this.
"""

from __future__ import annotations

import csv
import os
import re
import stat
import sys
import tempfile
from pathlib import Path

VERSION = "OMCompiler v1.24.0-FAKE (tests/rigs/fake_omc.py)"


def install(folder: Path) -> Path:
    """Create `<folder>/bin/omc`, a launcher for this fake, and return `folder` (the omhome)."""
    binary = Path(folder) / "bin" / "omc"
    binary.parent.mkdir(parents=True, exist_ok=True)
    root = Path(__file__).resolve().parents[2]
    binary.write_text(
        f"#!/bin/sh\nPYTHONPATH={root}${{PYTHONPATH:+:$PYTHONPATH}} "
        f'exec {sys.executable} -m tests.rigs.fake_omc "$@"\n'
    )
    binary.chmod(binary.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return Path(folder)


def omc_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def error_record(
    message: str,
    file: str = "",
    line: int = 0,
    column: int = 0,
    kind: str = "translation",
    level: str = "error",
    number: int = 1,
) -> str:
    # the exact layout OMPython's regular expressions expect
    return (
        "record OpenModelica.Scripting.ErrorMessage\n"
        "    info = record OpenModelica.Scripting.SourceInfo\n"
        f'    filename = "{file}",\n'
        "    readonly = false,\n"
        f"    lineStart = {line},\n"
        f"    columnStart = {column},\n"
        f"    lineEnd = {line},\n"
        f"    columnEnd = {column}\n"
        "  end OpenModelica.Scripting.SourceInfo;,\n"
        f'    message = "{message.replace(chr(34), chr(39))}",\n'
        f"    kind = .OpenModelica.Scripting.ErrorKind.{kind},\n"
        f"    level = .OpenModelica.Scripting.ErrorLevel.{level},\n"
        f"    id = {number}\n"
        "  end OpenModelica.Scripting.ErrorMessage;"
    )


class FakeOmc:
    def __init__(self) -> None:
        self.files: list[Path] = []
        self.messages: list[str] = []
        self.cwd = Path.cwd()

    def error(self, diagnostic) -> None:  # type: ignore[no-untyped-def]
        kind = "syntax" if diagnostic.stage == "parse" else "translation"
        self.messages.append(
            error_record(
                diagnostic.message,
                diagnostic.file or "",
                diagnostic.line or 0,
                diagnostic.column or 0,
                kind=kind,
            )
        )

    def source(self, model: str):  # type: ignore[no-untyped-def]
        from workbench_plugins.modelica.backend_base import ModelSource

        short = model.rsplit(".", 1)[-1]
        first = [
            f for f in self.files if re.search(rf"\b(model|block|class)\s+{short}\b", f.read_text())
        ]
        ordered = first[:1] + [f for f in self.files if f not in first[:1]]
        return ModelSource(files=ordered, model=model)

    def answer(self, expression: str) -> str:
        from workbench_plugins.modelica.backend_base import SimulationSettings
        from workbench_plugins.modelica.rumoca_backend import RumocaBackend

        expression = expression.strip()
        if expression == "getVersion()":
            return omc_string(VERSION)
        if expression in ("getMessagesStringInternal()", "getErrorString()"):
            text = "{" + ",\n".join(self.messages) + "}\n" if self.messages else "{}\n"
            self.messages = []
            return text if expression.startswith("getMessages") else '""'
        if match := re.fullmatch(r'cd\("(.*)"\)', expression):
            self.cwd = Path(match.group(1))
            return omc_string(str(self.cwd))
        if match := re.fullmatch(r'loadFile\("(.*)"\)', expression):
            path = Path(match.group(1))
            if not path.is_file():
                self.messages.append(error_record(f"Failed to open file {path}", kind="scripting"))
                return "false\n"
            self.files.append(path)
            return "true\n"
        if match := re.fullmatch(r"checkModel\(([\w.]+)\)", expression):
            result = RumocaBackend().check(self.source(match.group(1)))
            for diagnostic in result.diagnostics:
                self.error(diagnostic)
            if not result.ok or result.structure is None:
                return '""\n'
            s = result.structure
            return omc_string(
                f"Check of {match.group(1)} completed successfully.\n"
                f"Class {match.group(1)} has {s.equations} equation(s) and {s.unknowns} "
                "variable(s).\n0 of these are trivial equation(s)."
            )
        if match := re.fullmatch(r"simulate\(([\w.]+)(.*)\)", expression, re.DOTALL):
            return self.simulate(match.group(1), match.group(2), RumocaBackend, SimulationSettings)
        self.messages.append(
            error_record(f"FAKE omc does not implement: {expression}", kind="scripting")
        )
        return '""\n'

    def simulate(self, model, options, backend, settings_type) -> str:  # type: ignore[no-untyped-def]
        def number(name: str, default: float) -> float:
            found = re.search(rf"\b{name}\s*=\s*([-+0-9.eE]+)", options)
            return float(found.group(1)) if found else default

        parameters = {}
        if flags := re.search(r'simflags\s*=\s*"-override=([^"]*)"', options):
            for item in filter(None, flags.group(1).split(",")):
                key, value = item.split("=", 1)
                parameters[key.strip()] = float(value)
        settings = settings_type(
            start_time=number("startTime", 0.0),
            stop_time=number("stopTime", 1.0),
            intervals=int(number("numberOfIntervals", 500)),
            tolerance=number("tolerance", 1e-6),
            parameters=parameters,
        )
        result = backend().simulate(self.source(model), settings)
        if not result.ok:
            for diagnostic in result.diagnostics:
                self.error(diagnostic)
            messages = "Simulation execution failed for model: " + model
            return (
                f'record SimulationResult\n    resultFile = "",\n    simulationOptions = "",\n'
                f"    messages = {omc_string(messages)}\nend SimulationResult;\n"
            )
        path = self.cwd / f"{model}_res.csv"
        with path.open("w", newline="") as handle:
            writer = csv.writer(handle)
            names = list(result.series)
            writer.writerow(["time", *names, *(f"der({n})" for n in names[:1])])
            for index, t in enumerate(result.time):
                row = [result.series[n][index] for n in names]
                writer.writerow([t, *row, 0.0][: 2 + len(names)] if names else [t])
        return (
            "record SimulationResult\n"
            f"    resultFile = {omc_string(str(path))},\n"
            f"    simulationOptions = \"stopTime = {settings.stop_time}, outputFormat = 'csv'\",\n"
            '    messages = "LOG_SUCCESS       | info    | '
            'The simulation finished successfully.\n",\n'
            "    timeFrontend = 0.001,\n    timeTotal = 0.002\nend SimulationResult;\n"
        )


def main(argv: list[str]) -> int:
    import zmq

    token = next((a.split("=", 1)[1] for a in argv if a.startswith("-z=")), "fake")
    if "--interactive=zmq" not in argv:
        print("FAKE omc supports only --interactive=zmq", file=sys.stderr)
        return 2
    socket = zmq.Context.instance().socket(zmq.REP)
    port = socket.bind_to_random_port("tcp://127.0.0.1")
    portfile = Path(tempfile.gettempdir()) / f"openmodelica.{os.getuid()}.port.{token}"
    portfile.write_text(f"tcp://127.0.0.1:{port}")
    # OMPython looks for "\nDumped server port in file: ..." (with the newline before it)
    print(f"\nDumped server port in file: {portfile}", flush=True)
    fake = FakeOmc()
    try:
        while True:
            expression = socket.recv_string()
            if expression.strip() == "quit()":
                break  # OMPython closes its socket without waiting for a reply
            try:
                reply = fake.answer(expression)
            except Exception as error:  # a bug in the fake must not hang the client
                fake.messages.append(error_record(f"FAKE omc crashed: {error}", kind="scripting"))
                reply = '""\n'
            socket.send_string(reply)
    finally:
        portfile.unlink(missing_ok=True)
        socket.close(linger=0)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
