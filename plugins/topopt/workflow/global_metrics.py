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
from collections.abc import Sequence
from pathlib import Path
from statistics import fmean, pstdev
from typing import Any

import numpy as np
import numpy.typing as npt

from workbench.bench.results import cell_folder
from workbench_plugins.topopt.workflow import scoring

GLOBAL_FILE = "global_metrics.json"
SIGMA = 10.0  # the paper's kernel bandwidth
JITTER = 1e-6  # added to K's diagonal before the DPP determinant, as the reference does
GAPS = ("iog", "cog", "fog")
METRICS = ("mmd", "dpp", *GAPS, "rvc")

Designs = Sequence[npt.ArrayLike] | npt.NDArray[np.float64]
Group = tuple[str, str, str, int]  # problem, model, style, seed


def _rows(designs: Designs) -> npt.NDArray[np.float64]:
    """(n, d): one flattened design per row (a list of same-shape designs or an (n, ...) array)."""
    array = np.asarray(designs, dtype=float)
    return array.reshape(len(array), -1)


def gaussian_kernel(x: Designs, y: Designs, sigma: float = SIGMA) -> npt.NDArray[np.float64]:
    """K[i, j] = exp(-||x_i - y_j||^2 / (2 sigma^2)). The squared distances are summed from the
    differences (not ||x||^2 + ||y||^2 - 2 x.y), so identical designs give exactly 1."""
    a, b = _rows(x), _rows(y)
    if a.shape[1] != b.shape[1]:
        raise ValueError(f"designs of {a.shape[1]} and {b.shape[1]} pixels cannot be compared")
    squared = np.array([((row - b) ** 2).sum(axis=1) for row in a]).reshape(len(a), len(b))
    return np.exp(-squared / (2.0 * sigma**2))


def mmd(generated: Designs, reference: Designs, sigma: float = SIGMA) -> float:
    """mean Kxx + mean Kyy - 2 mean Kxy, the means over all pairs with the diagonals included
    (the biased estimate, as the paper's reference code): 0 when the two sets are equal."""
    if len(generated) == 0 or len(reference) == 0:
        raise ValueError("MMD needs at least one generated and one reference design")
    xx = gaussian_kernel(generated, generated, sigma).mean()
    yy = gaussian_kernel(reference, reference, sigma).mean()
    xy = gaussian_kernel(generated, reference, sigma).mean()
    return float(xx + yy - 2.0 * xy)


def dpp(generated: Designs, sigma: float = SIGMA) -> float:
    """det(K + 1e-6 I) over the generated designs: the determinant itself (not its log), between
    about 0 (near-duplicates: two identical designs give 1e-6 (2 + 1e-6)) and (1 + 1e-6)^n
    (mutually far-apart designs). Computed with slogdet; K + 1e-6 I is positive definite, so the
    sign is +1 and a determinant too small for a float comes out as 0.0 rather than noise."""
    if len(generated) == 0:
        raise ValueError("DPP needs at least one design")
    kernel = gaussian_kernel(generated, generated, sigma)
    sign, log_det = np.linalg.slogdet(kernel + JITTER * np.eye(len(kernel)))
    return float(sign * math.exp(log_det))


def rvc(designs: Designs, volfracs: Sequence[float]) -> float:
    """Fraction of designs whose mean density misses their volume fraction by 0.01 or more (the
    per-cell `volume_violation` of scoring, so the two cannot disagree)."""
    if len(designs) != len(volfracs) or len(volfracs) == 0:
        raise ValueError("RVC needs one volume fraction per design and at least one design")
    return fmean(scoring.volume_violation(d, v) for d, v in zip(designs, volfracs, strict=True))


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
        metrics["rvc"] = rvc(designs, volfracs)
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
