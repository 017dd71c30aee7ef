"""The HPC suite's scoring (Appendix A.3) on hand-made calls and answers, hand-computed values."""

from __future__ import annotations

import pytest

from workbench_plugins.hpc.bench import scoring
from workbench_plugins.hpc.bench.prompts import STYLES, HpcTaskSpec
from workbench_plugins.hpc.bench.scoring import ToolCall

TASK = HpcTaskSpec(
    style="hpc-train-cgan",
    algorithm="cgan_cnn_2d",
    problem_id="beams2d",
    seed=3,
    epochs=100,
    host="local",
)
GENERATE = ToolCall(
    "generate_training_command",
    {"algorithm": "cgan_cnn_2d", "problem_id": "beams2d", "epochs": 100, "seed": 3},
)
SUBMIT = ToolCall("submit_slurm_job", {"script_path": "x.sbatch"})
MONITOR = ToolCall("monitor_job_until_complete", {"job_id": "7"})
EVALUATE = ToolCall(
    "evaluate_model",
    {"problem_id": "beams2d", "algorithm": "cgan_cnn_2d", "seed": 3, "n_samples": 50},
    result={"iog": 1.5, "cog": 12.25, "fog": 0.125, "mmd": 0.0312, "dpp": 2.5e-05, "viol": 0.1},
)
REPORT = "IOG: 1.5, COG: 12.25, FOG: 0.125, MMD: 0.0312, DPP: 2.5e-05, viol: 0.1"


@pytest.mark.parametrize(
    "text",
    [
        "IOG: 1.5",
        "IOG=1.5",
        "'IOG': 1.5",
        '"IOG": 1.5',
        "**IOG**: 1.5",
        '{"iog": 1.5}',
        "iog = 1.5",
    ],
)
def test_each_written_form_of_a_metric_is_found(text: str) -> None:
    assert scoring.extract_metrics([text]) == {"IOG": ["1.5"]}


def test_the_violation_rate_is_found_under_its_usual_names() -> None:
    for text in ("viol: 0.2", "violation_rate=0.2", "'violation rate': 0.2", '"viol": 0.2'):
        assert scoring.extract_metrics([text]) == {"viol": ["0.2"]}, text


def test_names_inside_words_and_names_without_numbers_are_not_metrics() -> None:
    found = scoring.extract_metrics(["report IOG, COG and FOG", "XIOG: 3", "MMD: n/a", "DPPX=1"])
    assert found == {}


def test_metric_score_counts_distinct_metrics_over_all_texts() -> None:
    found = scoring.extract_metrics(["IOG: 1", "COG=2 and IOG: 3", "'MMD': -0.5e-3"])
    assert found == {"IOG": ["1", "3"], "COG": ["2"], "MMD": ["-0.5e-3"]}
    assert scoring.metrics_score(found) == pytest.approx(3 / 6)
    assert scoring.metrics_score(scoring.extract_metrics([REPORT])) == 1.0


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (3, 3),
        ("3", 3),
        (3.0, 3),
        ("3.0", 3),
        (" 7 ", 7),
        (3.5, None),
        ("three", None),
        (True, None),
    ],
)
def test_int_coercion_of_configuration_values(value: object, expected: int | None) -> None:
    assert scoring.as_int(value) == expected


def test_config_check_coerces_and_reads_cfg_and_defaults() -> None:
    as_strings = ToolCall(
        GENERATE.name, {"seed": "3", "epochs": "100.0"}
    )  # defaults: cgan, beams2d
    assert scoring.config_ok([as_strings], TASK)
    nested = ToolCall(
        GENERATE.name, {"cfg": {"seed": 3, "epochs": 100, "algorithm": "cgan_cnn_2d"}}
    )
    assert scoring.config_ok([nested], TASK)
    wrong_seed = ToolCall(GENERATE.name, {**GENERATE.args, "seed": 4})
    assert not scoring.config_ok([wrong_seed], TASK)
    wrong_algorithm = ToolCall(GENERATE.name, {**GENERATE.args, "algorithm": "diffusion_2d_cond"})
    assert not scoring.config_ok([wrong_algorithm], TASK)
    assert scoring.config_ok([wrong_seed, GENERATE], TASK)  # some call matches


def test_weights_move_an_uncalled_steps_share_to_the_step_rate() -> None:
    assert scoring.weights(True, True) == pytest.approx(
        {"step": 0.70, "config": 0.15, "eval": 0.15}
    )
    assert scoring.weights(True, False) == pytest.approx(
        {"step": 0.85, "config": 0.15, "eval": 0.0}
    )
    assert scoring.weights(False, True) == pytest.approx(
        {"step": 0.85, "config": 0.0, "eval": 0.15}
    )
    assert scoring.weights(False, False) == pytest.approx({"step": 1.0, "config": 0.0, "eval": 0.0})


def test_the_optimal_run_scores_one() -> None:
    scores, details = scoring.score_cell([GENERATE, SUBMIT, MONITOR, EVALUATE], REPORT, TASK)
    for name in ("hpc_score", "step_rate", "config_ok", "metrics_extracted", "overall"):
        assert scores[name] == pytest.approx(1.0), name
    assert scores["metrics_verified"] == 1.0
    assert details["metrics_found"]["DPP"] == "2.5e-05"


def test_a_run_that_stops_after_monitoring() -> None:
    # w = (0.85, 0.15, 0): 0.85 * 3/4 + 0.15 = 0.7875; CO = 0.6 * 0.7875 + 0.2 * 0 + 0.2 * 1
    scores, _ = scoring.score_cell([GENERATE, SUBMIT, MONITOR], "", TASK)
    assert scores["hpc_score"] == pytest.approx(0.7875)
    assert scores["task_completion"] == 0.0
    assert scores["tool_efficiency"] == 1.0
    assert scores["overall"] == pytest.approx(0.6725)


def test_a_run_with_half_the_metrics_and_a_redundant_call() -> None:
    # 0.7 * 1 + 0.15 * 1 + 0.15 * 3/6 = 0.925; ToolEff 4/5; TC 0 (three of the six metrics
    # reported); CO = 0.555 + 0 + 0.16 = 0.715
    calls = [GENERATE, SUBMIT, MONITOR, MONITOR, EVALUATE]
    scores, _ = scoring.score_cell(calls, "IOG: 1.5, COG: 12.25, FOG: 0.125", TASK)
    assert scores["hpc_score"] == pytest.approx(0.925)
    assert scores["tool_efficiency"] == pytest.approx(0.8)
    assert scores["task_completion"] == 0.0
    assert scores["overall"] == pytest.approx(0.715)


def test_the_cli_alternative_counts_as_the_evaluate_step() -> None:
    cli = ToolCall(
        "execute_cli_command", {"command": "python -m engiopt.cgan_cnn_2d.evaluate_cgan"}
    )
    other = ToolCall("execute_cli_command", {"command": "ls"})
    assert scoring.steps_done([cli])["evaluate_model"]
    assert not scoring.steps_done([other])["evaluate_model"]
    # no generate: its weight goes to the steps: 0.85 * 1/4 + 0.15 * 0 = 0.2125
    scores, _ = scoring.score_cell([cli], "", TASK)
    assert scores["hpc_score"] == pytest.approx(0.2125)


def test_reported_values_are_checked_against_the_evaluation() -> None:
    wrong = REPORT.replace("IOG: 1.5", "IOG: 1.7")
    found = scoring.extract_metrics([wrong])
    assert scoring.metrics_verified(found, EVALUATE.result) == pytest.approx(5 / 6)
    rounded = scoring.extract_metrics(["IOG: 1.50, COG: 12.3, FOG: 0.13, MMD: 0.031"])
    assert scoring.metrics_verified(rounded, EVALUATE.result) == pytest.approx(4 / 6)
    assert scoring.metrics_verified(found, None) == 0.0


def test_the_prompts_state_what_the_configuration_check_compares() -> None:
    for style in STYLES:
        task = HpcTaskSpec(style, "diffusion_2d_cond", "beams2d", seed=9, epochs=2, host="local")
        assert "seed" in task.prompt and "9" in task.prompt
        assert "2 epochs" in task.prompt or "epochs=2" in task.prompt
        assert "clarification" in task.prompt
        assert "'local'" in task.prompt
