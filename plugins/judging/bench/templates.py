"""What a hand-written solution of a family says at its Equation Selection stage: the governing
equation, a plausible wrong one (the off-target policy's planted error) and what that wrong one
does to the answer.

A family may provide its own: a module-level `SOLUTION_TEMPLATE(problem) -> dict` in its file in
problems/families/ (keys: equation, wrong_equation, wrong_factor, optional assumptions). Else
the table here, else a generic template from the Problem's fields. The rubric judge (a fake for
CI) marks the Equation Selection stage by the same template, as a marking scheme does.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass

from workbench_plugins.judging.problems.model import Problem
from workbench_plugins.judging.problems.registry import families

GENERIC_ASSUMPTIONS = (
    "Steady conditions unless the statement says otherwise; constant properties; the model the "
    "statement names holds (its validity conditions are met); the values are exact as given."
)


@dataclass(frozen=True)
class SolutionTemplate:
    equation: str  # the governing equation as the ES stage writes it
    wrong_equation: str  # a plausible but wrong governing equation
    wrong_factor: float  # answer(wrong equation) / answer(right one), > 1.1 or < 0.9
    assumptions: str = GENERIC_ASSUMPTIONS


def generic_template(problem: Problem) -> SolutionTemplate:
    """For a family without a template: the relation named in words from the Problem's fields."""
    variables = ", ".join(problem.given)
    return SolutionTemplate(
        equation=f"{problem.asked} = F({variables}), the governing law of {problem.title.lower()}",
        wrong_equation=f"{problem.asked} = the sum of the given magnitudes ({variables})",
        wrong_factor=2.0,
    )


def _template(equation: str, wrong: str, factor: float, assumptions: str) -> SolutionTemplate:
    return SolutionTemplate(equation, wrong, factor, assumptions)


ELASTIC = "Linear-elastic Euler-Bernoulli beam, small deflections, self-weight neglected."
AIR_STANDARD = "Air-standard cycle: ideal gas with constant specific heats, steady flow."
FREE_VIBRATION = "Linear springs and damper, rigid masses, no friction, free vibration."


def _by_asked(
    problem: Problem, word: str, first: tuple[str, str], other: tuple[str, str]
) -> tuple[str, str]:
    return first if word in problem.asked else other


def _brayton(problem: Problem) -> SolutionTemplate:
    right, wrong = _by_asked(
        problem,
        "efficiency",
        ("eta = w_net / (cp (T3 - T2))", "eta = 1 - 1 / r^((k-1)/k)"),
        ("w_net = cp (T3 - T4) - cp (T2 - T1)", "w_net = cp (T3 - T4) + cp (T2 - T1)"),
    )
    return _template(right, wrong, 1.5, AIR_STANDARD + " Isentropic efficiencies as given.")


def _otto(problem: Problem) -> SolutionTemplate:
    right, wrong = _by_asked(
        problem,
        "mean effective",
        ("mep = w_net / (v1 - v1/r)", "mep = w_net / v1"),
        ("w_net = q_in - cv (T4 - T1)", "w_net = q_in - cp (T4 - T1)"),
    )
    return _template(right, wrong, 1.3, AIR_STANDARD + " Ideal Otto processes.")


def _pin_fin(problem: Problem) -> SolutionTemplate:
    right, wrong = _by_asked(
        problem,
        "tip",
        (
            "theta(L) / theta_b = 1 / (cosh mL + (h/mk) sinh mL)",
            "theta(L) / theta_b = 1 / cosh mL",
        ),
        (
            "q = M (sinh mL + (h/mk) cosh mL) / (cosh mL + (h/mk) sinh mL)",
            "q = M tanh(mL) / m",
        ),
    )
    return _template(
        right, wrong, 1.5, "Steady 1D conduction along the fin, constant k and h, convective tip."
    )


def _polytropic(problem: Problem) -> SolutionTemplate:
    right, wrong = _by_asked(
        problem,
        "heat",
        ("Q = m c_n (T2 - T1) with c_n = cv (n - k) / (n - 1)", "Q = m cv (T2 - T1)"),
        ("W = (P2 V2 - P1 V1) / (1 - n)", "W = P1 (V2 - V1)"),
    )
    return _template(right, wrong, 1.5, "Quasi-equilibrium polytropic process; air an ideal gas.")


TEMPLATES: dict[str, Callable[[Problem], SolutionTemplate]] = {
    "beam_point_load": lambda p: _template(
        "y_max = P b (L^2 - b^2)^(3/2) / (9 sqrt(3) E I L)", "y_max = P L^3 / (3 E I)", 1.5, ELASTIC
    ),
    "cantilever_udl": lambda p: _template(
        "sigma_max = M c / I with M = w L^2 / 2, c = h / 2, I = b h^3 / 12",
        "sigma_max = M c / I with M = w L^2 / 8, c = h / 2, I = b h^3 / 12",
        0.25,
        ELASTIC + " Rectangular section, fully clamped end.",
    ),
    "lumped_cooling": lambda p: _template(
        "t = rho c V / (h A) ln((T_i - T_inf) / (T - T_inf))",
        "t = rho c V / (h A) (T_i - T_inf) / (T - T_inf)",
        2.0,
        "Lumped capacitance (Bi < 0.1), constant h and properties, constant fluid temperature.",
    ),
    "thermal_wall": lambda p: _template(
        "q'' = (T_in - T_out) / (1/h_in + L1/k1 + L2/k2 + L3/k3 + 1/h_out)",
        "q'' = (T_in - T_out) / (L1/k1 + L2/k2 + L3/k3)",
        1.5,
        "Steady 1D conduction, constant properties, perfect contact, no radiation.",
    ),
    "mass_spring_damper": lambda p: _template(
        "f_d = sqrt(k/m) sqrt(1 - zeta^2) / (2 pi) with zeta = c / (2 sqrt(k m))",
        "f_d = sqrt(k/m)",
        6.0,
        FREE_VIBRATION,
    ),
    "two_mass_oscillator": lambda p: _template(
        "m1 m2 omega^4 - (m1 k2 + m2 (k1 + k2)) omega^2 + k1 k2 = 0, the smaller root",
        "omega = sqrt((k1 + k2) / (m1 + m2))",
        1.5,
        FREE_VIBRATION,
    ),
    "pipe_network": lambda p: _template(
        "h_AC = r1 Q^2 + r2 Q2^2 with r = 8 f L / (pi^2 g D^5), Q2 = Q / (1 + sqrt(r2/r3))",
        "h_AC = r1 Q^2 + r2 Q^2 + r3 Q^2 with r = 8 f L / (pi^2 g D^5)",
        2.0,
        "Steady incompressible flow, friction factors as given, minor losses neglected.",
    ),
    "venturi_meter": lambda p: _template(
        "Q = C_d A2 sqrt(2 (rho_m - rho) g h / (rho (1 - (A2/A1)^2)))",
        "Q = C_d A2 sqrt(2 g h)",
        0.3,
        "Steady incompressible frictionless flow between inlet and throat, horizontal meter.",
    ),
    "stefan_tube": lambda p: _template(
        "N_A = c D_AB / L ln((1 - x_L) / (1 - x_0))",
        "N_A = c D_AB (x_0 - x_L) / L",
        0.8,
        "Steady 1D diffusion of vapour through stagnant air, ideal gases, constant T and P.",
    ),
    "brayton_cycle": _brayton,
    "otto_cycle": _otto,
    "pin_fin": _pin_fin,
    "polytropic_piston": _polytropic,
}


def template_for(problem: Problem) -> SolutionTemplate:
    """The family's own template, else this table's, else the generic one."""
    family = families().get(problem.family)
    if family is not None:
        module = importlib.import_module(family.make.__module__)
        provided = getattr(module, "SOLUTION_TEMPLATE", None)
        if callable(provided):
            return SolutionTemplate(**provided(problem))
    made = TEMPLATES.get(problem.family)
    return made(problem) if made is not None else generic_template(problem)
