"""Issue 17, acceptance 6: the Modelica specialist's prompt and tool schemas fit a small model's
context (at most 1,500 tokens per call, as `bench prompt-overhead` measures them), and the
shorter schemas still offer every argument the tools take."""

from __future__ import annotations

from pathlib import Path
from typing import Any, get_args

from tests.modelica.conftest import MODELS
from workbench.agents import prompt_overhead
from workbench.agents.toolbridge import tool_schema
from workbench_plugins.modelica import harness
from workbench_plugins.modelica.specialist import TOOLS
from workbench_plugins.modelica.tools.ledger import OBSERVABLE_SCHEMA, observable_variants

MAX_TOKENS_PER_CALL = 1500


def test_modelica_specialist_costs_at_most_1500_tokens_per_call(context) -> None:  # type: ignore[no-untyped-def]
    report = prompt_overhead(context)  # the measurement the prompt-overhead suite reports
    modelica = report["specialists"]["modelica"]
    assert modelica["tools"] == len(TOOLS)
    assert 0 < modelica["total_tokens"] <= MAX_TOKENS_PER_CALL, modelica


def test_every_argument_of_every_tool_is_still_shown(context) -> None:  # type: ignore[no-untyped-def]
    for name in TOOLS:
        tool = context.registry.get(name)
        assert tool is not None, name
        shown = tool_schema(tool)["function"]["parameters"]
        # `run` is said once, in the prompt; the harness fills it in
        assert set(shown.get("properties", {})) == set(tool.args.model_fields) - {"run"}, name
        assert "$defs" not in shown and "anyOf" not in str(shown), name


def test_the_flat_observable_schema_covers_every_observable() -> None:
    properties = OBSERVABLE_SCHEMA["properties"]
    fields: set[str] = set()
    for variant in observable_variants():
        fields |= set(variant.model_fields)
        for field_name, field in variant.model_fields.items():
            literal_values = list(get_args(field.annotation))
            if field_name != "type" and literal_values and "enum" in properties[field_name]:
                assert properties[field_name]["enum"] == literal_values, field_name
    assert fields == set(properties)
    assert properties["type"]["enum"] == [
        v.model_fields["type"].default for v in observable_variants()
    ]


def test_an_observable_written_to_the_flat_schema_is_measured(
    inline_simulation, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    context = inline_simulation
    task = harness.Task(
        task_id="rc",
        profile="repair",
        model_name="RCCharge",
        brief="RCCharge charges to 5 V.",
        files={"RCCharge.mo": (MODELS / "RCCharge.mo").read_text()},
    )
    run = harness.start_run(task, tmp_path / "task", context.ledger)

    def call(name: str, **arguments: Any) -> dict[str, Any]:
        outcome = context.registry.call(name, {"run": run.id, **arguments}, caller="test")
        assert outcome.ok, outcome.error
        return outcome.result

    sim = call("simulate", model="RCCharge", stop_time=10, intervals=200)["sim_id"]
    settled = call(
        "evaluate_observable",
        sim=sim,
        observable={"type": "settling_time", "variable": "vc", "band": 0.05},
    )
    assert 0 < settled["value"] < 10
    judged = call(
        "evaluate_observable",
        sim=sim,
        observable={"type": "value_at_time", "variable": "vc", "time": 10},
        condition={"target": 5.0, "tolerance": 0.01},
    )
    assert judged["suggested_adjudication"] == "supported"
