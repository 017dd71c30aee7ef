"""Heat and mass transfer and thermodynamics problem families: every ground truth is checked by an
independent computation (finite differences, ODE and boundary-value solvers, numerical integration,
the first law over each process) over several seeds; problems are deterministic by seed; diagrams
change with the seed and are kept as test artifacts."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.integrate import quad, solve_bvp, solve_ivp
from scipy.optimize import brentq

from tests.support.artifacts import artifact_folder
from workbench_plugins.judging.problems import UREG, Problem, families, problem
from workbench_plugins.judging.problems.families import (
    brayton_cycle,
    lumped_cooling,
    otto_cycle,
    pin_fin,
    polytropic_piston,
    stefan_tube,
    thermal_wall,
)

SEEDS = range(1, 9)
THERMAL_FAMILIES = {
    "thermal_wall": "heat_mass_transfer",
    "lumped_cooling": "heat_mass_transfer",
    "pin_fin": "heat_mass_transfer",
    "stefan_tube": "heat_mass_transfer",
    "brayton_cycle": "thermodynamics",
    "otto_cycle": "thermodynamics",
    "polytropic_piston": "thermodynamics",
}


def si(text: str) -> float:
    """The SI magnitude of a given text such as "25 W/(m²·K)" (temperatures: use number())."""
    return float(UREG.Quantity(text).to_base_units().magnitude)


def number(text: str) -> float:
    """The number in front of a quantity text, e.g. "22 °C" -> 22.0."""
    return float(text.split()[0])


def relative_error(value: float, reference: float) -> float:
    return abs(value - reference) / abs(reference)


# --- heat and mass transfer ---------------------------------------------------------------------


def wall_by_finite_differences(given: dict[str, str]) -> tuple[float, list[float]]:
    """Steady conduction through the layers on a grid with convective (Robin) boundaries:
    returns the heat flux (W/m²) and the temperatures (°C) at the two inner interfaces."""
    cells = 40
    conductances, interface_nodes = [], []
    for layer in (1, 2, 3):
        step = si(given[f"L{layer}"]) / cells
        conductances += [si(given[f"k{layer}"]) / step] * cells
        interface_nodes.append(len(conductances))
    inside, outside = number(given["T_in"]), number(given["T_out"])
    h_in, h_out = si(given["h_in"]), si(given["h_out"])
    size = len(conductances) + 1
    matrix = np.zeros((size, size))
    rhs = np.zeros(size)
    for index, conductance in enumerate(conductances):
        matrix[index, index] += conductance
        matrix[index + 1, index + 1] += conductance
        matrix[index, index + 1] -= conductance
        matrix[index + 1, index] -= conductance
    matrix[0, 0] += h_in
    rhs[0] = h_in * inside
    matrix[-1, -1] += h_out
    rhs[-1] = h_out * outside
    temperatures = np.linalg.solve(matrix, rhs)
    flux = h_in * (inside - temperatures[0])
    return float(flux), [float(temperatures[node]) for node in interface_nodes[:2]]


def test_thermal_wall_matches_a_finite_difference_solution() -> None:
    asked_kinds = set()
    for seed in SEEDS:
        made = thermal_wall.make(seed)
        flux, interfaces = wall_by_finite_differences(made.given)
        asked = thermal_wall.asked_interface(made)
        asked_kinds.add(asked)
        expected = flux if asked == 0 else interfaces[asked - 1]
        assert made.answer_unit == ("W/m**2" if asked == 0 else "degC")
        assert made.answer_value == pytest.approx(expected, rel=1e-9), made.id
        # outside flux equals inside flux: nothing stored in the wall
        assert flux > 0
    assert asked_kinds == {0, 1, 2}, "seeds 1-8 should ask the flux and both interfaces"


def test_lumped_cooling_matches_an_ode_solution_and_the_model_is_valid() -> None:
    for seed in SEEDS:
        made = lumped_cooling.make(seed)
        given = made.given
        radius = si(given["D"]) / 2
        volume, area = 4 / 3 * math.pi * radius**3, 4 * math.pi * radius**2
        rate = si(given["h"]) * area / (si(given["rho"]) * si(given["c"]) * volume)
        fluid, target = number(given["T_inf"]), number(given["T"])

        def reached(_time: float, state: np.ndarray, target: float = target) -> float:
            return float(state[0] - target)

        reached.terminal = True  # type: ignore[attr-defined]
        solution = solve_ivp(
            lambda _t, state, rate=rate, fluid=fluid: -rate * (state - fluid),
            (0.0, 1e6),
            [number(given["T_i"])],
            events=reached,
            rtol=1e-10,
            atol=1e-10,
        )
        assert made.answer_unit == "s"
        assert made.answer_value == pytest.approx(solution.t_events[0][0], rel=1e-6), made.id
        biot = si(given["h"]) * (volume / area) / si(given["k"])
        assert biot < 0.1, f"{made.id}: Bi = {biot:.3f}, the lumped model would be invalid"


def fin_by_boundary_value_problem(given: dict[str, str]) -> tuple[float, float]:
    """theta'' = m² theta, theta(0) = theta_b, -k theta'(L) = h theta(L): heat rate (W) from the
    convection over the side and the tip, and the tip temperature (°C)."""
    diameter, length = si(given["D"]), si(given["L"])
    conductivity, film = si(given["k"]), si(given["h"])
    perimeter, section = math.pi * diameter, math.pi * diameter**2 / 4
    m_squared = film * perimeter / (conductivity * section)
    base = number(given["T_b"]) - number(given["T_inf"])

    def equations(_x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return np.vstack([y[1], m_squared * y[0]])

    def boundaries(start: np.ndarray, end: np.ndarray) -> np.ndarray:
        return np.array([start[0] - base, conductivity * end[1] + film * end[0]])

    grid = np.linspace(0, length, 200)
    solution = solve_bvp(
        equations,
        boundaries,
        grid,
        np.vstack([base * np.ones(200), 0 * grid]),
        tol=1e-10,
        max_nodes=100000,
    )
    assert solution.success
    side, _ = quad(lambda x: film * perimeter * float(solution.sol(x)[0]), 0, length, epsabs=1e-12)
    tip_excess = float(solution.sol(length)[0])
    return side + film * section * tip_excess, number(given["T_inf"]) + tip_excess


def test_pin_fin_matches_a_boundary_value_solution() -> None:
    kinds = set()
    for seed in SEEDS:
        made = pin_fin.make(seed)
        heat_rate, tip_temperature = fin_by_boundary_value_problem(made.given)
        kinds.add(made.answer_unit)
        expected = heat_rate if made.answer_unit == "W" else tip_temperature
        assert made.answer_value == pytest.approx(expected, rel=1e-6), made.id
        assert number(made.given["T_inf"]) < tip_temperature < number(made.given["T_b"])
    assert kinds == {"W", "degC"}


def stefan_flux_by_shooting(given: dict[str, str]) -> float:
    """Molar flux of vapour (mol/(m²·s)) that carries x from x_0 at the water to x_L at the top
    through stagnant air: dx/dz = -N (1 - x) / (c D), integrated by solve_ivp, N by root finding."""
    pressure = si(given["P"])
    concentration = pressure / (8.314 * (number(given["T"]) + 273.15))
    diffusivity, length = si(given["D_AB"]), si(given["L"])
    start, end = si(given["p_sat"]) / pressure, si(given["p_top"]) / pressure

    def top_fraction(flux: float) -> float:
        solution = solve_ivp(
            lambda _z, x: -flux * (1 - x) / (concentration * diffusivity),
            (0.0, length),
            [start],
            rtol=1e-12,
            atol=1e-14,
        )
        return float(solution.y[0, -1]) - end

    upper = 10 * concentration * diffusivity / length
    return float(brentq(top_fraction, 0.0, upper, xtol=1e-16, rtol=1e-13))


def test_stefan_tube_matches_a_shooting_solution_of_the_species_balance() -> None:
    for seed in SEEDS:
        made = stefan_tube.make(seed)
        flux = stefan_flux_by_shooting(made.given)
        area = math.pi * si(made.given["d"]) ** 2 / 4
        rate = UREG.Quantity(flux * area * si(made.given["M_A"]), "kg/s")
        assert made.answer_unit == "mg/h"
        assert made.answer_value == pytest.approx(rate.to("mg/h").magnitude, rel=1e-7), made.id
        fick_only = si(made.given["D_AB"]) / si(made.given["L"])  # no bulk flow: smaller rate
        assert flux > fick_only * (si(made.given["p_sat"]) - si(made.given["p_top"])) / (
            8.314 * (number(made.given["T"]) + 273.15)
        )


# --- thermodynamics -----------------------------------------------------------------------------


def brayton_by_entropy_and_first_law(given: dict[str, str]) -> tuple[float, float]:
    """States from s(T, P) = cp ln T - R ln P (isentropic states by root finding), then the heat
    and work of each of the four processes; returns (efficiency, net work in kJ/kg)."""
    cp = si(given["cp"]) / 1000
    k = si(given["k"])
    gas_constant = cp * (k - 1) / k
    low = si(given["P1"])
    high = low * si(given["r_p"])
    t1, t3 = si(given["T1"]), si(given["T3"])

    def entropy(temperature: float, pressure: float) -> float:
        return cp * math.log(temperature) - gas_constant * math.log(pressure)

    t2s = brentq(lambda t: entropy(t, high) - entropy(t1, low), t1, 10 * t1, xtol=1e-12)
    t4s = brentq(lambda t: entropy(t, low) - entropy(t3, high), 1.0, t3, xtol=1e-12)
    t2 = t1 + (t2s - t1) / si(given["eta_c"])
    t4 = t3 - si(given["eta_t"]) * (t3 - t4s)
    heats = {"1-2": 0.0, "2-3": cp * (t3 - t2), "3-4": 0.0, "4-1": cp * (t1 - t4)}
    works_by_air = {"1-2": -cp * (t2 - t1), "2-3": 0.0, "3-4": cp * (t3 - t4), "4-1": 0.0}
    net_work = sum(works_by_air.values())
    assert sum(heats.values()) == pytest.approx(net_work, rel=1e-12)  # first law over the cycle
    return 1 - abs(heats["4-1"]) / heats["2-3"], net_work


def test_brayton_cycle_matches_entropy_states_and_the_first_law() -> None:
    kinds = set()
    for seed in SEEDS:
        made = brayton_cycle.make(seed)
        efficiency, net_work = brayton_by_entropy_and_first_law(made.given)
        kinds.add(made.answer_unit)
        expected = (
            UREG.Quantity(efficiency).to("percent")
            if made.answer_unit == "percent"
            else (UREG.Quantity(net_work, "kJ/kg"))
        )
        assert made.answer().to(expected.units).magnitude == pytest.approx(
            expected.magnitude, rel=1e-9
        ), made.id
        assert 0 < efficiency < 1 - si(made.given["T1"]) / si(made.given["T3"])  # below Carnot
    assert kinds == {"percent", "kJ/kg"}


def otto_by_integrating_p_dv(given: dict[str, str]) -> tuple[float, float]:
    """Net work as the integral of P dv over the two isentropes (kJ/kg) and the mean effective
    pressure (kPa); the constant-volume processes do no work."""
    gas_constant, k = si(given["R"]), si(given["k"])
    p1, t1, ratio = si(given["P1"]), si(given["T1"]), si(given["r"])
    v1 = gas_constant * t1 / p1
    v2 = v1 / ratio
    cv = gas_constant / (k - 1)
    t2 = t1 * (p1 * ratio**k / p1) ** ((k - 1) / k)  # from P v^k = const and P v = R T
    t3 = t2 + si(given["q_in"]) / cv
    p3 = gas_constant * t3 / v2
    expansion, _ = quad(lambda v: p3 * (v2 / v) ** k, v2, v1, epsrel=1e-13)
    compression, _ = quad(lambda v: p1 * (v1 / v) ** k, v2, v1, epsrel=1e-13)
    net_work = expansion - compression
    return net_work / 1000, net_work / (v1 - v2) / 1000


def test_otto_cycle_matches_the_integral_of_p_dv() -> None:
    kinds = set()
    for seed in SEEDS:
        made = otto_cycle.make(seed)
        net_work, mep = otto_by_integrating_p_dv(made.given)
        kinds.add(made.answer_unit)
        expected = mep if made.answer_unit == "kPa" else net_work
        assert made.answer_value == pytest.approx(expected, rel=1e-9), made.id
    assert kinds == {"kPa", "kJ/kg"}


def test_polytropic_piston_matches_the_integral_of_p_dv_and_the_first_law() -> None:
    kinds = set()
    for seed in range(1, 13):
        made = polytropic_piston.make(seed)
        given = made.given
        p1, v1, v2, n = si(given["P1"]), si(given["V1"]), si(given["V2"]), si(given["n"])
        work_by_air, _ = quad(lambda v, p1=p1, v1=v1, n=n: p1 * (v1 / v) ** n, v1, v2, epsrel=1e-13)
        kinds.add(made.answer_unit)
        if made.answer_unit == "kJ":
            assert made.answer_value == pytest.approx(abs(work_by_air) / 1000, rel=1e-9), made.id
            continue
        temperature1 = number(given["T1"]) + 273.15
        mass = p1 * v1 / (si(given["R"]) * temperature1)
        temperature2 = (p1 * (v1 / v2) ** n) * v2 / (mass * si(given["R"]))
        heat_in = mass * si(given["cv"]) * (temperature2 - temperature1) + work_by_air
        assert made.answer_unit == "J"
        assert made.answer_value == pytest.approx(abs(heat_in), rel=1e-9), made.id
        removed = "removed from" in made.asked
        assert removed == (heat_in < 0), f"{made.id}: the statement names the wrong direction"
    assert kinds == {"kJ", "J"}


# --- every family -------------------------------------------------------------------------------


def test_the_registry_finds_the_thermal_families_with_their_subjects() -> None:
    known = families()
    for name, subject in THERMAL_FAMILIES.items():
        assert known[name].subject == subject
        made = problem(f"{name}-s4")
        assert made == known[name].make(4)
        assert made.id == f"{name}-s4" and made.family == name and made.subject == subject


@pytest.mark.parametrize("name", sorted(THERMAL_FAMILIES))
def test_problems_are_deterministic_by_seed_and_state_every_given_value(name: str) -> None:
    family = families()[name]
    first, again, other = family.make(5), family.make(5), family.make(6)
    assert first == again
    assert first.statement != other.statement
    assert first.asked in first.statement and "{" not in first.statement
    for value in first.given.values():
        assert value in first.statement, f"{first.id}: {value!r} is not in the statement"
    assert first.answer().check(UREG.parse_units(first.answer_unit).dimensionality) or (
        first.answer().dimensionless
    )
    assert math.isfinite(first.answer_value) and first.answer_value != 0


@pytest.mark.parametrize("name", sorted(THERMAL_FAMILIES))
def test_diagrams_are_pngs_that_change_with_the_seed(name: str) -> None:
    family = families()[name]
    drawings: list[tuple[Problem, bytes]] = [
        (made, made.diagram_png()) for made in (family.make(1), family.make(2))
    ]
    for made, png in drawings:
        assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 10_000, made.id
    assert drawings[0][1] != drawings[1][1]
    assert drawings[0][0].diagram_png() == drawings[0][1]  # drawing is deterministic too
    (artifact_folder("judging-problems") / f"{drawings[0][0].id}.png").write_bytes(drawings[0][1])
