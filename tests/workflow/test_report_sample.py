"""The design comparisons of report.html show every model and problem before a second cell of
any, the worst design of each first."""

from __future__ import annotations

from typing import Any

from workbench_plugins.topopt.bench import report


def cell(problem: str, model: str, key: str, iou: float, found: bool = True) -> dict[str, Any]:
    return {
        "key": key,
        "problem": problem,
        "model": model,
        "status": "ok",
        "scores": {"iou": iou, "design_found": float(found)},
        "details": {"designs_file": "designs.npz" if found else None},
    }


def test_sample_takes_turns_over_problem_and_model_worst_first() -> None:
    cells = [
        cell("beams2d", "reference", "r1", 1.0),
        cell("beams2d", "reference", "r2", 1.0),
        cell("beams2d", "qwen", "q-good", 0.9),
        cell("beams2d", "qwen", "q-bad", 0.2),
        cell("beams2d", "qwen", "q-none", 0.0, found=False),
        cell("photonics2d", "qwen", "p", 0.5),
        {**cell("beams2d", "qwen", "q-error", 0.0), "status": "error"},
    ]
    keys = [c["key"] for c in report.comparison_sample(cells)]
    assert keys[:3] == ["r1", "q-bad", "p"]  # reference first, then each (problem, model)
    assert keys[3:] == ["r2", "q-good"]  # a second round; no design, no error cells


def test_the_report_says_how_unmeasured_terms_are_renormalised() -> None:
    unbound = {**cell("beams2d", "qwen", "q", 1.0), "details": {"unbound": ["STL ..."]}}
    note = report.scoring_note([cell("beams2d", "reference", "r", 1.0), unbound])
    assert "renormalised" in note and "Photonics2D has no constraint" in note
    assert "/ 0.88" in note and "/ 0.89" in note  # without Constr (0.12), without WT (0.11)
    assert "(1 cell(s) here)" in note
