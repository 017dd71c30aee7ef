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

# requests this specialist is the one for: the supervisor's routing prior scores
# a request against them (workbench.agents.routing)
EXAMPLES: tuple[str, ...] = (
    "Give me an engineering problem on statics to solve.",
    "Grade this solution to problem 12 stage by stage.",
    "List the available problems in thermodynamics.",
    "Score my worked answer to the beam deflection problem.",
    "Show me the statement and given values of problem mech-004.",
)

specialist = Specialist(
    name="judging",
    description="Poses engineering problems and grades solutions stage by stage.",
    prompt=PROMPT,
    tools=TOOLS,
    examples=EXAMPLES,
)
