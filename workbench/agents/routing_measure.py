"""Routing accuracy on the request set (routing/requests.toml), with the prior alone or with a model
(beside the routing package, as it runs the agent runtime, which uses that package):

    python -m workbench.agents.routing_measure                            # the prior alone
    python -m workbench.agents.routing_measure --model llamacpp:embedded  # prior and model
    python -m workbench.agents.routing_measure --model M --no-prior       # the model alone

With a model, each request is sent to the agent (AgentRuntime, a scratch workspace, every plugin's
specialist) and stopped as soon as the supervisor hands it over: the `routed` event is the answer.
A request the supervisor answers itself, or that ends in an error, counts as routed wrong.
Specialists a plugin declares but does not offer here (web search without a key) are added as
declared, so every specialist of the set competes.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib
import json
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import TYPE_CHECKING

from workbench.agents.events import AgentEvent, Routed
from workbench.agents.routing.prior import RoutingPrior, default_prior
from workbench.agents.routing.requests import Labelled, request_set
from workbench.core.plugins import Plugin, Specialist, discover

if TYPE_CHECKING:  # the agent runtime is imported only to measure a model
    from workbench.agents.runtime import AgentRuntime, RunResult

MAX_MODEL_CALLS = 6  # per request: the supervisor's retries of a malformed hand-off included


@dataclass
class Outcome:
    text: str
    expected: str
    routed: str  # "" when the request was not handed over
    how: str = "prior"
    proposed: str = ""  # what the model named ("" with the prior alone)

    @property
    def right(self) -> bool:
        return self.routed == self.expected


def declared_specialists(names: Sequence[str] = ()) -> list[Specialist]:
    """The installed plugins' specialists, plus those of `names` a plugin declares in its
    `specialist` module without offering it here (by the plugin layout's convention)."""
    found = {p.specialist.name: p.specialist for p in discover() if p.specialist is not None}
    for name in names:
        if name not in found:
            module = importlib.import_module(f"workbench_plugins.{name}.specialist")
            found[name] = module.specialist
    return list(found.values())


def measure_prior(
    prior: RoutingPrior, requests: list[Labelled], specialists: list[Specialist]
) -> list[Outcome]:
    return [Outcome(r.text, r.specialist, prior.rank(r.text, specialists).top) for r in requests]


async def _route_once(runtime: AgentRuntime, text: str) -> Outcome:
    routed: list[Routed] = []
    run: asyncio.Task[RunResult] | None = None

    def on_event(event: AgentEvent) -> None:
        if isinstance(event, Routed) and not routed:
            routed.append(event)
            if run is not None:  # at once, before the specialist's first model call starts
                run.cancel()

    run = asyncio.create_task(runtime.send(runtime.new_thread(), text, on_event))
    with contextlib.suppress(asyncio.CancelledError):
        await run
    if not routed:
        return Outcome(text, "", "", "answered")
    first = routed[0]
    return Outcome(text, "", first.specialist, first.how, first.proposed)


def measure_model(
    model: str, requests: list[Labelled], specialists: list[Specialist], use_prior: bool
) -> list[Outcome]:
    from workbench.agents.runtime import AgentRuntime
    from workbench.core.context import AppContext

    outcomes = []
    with TemporaryDirectory(prefix="workbench-routing-") as folder:
        context = AppContext.open(workspace=Path(folder))
        offered = {p.specialist.name for p in context.plugins if p.specialist is not None}
        for specialist in specialists:  # declared, not offered here: competes all the same
            if specialist.name not in offered:
                context.plugins.plugins[specialist.name] = Plugin(
                    name=specialist.name, title=specialist.name, specialist=specialist
                )
        prior = default_prior() if use_prior else None
        runtime = AgentRuntime(context, model, prior=prior, max_model_calls=MAX_MODEL_CALLS)
        try:
            loop = asyncio.new_event_loop()
            for number, request in enumerate(requests, 1):
                outcome = loop.run_until_complete(_route_once(runtime, request.text))
                outcome.expected = request.specialist
                outcomes.append(outcome)
                mark = "ok  " if outcome.right else "MISS"
                print(
                    f"{number:3d} {mark} {outcome.routed or '-':10} ({outcome.how}, model named "
                    f"{outcome.proposed or '-'}) <- {request.specialist}: {request.text}",
                    file=sys.stderr,
                    flush=True,
                )
            loop.close()
        finally:
            runtime.close()
            context.close()
    return outcomes


def summary(outcomes: list[Outcome]) -> dict[str, object]:
    right = sum(o.right for o in outcomes)
    per = {
        name: f"{sum(o.right for o in outcomes if o.expected == name)}/"
        f"{sum(o.expected == name for o in outcomes)}"
        for name in sorted({o.expected for o in outcomes})
    }
    return {
        "requests": len(outcomes),
        "right": right,
        "accuracy": round(right / len(outcomes), 3) if outcomes else 0.0,
        "model_named_right": sum(o.proposed == o.expected for o in outcomes),
        "how": dict(Counter(o.how for o in outcomes)),
        "per_specialist": per,
        "misses": [asdict(o) for o in outcomes if not o.right],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m workbench.agents.routing_measure")
    parser.add_argument("--model", default="", help="a model spec; none: the prior alone")
    parser.add_argument("--no-prior", action="store_true", help="with --model: the model alone")
    parser.add_argument(
        "--per-specialist", type=int, default=0, metavar="N", help="the first N of each only"
    )
    parser.add_argument("--json", type=Path, help="write the summary there too")
    args = parser.parse_args(argv)
    requests = request_set()
    if args.per_specialist:  # a smaller set, still balanced, e.g. for a slow model
        names = sorted({r.specialist for r in requests})
        requests = [
            r
            for name in names
            for r in [q for q in requests if q.specialist == name][: args.per_specialist]
        ]
    specialists = declared_specialists(sorted({r.specialist for r in requests}))
    if args.model:
        outcomes = measure_model(args.model, requests, specialists, not args.no_prior)
    else:
        prior = default_prior()
        if prior is None:
            print("The routing prior needs the dense extra: pip install 'workbench[dense]'.")
            return 2
        outcomes = measure_prior(prior, requests, specialists)
    result = {"model": args.model or "(prior alone)", "prior": not args.no_prior}
    result |= summary(outcomes)
    text = json.dumps(result, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
