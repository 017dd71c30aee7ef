"""Scripts for ScriptedChatModel judges and generators (the suite's, the tools' tests)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

STAGE_CODES = ("PC", "AS", "VI", "ES", "LR", "AA", "PI", "FA")


def tool_reply(name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {
        "tool_calls": [{"name": name, "args": args}],
        "usage": {"input_tokens": 300, "output_tokens": 40},
    }


def stage_reply(
    errors: tuple[tuple[str, str], ...] = (), fatal: tuple[str, ...] = ()
) -> dict[str, Any]:
    found = [{"description": text, "severity": severity} for severity, text in errors]
    return tool_reply(
        "StageVerdict", {"errors": found, "fatal": list(fatal), "comment": "scripted"}
    )


def engjudge_replies(
    es_errors: tuple[tuple[str, str], ...] = (), coverage: float = 10.0
) -> list[dict[str, Any]]:
    """Eight stage verdicts (ES with `es_errors`), then coverage, verbosity, sanity."""
    stages = [stage_reply(es_errors if code == "ES" else ()) for code in STAGE_CODES]
    return [
        *stages,
        tool_reply("CoverageVerdict", {"score": coverage, "comment": ""}),
        tool_reply("VerbosityVerdict", {"score": 10, "comment": ""}),
        tool_reply("SanityVerdict", {"sanity_fail": False, "comment": ""}),
    ]


def single_pass_reply(score: float) -> dict[str, Any]:
    stages = [{"stage": code, "score": score, "reasoning": "scripted"} for code in STAGE_CODES]
    return tool_reply("SinglePassVerdict", {"stages": stages, "overall": "scripted"})


def write_script(path: Path, replies: list[dict[str, Any]]) -> str:
    """The script file and the model spec naming it."""
    path.write_text(json.dumps(replies), encoding="utf-8")
    return f"scripted:{path}"
