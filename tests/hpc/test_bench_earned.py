"""Issue 27 on the HPC suite's scorer: only work done counts. The finding reproduced (four failed
calls and invented metrics scored 1.0 on main), metrics read from tool results or stated
without an evaluation behind them, and evaluated outputs changed after their evaluation."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pytest

from workbench.bench.cell_result import CellResult
from workbench.bench.suite import CellContext
from workbench.core.context import AppContext
from workbench_plugins.hpc.bench import policies, scoring
from workbench_plugins.hpc.bench.prompts import HpcTaskSpec
from workbench_plugins.hpc.bench.scoring import ToolCall
from workbench_plugins.hpc.bench.suite import BOUND_SCORES, HpcSuite, bind_outputs
from workbench_plugins.hpc.tools.outputs import outputs_sha256

TASK = HpcTaskSpec("hpc-train-cgan", "cgan_cnn_2d", "beams2d", seed=1, epochs=2, host="local")
METRICS = {"iog": 1.5, "cog": 12.25, "fog": 0.125, "mmd": 0.0312, "dpp": 2.5e-05, "viol": 0.1}
REPORT = "IOG: 1.5, COG: 12.25, FOG: 0.125, MMD: 0.0312, DPP: 2.5e-05, viol: 0.1"
HEADLINE = ("hpc_score", "task_completion", "overall")


def calls(ok: bool, result: Mapping[str, object] | None = None) -> list[ToolCall]:
    """The reference's four calls, each succeeded or failed; the evaluation's result given."""
    made = [ToolCall(name, dict(args), ok) for name, args in policies.reference_calls(TASK)]
    made[-1] = ToolCall(made[-1].name, made[-1].args, ok, dict(result) if result else None)
    return made


def test_four_failed_calls_and_invented_metrics_score_zero() -> None:
    """The finding: on main this cell scored hpc_score = task_completion = 1.0."""
    scores, details = scoring.score_cell(calls(ok=False), REPORT, TASK)
    for name in (*HEADLINE, "step_rate", "config_ok", "metrics_verified", "tool_efficiency"):
        assert scores[name] == 0.0, name
    assert scores["metrics_extracted"] == 1.0  # the spec's regex would have given full marks
    assert scores["metrics_invented"] == 1.0 and "invented" in details


def test_the_same_calls_succeeding_with_the_reported_metrics_score_one() -> None:
    scores, details = scoring.score_cell(calls(ok=True, result=METRICS), REPORT, TASK)
    for name in (*HEADLINE, "metrics_verified", "tool_efficiency"):
        assert scores[name] == 1.0, name
    assert "invented" not in details


def test_metrics_only_in_tool_results_are_not_reported() -> None:
    """The evaluation's own numbers are not the agent's report: a silent answer verifies none.
    0.70 + 0.15 + 0.15 * 0 = 0.85; TC 0."""
    scores, _ = scoring.score_cell(calls(ok=True, result=METRICS), "Done.", TASK)
    assert scores["hpc_score"] == pytest.approx(0.85)
    assert scores["metrics_verified"] == 0.0 and scores["task_completion"] == 0.0


def test_a_full_run_reporting_other_numbers_than_its_evaluation_scores_zero() -> None:
    answer = REPORT.replace("MMD: 0.0312", "MMD: 0.0100")
    scores, details = scoring.score_cell(calls(ok=True, result=METRICS), answer, TASK)
    assert all(scores[name] == 0.0 for name in HEADLINE)
    assert scores["metrics_verified"] == pytest.approx(5 / 6)
    assert "MMD" in details["invented"]


def test_a_failed_generate_is_neither_a_step_nor_the_configuration() -> None:
    made = calls(ok=True, result=METRICS)
    made[0] = ToolCall(made[0].name, made[0].args, ok=False)
    scores, _ = scoring.score_cell(made, REPORT, TASK)
    # w = (0.85, 0, 0.15): 0.85 * 3/4 + 0.15 * 1 = 0.7875; ToolEff 3 steps / 4 calls
    assert scores["config_ok"] == 0.0 and scores["step_rate"] == 0.75
    assert scores["hpc_score"] == pytest.approx(0.7875)
    assert scores["tool_efficiency"] == pytest.approx(0.75)


def test_the_cheats_are_offered_as_models_and_claim_without_calls() -> None:
    run = policies.claim_run(policies.claim(TASK))
    assert run.calls == [] and "IOG: 60.0724" in run.answer
    scores, _ = scoring.score_cell(run.calls, run.answer, TASK)
    assert all(scores[name] == 0.0 for name in HEADLINE)


def test_outputs_changed_after_their_evaluation_zero_the_headline(tmp_path: Path) -> None:
    """The binding (issue 27): a cell whose evaluated outputs no longer hash as evaluated keeps
    none of the scores resting on them."""
    app = AppContext.open(workspace=tmp_path / "cell")
    try:
        outputs = app.store.folder / "hpc" / "outputs" / "local-7"
        outputs.mkdir(parents=True)
        (outputs / "samples.npz").write_bytes(b"the designs evaluated")
        result = {**METRICS, "job_id": "7", "outputs_path": str(outputs)}
        result["outputs_sha256"] = outputs_sha256(outputs)
        cell = CellContext(app, tmp_path / "cell")
        made = calls(ok=True, result=result)
        scores, details = scoring.score_cell(made, REPORT, TASK)
        bindings, kept = bind_outputs(made, cell)
        held = CellResult(scores, details, bindings, BOUND_SCORES).gated(HpcSuite.headline)
        assert held.scores["hpc_score"] == 1.0 and "unbound" not in held.details
        assert kept[0]["path"] == "hpc/outputs/local-7"
        (outputs / "samples.npz").write_bytes(b"other designs")
        bindings, _ = bind_outputs(made, cell)
        broken = CellResult(scores, details, bindings, BOUND_SCORES).gated(HpcSuite.headline)
    finally:
        app.close()
    assert all(broken.scores[name] == 0.0 for name in BOUND_SCORES)
    assert broken.scores["step_rate"] == 1.0  # the steps were done; the results are not bound
    assert "job 7" in broken.details["unbound"][0]
