"""A conversation as Markdown (to read or paste) or JSON (to archive or diff)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any


def _when(stamp: float) -> str:
    return datetime.fromtimestamp(stamp, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def to_json(thread_id: str, title: str, model: str, transcript: list[dict[str, Any]]) -> str:
    document = {"thread_id": thread_id, "title": title, "model": model, "entries": transcript}
    return json.dumps(document, indent=2, default=str, ensure_ascii=False)


def to_markdown(thread_id: str, title: str, model: str, transcript: list[dict[str, Any]]) -> str:
    lines = [f"# {title or thread_id}", "", f"Conversation `{thread_id}`, model `{model}`.", ""]
    for item in transcript:
        role, agent, content = item.get("role"), item.get("agent", ""), item.get("content", "")
        stamp = _when(item["time"]) if "time" in item else ""
        if role == "user":
            lines += [f"## Engineer ({stamp})", "", content, ""]
        elif role == "handoff":
            lines += [f"**supervisor → {item.get('specialist')}**: {content}", ""]
        elif role == "report":
            lines += [f"**{agent} reports**: {content}", ""]
        elif role == "tool":
            status = "ok" if item.get("ok") else "error"
            arguments = json.dumps(item.get("arguments", {}), default=str)
            lines += [
                f"- tool `{item.get('tool')}` ({status}) by {agent}, arguments `{arguments}`",
                "",
                "  ```",
                *["  " + line for line in str(content).splitlines()],
                "  ```",
                "",
            ]
        elif item.get("final"):
            lines += [f"## Workbench ({stamp})", "", content, ""]
        else:
            calls = ", ".join(f"`{c.get('name')}`" for c in item.get("tool_calls", []))
            said = f": {content}" if content else ""
            lines += [f"*{agent}*{said}" + (f" (calls {calls})" if calls else ""), ""]
    return "\n".join(lines).rstrip() + "\n"
