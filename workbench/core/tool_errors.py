"""How a tool call fails: the exception a tool raises, and the error a caller gets back.

A tool raises `ToolFailure` for what the user or agent can act on; the registry turns it, bad
arguments and crashes into a `ToolError` that names each field and the constraint it broke, in
words fit for a person and for a model. Nothing here knows the registry or the app.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ValidationError


class ToolFailure(Exception):
    """Raised by a tool for a failure the user or agent can act on (bad file, unreachable host)."""

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint


class FieldProblem(BaseModel):
    field: str
    constraint: str
    message: str
    input: Any = None


ErrorKind = Literal[
    "unknown_tool", "invalid_arguments", "confirmation_required", "failed", "internal"
]


class ToolError(BaseModel):
    tool: str
    kind: ErrorKind
    message: str
    hint: str = ""
    problems: list[FieldProblem] = []
    paths: list[str] = []  # confirmation_required: the files outside the workspace, resolved

    def explain(self) -> str:
        """One paragraph for a chat bubble or a model's next turn."""
        lines = [self.message]
        lines += [f"- {p.field}: {p.message}" for p in self.problems]
        if self.hint:
            lines.append(self.hint)
        return "\n".join(lines)


def problems_from(error: ValidationError) -> list[FieldProblem]:
    return [
        FieldProblem(
            field=".".join(str(part) for part in item["loc"]) or "(arguments)",
            constraint=item["type"],
            message=item["msg"],
            input=item.get("input") if not isinstance(item.get("input"), dict) else None,
        )
        for item in error.errors(include_url=False)
    ]
