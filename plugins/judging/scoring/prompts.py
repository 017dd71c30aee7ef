"""The judge's instructions, condensed from seed 002 Appendix F (F.2 single pass, F.3 per stage
and meta checks). The judge reports errors and flags; our code turns them into scores, so the
prompts never ask for a number where the formulas give one.
"""

from __future__ import annotations

from workbench_plugins.judging.scoring.stages import STAGE_NAMES, STAGES

SEVERITIES = """Severities (points taken off the part's 10):
- minor (2): rounding slips, notation, a misread dimension with negligible effect
- moderate (4): unit conversion errors, a missing important assumption or boundary condition,
  a sub-optimal coordinate system
- major (7): wrong boundary conditions, an equation used outside its validity, a severe
  derivation slip
- critical (10): a fundamentally wrong governing equation, a dimensionally inconsistent
  formulation, a physically impossible result"""

FATALS = """Fatal errors cap the part's score whatever the penalties (the lowest cap wins):
governing_equation_incorrect (3), physical_model_invalid (4), dimensionally_inconsistent (2),
boundary_conditions_invalid (4), physically_impossible_result (2)."""

STAGE_FOCUS: dict[str, str] = {
    "PC": "Is the physics domain, sub-topic and problem type (steady or transient, 1D/2D/3D) "
    "right? Are the governing principles named? Are the given and asked quantities and the "
    "geometry understood? Fatal: governing_equation_incorrect when the mischaracterization "
    "makes the governing equation wrong; physical_model_invalid.",
    "AS": "Is each assumption physically valid and justified? Are the necessary ones stated "
    "(steady state, 1D, incompressible, ...)? Does any contradict the problem or the diagram? "
    "Fatal: physical_model_invalid, boundary_conditions_invalid.",
    "VI": "Are the dimensions, loads, supports, boundary conditions and properties read "
    "correctly from the diagram, and consistent with the statement? Fatal: "
    "physical_model_invalid (a misreading that changes the physical model), "
    "governing_equation_incorrect (geometry so wrong that the governing equation no longer "
    "applies).",
    "ES": "Be extremely strict. Is the governing equation the right one for this system, in the "
    "right form? Are boundary conditions, coordinates and simplifications right? Is any equation "
    "used outside its validity or dimensionally inconsistent? Fatal: "
    "governing_equation_incorrect, dimensionally_inconsistent, boundary_conditions_invalid.",
    "LR": "Does each claim follow from the previous ones, without leaps, circular arguments or "
    "unjustified conclusions? Is the direction of physical cause and effect right? Judge the "
    "reasoning in words, not the arithmetic.",
    "AA": "Recompute the derivation, the substitutions, the unit conversions and the arithmetic. "
    "Are they right? Fatal: dimensionally_inconsistent (an operation that breaks the "
    "dimensions), boundary_conditions_invalid (a condition applied wrongly in the math).",
    "PI": "Does the solution say what the result means physically, get its trends right and "
    "check that its magnitude is reasonable? Fatal: physically_impossible_result when an "
    "impossible result is accepted as reasonable.",
    "FA": "Our code has already compared the value and its unit with the ground truth: do NOT "
    "penalise the number or the unit. Check only that the asked quantity is answered, clearly "
    "stated, and physically possible (fatal: physically_impossible_result).",
}


def stage_system(stage: str) -> str:
    """The system prompt of one stage's judge call."""
    name = STAGE_NAMES[stage].upper()
    return (
        "You are an extremely strict engineering exam grader. You grade ONE part of a student's "
        f"solution, the {name} part, against the problem, its diagram and the ground-truth "
        f"answer.\n\nWhat to check: {STAGE_FOCUS[stage]}\n\n{SEVERITIES}\n\n{FATALS}\n\n"
        "Report each error in the part where it is made; do not penalise this part for errors "
        "of earlier parts. An empty error list means the part is right. Do not give a score: "
        "it is computed from your errors and flags. Reply by calling the tool StageVerdict."
    )


META_SYSTEM: dict[str, str] = {
    "coverage": "You are a strict engineering exam grader checking the COVERAGE of a complete "
    "solution. Rate it from 0 to 10: 10 when every asked quantity, sub-part, needed assumption "
    "and reasoning step is addressed; one point less for each one left out. Reply by calling "
    "the tool CoverageVerdict.",
    "verbosity": "You are a strict engineering exam grader checking the VERBOSITY of a complete "
    "solution. Rate it from 0 to 10: 10 for a clean, direct derivation; lower for restating "
    "the question, repetition, conversational filler, over-explained algebra or steps that are "
    "not needed. The eight tagged sections are required: never penalise them. Reply by calling "
    "the tool VerbosityVerdict.",
    "sanity": "You are a strict engineering exam grader checking the PHYSICAL SANITY of a "
    "complete solution and its result. Set sanity_fail to true when it violates a fundamental "
    "law: the second law (e.g. an engine above Carnot efficiency), conservation of mass or "
    "energy, impossible bounds (negative absolute temperature, efficiency above 1, speed above "
    "light). Otherwise false. Reply by calling the tool SanityVerdict.",
}

SINGLE_PASS_SYSTEM = (
    "You are an expert engineering professor grading a student's solution against the ground "
    "truth answer. Give a score out of 10 (10 perfect, 0 entirely incorrect) for each of the 8 "
    "standard engineering reasoning steps:\n"
    + "\n".join(f"{i + 1}. {code} {STAGE_NAMES[code]}" for i, code in enumerate(STAGES))
    + "\nReply by calling the tool SinglePassVerdict with one entry per step (its code, e.g. "
    '"ES", its score and a brief reasoning) and an overall summary.'
)
