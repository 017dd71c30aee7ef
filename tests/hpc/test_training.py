"""The training pipeline as a Slurm job runs it: a Beams2D dataset made with EngiBench and cached,
a short real training of each algorithm through the command line (`training_argv`), its outputs,
and the six EngiOpt metrics of those outputs."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from workbench_plugins.hpc.training import train
from workbench_plugins.hpc.training.dataset import DatasetSpec, load_or_generate
from workbench_plugins.hpc.training.evaluate import METRIC_KEYS, evaluate_outputs, optimality_gaps
from workbench_plugins.hpc.training.recipes import ALGORITHMS, TrainingRecipe, training_argv

# smaller than the defaults: 16 designs (12 train, 4 test), two epochs, four samples
SIZES = {"n_designs": 16, "epochs": 2, "n_samples": 4}


def recipe_for(algorithm: str) -> TrainingRecipe:
    return TrainingRecipe(algorithm=algorithm, seed=3, **SIZES)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def dataset_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("datasets")


@pytest.fixture(scope="module", params=ALGORITHMS)
def trained(
    request: pytest.FixtureRequest, dataset_cache: Path
) -> tuple[TrainingRecipe, Path, str]:
    """The job's command line run for real; (recipe, its out folder, its stdout)."""
    recipe = recipe_for(request.param)
    out_dir = dataset_cache.parent / f"out-{recipe.algorithm}"
    argv = training_argv(recipe, sys.executable, out_dir, dataset_cache)
    done = subprocess.run(argv, capture_output=True, text=True, timeout=240, check=False)
    assert done.returncode == 0, done.stderr
    return recipe, out_dir, done.stdout


def test_the_dataset_is_made_once_and_then_loaded_from_the_cache(dataset_cache: Path) -> None:
    recipe = recipe_for("cgan_cnn_2d")
    spec = DatasetSpec(recipe.n_designs, recipe.nelx, recipe.nely, recipe.max_iter)
    made: list[tuple[int, int]] = []
    first = load_or_generate(dataset_cache, spec, lambda done, total: made.append((done, total)))
    assert made[-1] == (16, 16)
    assert first.designs.shape == (16, 16, 32)
    assert first.conditions.shape == (16, 3)
    assert (first.designs >= 0).all() and (first.designs <= 1).all()
    assert len(first.test_indices) == 4 and len(first.train_indices) == 12
    # the optimizer meets each condition's volume fraction
    means = first.designs.reshape(16, -1).mean(axis=1)
    np.testing.assert_allclose(means, first.conditions[:, 0], atol=0.01)

    again: list[tuple[int, int]] = []
    second = load_or_generate(dataset_cache, spec, lambda done, total: again.append((done, total)))
    assert again == []  # nothing optimized the second time
    assert second.path == first.path and second.key == first.key
    np.testing.assert_array_equal(second.designs, first.designs)
    assert load_or_generate(second.path, spec).key == first.key  # the .npz itself works too


def test_a_missing_dataset_file_says_what_to_pass(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="pass the cache folder"):
        load_or_generate(tmp_path / "absent.npz", DatasetSpec(4, 32, 16, 40))


def test_the_dataset_optimum_has_no_optimality_gap(dataset_cache: Path) -> None:
    recipe = recipe_for("cgan_cnn_2d")
    spec = DatasetSpec(recipe.n_designs, recipe.nelx, recipe.nely, recipe.max_iter)
    data = load_or_generate(dataset_cache, spec)
    row = int(data.test_indices[0])
    gaps = optimality_gaps(data.designs[row], data.conditions[row], data.objectives[row], 5)
    # f(x0) - f* with x0 the optimum itself; later steps may drift (EngiBench filters the start
    # again), so only their being numbers is checked
    assert gaps["iog"] == pytest.approx(0.0, abs=1e-6 * data.objectives[row])
    assert math.isfinite(gaps["cog"]) and math.isfinite(gaps["fog"])


def test_training_writes_model_samples_and_record(
    trained: tuple[TrainingRecipe, Path, str],
) -> None:
    recipe, out_dir, stdout = trained
    assert (out_dir / "model.pt").stat().st_size > 0
    with np.load(out_dir / "samples.npz") as samples:
        designs, conditions = samples["designs"], samples["conditions"]
        rows = samples["dataset_index"]
    assert designs.shape == (recipe.n_samples, recipe.nely, recipe.nelx)
    assert np.isfinite(designs).all() and designs.min() >= 0.0 and designs.max() <= 1.0
    assert conditions.shape == (recipe.n_samples, 3) and rows.shape == (recipe.n_samples,)
    record = json.loads((out_dir / "training.json").read_text())
    assert TrainingRecipe.model_validate(record["recipe"]) == recipe
    assert [loss["epoch"] for loss in record["losses"]] == [1, 2]
    assert all(math.isfinite(v) for loss in record["losses"] for v in loss.values())
    assert record["seconds"]["total"] > 0
    # one progress line per epoch, for the Slurm log
    assert "epoch 1/2" in stdout and "epoch 2/2" in stdout


def test_evaluation_returns_the_six_metrics(
    trained: tuple[TrainingRecipe, Path, str], dataset_cache: Path
) -> None:
    recipe, out_dir, _ = trained
    # the cGAN is asked for more samples than it stored: the rest come from model.pt
    n_samples = recipe.n_samples + (2 if recipe.algorithm == "cgan_cnn_2d" else 0)
    metrics = evaluate_outputs(out_dir, dataset_cache, n_samples=n_samples, seed=1)
    assert tuple(metrics) == METRIC_KEYS == ("iog", "cog", "fog", "mmd", "dpp", "viol")
    assert all(math.isfinite(value) for value in metrics.values()), metrics
    assert 0.0 <= metrics["viol"] <= 1.0
    assert metrics["mmd"] >= -1e-12 and metrics["dpp"] >= 0.0


def test_the_command_line_round_trips_a_recipe() -> None:
    recipe = TrainingRecipe(algorithm="diffusion_2d_cond", seed=7, epochs=100, nelx=64, nely=32)
    argv = training_argv(recipe, "/opt/py/bin/python", "/scratch/out", "/scratch/data")
    assert argv[:3] == ["/opt/py/bin/python", "-m", "workbench_plugins.hpc.training.train"]
    options = train.parser().parse_args(argv[3:])
    assert train.recipe_from(options) == recipe
    assert (options.out, options.dataset) == (Path("/scratch/out"), Path("/scratch/data"))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (["--algorithm", "gan3000"], "invalid choice: 'gan3000'"),
        (["--epochs", "0"], "--epochs: Input should be greater than or equal to 1"),
        (["--nelx", "30"], "multiples of 4"),
        (["--seed", "one"], "argument --seed: invalid int value: 'one'"),
    ],
)
def test_a_bad_argument_is_named(
    change: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    options = {"--algorithm": "cgan_cnn_2d", "--seed": "1", "--epochs": "2"}
    options.update(dict(zip(change[::2], change[1::2], strict=True)))
    argv = [part for pair in options.items() for part in pair]
    argv += ["--dataset", str(tmp_path), "--out", str(tmp_path / "out")]
    with pytest.raises(SystemExit) as stopped:
        train.main(argv)
    assert stopped.value.code == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "out").exists()
