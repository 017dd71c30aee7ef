"""How often a model's tool calls have arguments that cannot be used, over a fixed script of turns.

    python -m workbench.agents.tool_call_validity [--model llamacpp:embedded] [--json FILE]

Each turn is one request to one specialist: the model gets that specialist's prompt and tools,
exactly as the agent binds them, and answers once. A call is invalid when its arguments are not
JSON (`invalid_json`), or break the tool's JSON schema or name a tool not bound (`invalid_schema`):
`invalid_rate` is both over all calls. Arguments that fit the schema but that a tool's own checks
refuse (an unknown problem id: a value no schema names) are counted apart, as the refusal the
model hears. Answers in words are counted, not judged. The script is fixed and the model's seed
and temperature are the profile's (0 and 0): a rerun is comparable.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from pydantic import ValidationError

from workbench.agents.defaults import EMBEDDED_SPEC

KINDS = ("json", "schema", "validator")

# (specialist, request): several turns per specialist, each answerable with one of its tools
SCRIPT: tuple[tuple[str, str], ...] = (
    ("topopt", "Create a 2D beam problem with volume fraction 0.4."),
    ("topopt", "Optimise the beams2d design with volume fraction 0.3 for 20 iterations."),
    ("topopt", "Show me the details of the beams2d problem."),
    ("topopt", "Export the last design as an STL file."),
    ("hpc", "Write a training script for cgan_cnn_2d on beams2d, 10 epochs, seed 1."),
    ("hpc", "What is the status of Slurm job 4242?"),
    ("hpc", "Cancel Slurm job 17."),
    ("hpc", "Download the outputs of job 99."),
    ("printing", "List the printers."),
    ("printing", "What is the status of the printer MK3S?"),
    ("printing", "Slice part.stl for the MK3S printer."),
    ("printing", "Pause the print on MK3S."),
    ("retrieval", "Search the documents for the yield strength of 6061 aluminium."),
    ("retrieval", "List the documents in the index."),
    ("retrieval", "Add the file notes/beam_report.pdf to the documents."),
    ("arxiv", "Find papers on topology optimisation with diffusion models."),
    ("arxiv", "Download the arXiv paper 2301.01234."),
    ("judging", "List the engineering problems you can grade."),
    ("judging", "Show me problem cantilever-deflection-1."),
    ("modelica", "Check the Modelica model in models/Tank.mo."),
    ("modelica", "Show the ledger status."),
    ("shell", "Which commands may I run?"),
    ("shell", "Run the command ls -la in the workspace."),
    ("topopt", "Simulate the design and tell me its compliance."),
)


@dataclass
class Turn:
    specialist: str
    request: str
    seconds: float
    answered: bool  # a reply in words instead of a call
    calls: list[dict[str, Any]] = field(default_factory=list)  # name, args, problem ("" if ok)


def _problem(app: Any, allowed: list[str], name: str, arguments: Any) -> tuple[str, str]:
    """(kind, why) of a call's arguments: ("", "") when the tool takes them; kind "schema" when
    they break the tool's JSON schema (or name a tool not bound), "validator" when only the
    tool's own checks refuse them (a value the schema cannot name, e.g. an unknown problem id)."""
    if name not in allowed or (tool := app.registry.get(name)) is None:
        return "schema", f"names a tool that is not bound: {name!r}"
    try:
        tool.args.model_validate(arguments)
    except ValidationError as invalid:
        first = invalid.errors()[0]
        kind = (
            "validator" if all(e["type"] == "value_error" for e in invalid.errors()) else "schema"
        )
        return kind, f"{first['loc']}: {first['msg']}"
    return "", ""


def run_turn(app: Any, model: Any, specialist: str, request: str) -> Turn:
    from workbench.agents.toolbridge import schemas_for

    spec = app.plugins.plugins[specialist].specialist
    allowed = [name for name in spec.tools if app.registry.get(name) is not None]
    bound = model.bind_tools(schemas_for(app, allowed))
    started = time.perf_counter()
    reply = bound.invoke([SystemMessage(spec.prompt), HumanMessage(request)])
    turn = Turn(specialist, request, time.perf_counter() - started, answered=False)
    if not isinstance(reply, AIMessage):  # a chat model answers with one; anything else is a bug
        raise TypeError(f"{specialist}: the model answered with {type(reply).__name__}")
    for bad in reply.invalid_tool_calls:
        why = f"not valid JSON: {bad.get('error')}"
        turn.calls.append({"name": bad.get("name"), "args": bad.get("args"), "kind": "json"})
        turn.calls[-1]["problem"] = why
    for call in reply.tool_calls:
        kind, why = _problem(app, allowed, call["name"], call["args"])
        turn.calls.append({"name": call["name"], "args": call["args"], "kind": kind})
        turn.calls[-1]["problem"] = why
    turn.answered = not turn.calls
    return turn


def summary(turns: list[Turn]) -> dict[str, Any]:
    calls = [call for turn in turns for call in turn.calls]
    count = {kind: sum(1 for c in calls if c["kind"] == kind) for kind in KINDS}
    invalid = count["json"] + count["schema"]
    return {
        "turns": len(turns),
        "tool_calls": len(calls),
        "answers_in_words": sum(1 for turn in turns if turn.answered),
        "invalid_json": count["json"],
        "invalid_schema": count["schema"],
        "invalid_rate": round(invalid / len(calls), 3) if calls else 0.0,
        "refused_by_tool_validators": count["validator"],
        "seconds": round(sum(turn.seconds for turn in turns), 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=EMBEDDED_SPEC)
    parser.add_argument("--json", help="write every turn and the summary to this file")
    options = parser.parse_args(argv)
    os.environ.setdefault("WORKBENCH_HOME", tempfile.mkdtemp(prefix="wb-validity-"))
    from workbench.agents.backends import make_chat_model
    from workbench.core.context import AppContext

    app = AppContext.open()
    try:
        model = make_chat_model(options.model, app.settings)
        turns = []
        for specialist, request in SCRIPT:
            if specialist not in app.plugins.plugins:
                print(f"skipped (plugin not installed): {specialist}", file=sys.stderr)
                continue
            turn = run_turn(app, model, specialist, request)
            turns.append(turn)
            shown = "; ".join(f"{c['name']} {c['problem'] or 'ok'}" for c in turn.calls)
            print(f"{turn.seconds:5.1f}s {specialist:9} {shown or '(answered in words)'}")
        release = getattr(getattr(model, "llama", None), "close", None)
        if callable(release):  # freed now: llama.cpp's own finaliser fails at interpreter exit
            release()
    finally:
        app.close()
    result = summary(turns)
    print(json.dumps({"model": options.model, **result}))
    if options.json:
        record = {"model": options.model, **result, "turns": [asdict(t) for t in turns]}
        with open(options.json, "w") as out:
            json.dump(record, out, indent=2, default=str)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
