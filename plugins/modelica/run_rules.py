"""The rules every task run shares: its limits, how tokens are counted, and the submitted text.

Apart from `harness` so the run, the drivers and the evaluator read one definition.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import BaseModel, Field

from workbench_plugins.modelica.task_packages.submissions import main_model_text

TUNING_SIMULATIONS = 100  # the paper limits simulations in tuning tasks only
TOKEN_KINDS = ("input_uncached", "cache_creation", "cache_read", "output")


class Limits(BaseModel):
    """Run limits, the paper's by default: 900 s wall time (plus 120 s for a verification that
    a submit started in time), 100 turns; simulations: None is unlimited (repair, generation),
    a tuning task gets 100 unless it says otherwise."""

    wall_time_s: float = Field(900.0, gt=0)
    verification_grace_s: float = Field(120.0, ge=0)
    turns: int = Field(100, ge=1)
    simulations: int | None = Field(None, ge=0)

    def describe(self) -> str:
        simulations = (
            "unlimited simulations"
            if self.simulations is None
            else f"{self.simulations} simulations"
        )
        return (
            f"{self.wall_time_s:g} s (+{self.verification_grace_s:g} s for a verification started "
            f"by submit), {self.turns} turns, {simulations}"
        )


def logical_tokens(
    *, input_uncached: int = 0, cache_creation: int = 0, cache_read: int = 0, output: int = 0
) -> int:
    """Logical tokens of one LLM call (seed 003): all input kinds plus output."""
    return input_uncached + cache_creation + cache_read + output


def package_files(content: dict[str, Any]) -> dict[str, str]:
    files = content.get("files", {})
    return files if isinstance(files, dict) else {}


def declares(text: str, model_name: str) -> bool:
    short = re.escape(model_name.rsplit(".", 1)[-1])
    return bool(re.search(rf"^\s*(?:\w+\s+)*(?:model|block|class)\s+{short}\b", text, re.M))


def final_model(content: dict[str, Any], model_name: str) -> str:
    """The submitted source of a package candidate: the file that declares the model, chosen as
    the evaluator and the public gates choose it (library files skipped); "" when none does."""
    return main_model_text(package_files(content), model_name) or ""


def public_task_fields(data: dict[str, Any]) -> dict[str, Any]:
    """`harness.Task` fields from a task in the public benchmark JSON format (no validation:
    the benchmark loader validates)."""
    kind = {"model_repair": "repair", "model_generation": "generation"}.get(
        data["task_type"], "tuning"
    )
    name = data["model_name"]
    files = {f"{name}.mo": data["initial_model"]} if data.get("initial_model") else {}
    brief = [data.get("workflow_goal", "")]
    brief += [f"Requirement: {r}" for r in data.get("requirements", [])]
    brief += [f"Acceptance: {a}" for a in data.get("acceptance", [])]
    brief += [f"Target: {json.dumps(t)}" for t in data.get("target_metrics", [])]
    simulate = data.get("verification", {}).get("simulate", {})
    ranges = {
        k: (float(v["min"]), float(v["max"])) for k, v in data.get("parameter_ranges", {}).items()
    }
    return {
        "task_id": data["task_id"],
        "profile": kind,
        "model_name": name,
        "brief": "\n".join(b for b in brief if b),
        "files": files,
        "tunable_parameters": list(data.get("tunable_parameters", [])),
        "parameter_ranges": ranges,
        "stop_time": float(simulate.get("stop_time", 1.0)),
        "intervals": int(simulate.get("intervals", 500)),
    }
