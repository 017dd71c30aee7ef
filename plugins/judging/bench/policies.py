"""The generator policies that need no model: the reference (a hand-written correct solution in
the 8 tagged stages, from the problem's given values and ground truth) and the off-target ones,
each with one planted fault a judge must find:

  reference                 correct in every stage
  offtarget:wrong-equation  a wrong governing equation at ES, carried through AA and FA (the
                            answer off by the template's factor); every other stage as the reference
  offtarget:no-stages       the correct answer alone, no stages (what a final-answer check rates 10)
"""

from __future__ import annotations

from collections.abc import Callable

from workbench_plugins.judging.bench.templates import SolutionTemplate, template_for
from workbench_plugins.judging.problems.model import Problem

REFERENCE = "reference"
WRONG_EQUATION = "offtarget:wrong-equation"
NO_STAGES = "offtarget:no-stages"
DIRECT: tuple[str, ...] = (REFERENCE, WRONG_EQUATION, NO_STAGES)


def value_text(value: float, unit: str) -> str:
    """A final answer as "value unit", four significant digits (well inside the 5 % band)."""
    return f"{value:.4g} {unit}"


def given_text(problem: Problem) -> str:
    return ", ".join(f"{name} = {value}" for name, value in problem.given.items())


def staged_solution(problem: Problem, template: SolutionTemplate, *, wrong: bool) -> str:
    """The 8 stages; `wrong` writes the template's wrong equation and its consequence."""
    value = problem.answer_value * (template.wrong_factor if wrong else 1.0)
    answer = value_text(value, problem.answer_unit)
    equation = template.wrong_equation if wrong else template.equation
    unit = "" if ", in " in problem.asked else f", in {problem.answer_unit}"
    stages = {
        "PC": f"{problem.title}: find {problem.asked}{unit}. The known quantities are "
        f"{given_text(problem)}.",
        "AS": template.assumptions,
        "VI": f"The diagram shows the same values as the statement: {given_text(problem)}; "
        "the quantity asked for is marked on it.",
        "ES": f"The governing equation: {equation}",
        "LR": "Convert every given value to SI units, substitute them into the governing "
        f"equation and solve it for {problem.asked}.",
        "AA": f"Substituting the given values into the governing equation gives {answer}.",
        "PI": f"The result has the units of the asked quantity ({problem.answer_unit}) and a "
        "magnitude of the order the given values lead one to expect.",
        "FA": answer,
    }
    return "\n".join(f"<{code}>\n{text}\n</{code}>" for code, text in stages.items())


def reference_solution(problem: Problem) -> str:
    return staged_solution(problem, template_for(problem), wrong=False)


def wrong_equation_solution(problem: Problem) -> str:
    return staged_solution(problem, template_for(problem), wrong=True)


def no_stages_solution(problem: Problem) -> str:
    answer = value_text(problem.answer_value, problem.answer_unit)
    return f"{problem.asked[:1].upper()}{problem.asked[1:]} is {answer}."


POLICIES: dict[str, Callable[[Problem], str]] = {
    REFERENCE: reference_solution,
    WRONG_EQUATION: wrong_equation_solution,
    NO_STAGES: no_stages_solution,
}


def direct_solution(policy: str, problem: Problem) -> str:
    """The solution text a direct policy writes; ValueError naming the policies otherwise."""
    write = POLICIES.get(policy)
    if write is None:
        raise ValueError(
            f"Unknown policy {policy!r}; the engjudge suite's direct policies are "
            f"{', '.join(DIRECT)} (any other name is a model spec)."
        )
    return write(problem)
