"""Dependency graphs for score propagation: each stage's parents, as a table one can change.

"dag" is the project's default (../shared/specs/engjudge.md; the paper's figure with the exact
edges is not in its text): PC and AS come first, VI feeds ES, ES and LR feed AA, PI runs beside
the computation and feeds FA, and neither PI nor FA hangs on AA alone. "chain" and "flat" are the
paper's two ablations: every stage depends on the one before, or nothing propagates.
"""

from __future__ import annotations

from collections.abc import Mapping

from workbench_plugins.judging.scoring.stages import STAGES

Graph = dict[str, tuple[str, ...]]

DAG: Graph = {
    "PC": (),
    "AS": ("PC",),
    "VI": ("PC",),
    "ES": ("AS", "VI"),
    "LR": ("AS", "ES"),
    "AA": ("ES", "LR"),
    "PI": ("AS", "LR"),
    "FA": ("AA", "PI"),
}
CHAIN: Graph = {stage: (STAGES[i - 1],) if i else () for i, stage in enumerate(STAGES)}
FLAT: Graph = {stage: () for stage in STAGES}

GRAPHS: dict[str, Graph] = {"dag": DAG, "chain": CHAIN, "flat": FLAT}


class GraphError(ValueError):
    """A graph name or table that cannot be used; the message says what to fix."""


def resolve_graph(graph: str | Mapping[str, tuple[str, ...] | list[str]]) -> Graph:
    """A checked parent table from a name in GRAPHS or from a table of one's own. Stages left
    out of a table have no parents; unknown stages and cycles are refused."""
    if isinstance(graph, str):
        if graph not in GRAPHS:
            raise GraphError(f"Unknown graph {graph!r}: use one of {', '.join(GRAPHS)}.")
        return dict(GRAPHS[graph])
    table: Graph = {stage: tuple(graph.get(stage, ())) for stage in STAGES}
    unknown = sorted(
        {name for name in graph if name not in STAGES}
        | {parent for parents in table.values() for parent in parents if parent not in STAGES}
    )
    if unknown:
        raise GraphError(
            f"The graph names unknown stages {unknown}: stages are {', '.join(STAGES)}."
        )
    topological_order(table)  # raises on a cycle
    return table


def topological_order(graph: Mapping[str, tuple[str, ...]]) -> list[str]:
    """Stages so that every parent comes before its children (STAGES order among equals)."""
    done: list[str] = []
    waiting = [stage for stage in STAGES]
    while waiting:
        ready = [stage for stage in waiting if all(p in done for p in graph.get(stage, ()))]
        if not ready:
            raise GraphError(f"The graph has a cycle among {', '.join(waiting)}: remove an edge.")
        done.append(ready[0])
        waiting.remove(ready[0])
    return done


def edges(graph: str | Mapping[str, tuple[str, ...] | list[str]]) -> list[tuple[str, str]]:
    """(parent, child) pairs of a graph, children in STAGES order: what a view draws."""
    table = resolve_graph(graph)
    return [(parent, child) for child in STAGES for parent in table[child]]
