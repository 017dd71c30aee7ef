"""Tool results and arguments as short text: one line for a card's summary, compact JSON."""

from __future__ import annotations

import json
from numbers import Real
from typing import Any

SUMMARY_CHARS = 160
ARGUMENTS_CHARS = 200


def summarize(value: Any, limit: int = SUMMARY_CHARS) -> str:
    """One line for a tool result: `key: value` pairs, nested things shortened."""
    if isinstance(value, dict):
        parts = [f"{key}: {_short(item)}" for key, item in value.items()]
        text = ", ".join(parts) if parts else "(empty result)"
    else:
        text = _short(value, 80)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _short(value: Any, limit: int = 40) -> str:
    if isinstance(value, dict):
        return "{…}" if value else "{}"
    if isinstance(value, list | tuple):
        return f"[{len(value)} items]" if len(value) != 1 else "[1 item]"
    if isinstance(value, float):
        return f"{value:.6g}"
    text = " ".join(str(value).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def summarize_text(content: str) -> str:
    """A tool's answer as the model saw it (JSON text or an error explanation), on one line."""
    try:
        parsed = json.loads(content)
    except (TypeError, ValueError):
        first = content.strip().splitlines()[0] if content.strip() else ""
        return first if len(first) <= SUMMARY_CHARS else first[: SUMMARY_CHARS - 1] + "…"
    return summarize(parsed)


def compact_json(value: Any, limit: int = ARGUMENTS_CHARS) -> str:
    """Arguments on one line, cut at `limit` characters."""
    text = json.dumps(value, ensure_ascii=False, default=str, separators=(", ", ": "))
    return text if len(text) <= limit else text[: limit - 1] + "…"


def progress_text(title: str, message: str, fraction: float | None, data: dict[str, Any]) -> str:
    """A job's latest progress on one line: "optimize beams2d: iteration 13/100, objective 2.5",
    "Slurm job 42 on local: RUNNING 0:37"."""
    text = message
    iteration = data.get("iteration")
    if message == "iteration" and isinstance(iteration, int):
        done = iteration + 1  # the optimisers count from 0
        planned = round(done / fraction) if fraction else 0
        text = f"iteration {done}/{planned}" if planned >= done else f"iteration {done}"
        objective = data.get("objective")
        if isinstance(objective, Real) and not isinstance(objective, bool):
            text += f", objective {objective:.4g}"
    elif fraction is not None and not message:
        text = f"{fraction:.0%}"
    shown = f"{title}: {text}" if title and text else title or text
    return shown if len(shown) <= SUMMARY_CHARS else shown[: SUMMARY_CHARS - 1] + "…"
