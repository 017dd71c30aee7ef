"""Every bench cell records how its model (and its judge) sampled: profile, temperature, seed."""

from __future__ import annotations

from pathlib import Path

from workbench.bench.cell_result import CellResult
from workbench.bench.executors import PlannedCell, execute_cell
from workbench.bench.suite import BenchTask, CellContext, Suite
from workbench.core.context import AppContext


class _OneTaskSuite(Suite):
    name = "profiles-probe"

    def tasks(self) -> list[BenchTask]:
        return [BenchTask("only")]

    def run(self, task: BenchTask, model: str, seed: int, cell: CellContext) -> CellResult:
        return CellResult({"done": 1.0})


def test_a_cell_records_the_models_temperature_and_seed(
    context: AppContext, tmp_path: Path
) -> None:
    context.settings.model_profiles = [
        {"name": "lab", "kind": "openai-compatible", "model": "qwen",
         "base_url": "http://127.0.0.1:9/v1", "temperature": 0.2, "seed": 11},
    ]  # fmt: skip
    suite = _OneTaskSuite()
    [task] = suite.tasks()
    cell = PlannedCell(suite.name, task, "lab", 0, judge="ollama:qwen3:4b")
    record = execute_cell(suite, cell, context, tmp_path / "out")
    assert record["status"] == "ok", record.get("error")
    model = record["model_settings"]
    assert (model["profile"], model["temperature"], model["seed"]) == ("lab", 0.2, 11)
    assert model["server"] == "http://127.0.0.1:9/v1"
    judge = record["judge_settings"]
    assert (judge["kind"], judge["temperature"], judge["seed"]) == ("ollama", 0.0, 0)

    reference = execute_cell(suite, PlannedCell(suite.name, task, "reference", 0), context,
                             tmp_path / "out")  # fmt: skip
    assert reference["model_settings"]["kind"] == "policy"
