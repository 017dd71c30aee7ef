"""Global metrics (MMD, DPP, IOG/COG/FOG, RVC) on hand-made designs with known answers, and their
grouping per (problem, model, style, seed) on a small results folder built here."""

from __future__ import annotations

import json
import math
from pathlib import Path
from statistics import pstdev
from typing import Any

import numpy as np
import pytest

from workbench.bench.results import append_cell, cell_folder, cell_key
from workbench_plugins.topopt.bench import global_metrics as gm
from workbench_plugins.topopt.bench import report, scoring

EPS = gm.JITTER


def pixel(index: int, shape: tuple[int, int] = (2, 2)) -> np.ndarray:
    design = np.zeros(shape)
    design.flat[index] = 1.0
    return design


def test_kernel_is_one_for_identical_designs_and_follows_the_squared_distance() -> None:
    rng = np.random.default_rng(0)
    design = rng.uniform(size=(50, 100))
    assert gm.gaussian_kernel([design], [design]).tolist() == [[1.0]]
    # ||e0 - e1||^2 = 2, so exp(-2 / (2 sigma^2)); [2, 3] shaped (n designs x m designs)
    kernel = gm.gaussian_kernel([pixel(0), pixel(1)], [pixel(0), pixel(1), np.zeros((2, 2))])
    assert kernel.shape == (2, 3)
    assert kernel[0, 1] == pytest.approx(math.exp(-2 / 200))
    assert kernel[0, 2] == pytest.approx(math.exp(-1 / 200))
    assert gm.gaussian_kernel([pixel(0)], [pixel(1)], sigma=1.0)[0, 0] == pytest.approx(
        math.exp(-1.0)
    )
    with pytest.raises(ValueError):
        gm.gaussian_kernel([pixel(0)], [np.zeros((3, 3))])


def test_mmd_of_a_set_against_itself_is_zero() -> None:
    designs = np.random.default_rng(1).uniform(size=(4, 50, 100))
    assert gm.mmd(designs, designs) == pytest.approx(0.0, abs=1e-12)
    assert gm.mmd(list(designs), list(designs[::-1])) == pytest.approx(0.0, abs=1e-12)


def test_mmd_of_one_pixel_designs_by_hand() -> None:
    k = math.exp(-2 / 200)  # kernel of two different one-pixel designs, sigma 10
    # one against one: 1 + 1 - 2k
    assert gm.mmd([pixel(0)], [pixel(1)]) == pytest.approx(2 - 2 * k)
    assert gm.mmd([pixel(0)], [pixel(1)], sigma=1.0) == pytest.approx(2 - 2 * math.exp(-1.0))
    # {e0, e1} against {e0}: Kxx mean (1 + k) / 2 (diagonal included), Kyy 1, Kxy (1 + k) / 2
    assert gm.mmd([pixel(0), pixel(1)], [pixel(0)]) == pytest.approx((1 - k) / 2)
    # {e0} against {e0, e1}: the same by symmetry
    assert gm.mmd([pixel(0)], [pixel(0), pixel(1)]) == pytest.approx((1 - k) / 2)
    with pytest.raises(ValueError):
        gm.mmd([], [pixel(0)])


def test_dpp_of_identical_far_apart_and_one_pixel_designs() -> None:
    beam = np.full((50, 100), 0.4)
    assert gm.dpp([beam]) == pytest.approx(1 + EPS, rel=1e-12)
    # K = [[1, 1], [1, 1]]: det(K + eps I) = (1 + eps)^2 - 1 = eps (2 + eps)
    assert gm.dpp([beam, beam]) == pytest.approx(EPS * (2 + EPS), rel=1e-6)
    assert gm.dpp([beam, beam, beam]) == pytest.approx(EPS**2 * (3 + EPS), rel=1e-3)
    # ||0 - 1||^2 = 5000: K is the identity to exp(-25), det ~ 1
    far = [np.zeros((50, 100)), np.ones((50, 100))]
    assert gm.dpp(far) == pytest.approx((1 + EPS) ** 2 - math.exp(-50), rel=1e-12)
    k = math.exp(-2 / 200)
    assert gm.dpp([pixel(0), pixel(1)]) == pytest.approx((1 + EPS) ** 2 - k**2, rel=1e-9)


def test_rvc_of_known_volume_fractions() -> None:
    means = (0.40, 0.405, 0.45, 0.30)  # |mean - 0.4|: 0, 0.005, 0.05, 0.1
    designs = [np.full((5, 10), m) for m in means]
    assert gm.rvc(designs, [0.4] * 4) == 0.5
    assert gm.rvc(designs, [0.45] * 4) == 0.75  # only 0.45 itself is within 0.01
    assert gm.rvc(designs, [0.4] * 4) == np.mean(
        [scoring.volume_violation(d, 0.4) for d in designs]
    )
    with pytest.raises(ValueError):
        gm.rvc(designs, [0.4])


# -- a results folder -----------------------------------------------------------------------------
def add_cell(
    folder: Path,
    task: str,
    seed: int,
    *,
    truth: tuple[str, np.ndarray] | None = None,
    agent: np.ndarray | None = None,
    gaps: tuple[float, float, float] | None = None,
    volfrac: float | None = None,
    status: str = "ok",
) -> None:
    """A cell record (task "problem/style/eN", model "m") as the workflow suite writes it, and its
    designs.npz when there is a truth."""
    problem, style, example = task.split("/")
    suite = f"workflow-{problem}"
    key = cell_key(suite, task, "m", seed)
    record: dict[str, Any] = {
        "key": key,
        "suite": suite,
        "task": task,
        "problem": problem,
        "style": style,
        "condition": "",
        "model": "m",
        "seed": seed,
        "status": status,
        "duration_s": 1.0,
    }
    if status != "ok":  # a harness failure: no details, no scores
        record.update(scores={}, error="RuntimeError: boom")
    else:
        record["scores"] = {
            "task_completion": 1.0,
            "combined": 0.5,
            "iou": 0.5,
            "design_found": float(agent is not None),
            "tokens_in": 0.0,
            "tokens_out": 0.0,
            **(dict(zip(("iog", "cog", "fog"), gaps, strict=True)) if gaps else {}),
        }
        record["details"] = {
            "example": int(example[1:]),
            "conditions": {"volfrac": volfrac} if volfrac is not None else {"lambda1": 1.0},
            "calls": [],
            "ground_truth": {"key": truth[0], "source": "hand-made"} if truth else None,
            "designs_file": "designs.npz" if truth else None,
            "timing": {"wall_s": 1.0, "model_latency_s": 0.0, "engibench_s": 1.0},
        }
    cell = cell_folder(folder, key)
    cell.mkdir(parents=True)
    if truth is not None:
        designs = {"truth": truth[1], **({"agent": agent} if agent is not None else {})}
        np.savez_compressed(cell / "designs.npz", **designs)
    append_cell(folder, record)


T1, T2 = ("t1", pixel(0)), ("t2", pixel(1))  # Beams2D ground truths, 2x2
P1 = ("p1", np.full((3, 3), 0.5))  # a Photonics2D ground truth, 3x3
K = math.exp(-2 / 200)


def build_folder(folder: Path) -> None:
    # beams2d FULL seed 0: two designs equal to the two ground truths, with histories
    add_cell(folder, "beams2d/FULL/e0", 0, truth=T1, agent=T1[1], gaps=(10, 100, 1), volfrac=0.25)
    add_cell(folder, "beams2d/FULL/e1", 0, truth=T2, agent=T2[1], gaps=(20, 200, 3), volfrac=0.5)
    # seed 0, left out: an abstention (no designs file), a wrong-shape design, a harness error
    add_cell(folder, "beams2d/FULL/e2", 0, volfrac=0.25)
    add_cell(folder, "beams2d/FULL/e3", 0, truth=T1, agent=np.ones((3, 3)), volfrac=0.25)
    add_cell(folder, "beams2d/FULL/e4", 0, truth=T1, agent=pixel(3), status="error")
    # seed 1: one design, T1 again (the reference set stays {T1, T2}), no optimisation history
    add_cell(folder, "beams2d/FULL/e0", 1, truth=T1, agent=T1[1], volfrac=0.25)
    # another style: a ground truth but no agent design, so no group
    add_cell(folder, "beams2d/W-RAND/e0", 0, truth=T2, volfrac=0.5)
    # photonics2d: its own reference set, no volume fraction (so no RVC)
    add_cell(folder, "photonics2d/FULL/e0", 0, truth=P1, agent=P1[1], gaps=(-1, -5, 0))


def test_grouping_per_problem_model_style_and_seed(tmp_path: Path) -> None:
    build_folder(tmp_path)
    result = gm.global_metrics(tmp_path, report.workflow_cells(tmp_path))
    assert result["reference_designs"] == {"beams2d": 2, "photonics2d": 1}
    groups = {(g["problem"], g["style"], g["seed"]): g for g in result["groups"]}
    assert sorted(groups) == [
        ("beams2d", "FULL", 0),
        ("beams2d", "FULL", 1),
        ("photonics2d", "FULL", 0),
    ]
    seed0, seed1, photonics = groups.values()
    assert seed0["n_designs"] == 2 and seed1["n_designs"] == 1 and photonics["n_designs"] == 1
    assert seed0["metrics"] == pytest.approx(
        {
            "mmd": 0.0,
            "dpp": (1 + EPS) ** 2 - K**2,
            "iog": 15.0,
            "cog": 150.0,
            "fog": 2.0,
            "rvc": 0.5,
        }
    )
    # {T1} against {T1, T2}; no history, so no gaps
    assert seed1["metrics"] == pytest.approx({"mmd": (1 - K) / 2, "dpp": 1 + EPS, "rvc": 0.0})
    assert photonics["metrics"] == pytest.approx(
        {"mmd": 0.0, "dpp": 1 + EPS, "iog": -1.0, "cog": -5.0, "fog": 0.0}
    )  # no RVC without a volume fraction
    (beams, photonics_row) = result["summary"]
    assert beams["seeds"] == [0, 1] and beams["n_designs"] == 3
    assert beams["count"] == {"mmd": 2, "dpp": 2, "iog": 1, "cog": 1, "fog": 1, "rvc": 2}
    assert beams["mean"]["mmd"] == pytest.approx((1 - K) / 4)
    assert beams["std"]["mmd"] == pytest.approx(pstdev([0.0, (1 - K) / 2]))
    assert beams["mean"]["rvc"] == 0.25 and beams["std"]["rvc"] == 0.25
    assert beams["mean"]["iog"] == 15.0 and beams["std"]["iog"] == 0.0
    assert photonics_row["seeds"] == [0] and "rvc" not in photonics_row["mean"]


def test_written_file_is_deterministic_and_nan_free(tmp_path: Path) -> None:
    build_folder(tmp_path)
    cells = report.workflow_cells(tmp_path)
    cells[0]["scores"]["iog"] = math.nan  # a non-finite gap is left out, not written as NaN
    result = gm.write_global_metrics(tmp_path, cells)
    text = (tmp_path / gm.GLOBAL_FILE).read_text()
    assert result["groups"][0]["metrics"]["iog"] == 20.0  # the other design's gap only
    assert "NaN" not in text and "Infinity" not in text
    assert json.loads(text) == result
    assert text == json.dumps(result, indent=2, sort_keys=True) + "\n"
    gm.write_global_metrics(tmp_path, cells)
    assert (tmp_path / gm.GLOBAL_FILE).read_text() == text
    assert not list(tmp_path.glob("*.part"))


def test_report_writes_the_json_and_the_html_section(tmp_path: Path) -> None:
    build_folder(tmp_path)
    report.write_report(tmp_path)
    assert json.loads((tmp_path / gm.GLOBAL_FILE).read_text())["groups"]
    page = (tmp_path / report.HTML_FILE).read_text()
    section = page[page.index("<h2>Global metrics per seed</h2>") :]
    assert "beams2d: MMD reference set = 2 distinct ground truth(s)" in section
    for column in ("MMD", "DPP", "IOG", "COG", "FOG", "RVC", "n designs"):
        assert f"<th>{column}</th>" in section
    # seed 0 of beams2d FULL: n designs 2, MMD 0, DPP, IOG 15, COG 150, FOG 2, RVC 0.5
    dpp = f"{(1 + EPS) ** 2 - K**2:.4g}"
    row = f"<td>0</td><td>2</td><td>0</td><td>{dpp}</td><td>15</td><td>150</td><td>2</td>"
    assert row + "<td>0.5</td></tr>" in section
    assert "mean &plusmn; std (2 seeds)" in section and "mean &plusmn; std (1 seed)" in section
    assert "http://" not in page and "https://" not in page
