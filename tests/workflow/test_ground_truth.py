"""The Beams2D ground truth checked by a finite-element solve of our own, not by EngiBench.

The solve below shares no code with EngiBench: its element stiffness is integrated numerically
(2x2 Gauss) instead of taken from the 88-line code's closed form, and it numbers nodes row by
row instead of column by column. What it takes from EngiBench's Beams2D (beams2d/backend.py,
State.new and lk; v0.py, simulate) is the problem: the right half of an MBB beam, nelx x nely
unit Q4 plane-stress elements, E = 1 and nu = 0.3, SIMP E(x) = Emin + x^3 (Emax - Emin) with
Emin = 1e-9, the left edge held in x (symmetry), the bottom-right corner held in y (roller), and
a unit downward load on the top edge at the fraction forcedist of its length. Compliance = f.u.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest
from scipy.sparse import coo_matrix
from scipy.sparse.linalg import spsolve

from workbench_plugins.topopt.bench import ground_truth, tasks

NU, PENALTY, E_MIN, E_MAX = 0.3, 3.0, 1e-9, 1.0
# a unit square in a y-up frame, counter-clockwise from the bottom-left corner
CORNERS = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])


def element_stiffness(nu: float) -> npt.NDArray[np.float64]:
    """Bilinear plane-stress element (E = 1, unit thickness) by 2x2 Gauss quadrature, exact for
    a square element. DOFs (u, v) of the corners in CORNERS order."""
    elasticity = np.array([[1.0, nu, 0.0], [nu, 1.0, 0.0], [0.0, 0.0, (1.0 - nu) / 2]])
    elasticity /= 1.0 - nu**2
    natural = 2.0 * CORNERS - 1.0  # the corners in (xi, eta) in [-1, 1]^2
    stiffness = np.zeros((8, 8))
    for xi in (-1 / np.sqrt(3), 1 / np.sqrt(3)):
        for eta in (-1 / np.sqrt(3), 1 / np.sqrt(3)):
            d_xi = natural[:, 0] * (1 + eta * natural[:, 1]) / 4
            d_eta = natural[:, 1] * (1 + xi * natural[:, 0]) / 4
            jacobian = np.array([d_xi @ CORNERS, d_eta @ CORNERS])
            d_x, d_y = np.linalg.solve(jacobian, np.array([d_xi, d_eta]))
            strain = np.zeros((3, 8))
            strain[0, 0::2], strain[1, 1::2] = d_x, d_y
            strain[2, 0::2], strain[2, 1::2] = d_y, d_x
            stiffness += strain.T @ elasticity @ strain * np.linalg.det(jacobian)
    return stiffness


def compliance(design: npt.NDArray[np.float64], forcedist: float) -> float:
    """Half MBB beam; design[row, column] with row 0 at the top, as EngiBench's images."""
    nely, nelx = design.shape
    node = np.arange((nely + 1) * (nelx + 1)).reshape(nely + 1, nelx + 1)  # [row, column]
    rows, cols = np.meshgrid(np.arange(nely), np.arange(nelx), indexing="ij")
    # CORNERS order in a y-up frame: bottom-left, bottom-right, top-right, top-left
    corners = np.stack(
        [node[rows + 1, cols], node[rows + 1, cols + 1], node[rows, cols + 1], node[rows, cols]],
        axis=-1,
    ).reshape(-1, 4)
    dofs = np.repeat(2 * corners, 2, axis=1) + np.tile([0, 1], 4)
    young = E_MIN + design.reshape(-1) ** PENALTY * (E_MAX - E_MIN)
    values = young[:, None, None] * element_stiffness(NU)[None]
    size = 2 * node.size
    stiffness = coo_matrix(
        (values.ravel(), (np.repeat(dofs, 8, axis=1).ravel(), np.tile(dofs, 8).ravel())),
        shape=(size, size),
    ).tocsc()
    load = np.zeros(size)
    load[2 * node[0, round(forcedist * nelx)] + 1] = -1.0  # downward, on the top edge
    held = np.union1d(2 * node[:, 0], [2 * node[nely, nelx] + 1])  # symmetry x, roller y
    free = np.setdiff1d(np.arange(size), held)
    displacement = np.zeros(size)
    displacement[free] = spsolve(stiffness[free][:, free], load[free])
    return float(load @ displacement)


def test_element_stiffness_is_a_consistent_plane_stress_element() -> None:
    """Rigid motions cost no energy and a uniform stretch gives the textbook energy, so the
    solve below rests on a right element, not on agreeing with EngiBench."""
    stiffness = element_stiffness(NU)
    x, y = CORNERS[:, 0], CORNERS[:, 1]
    for rigid in (np.tile([1.0, 0.0], 4), np.tile([0.0, 1.0], 4), np.ravel([-y, x], "F")):
        assert np.allclose(stiffness @ rigid, 0.0, atol=1e-12)
    stretch = np.ravel([x, np.zeros(4)], "F")  # strain_xx = 1, unit area, stress = E/(1-nu^2)
    assert stretch @ stiffness @ stretch / 2 == pytest.approx(0.5 / (1 - NU**2), rel=1e-12)


def test_beams2d_ground_truth_compliance_matches_an_independent_solve(tmp_path: Path) -> None:
    spec = tasks.build("beams2d", "W-RAND", 0, 0)
    computed = ground_truth.ground_truth(tmp_path, "beams2d", spec.conditions, spec.config, 0)
    # what a cell uses: the cache entry read back from disk
    stored = ground_truth.ground_truth(tmp_path, "beams2d", spec.conditions, spec.config, 0)
    assert computed.computed_s > 0 and stored.computed_s == 0.0
    assert stored.design.shape == (50, 100)
    assert abs(float(stored.design.mean()) - spec.conditions["volfrac"]) < 1e-3  # optimised
    ours = compliance(stored.design, spec.conditions["forcedist"])
    assert ours == pytest.approx(stored.objective, rel=1e-6)
    # the check can fail: the same design under the load elsewhere is a different beam
    moved = compliance(stored.design, min(1.0, spec.conditions["forcedist"] + 0.1))
    assert moved != pytest.approx(stored.objective, rel=1e-2)
