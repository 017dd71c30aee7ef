"""Design candidates in the engineering ledger and the invariants checked on them.

A candidate is one density field (by content hash) for one problem under one config. Its subject
is the design task, f"{problem}:{config hash}", so every run of the same task shares a lineage and
the same invariants. Mechanical checks are adjudicated here and bound to the candidate as evidence.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from workbench.core.ledger import Adjudication, Candidate, InvariantKind, Ledger
from workbench_plugins.topopt import engine
from workbench_plugins.topopt.stl import EIGHT_CONNECTED, StlReport

CANDIDATE_KIND = "topopt.design"
VOLUME_FRACTION_TOLERANCE = 0.01  # EngiBench's own volume_fraction_bound tolerance
CONNECTIVITY_THRESHOLD = 0.5


@dataclass(frozen=True)
class Check:
    invariant: str
    adjudication: Adjudication
    measurements: dict[str, Any]


def subject_for(problem_type: str, config: engine.ProblemConfig) -> str:
    return f"{problem_type}:{engine.config_sha256(problem_type, config)[:12]}"


def define_invariants(ledger: Ledger, subject: str, config: engine.ProblemConfig) -> None:
    """Idempotent: the same definitions again are no-ops in the ledger."""
    if isinstance(config, engine.Beams2DConfig):
        ledger.define_invariant(
            subject,
            "volume_fraction",
            f"The mean density is within {VOLUME_FRACTION_TOLERANCE} of volfrac.",
            kind=InvariantKind.CONSTRAINT,
            observables=["volume_fraction"],
            condition={"target": config.volfrac, "tolerance": VOLUME_FRACTION_TOLERANCE},
        )
    ledger.define_invariant(
        subject,
        "single_component",
        "The material (density >= 0.5) is one 8-connected component.",
        kind=InvariantKind.CONSTRAINT,
        observables=["num_components"],
        condition={"threshold": CONNECTIVITY_THRESHOLD, "connectivity": 8, "components": 1},
        # Photonics2D designs are scattered islands by nature; report, do not block.
        required=isinstance(config, engine.Beams2DConfig),
    )
    ledger.define_invariant(
        subject,
        "watertight_export",
        "An STL exported from this design reloads as a closed, consistently oriented solid.",
        kind=InvariantKind.CONSTRAINT,
        observables=["is_watertight", "is_winding_consistent", "volume_mm3"],
        condition={"is_watertight": True, "is_winding_consistent": True, "volume_mm3": "> 0"},
    )


def design_checks(design: npt.NDArray, config: engine.ProblemConfig) -> list[Check]:
    from scipy import ndimage

    checks: list[Check] = []
    if isinstance(config, engine.Beams2DConfig):
        measured = float(np.mean(design))
        within = abs(measured - config.volfrac) <= VOLUME_FRACTION_TOLERANCE
        checks.append(
            Check(
                "volume_fraction",
                Adjudication.SUPPORTED if within else Adjudication.VIOLATED,
                {"volume_fraction": round(measured, 6), "target": config.volfrac},
            )
        )
    components = int(ndimage.label(design >= CONNECTIVITY_THRESHOLD, structure=EIGHT_CONNECTED)[1])
    checks.append(
        Check(
            "single_component",
            Adjudication.SUPPORTED if components == 1 else Adjudication.VIOLATED,
            {"num_components": components},
        )
    )
    return checks


def export_check(report: StlReport) -> Check:
    closed = report.is_watertight and report.is_winding_consistent and report.volume_mm3 > 0
    return Check(
        "watertight_export",
        Adjudication.SUPPORTED if closed else Adjudication.VIOLATED,
        {
            "is_watertight": report.is_watertight,
            "is_winding_consistent": report.is_winding_consistent,
            "volume_mm3": round(report.volume_mm3, 6),
            "threshold": report.threshold,
            "mirrored": report.mirrored,
            "num_triangles": report.num_triangles,
        },
    )


def propose_design(
    ledger: Ledger,
    *,
    problem_type: str,
    config: engine.ProblemConfig,
    seed: int,
    design: npt.NDArray,
    artifact_sha256: str,
    tool_call_id: int,
) -> tuple[Candidate, list[Check]]:
    subject = subject_for(problem_type, config)
    define_invariants(ledger, subject, config)
    candidate = ledger.propose(
        subject,
        CANDIDATE_KIND,
        {
            "problem": problem_type,
            "engine": f"engibench {engine.engibench_version()}",
            "conditions": config.conditions,
            "config": config.model_dump(),
            "seed": seed,
            "design_sha256": engine.design_sha256(design),
            "design_artifact_sha256": artifact_sha256,
            "shape": list(design.shape),
        },
        label=f"{problem_type} seed {seed}",
    )
    checks = design_checks(design, config)
    for check in checks:
        record(ledger, candidate, check, tool_call_id)
    return candidate, checks


def record(ledger: Ledger, candidate: Candidate, check: Check, tool_call_id: int) -> None:
    ledger.record_evidence(
        candidate=candidate,
        invariant=check.invariant,
        adjudication=check.adjudication,
        measurements=check.measurements,
        tool_call_id=tool_call_id,
    )


def candidate_for_design(ledger: Ledger, design: npt.NDArray) -> Candidate | None:
    """The newest design candidate whose density field is exactly `design`."""
    wanted = engine.design_sha256(design)
    rows = ledger.store.query(
        "SELECT id FROM ledger_candidates WHERE kind = ? AND json_extract(content,"
        " '$.design_sha256') = ? ORDER BY seq DESC LIMIT 1",
        (CANDIDATE_KIND, wanted),
    )
    return ledger.candidate(rows[0]["id"]) if rows else None
