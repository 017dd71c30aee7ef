"""The eight reasoning stages of a solution (seed 002, section 4.1) and the tagged format a
generator writes them in.

A stage sits between an opening and a closing tag. The short code is the canonical tag
(`<ES> ... </ES>`); the long name is accepted too, with underscores or spaces and in any case
(`<EQUATION_SELECTION>`, `<Equation Selection>`), because models often write it out. The paper's
`###### NAME ###### ... ###### END_STEP ######` markers are not accepted: one format, one parser.
"""

from __future__ import annotations

STAGES: tuple[str, ...] = ("PC", "AS", "VI", "ES", "LR", "AA", "PI", "FA")

STAGE_NAMES: dict[str, str] = {
    "PC": "Problem Characterization",
    "AS": "Assumptions",
    "VI": "Visual Interpretation",
    "ES": "Equation Selection",
    "LR": "Logical Reasoning",
    "AA": "Algebraic Accuracy",
    "PI": "Physical Interpretation",
    "FA": "Final Answer",
}

# What each stage must contain: the generator's instructions and the judge's focus share it.
STAGE_TASKS: dict[str, str] = {
    "PC": "the problem type and what is to be found, in one or two sentences",
    "AS": "the key assumptions (2-4), each with a one-line justification",
    "VI": "what the diagram shows: dimensions, loads, supports, boundary conditions, properties",
    "ES": "the governing equations and why each applies",
    "LR": "the plan: the physical and mathematical steps from the equations to the answer",
    "AA": "the derivation and the substitution in SI units, step by step (3-4 significant digits)",
    "PI": "what the result means physically, and is its magnitude reasonable (2-3 sentences)",
    "FA": "only the asked value with its unit, e.g. 12.4 mm",
}


def tag_names(stage: str) -> tuple[str, ...]:
    """The spellings accepted for a stage's tag, upper-cased and with single spaces (the parser
    normalises what it reads the same way)."""
    long_name = STAGE_NAMES[stage].upper()
    return (stage, long_name, long_name.replace(" ", "_"))


def stage_of_tag(tag: str) -> str | None:
    """The stage code a tag names (`es`, `Equation Selection`, `EQUATION_SELECTION`), or None."""
    normal = " ".join(tag.replace("_", " ").split()).upper()
    for stage in STAGES:
        if normal == stage or normal == STAGE_NAMES[stage].upper():
            return stage
    return None


def _format_lines() -> str:
    return "\n".join(
        f"<{code}>\n{STAGE_NAMES[code]}: {STAGE_TASKS[code]}.\n</{code}>" for code in STAGES
    )


SOLUTION_FORMAT = f"""You are an expert engineering professor solving a problem.
Examine the problem text and the diagram carefully.

Write your solution in EXACTLY the tagged format below: eight sections, in this order, each
between its opening and closing tag, none skipped, nothing outside the tags.
- Be concise: state only what is necessary.
- Show the arithmetic; convert to SI units before substituting.
- Check that the final answer is physically reasonable.
- The FA section holds the asked value and its unit only, e.g. 12.4 mm.

{_format_lines()}
"""
