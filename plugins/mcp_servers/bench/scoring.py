"""Sealing and scoring one cell: the MCP answers go to `<cell>/mcp_results.json`, and the scores
come from that file's bytes (its sha256 in the record) and from the server's own store.

`faithful` is 1 only when all of these hold:
- the file holds N answers, none an error, each one's text saying what its structured result says;
- each answer equals the direct result of the same call, on every field that must agree
  (`comparable`);
- the server's store (its workspace under the cell's server home) holds exactly N calls of the
  tool, each from `mcp:<the plugin's client name>`, ok, with the task's arguments, and their
  recorded results are the file's answers, in order.
"""

from __future__ import annotations

import hashlib
import json
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.core.store import DATABASE_NAME, Store, ToolCallRecord
from workbench_plugins.mcp_servers.bench.policies import (
    CLIENT_NAME,
    Played,
    as_json,
    server_workspace,
)

RESULTS = "mcp_results.json"
# Fields that legitimately differ between two workspaces calling the same tool: the job's
# number counts the jobs of its process, and a wall-clock time is a measurement
VARYING_FIELDS = frozenset({"job_id", "elapsed_s"})
WORKSPACE = "<workspace>"  # what a workspace's own folder becomes in a path it returns


def seal(folder: Path, played: Played, tool: str, arguments: dict[str, Any], policy: str) -> Path:
    """Write the answers a policy claims for the server into the cell's results file."""
    document = {
        "tool": tool,
        "arguments": arguments,
        "policy": policy,
        "client": CLIENT_NAME,
        "server_workspace": str(server_workspace(folder).relative_to(folder.resolve())),
        "answers": [
            {"ms": a.ms, "is_error": a.is_error, "result": a.result, "text": a.text}
            for a in played.answers
        ],
    }
    path = folder / RESULTS
    path.write_text(json.dumps(document, indent=1, sort_keys=True), encoding="utf-8")
    return path


@dataclass(frozen=True)
class Verdict:
    faithful: bool
    problems: list[str]  # why not, in words
    sha256: str  # of the file the scores came from
    mcp_ms: list[float]  # the timings of the answers that are not errors, from the file
    server_calls: int  # the tool's calls in the server's store


def judge(
    folder: Path,
    tool: str,
    arguments: dict[str, Any],
    count: int,
    direct: list[dict[str, Any]],
    direct_workspace: Path,
) -> Verdict:
    """The verdict on `<folder>/mcp_results.json` as it is now."""
    path = folder / RESULTS
    if not path.is_file():
        return Verdict(False, [f"no {RESULTS}"], "", [], 0)
    data = path.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    answers = json.loads(data)["answers"]
    results = [answer["result"] for answer in answers]
    problems = _answer_problems(answers, count)
    problems += _direct_problems(results, direct, server_workspace(folder), direct_workspace)
    recorded, store_problems = _server_calls(folder, tool, arguments)
    problems += store_problems
    if recorded is not None:
        problems += _store_problems(recorded, results, count)
    # only answers that succeeded are timed: an error's time measures no round trip
    mcp_ms = [float(a["ms"]) for a in answers if not a["is_error"] and a["result"] is not None]
    return Verdict(not problems, problems, digest, mcp_ms, len(recorded or []))


def _answer_problems(answers: list[dict[str, Any]], count: int) -> list[str]:
    problems = [] if len(answers) == count else [f"{len(answers)} answers, not {count}"]
    for number, answer in enumerate(answers, start=1):
        if answer["is_error"] or answer["result"] is None:
            problems.append(f"answer {number} is an error: {answer['text'][:200]}")
            continue
        try:
            said = json.loads(answer["text"])
        except json.JSONDecodeError:
            said = None
        if said != answer["result"]:
            problems.append(f"answer {number}: its text does not say what its result says")
    return problems


def _direct_problems(
    results: list[Any], direct: list[dict[str, Any]], server: Path, own: Path
) -> list[str]:
    problems = []
    for number, (result, expected) in enumerate(zip(results, direct, strict=False), start=1):
        where = difference(comparable(result, server), comparable(expected, own))
        if where is not None:
            problems.append(f"answer {number} differs from the direct call at {where}")
    return problems


def _server_calls(
    folder: Path, tool: str, arguments: dict[str, Any]
) -> tuple[list[ToolCallRecord] | None, list[str]]:
    """The tool's calls in the server's store, read after the server exited (opening a Store
    on a missing file would create one: a server that never ran has no store)."""
    workspace = server_workspace(folder)
    if not (workspace / DATABASE_NAME).is_file():
        return None, [f"the server's store ({workspace}) does not exist: no call reached it"]
    store = Store(workspace)
    try:
        recorded = store.tool_calls(tool)
    finally:
        store.close()
    caller = f"mcp:{CLIENT_NAME}"
    problems = []
    for row in recorded:
        if row["caller"] != caller or not row["ok"] or row["arguments"] != as_json(arguments):
            problems.append(
                f"the server's call {row['id']} of {tool} is not ours: caller "
                f"{row['caller']!r}, ok {row['ok']}, arguments {row['arguments']}"
            )
    return recorded, problems


def _store_problems(recorded: list[ToolCallRecord], results: list[Any], count: int) -> list[str]:
    problems = []
    if len(recorded) != count:
        problems.append(f"the server recorded {len(recorded)} calls, not {count}")
    for number, (row, result) in enumerate(zip(recorded, results, strict=False), start=1):
        where = difference(result, row["result"])
        if where is not None:
            problems.append(f"answer {number} is not what the server recorded, at {where}")
    return problems


def comparable(value: Any, workspace: Path) -> Any:
    """`value` without what differs between two workspaces: the varying fields (top level) go,
    and the workspace's folder in a path becomes `<workspace>`."""
    prefixes = sorted({str(workspace), str(workspace.resolve())}, key=len, reverse=True)

    def clean(item: Any) -> Any:
        if isinstance(item, dict):
            return {key: clean(inner) for key, inner in item.items()}
        if isinstance(item, list):
            return [clean(inner) for inner in item]
        if isinstance(item, str):
            for prefix in prefixes:
                item = item.replace(prefix, WORKSPACE)
        return item

    if isinstance(value, dict):
        value = {key: inner for key, inner in value.items() if key not in VARYING_FIELDS}
    return clean(value)


def difference(got: Any, expected: Any, where: str = "") -> str | None:
    """Where `got` first differs from `expected` ("results.note", "[3]"), None when equal."""
    if isinstance(got, dict) and isinstance(expected, dict):
        for key in sorted(set(got) | set(expected)):
            if key not in got or key not in expected:
                return f"{where}.{key} (present in one only)"
            found = difference(got[key], expected[key], f"{where}.{key}")
            if found is not None:
                return found
        return None
    if isinstance(got, list) and isinstance(expected, list):
        if len(got) != len(expected):
            return f"{where or 'the result'} ({len(got)} items, not {len(expected)})"
        for index, (one, other) in enumerate(zip(got, expected, strict=True)):
            found = difference(one, other, f"{where}[{index}]")
            if found is not None:
                return found
        return None
    if got != expected or type(got) is not type(expected):
        return f"{where or 'the result'} ({_contrast(got, expected)})"
    return None


def _contrast(got: Any, expected: Any, width: int = 50) -> str:
    """The two values side by side, two texts from a little before where they part."""
    one, other = json.dumps(got, default=str), json.dumps(expected, default=str)
    if isinstance(got, str) and isinstance(expected, str):
        same = next(
            (i for i, (a, b) in enumerate(zip(one, other, strict=False)) if a != b),
            min(len(one), len(other)),
        )
        start = max(0, same - 10)
        one, other = ("…" + text[start:] if start else text for text in (one, other))
    return f"{_cut(one, width)} vs {_cut(other, width)}"


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def scores_of(verdict: Verdict, played: Played) -> dict[str, float]:
    """The cell's numbers: timings are medians (ms) over its calls, the MCP ones from the file
    (answers that succeeded only; none: 0, and the overhead and ratio with them)."""
    mcp = statistics.median(verdict.mcp_ms) if verdict.mcp_ms else 0.0
    direct = statistics.median(played.direct_ms) if played.direct_ms else 0.0
    return {
        "faithful": float(verdict.faithful),
        "mcp_ms": round(mcp, 4),
        "direct_ms": round(direct, 4),
        "overhead_ms": round(mcp - direct, 4) if verdict.mcp_ms else 0.0,
        "ratio": round(mcp / direct, 4) if direct > 0 and verdict.mcp_ms else 0.0,
        "start_s": round(played.start_s, 4),
        "calls": float(len(played.direct_ms)),
    }
