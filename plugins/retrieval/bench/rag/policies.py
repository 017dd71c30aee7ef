"""Who plays a rag-beams2d cell.

- `reference`: searches each lookup's query, reads the value out of the first passage about the
  lookup's subject that is not marked superseded, then optimises with what it read. Where no
  search tool is offered, or no passage states the value, it keeps the default (as a careful
  agent would), so it scores 0 parameter accuracy with RAG off.
- `offtarget:guess-defaults`: never searches; optimises with Beams2D's defaults.
- `offtarget:distractor`: searches like the reference but takes the superseded passage's value.
- `offtarget:fails-every-call` and `offtarget:claims-without-work` (workbench.bench.earned): the
  reference's calls each refused by the registry, or no call and a final message stating the
  documents' values and a design as if obtained. Both must score 0.
- any other model spec: the agent on the prompt (the condition's specialists and tools only).

Direct policies call tools through the registry by name, as the agent and the GUI do
(optimize_design belongs to the topopt plugin: never imported).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from workbench.bench import AgentBudget, tool_calls
from workbench.bench.earned import CHEATS, CLAIMS_WITHOUT_WORK, claim_run, play_refused
from workbench.bench.tool_calls import (
    HarnessFailure,
    RecordingToolCaller,
    agent_limits,
    run_agent_cell,
)
from workbench.bench.tool_calls import is_direct as is_direct  # the suite asks who plays a cell
from workbench.core.context import AppContext
from workbench_plugins.retrieval.bench.rag.conditions import hidden_specialists
from workbench_plugins.retrieval.bench.rag.prompts import DEFAULTS, Lookup, RagPrompt
from workbench_plugins.retrieval.bench.rag.scoring import OPTIMIZE_TOOL, SEARCH_TOOL

DIRECT_MAX_ITER = 5  # the direct policies' optimiser iterations: the score reads parameters only
NUM_RESULTS = 8
AGENT_MAX_MODEL_CALLS = 16  # P3's optimal run is ~9 model calls (hand-offs, 2 searches, design)
NO_CLARIFICATION = (
    "No one can answer questions in this run: use the indexed documents and keep every other "
    "parameter at its default."
)
OFF_TARGET = {
    "guess-defaults": "optimises with Beams2D's defaults without searching",
    "distractor": "searches, then takes the superseded passage's value",
}
# Where a value is written: the parameter's name or symbol, an optional "(symbol)", then the
# number, with at most a linking word between (search snippets may [bracket] matched words).
NAMES = {
    "volfrac": r"volume fraction|volfrac",
    "forcedist": r"force position|force distribution|forcedist",
    "rmin": r"filter radius|rmin",
}
SUPERSEDED = re.compile(r"\b(superseded|withdrawn|obsolete)\b", re.IGNORECASE)


@dataclass
class PolicyRun(tool_calls.PolicyRun):
    read_from: list[dict[str, Any]] = field(default_factory=list)  # where each value was read


def value_in(text: str, parameter: str) -> float | None:
    """The number the passage states for `parameter`, or None."""
    plain = text.replace("[", "").replace("]", "")
    pattern = rf"\b(?:{NAMES[parameter]})\s*(?:\((?:\w+)\)\s*)?(?:of|=|:|is|was)?\s*(\d+(?:\.\d+)?)"
    found = re.search(pattern, plain, re.IGNORECASE)
    return float(found.group(1)) if found else None


SUBJECT_REACH = 300  # characters after a mention of the subject in which its value is read


def _value_after_subject(plain: str, lookup: Lookup) -> float | None:
    """The value stated soon after a mention of the subject: a whole passage can also name
    another subject's value (the guide's CB-7 section mentions TC-3 after CB-7's volfrac)."""
    lowered, subject = plain.lower(), lookup.subject.lower()
    start = lowered.find(subject)
    while start >= 0:
        value = value_in(plain[start : start + SUBJECT_REACH], lookup.parameter)
        if value is not None:
            return value
        start = lowered.find(subject, start + 1)
    return None


def read_value(
    passages: list[dict[str, Any]], lookup: Lookup, superseded: bool
) -> dict[str, Any] | None:
    """The first passage (best rank first) about the lookup's subject, superseded or not as
    asked, that states a value for its parameter: {value, source, page, rank}."""
    for passage in passages:
        text = str(passage.get("text", ""))
        plain = text.replace("[", "").replace("]", "")
        if lookup.subject.lower() not in plain.lower():
            continue
        if bool(SUPERSEDED.search(plain)) != superseded:
            continue
        value = _value_after_subject(plain, lookup)
        if value is not None:
            keys = ("source", "page", "rank")
            return {
                "parameter": lookup.parameter,
                "value": value,
                **{k: passage.get(k) for k in keys},
            }
    return None


def play_direct(model: str, task: RagPrompt, app: AppContext, seed: int) -> PolicyRun:
    if model in CHEATS:
        return play_cheat(model, task, app, seed)
    mistake = model.removeprefix("offtarget:") if model.startswith("offtarget:") else ""
    if mistake and mistake not in OFF_TARGET:
        known = ", ".join([*(f"offtarget:{name}" for name in OFF_TARGET), *CHEATS])
        raise HarnessFailure(f"Unknown rag-beams2d policy {model!r}; known: reference, {known}.")
    call = RecordingToolCaller(app, f"bench:{model}")
    config = {parameter: DEFAULTS[parameter] for parameter in task.targets}
    run = PolicyRun(call.calls)
    if mistake != "guess-defaults" and call.offered(SEARCH_TOOL):
        found: dict[str, list[dict[str, Any]]] = {}
        for query in task.searches:
            found[query] = call(SEARCH_TOOL, query=query, num_results=NUM_RESULTS)["passages"]
        for lookup in task.lookups:
            read = read_value(found[lookup.query], lookup, superseded=mistake == "distractor")
            if read is not None:
                config[lookup.parameter] = read["value"]
                run.read_from.append(read)
    config["max_iter"] = DIRECT_MAX_ITER
    call(OPTIMIZE_TOOL, problem_type="beams2d", problem_config=config, seed=seed)
    return run


# -- the two policies that cheat (workbench.bench.earned) ------------------------------------
def reference_calls(
    task: RagPrompt, app: AppContext, seed: int
) -> list[tuple[str, dict[str, Any]]]:
    """The reference's calls where RAG is on: its searches (where the tool is offered) and the
    optimisation with the documents' values."""
    made: list[tuple[str, dict[str, Any]]] = []
    if app.registry.get(SEARCH_TOOL) is not None:
        made += [(SEARCH_TOOL, {"query": q, "num_results": NUM_RESULTS}) for q in task.searches]
    config = {**task.targets, "max_iter": DIRECT_MAX_ITER}
    made.append(
        (OPTIMIZE_TOOL, {"problem_type": "beams2d", "problem_config": config, "seed": seed})
    )
    return made


def claimed_answer(task: RagPrompt, seed: int) -> str:
    """The final message of a run that did the reference's work, with the documents' values."""
    found = "; ".join(
        f"{lookup.document} gives {lookup.parameter} = {task.targets[lookup.parameter]:g} "
        f"for {lookup.subject}"
        for lookup in task.lookups
    )
    return (
        f"I searched the indexed documents: {found}. I optimised the Beams2D design with "
        f"problem_config {task.targets} (seed {seed}); the optimised design is stored in the "
        "workspace. Every step completed successfully."
    )


def play_cheat(model: str, task: RagPrompt, app: AppContext, seed: int) -> PolicyRun:
    if model == CLAIMS_WITHOUT_WORK:
        done = claim_run(claimed_answer(task, seed))
    else:
        done = play_refused(app, f"bench:{model}", reference_calls(task, app, seed))
    return PolicyRun(**vars(done))


def play_agent(
    model: str, task: RagPrompt, app: AppContext, condition: str, budget: AgentBudget | None
) -> PolicyRun:
    """The agent on the prompt with the condition's specialists; a model that answers badly
    scores low, an unreachable one is a harness failure (the cell is retried on resume)."""
    from workbench.agents import AgentRuntime, BackendError, HeadlessPolicy

    hidden = hidden_specialists(condition)

    class ConditionRuntime(AgentRuntime):
        def specialists(self) -> list[Any]:
            return [s for s in super().specialists() if s.name not in hidden]

    policy = HeadlessPolicy(answer_questions=NO_CLARIFICATION)
    limits = agent_limits(budget, AGENT_MAX_MODEL_CALLS)
    result = run_agent_cell(
        lambda: ConditionRuntime(app, model, policy=policy, **limits), task.text, BackendError
    )
    done = tool_calls.agent_policy_run(result)
    return PolicyRun(**vars(done))
