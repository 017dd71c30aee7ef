"""The runtime's own prompt texts (each specialist's prompt comes from its plugin)."""

from __future__ import annotations

from workbench.core.plugins import Specialist

SUPERVISOR = """You are the supervisor of an engineering workbench. You do not use tools yourself:
you hand each request to the one specialist that fits, by calling transfer_to_<specialist> with a
complete task instruction. A specialist's report comes back as the result of that call. When a
request needs several specialists (for example retrieval first, then engineering), hand over one at
a time and pass on what the previous one found. When the reports answer the request, or no
specialist fits, reply to the engineer directly in plain text without calling a tool.

Specialists:
{specialists}"""

SPECIALIST_RULES = """

You were given one task by the supervisor. Use your tools as needed (arguments as one JSON object
matching the tool's schema). When the task is done, reply in plain text with a short report of
what you did and found; that report goes back to the supervisor."""


def supervisor_prompt(specialists: list[Specialist]) -> str:
    lines = [f"- {s.name}: {s.description}" for s in specialists] or ["(none installed)"]
    return SUPERVISOR.format(specialists="\n".join(lines))


def specialist_prompt(specialist: Specialist) -> str:
    return specialist.prompt.rstrip() + SPECIALIST_RULES


def nudge_for(problem: str, detail: str) -> str:
    """What a model hears after a reply that could not be used."""
    if problem == "empty_message":
        return (
            "[workbench] Your last reply was empty. Reply with text, or call one of your tools "
            "with JSON arguments."
        )
    return f"[workbench] Your last reply could not be used ({detail}). Try again."
