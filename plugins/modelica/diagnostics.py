"""Map what the backends say into `Diagnostic`s: message, severity, stage, file and line.

rumoca reports syntax errors with a source excerpt (`╭─[file:line:col]`) but semantic errors
("unresolved component reference: 'y'", "unbalanced model: 1 equations, 2 unknowns") without a
location. For those we search the source: the first line using the unresolved name, or the line
declaring the model for a balance problem, marked `located_by="search"` so nobody mistakes it for
the backend's own location. omc reports `ErrorMessage` records with full source info.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from workbench_plugins.modelica.backend_base import Diagnostic, Severity, Stage

_EXCERPT = re.compile(
    r"\u00d7\s*(?P<message>[^\n]+)\n\s*╭─\[(?P<file>[^\]\n]+?):(?P<line>\d+):(?P<col>\d+)\]"
)
_HELP = re.compile(r"help:\s*(?P<help>[^\n]+)")
_RELATED = re.compile(r"^- (?P<where>.+?) \[(?P<phase>\w+)\]: (?P<message>.+)$", re.MULTILINE)
_UNRESOLVED = re.compile(r"unresolved (?:component|type) reference: '(?P<name>[^']+)'")
_UNBALANCED = re.compile(r"unbalanced model: (?P<eq>\d+) equations, (?P<unk>\d+) unknowns")
_SEVERITY: dict[str, Severity] = {
    "error": "error",
    "warning": "warning",
    "note": "note",
    "help": "note",
    "notification": "note",
    "internal": "error",
}


def from_rumoca_text(
    text: str, *, stage: Stage, files: Iterable[Path] = (), model: str = ""
) -> list[Diagnostic]:
    """Diagnostics from the text of a rumoca error (parse, compile or simulation)."""
    sources = [Path(f) for f in files]
    found: list[Diagnostic] = []
    excerpts = list(_EXCERPT.finditer(text))
    if excerpts:  # syntax errors: rumoca gives file, line and column itself
        helps = [m.group("help").strip() for m in _HELP.finditer(text)]
        for index, match in enumerate(excerpts):
            hint = f" ({helps[index]})" if index < len(helps) else ""
            found.append(
                Diagnostic(
                    message=match.group("message").strip() + hint,
                    stage="parse",
                    file=match.group("file"),
                    line=int(match.group("line")),
                    column=int(match.group("col")),
                    backend="rumoca",
                    located_by="backend",
                )
            )
        return found
    related = [m for m in _RELATED.finditer(text)]
    messages = [m.group("message").strip() for m in related] or [_headline(text)]
    seen: set[str] = set()
    for raw in messages:
        # "B failed in ToDae: unbalanced model: ...; unknowns[...]" -> the part a person needs
        message = re.sub(r"^\S+ failed in \w+: ", "", raw).split("; unknowns[", 1)[0]
        if message in seen:
            continue
        seen.add(message)
        parse = message.startswith("unexpected") or "syntax" in message
        diagnostic = Diagnostic(
            message=message, stage="parse" if parse else stage, backend="rumoca"
        )
        found.append(locate(diagnostic, sources, model))
    return found


def from_rumoca_diagnostics(items: Iterable[object]) -> list[Diagnostic]:
    """Diagnostics from rumoca's `validate()` records (syntax and lint)."""
    found: list[Diagnostic] = []
    for item in items:
        text = str(getattr(item, "message", ""))
        parsed = from_rumoca_text(text, stage="parse")
        level = _SEVERITY.get(str(getattr(item, "level", "error")), "error")
        if parsed and "╭─[" in text:
            found += [d.model_copy(update={"severity": level}) for d in parsed]
            continue
        found.append(
            Diagnostic(
                message=text.strip(),
                severity=level,
                stage="parse",
                file=getattr(item, "file", None),
                line=getattr(item, "line", None),
                column=getattr(item, "column", None),
                backend="rumoca",
                located_by="backend" if getattr(item, "line", None) else "",
            )
        )
    return found


def _headline(text: str) -> str:
    first = text.strip().splitlines()[0] if text.strip() else "unknown error"
    # "M could not be compiled: <reason>" / "todae failed: M failed in ToDae: <reason>"
    return first.split(": ", 1)[1] if ": " in first and "failed" in first.split(": ")[0] else first


def locate(diagnostic: Diagnostic, files: list[Path], model: str) -> Diagnostic:
    """`diagnostic` with the source line it most likely means, if a search finds one."""
    unresolved = _UNRESOLVED.search(diagnostic.message)
    if unresolved:
        name = unresolved.group("name")
        pattern = re.compile(rf"(?<![\w.]){re.escape(name)}(?![\w])")
        return _first_match(diagnostic, files, pattern, skip_comments=True)
    if _UNBALANCED.search(diagnostic.message) and model:
        short = model.rsplit(".", 1)[-1]
        pattern = re.compile(rf"^\s*(?:partial\s+)?(?:model|block|class)\s+{re.escape(short)}\b")
        return _first_match(diagnostic, files, pattern)
    return diagnostic


def _first_match(
    diagnostic: Diagnostic, files: list[Path], pattern: re.Pattern[str], skip_comments: bool = False
) -> Diagnostic:
    for path in files:
        try:
            lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            continue
        for number, line in enumerate(lines, start=1):
            code = line.split("//", 1)[0] if skip_comments else line
            match = pattern.search(code)
            if match:
                return diagnostic.model_copy(
                    update={
                        "file": str(path),
                        "line": number,
                        "column": match.start() + 1,
                        "located_by": "search",
                    }
                )
    return diagnostic


# -- OpenModelica ------------------------------------------------------------------------------
_OMC_RECORD = re.compile(
    r"record OpenModelica\.Scripting\.ErrorMessage(.*?)end OpenModelica\.Scripting\.ErrorMessage;",
    re.DOTALL,
)
_OMC_FIELDS = re.compile(
    r'filename = "(?P<file>.*?)",.*?lineStart = (?P<line>\d+),\s*columnStart = (?P<col>\d+),'
    r'.*?message = "(?P<message>.*?)",'
    r"\s*kind = \.OpenModelica\.Scripting\.ErrorKind\.(?P<kind>\w+),"
    r"\s*level = \.OpenModelica\.Scripting\.ErrorLevel\.(?P<level>\w+)",
    re.DOTALL,
)
_OMC_LONG = re.compile(
    r"\[(?P<kind>\w+):(?P<level>\w+):\d+\] \[(?P<file>[^:\]]*):[^:]*:(?P<line>\d+):(?P<col>\d+):"
    r"\d+:\d+\] (?P<message>.*)"
)


def from_omc_messages(text: str, *, stage: Stage) -> list[Diagnostic]:
    """Diagnostics from omc's `getMessagesStringInternal()` records."""
    found = []
    for record in _OMC_RECORD.findall(text):
        match = _OMC_FIELDS.search(record)
        if match:
            found.append(_omc_diagnostic(match, stage))
    return found


def from_omc_exception(text: str, *, stage: Stage) -> list[Diagnostic]:
    """Diagnostics from the text of an `OMSessionException` (OMPython's `msg_long` lines)."""
    found = [_omc_diagnostic(m, stage) for m in _OMC_LONG.finditer(text)]
    found.sort(key=lambda d: (d.file or "", d.line or 0))  # OMPython lists them newest first
    if not found:
        found.append(Diagnostic(message=text.strip(), stage=stage, backend="omc"))
    return found


def _omc_diagnostic(match: re.Match[str], stage: Stage) -> Diagnostic:
    line = int(match.group("line"))
    kind = match.group("kind")
    return Diagnostic(
        message=match.group("message").encode().decode("unicode_escape").strip(),
        severity=_SEVERITY.get(match.group("level"), "error"),
        stage="parse" if kind == "syntax" else stage,
        file=match.group("file") or None,
        line=line or None,
        column=int(match.group("col")) or None,
        backend="omc",
        located_by="backend" if line else "",
    )
