"""The rule every suite's score follows: only work that succeeded counts, and a score bound to an
artifact (a design's sha256, submitted bytes, a sealed file) counts only while the binding holds.

A suite returns a `CellResult` (scores and details apart, with the bindings its headline scores
rest on); the executor records `result.gated()`, so a broken binding zeroes the headline instead
of sitting beside it as a column nobody reads. Scorers read tool calls through `succeeded`.

The two policies that cheat, which every suite scoring an agent's tool use offers as models and
whose headline must be 0 (`CHEATS`):
- `offtarget:fails-every-call`: makes the reference's calls, each with arguments the registry
  refuses (`play_refused`);
- `offtarget:claims-without-work`: calls no tool and ends with a message stating the reference's
  values as if obtained (`claim_run`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import ValidationError

from workbench.bench.cell_result import Binding, CellResult, sha256_file
from workbench.bench.tool_calls import HarnessFailure, PolicyRun, ToolCall
from workbench.core.context import AppContext

FAILS_EVERY_CALL = "offtarget:fails-every-call"
CLAIMS_WITHOUT_WORK = "offtarget:claims-without-work"
__all__ = ["Binding", "CellResult", "claim_run", "play_refused", "sha256_file", "succeeded"]
CHEATS = (FAILS_EVERY_CALL, CLAIMS_WITHOUT_WORK)
CHEAT_ABOUT = {
    FAILS_EVERY_CALL: "makes the reference's calls, each with arguments the registry refuses",
    CLAIMS_WITHOUT_WORK: "calls no tool and states the reference's results as if obtained",
}
# a value no tool argument of a scalar, string or mapping type accepts
_REFUSED_VALUE: Any = [[{"refused": True}]]
_UNKNOWN_ARGUMENT = "__not_an_argument__"


def succeeded(calls: Iterable[ToolCall]) -> list[ToolCall]:
    """The calls that count toward a score: those that succeeded, in order."""
    return [call for call in calls if call.ok]


# -- the two policies that cheat -----------------------------------------------------------------
def refused_arguments(app: AppContext, tool: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
    """`arguments` changed so that the registry refuses them for `tool` (checked against the
    tool's own argument model): every given value replaced by one of the wrong type, and an
    argument the tool does not have. HarnessFailure when no such change is refused."""
    spec = app.registry.get(tool)
    if spec is None:
        raise HarnessFailure(f"{FAILS_EVERY_CALL}: the tool {tool} is not registered")
    candidates = (
        {name: _REFUSED_VALUE for name in arguments},
        {**{name: _REFUSED_VALUE for name in arguments}, _UNKNOWN_ARGUMENT: _REFUSED_VALUE},
        {name: _REFUSED_VALUE for name in spec.args.model_fields},
    )
    for candidate in candidates:
        try:
            spec.args.model_validate(candidate)
        except ValidationError:
            return candidate
    raise HarnessFailure(f"{FAILS_EVERY_CALL}: no arguments of {tool} are refused")


def play_refused(
    app: AppContext, caller: str, calls: Iterable[tuple[str, Mapping[str, Any]]]
) -> PolicyRun:
    """Make each of the reference's calls with arguments the registry refuses, through the
    registry as any caller would; each call's refusal is recorded. A call that went through
    anyway is a harness failure (the policy must not have done work)."""
    run = PolicyRun(answer="Done: every step completed.")
    for name, arguments in calls:
        refused = refused_arguments(app, name, arguments)
        outcome = app.registry.call(name, refused, caller=caller, confirmed=True)
        if outcome.ok:
            raise HarnessFailure(f"{FAILS_EVERY_CALL}: {name} accepted {refused}")
        error = outcome.error.explain() if outcome.error else "refused"
        run.calls.append(ToolCall(name, refused, False, None))
        run.texts.append(error)
    run.texts.append(run.answer)
    return run


def claim_run(answer: str, calls: Iterable[ToolCall] = ()) -> PolicyRun:
    """A run that did no work (no tool, or only the read-only `calls` it was given) and ends
    with `answer`: the reference's values stated as if obtained."""
    run = PolicyRun(answer=answer, calls=list(calls))
    run.texts.append(answer)
    return run
