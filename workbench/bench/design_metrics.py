"""The EngiAI paper's design-set metrics (Appendix B): the Gaussian kernel, MMD, DPP and the
volume-violation rate. Shared by the workflow suite's global metrics and the HPC plugin's
evaluation of trained generative models, so both measure designs the same way.

Designs are flattened to vectors; a set of designs is a list of same-shape arrays or one
(n, ...) array.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import fmean

import numpy as np
import numpy.typing as npt

SIGMA = 10.0  # the paper's kernel bandwidth
JITTER = 1e-6  # added to K's diagonal before the DPP determinant, as the reference does
VOLUME_TOLERANCE = 0.01  # a Beams2D design's mean density may miss its volfrac by less than this

Designs = Sequence[npt.ArrayLike] | npt.NDArray[np.float64]


def _rows(designs: Designs) -> npt.NDArray[np.float64]:
    """(n, d): one flattened design per row (a list of same-shape designs or an (n, ...) array)."""
    array = np.asarray(designs, dtype=float)
    return array.reshape(len(array), -1)


def gaussian_kernel(x: Designs, y: Designs, sigma: float = SIGMA) -> npt.NDArray[np.float64]:
    """K[i, j] = exp(-||x_i - y_j||^2 / (2 sigma^2)). The squared distances are summed from the
    differences (not ||x||^2 + ||y||^2 - 2 x.y), so identical designs give exactly 1."""
    a, b = _rows(x), _rows(y)
    if a.shape[1] != b.shape[1]:
        raise ValueError(f"designs of {a.shape[1]} and {b.shape[1]} pixels cannot be compared")
    squared = np.array([((row - b) ** 2).sum(axis=1) for row in a]).reshape(len(a), len(b))
    kernel: npt.NDArray[np.float64] = np.exp(-squared / (2.0 * sigma**2))
    return kernel


def mmd(generated: Designs, reference: Designs, sigma: float = SIGMA) -> float:
    """mean Kxx + mean Kyy - 2 mean Kxy, the means over all pairs with the diagonals included
    (the biased estimate, as the paper's reference code): 0 when the two sets are equal."""
    if len(generated) == 0 or len(reference) == 0:
        raise ValueError("MMD needs at least one generated and one reference design")
    xx = gaussian_kernel(generated, generated, sigma).mean()
    yy = gaussian_kernel(reference, reference, sigma).mean()
    xy = gaussian_kernel(generated, reference, sigma).mean()
    return float(xx + yy - 2.0 * xy)


def dpp(generated: Designs, sigma: float = SIGMA) -> float:
    """det(K + 1e-6 I) over the generated designs: the determinant itself (not its log), between
    about 0 (near-duplicates: two identical designs give 1e-6 (2 + 1e-6)) and (1 + 1e-6)^n
    (mutually far-apart designs). Computed with slogdet; K + 1e-6 I is positive definite, so the
    sign is +1 and a determinant too small for a float comes out as 0.0 rather than noise."""
    if len(generated) == 0:
        raise ValueError("DPP needs at least one design")
    kernel = gaussian_kernel(generated, generated, sigma)
    sign, log_det = np.linalg.slogdet(kernel + JITTER * np.eye(len(kernel)))
    return float(sign * math.exp(log_det))


def volume_violation(
    design: npt.ArrayLike, volfrac: float, tolerance: float = VOLUME_TOLERANCE
) -> float:
    """1.0 if the design's mean density misses the volume fraction by the tolerance or more."""
    return float(abs(float(np.mean(np.asarray(design))) - volfrac) >= tolerance)


def rvc(designs: Designs, volfracs: Sequence[float], tolerance: float = VOLUME_TOLERANCE) -> float:
    """Fraction of designs whose mean density misses their volume fraction by the tolerance or
    more (Beams2D's one constraint)."""
    if len(designs) != len(volfracs) or len(volfracs) == 0:
        raise ValueError("RVC needs one volume fraction per design and at least one design")
    return fmean(volume_violation(d, v, tolerance) for d, v in zip(designs, volfracs, strict=True))
