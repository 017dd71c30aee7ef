"""The design-set metrics of Appendix B (workbench.bench.design_metrics) against values worked out
by hand: MMD of identical sets is 0, DPP of duplicates is about 0, the violation rate of designs
whose violations are known."""

from __future__ import annotations

import math

import numpy as np
import pytest

from workbench.bench import design_metrics as dm
from workbench_plugins.topopt.bench import global_metrics

SIGMA = 10.0
EPS = 1e-6


def points(*values: tuple[float, float]) -> list[np.ndarray]:
    """Designs of two pixels each: (a, b) -> [[a, b]]."""
    return [np.array([[a, b]], dtype=float) for a, b in values]


def test_the_paper_constants() -> None:
    assert dm.SIGMA == SIGMA
    assert dm.JITTER == EPS
    assert dm.VOLUME_TOLERANCE == 0.01


def test_gaussian_kernel_of_a_two_point_set_by_hand() -> None:
    # (0, 0) and (3, 4): squared distance 9 + 16 = 25, so k = exp(-25 / (2 * 10^2)) = exp(-0.125)
    k = math.exp(-0.125)
    kernel = dm.gaussian_kernel(points((0, 0), (3, 4)), points((0, 0), (3, 4)))
    assert kernel.shape == (2, 2)
    np.testing.assert_allclose(kernel, [[1.0, k], [k, 1.0]], rtol=1e-15)
    # sigma 5: exp(-25 / 50)
    assert dm.gaussian_kernel(points((0, 0)), points((3, 4)), sigma=5.0)[0, 0] == pytest.approx(
        math.exp(-0.5)
    )


def test_kernel_refuses_designs_of_different_sizes() -> None:
    with pytest.raises(ValueError, match="cannot be compared"):
        dm.gaussian_kernel(points((0, 0)), [np.zeros((2, 2))])


def test_mmd_of_identical_sets_is_zero() -> None:
    designs = np.random.default_rng(3).uniform(size=(5, 16, 32))
    assert dm.mmd(designs, designs) == 0.0
    assert dm.mmd(list(designs), list(designs[::-1])) == pytest.approx(0.0, abs=1e-12)


def test_mmd_of_two_point_sets_by_hand() -> None:
    k = math.exp(-0.125)
    # {x} against {y}: 1 + 1 - 2k
    assert dm.mmd(points((0, 0)), points((3, 4))) == pytest.approx(2 - 2 * k)
    # {x, y} against {x}: mean Kxx = (2 + 2k) / 4, Kyy = 1, mean Kxy = (1 + k) / 2
    assert dm.mmd(points((0, 0), (3, 4)), points((0, 0))) == pytest.approx((1 - k) / 2)
    with pytest.raises(ValueError, match="at least one"):
        dm.mmd([], points((0, 0)))


def test_dpp_of_duplicates_is_about_zero() -> None:
    design = np.random.default_rng(4).uniform(size=(16, 32))
    # K = [[1, 1], [1, 1]] + eps I: det = (1 + eps)^2 - 1 = 2 eps + eps^2
    assert dm.dpp([design, design]) == pytest.approx(2 * EPS + EPS**2, rel=1e-6)
    assert dm.dpp([design, design, design]) < 1e-10


def test_dpp_of_a_two_point_set_by_hand() -> None:
    k = math.exp(-0.125)
    assert dm.dpp(points((0, 0), (3, 4))) == pytest.approx((1 + EPS) ** 2 - k**2)
    assert dm.dpp(points((0, 0))) == pytest.approx(1 + EPS)
    with pytest.raises(ValueError, match="at least one"):
        dm.dpp([])


def test_violation_rate_on_known_violations() -> None:
    designs = [
        np.full((4, 4), 0.30),  # volfrac 0.30: exact, no violation
        np.full((4, 4), 0.50),  # volfrac 0.40: off by 0.10, violation
        np.full((4, 4), 0.405),  # volfrac 0.40: off by 0.005, inside the 0.01 tolerance
        np.full((4, 4), 0.20),  # volfrac 0.35: off by 0.15, violation
    ]
    volfracs = [0.30, 0.40, 0.40, 0.35]
    assert [dm.volume_violation(d, v) for d, v in zip(designs, volfracs, strict=True)] == [
        0.0,
        1.0,
        0.0,
        1.0,
    ]
    assert dm.rvc(designs, volfracs) == 0.5
    assert dm.rvc(designs, volfracs, tolerance=0.2) == 0.0
    with pytest.raises(ValueError, match="one volume fraction per design"):
        dm.rvc(designs, volfracs[:2])


def test_the_workflow_suite_uses_the_same_functions() -> None:
    """Moved, not copied: the workflow suite's global metrics are these very functions."""
    assert global_metrics.mmd is dm.mmd
    assert global_metrics.dpp is dm.dpp
    assert global_metrics.rvc is dm.rvc
    assert global_metrics.gaussian_kernel is dm.gaussian_kernel
    assert (global_metrics.SIGMA, global_metrics.JITTER) == (dm.SIGMA, dm.JITTER)
