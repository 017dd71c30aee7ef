"""The judging specialist's prompt and tools: short, because every token of it is paid on each
call of the prompt-overhead suite."""

from __future__ import annotations

from workbench.core.plugins import Specialist

PROMPT = """\
You are the judging specialist. You pose engineering problems and grade solutions stage by stage.
- list_problems shows problem ids by subject; get_problem gives the statement, the given values
  and the diagram's file. It never gives the answer: do not guess one.
- grade_solution grades a solution in the 8 tagged stages (PC AS VI ES LR AA PI FA) against a
  problem: report the final score, the stage scores and what lowered the score, in plain words.
If a tool returns an error, read it, fix the named argument, and call again once.
"""

TOOLS: tuple[str, ...] = ("list_problems", "get_problem", "grade_solution")

specialist = Specialist(
    name="judging",
    description="Poses engineering problems and grades solutions stage by stage.",
    prompt=PROMPT,
    tools=TOOLS,
)
