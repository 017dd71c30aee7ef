"""Short wording for people of what was written for the model.

A tool error as the model hears it (`ToolError.explain()`: the message, each field's problem,
a hint such as "call again") is precise but long, and it addresses the model. A card shows the
headline made here; the full text stays one click away (the card's Details). Qt-free.
"""

from __future__ import annotations

from typing import Literal

# The runtime's workbench.agents.graph.run.USER_CANCELLED, spelt out so the chat does not import
# LangGraph at start (tests/ui/test_startup_imports.py checks both are the same).
USER_CANCELLED = "cancelled_by_user"

HEADLINE_CHARS = 140
Caller = Literal["agent", "you"]
MALFORMED_WORDS = {
    "empty_message": "it was empty",
    "invalid_tool_call": "a tool call in it was not valid JSON",
    "unparseable": "it could not be read",
    "invalid_handoff": "it handed the task to no usable specialist",
}


def failure_headline(tool: str, error_kind: str, text: str, by: Caller = "agent") -> str:
    """One short line for a failed call of `tool`, from its error kind and the model's text."""
    if error_kind == USER_CANCELLED:
        return "cancelled by you"
    if error_kind == "invalid_arguments":
        return _wrong_arguments(text, by)
    if error_kind == "unknown_tool":
        told = "; the agent was told which tools it has" if by == "agent" else ""
        return f"There is no tool named {tool or '(none)'}{told}."
    if error_kind == "confirmation_required":
        if "declined" in text:
            return "Not run: you declined it."
        return "Not run: it needs your confirmation first."
    if error_kind == "internal":
        return f"{tool} crashed (a bug in the tool); the details are recorded."
    return _shortened(_first_line(text) or "failed")


def card_status(ok: bool, error_kind: str) -> str:
    """A finished card's status: ok, cancelled (by the person), declined, or error."""
    if ok:
        return "ok"
    return {USER_CANCELLED: "cancelled", "confirmation_required": "declined"}.get(
        error_kind, "error"
    )


def _wrong_arguments(text: str, by: Caller) -> str:
    fields = [field for field, _ in _problems(text)]
    then = "the agent was asked to fix it" if by == "agent" else "nothing was run"
    if fields == ["(arguments)"]:
        return f"The arguments were not valid JSON; {then}."
    if len(fields) == 1:
        field, problem = _plain_problem(*_problems(text)[0])
        return _shortened(f"Wrong argument {field}: {problem.rstrip('.')}; {then}.")
    if fields:
        shown = ", ".join(fields[:3]) + (", …" if len(fields) > 3 else "")
        return f"Wrong arguments ({shown}); {then}."
    return f"Wrong arguments; {then}."


def _plain_problem(field: str, problem: str) -> tuple[str, str]:
    """pydantic's words made shorter: "Value error, a.b: Input should be ..." -> a.b, "should
    be ..." (a model validator names the nested field itself)."""
    problem = problem.removeprefix("Value error, ")
    inner, separator, rest = problem.partition(": ")
    if separator and inner.startswith(field) and " " not in inner:
        field, problem = inner, rest
    return field, problem.replace("Input should be", "should be")


def _problems(text: str) -> list[tuple[str, str]]:
    """The "- field: problem" lines of an explained ToolError."""
    found = []
    for line in text.splitlines():
        if line.startswith("- ") and ": " in line:
            field, _, problem = line[2:].partition(": ")
            found.append((field.strip(), problem.strip()))
    return found


def malformed_note(problem: str, retries_left: int) -> str:
    """A model reply that could not be used, for the chat (the detail goes to its tooltip)."""
    what = MALFORMED_WORDS.get(problem, "it was malformed")
    tries = "no retries left" if retries_left <= 0 else f"{retries_left} more tries"
    return f"The model's reply could not be used ({what}); it was asked again ({tries})."


def _first_line(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[0] if lines else ""


def _shortened(text: str) -> str:
    return text if len(text) <= HEADLINE_CHARS else text[: HEADLINE_CHARS - 1] + "…"
