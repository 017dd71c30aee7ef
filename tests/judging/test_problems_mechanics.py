"""The problem set's API and the mechanical families (mechanics of materials, dynamics, fluid
mechanics): every ground truth is checked against an independent computation (numerical
integration, an eigenvalue solver, an ODE solver, a nonlinear equation solver), over several seeds,
from the given texts parsed here with pint, not with the families' own helpers."""

from __future__ import annotations

import io
import math

import numpy as np
import pytest
from PIL import Image
from scipy.integrate import cumulative_trapezoid, solve_ivp
from scipy.linalg import eigh
from scipy.optimize import fsolve

from tests.support.artifacts import artifact_folder
from workbench_plugins.judging.problems import UREG, Problem, families, problem, problem_set
from workbench_plugins.judging.problems.registry import UnknownProblem

MECHANICAL = {
    "beam_point_load": "mechanics_of_materials",
    "cantilever_udl": "mechanics_of_materials",
    "mass_spring_damper": "dynamics",
    "two_mass_oscillator": "dynamics",
    "pipe_network": "fluid_mechanics",
    "venturi_meter": "fluid_mechanics",
}
SEEDS = (1, 2, 3, 7, 42)


def si(item: Problem, name: str) -> float:
    """A given value in SI base units, parsed straight from its text."""
    return float(UREG.Quantity(item.given[name]).to_base_units().magnitude)


def truth_si(item: Problem) -> float:
    return float(item.answer().to_base_units().magnitude)


def beam_deflection_by_integration(item: Problem) -> float:
    """Integrate EI y'' = M(x) twice on a fine grid; fix the two constants by y(0) = y(L) = 0."""
    span, position, load = si(item, "L"), si(item, "a"), si(item, "P")
    stiffness = si(item, "E") * si(item, "I")
    x = np.linspace(0.0, span, 200_001)
    reaction = load * (span - position) / span
    moment = reaction * x - load * np.clip(x - position, 0.0, None)
    slope = cumulative_trapezoid(moment / stiffness, x, initial=0.0)
    deflection = cumulative_trapezoid(slope, x, initial=0.0)
    deflection -= deflection[-1] * x / span  # add C1 x so that y(L) = 0 (C2 = 0 from y(0) = 0)
    return float(np.max(np.abs(deflection)))


def cantilever_stress_by_integration(item: Problem) -> float:
    """Moment at the wall by integrating the load twice from the free end; I by integrating y²."""
    span, load = si(item, "L"), si(item, "w")
    width, depth = si(item, "b"), si(item, "h")
    s = np.linspace(0.0, span, 100_001)  # distance from the free end
    shear = cumulative_trapezoid(np.full_like(s, load), s, initial=0.0)
    root_moment = cumulative_trapezoid(shear, s, initial=0.0)[-1]
    y = np.linspace(-depth / 2, depth / 2, 100_001)
    inertia = float(np.trapezoid(width * y**2, y))
    return root_moment * (depth / 2) / inertia


def damped_frequency_by_simulation(item: Problem) -> float:
    """Release the mass from x = 1 cm and time the zero crossings of the simulated motion."""
    mass, stiffness, damping = si(item, "m"), si(item, "k"), si(item, "c")

    def motion(_: float, state: np.ndarray) -> list[float]:
        return [state[1], -(damping * state[1] + stiffness * state[0]) / mass]

    def crossing(_: float, state: np.ndarray) -> float:
        return float(state[0])

    natural_period = 2 * math.pi * math.sqrt(mass / stiffness)
    run = solve_ivp(
        motion,
        (0.0, 6 * natural_period),
        [0.01, 0.0],
        events=crossing,
        rtol=1e-11,
        atol=1e-14,
        method="DOP853",
    )
    crossings = run.t_events[0]
    assert len(crossings) >= 4, "the simulated motion must cross zero several times"
    half_period = float(np.mean(np.diff(crossings[:4])))
    return 1.0 / (2 * half_period)


def first_frequency_by_eigenvalues(item: Problem) -> float:
    """The generalised eigenproblem K v = omega² M v, solved by LAPACK."""
    m1, m2, k1, k2 = (si(item, name) for name in ("m1", "m2", "k1", "k2"))
    stiffness = np.array([[k1 + k2, -k2], [-k2, k2]])
    masses = np.diag([m1, m2])
    omega_squared = eigh(stiffness, masses, eigvals_only=True)
    return math.sqrt(float(min(omega_squared))) / (2 * math.pi)


def head_loss_by_solving_network(item: Problem) -> float:
    """Unknowns Q2, Q3, h_BC: continuity and Darcy-Weisbach with velocities, solved by fsolve."""
    g, flow = si(item, "g"), si(item, "Q")

    def loss(pipe: str, pipe_flow: float) -> float:
        diameter = si(item, f"D{pipe}")
        velocity = pipe_flow / (math.pi * diameter**2 / 4)
        return si(item, f"f{pipe}") * si(item, f"L{pipe}") / diameter * velocity**2 / (2 * g)

    def equations(unknowns: np.ndarray) -> list[float]:
        upper, lower, parallel_loss = unknowns
        return [
            upper + lower - flow,
            loss("2", upper) - parallel_loss,
            loss("3", lower) - parallel_loss,
        ]

    upper, lower, parallel_loss = fsolve(equations, [flow / 2, flow / 2, 1.0], xtol=1e-11)
    assert upper > 0 and lower > 0
    assert upper + lower == pytest.approx(flow, rel=1e-9)
    return loss("1", flow) + float(parallel_loss)


def venturi_flow_by_solving(item: Problem) -> float:
    """Walk the manometer hydrostatically for p1 - p2, then solve Bernoulli and continuity for
    V1, V2 with fsolve."""
    water, mercury, g, reading = si(item, "rho"), si(item, "rho_m"), si(item, "g"), si(item, "h")
    inlet_area = math.pi * si(item, "D1") ** 2 / 4
    throat_area = math.pi * si(item, "D2") ** 2 / 4
    depth = 0.7  # pipe axis to the lower mercury level: any value, it cancels
    pressure_drop = -(water * g * depth - mercury * g * reading - water * g * (depth - reading))

    def equations(velocities: np.ndarray) -> list[float]:
        inlet, throat = velocities
        return [
            inlet_area * inlet - throat_area * throat,
            pressure_drop + 0.5 * water * (inlet**2 - throat**2),
        ]

    _, throat_velocity = fsolve(equations, [1.0, 2.0], xtol=1e-11)
    return si(item, "C_d") * throat_area * float(throat_velocity)


INDEPENDENT = {
    "beam_point_load": (beam_deflection_by_integration, 1e-5),
    "cantilever_udl": (cantilever_stress_by_integration, 1e-6),
    "mass_spring_damper": (damped_frequency_by_simulation, 1e-6),
    "two_mass_oscillator": (first_frequency_by_eigenvalues, 1e-9),
    "pipe_network": (head_loss_by_solving_network, 1e-8),
    "venturi_meter": (venturi_flow_by_solving, 1e-8),
}


@pytest.mark.parametrize("family", sorted(MECHANICAL))
@pytest.mark.parametrize("seed", SEEDS)
def test_ground_truth_matches_an_independent_computation(family: str, seed: int) -> None:
    item = problem(f"{family}-s{seed}")
    check, tolerance = INDEPENDENT[family]
    assert truth_si(item) > 0
    assert truth_si(item) == pytest.approx(check(item), rel=tolerance)


@pytest.mark.parametrize("family", sorted(MECHANICAL))
def test_problems_are_deterministic_by_seed_and_differ_between_seeds(family: str) -> None:
    maker = families()[family].make
    assert maker(5) == maker(5)
    made = [maker(seed) for seed in SEEDS]
    assert len({item.answer_value for item in made}) == len(SEEDS)
    assert len({tuple(item.given.items()) for item in made}) == len(SEEDS)


@pytest.mark.parametrize("family", sorted(MECHANICAL))
def test_a_problem_states_every_given_value_and_asks_one_quantity(family: str) -> None:
    item = problem(f"{family}-s2")
    assert item.id == f"{family}-s2"
    assert (item.family, item.seed, item.subject) == (family, 2, MECHANICAL[family])
    for name, text in item.given.items():
        assert f"{name} = {text}" in item.statement, f"{name} = {text} not in the statement"
        UREG.Quantity(text)  # every given text parses back with pint
    assert item.statement.count("Find ") == 1
    assert (
        item.answer_unit in item.statement or item.answer_unit.replace("L", "l") in item.statement
    )
    assert item.answer().units == UREG.Unit(item.answer_unit)


@pytest.mark.parametrize("family", sorted(MECHANICAL))
def test_the_diagram_is_a_png_of_sensible_size_that_differs_between_seeds(family: str) -> None:
    first, second = problem(f"{family}-s1"), problem(f"{family}-s2")
    picture = first.diagram_png()
    assert picture.startswith(b"\x89PNG\r\n\x1a\n")
    with Image.open(io.BytesIO(picture)) as image:
        assert (500, 300) <= image.size <= (900, 700)
        colours = image.convert("RGB").getcolors(maxcolors=1 << 20) or []
        assert len(colours) > 20, "a diagram is more than a blank canvas"
    assert second.diagram_png() != picture
    assert first.diagram_png() == picture, "the same problem draws the same picture"
    (artifact_folder("judging-problems") / f"{family}.png").write_bytes(picture)


def test_problem_errors_name_the_known_families() -> None:
    with pytest.raises(UnknownProblem) as unknown:
        problem("suspension_bridge-s1")
    for family in MECHANICAL:
        assert family in str(unknown.value)
    with pytest.raises(ValueError, match="<family>-s<seed>") as malformed:
        problem("beam_point_load")
    assert "pipe_network" in str(malformed.value)


def test_families_are_found_with_their_subjects() -> None:
    found = families()
    assert list(found) == sorted(found)
    for name, subject in MECHANICAL.items():
        assert found[name].name == name
        assert found[name].subject == subject


def test_the_problem_set_covers_every_family_and_seed_with_at_least_30_problems() -> None:
    problems = problem_set()
    assert len(problems) == 3 * len(families()) >= 30
    assert len({item.id for item in problems}) == len(problems)
    subjects = {family.subject for family in families().values()}
    assert subjects == {
        "fluid_mechanics",
        "heat_mass_transfer",
        "dynamics",
        "mechanics_of_materials",
        "thermodynamics",
    }
    for subject in subjects:
        assert sum(family.subject == subject for family in families().values()) >= 2
    mine = [item for item in problem_set(seeds=(4, 9)) if item.family in MECHANICAL]
    assert [item.id for item in mine] == [
        f"{family}-s{seed}" for family in sorted(MECHANICAL) for seed in (4, 9)
    ]


def test_a_problem_of_an_unloaded_family_says_how_to_get_its_diagram() -> None:
    stray = problem("beam_point_load-s1")
    stray = Problem(**{**stray.__dict__, "family": "no_such_family", "id": "no_such_family-s1"})
    with pytest.raises(LookupError, match=r"registry\.problem\(id\)"):
        stray.diagram_png()
