"""What the desktop app remembers between starts besides settings and layout, in the config
folder's `gui-state.json`: whether the first-run guide was shown, and the models picked by hand
(an OpenAI-compatible server, a GGUF file), so the model menu lists them with their status.

Qt-free (the chat's model choice uses it). A missing or broken file reads as a first start.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from workbench.agents.defaults import EMBEDDED_SPEC

STATE_FILE = "gui-state.json"
GUIDE_SHOWN = "first_run_guide_shown"
RECENT_MODELS = "recent_models"
MAX_RECENT_MODELS = 8


def state_file(config_dir: Path) -> Path:
    return config_dir / STATE_FILE


def read_state(config_dir: Path) -> dict[str, Any]:
    try:
        document = json.loads(state_file(config_dir).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return document if isinstance(document, dict) else {}


def write_state(config_dir: Path, changes: dict[str, Any]) -> None:
    """Merge `changes` into the file (written whole, then renamed: never half a file)."""
    document = {**read_state(config_dir), **changes}
    path = state_file(config_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".json.partial")
    partial.write_text(json.dumps(document, indent=2), encoding="utf-8")
    os.replace(partial, path)


def guide_shown(config_dir: Path) -> bool:
    return bool(read_state(config_dir).get(GUIDE_SHOWN))


def mark_guide_shown(config_dir: Path) -> None:
    write_state(config_dir, {GUIDE_SHOWN: True})


def recent_models(config_dir: Path) -> list[str]:
    found = read_state(config_dir).get(RECENT_MODELS, [])
    return [spec for spec in found if isinstance(spec, str)] if isinstance(found, list) else []


def remember_model(config_dir: Path, spec: str) -> None:
    """Keep `spec` at the head of the recent models (Ollama's and the embedded model are
    listed anyway)."""
    if spec.startswith(("ollama:", "scripted:")) or spec in ("reference", EMBEDDED_SPEC):
        return
    recent = [spec, *(s for s in recent_models(config_dir) if s != spec)]
    write_state(config_dir, {RECENT_MODELS: recent[:MAX_RECENT_MODELS]})
