"""Global metrics of the workflow benchmark: the EngiAI paper's MMD, DPP, IOG/COG/FOG and RVC, per
seed over the designs the agents found, written to `global_metrics.json` in the results folder.

The paper measures generated designs against a dataset's test-split optimal designs. There is no
dataset here, so the reference set of a problem is every distinct ground-truth design (deduplicated
by its cache key) in the results folder. Designs are flattened to vectors.
"""

from __future__ import annotations

import json
import math
import os
from collections import defaultdict
from pathlib import Path
from statistics import fmean, pstdev
from typing import Any

import numpy as np
import numpy.typing as npt

# the metric functions live in the bench so the HPC plugin measures designs the same way;
# re-exported here for the report and older callers
from workbench.bench.design_metrics import JITTER, SIGMA, dpp, mmd, rvc
from workbench.bench.design_metrics import Designs as Designs
from workbench.bench.design_metrics import gaussian_kernel as gaussian_kernel
from workbench.bench.results import cell_folder
from workbench_plugins.topopt.bench import scoring

GLOBAL_FILE = "global_metrics.json"
GAPS = ("iog", "cog", "fog")
METRICS = ("mmd", "dpp", *GAPS, "rvc")

Group = tuple[str, str, str, int]  # problem, model, style, seed


# -- the results folder ---------------------------------------------------------------------------
def _stored(folder: Path, cell: dict[str, Any]) -> dict[str, npt.NDArray[np.float64]]:
    """The cell's designs.npz ("agent" when a design was found, "truth"), {} when there is none."""
    name = cell.get("details", {}).get("designs_file")
    path = cell_folder(folder, cell["key"]) / name if name else None
    if path is None or not path.is_file():
        return {}
    with np.load(path, allow_pickle=False) as stored:
        return {key: np.asarray(stored[key], dtype=float) for key in stored.files}


def _finite(metrics: dict[str, float]) -> dict[str, float]:
    """The JSON must be NaN-free: a metric that is not a finite number is left out."""
    return {name: value for name, value in metrics.items() if math.isfinite(value)}


def _group_metrics(
    found: list[tuple[dict[str, Any], npt.NDArray[np.float64]]],
    reference: list[npt.NDArray[np.float64]],
) -> dict[str, float]:
    cells = [cell for cell, _ in found]
    designs = [design for _, design in found]
    metrics: dict[str, float] = {}
    if len({design.shape for design in designs}) == 1:
        metrics["dpp"] = dpp(designs)
        same = [truth for truth in reference if truth.shape == designs[0].shape]
        if same:
            metrics["mmd"] = mmd(designs, same)
    for name in GAPS:  # only cells that had an optimisation history carry them
        values = [c["scores"].get(name, math.nan) for c in cells]
        values = [value for value in values if math.isfinite(value)]
        if values:
            metrics[name] = fmean(values)
    volfracs = [c["details"].get("conditions", {}).get("volfrac") for c in cells]
    if all(isinstance(v, int | float) for v in volfracs):  # Beams2D; Photonics2D has none
        # scoring's tolerance, so RVC and the per-cell volume_violation cannot disagree
        metrics["rvc"] = rvc(designs, volfracs, scoring.TAU)
    return _finite(metrics)


def global_metrics(folder: Path, cells: list[dict[str, Any]]) -> dict[str, Any]:
    """Per (problem, model, style, seed) over the cells with status ok and an agent design of the
    ground truth's shape; then per (problem, model, style) the mean and population std over the
    seeds that have each metric. Groups without designs are absent."""
    references: dict[str, dict[str, npt.NDArray[np.float64]]] = defaultdict(dict)
    found: dict[Group, list[tuple[dict[str, Any], npt.NDArray[np.float64]]]] = defaultdict(list)
    for cell in sorted(cells, key=lambda c: c["key"]):
        if cell["status"] != "ok":
            continue
        stored = _stored(folder, cell)
        truth, agent = stored.get("truth"), stored.get("agent")
        identity = cell["details"].get("ground_truth") or {}
        if truth is not None and identity.get("key"):
            references[cell["problem"]].setdefault(identity["key"], truth)
        if agent is not None and truth is not None and agent.shape == truth.shape:
            group = (cell["problem"], cell["model"], cell["style"], int(cell["seed"]))
            found[group].append((cell, agent))
    groups = []
    for (problem, model, style, seed), members in sorted(found.items()):
        reference = [references[problem][key] for key in sorted(references[problem])]
        groups.append(
            {
                "problem": problem,
                "model": model,
                "style": style,
                "seed": seed,
                "n_designs": len(members),
                "cells": [cell["key"] for cell, _ in members],
                "metrics": _group_metrics(members, reference),
            }
        )
    return {
        "sigma": SIGMA,
        "dpp_jitter": JITTER,
        "reference_designs": {problem: len(truths) for problem, truths in references.items()},
        "groups": groups,
        "summary": _summary(groups),
    }


def _summary(groups: list[dict[str, Any]]) -> list[dict[str, Any]]:
    by_setting: dict[tuple[str, str, str], list[dict[str, Any]]] = defaultdict(list)
    for group in groups:
        by_setting[(group["problem"], group["model"], group["style"])].append(group)
    rows = []
    for (problem, model, style), members in sorted(by_setting.items()):
        values = {
            name: [g["metrics"][name] for g in members if name in g["metrics"]] for name in METRICS
        }
        values = {name: found for name, found in values.items() if found}
        rows.append(
            {
                "problem": problem,
                "model": model,
                "style": style,
                "seeds": [g["seed"] for g in members],
                "n_designs": sum(g["n_designs"] for g in members),
                "count": {name: len(found) for name, found in values.items()},
                "mean": {name: fmean(found) for name, found in values.items()},
                "std": {name: pstdev(found) for name, found in values.items()},
            }
        )
    return rows


def write_global_metrics(folder: Path, cells: list[dict[str, Any]]) -> dict[str, Any]:
    """global_metrics.json, byte-identical for the same folder (sorted keys, no timestamps),
    replaced atomically; returns what it wrote."""
    result = global_metrics(folder, cells)
    text = json.dumps(result, indent=2, sort_keys=True, allow_nan=False) + "\n"
    partial = folder / (GLOBAL_FILE + ".part")
    partial.write_text(text, encoding="utf-8")
    os.replace(partial, folder / GLOBAL_FILE)
    return result
