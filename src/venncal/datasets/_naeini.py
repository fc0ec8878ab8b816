"""The simulated designs of Naeini, Cooper & Hauskrecht, fitted to the paper's Table 2(a)-(b).

The XOR and circular designs here were fitted to calibrators' results (histogram binning, SBB
and ABB) on the very draws they were then compared on, so they cannot test those calibrators;
the Naeini study no longer uses them. Its designs are chosen from the paper's description and
uncalibrated LR row only (``venncal.experiments.studies._naeini_designs``).

The paper (section 3) simulates "one dataset in which the outcomes were linearly separable and
two other datasets in which they were not" (XOR and circular), with 600 examples each to train
logistic regression (LR), to calibrate and to test. It shows the last two only as scatter plots
and gives no parameters, so the designs here are derived from the numbers it reports.

**What the numbers say.** Every calibrator but ACP sees only LR's score, a linear projection of
``x``. The paper's LR row on XOR (AUC 0.497, accuracy 0.510, RMSE 0.500) says that score does not
rank the classes, yet its ECE of 0.190 and MCE of 0.521 say its probabilities are far from 0.5:
LR has a clear slope. Platt scaling equals LR (so LR's sigmoid is already the best sigmoid on
fresh data), and histogram binning, SBB and ABB reach AUC 0.931, 0.914 and 0.941 from that
score. The designs of :mod:`venncal.datasets._simulated`, symmetric under a reflection, give
LR a slope of about zero (probabilities near 0.5, ECE below 0.08) and a score whose best
non-monotone calibration reaches AUC 0.885 (XOR) and 0.752 (circular) only. So the symmetry must
be broken along LR's direction while keeping the classes' ranks balanced:

* **XOR** (:class:`OffsetXorModel`): four Gaussian clusters on the diagonals, the two positive
  ones at *unequal* distances from the centre (``near`` on one side, ``far`` on the other), the
  negative ones at distance ``negative`` on the other diagonal. LR's score is the position along
  the positive diagonal: the negatives project to the middle, one positive cluster to each side,
  so half the positives rank above the negatives and half below (AUC about 0.5), while the
  unequal distances give LR a slope (probabilities spread out, large ECE).
* **Circular** (:class:`EccentricRingModel`): a Gaussian blob of positives inside a ring of
  negatives whose radius is ``radius * (1 + eccentricity * cos(angle))``: further from the blob
  on one side. Half the negatives project to each side of the blob (AUC about 0.5); the
  eccentricity gives LR its slope.
* **Linearly separable** (:class:`SeparableModel`): ``y = 1`` exactly when ``x1 + x2 > 0``.

**How the parameters were fitted.** Each candidate was run through the study
``venncal reproduce naeini-2014`` at full size (600 / 600 / 600, LR on standardised inputs, the
same 20 draws) and compared with Table 2. XOR: ``near`` and ``far`` set LR's slope and so its ECE
and MCE (paper 0.190 and 0.521), and with ``scale`` the separation that histogram binning, SBB
and ABB can reach (paper AUC 0.931 / 0.914 / 0.941, accuracy 0.855 / 0.887 / 0.888);
``negative`` is small so that the finite-sample tilt of LR's direction mixes little of the
negatives' spread into the score. With ``near=2.25, far=3.25, negative=1.5, scale=0.65`` the
means of the 20 draws are: LR AUC 0.521, accuracy 0.576, RMSE 0.497, MCE 0.509, ECE 0.215;
isotonic AUC 0.726; histogram (equal-frequency bins), SBB and ABB AUC 0.931, 0.925, 0.943,
accuracy 0.866, 0.884, 0.891. (``far=3.0`` gave ECE 0.217 but AUC 0.919 / 0.912 / 0.932;
``far=3.25, near=2, scale=0.7`` AUC 0.937 / 0.936 / 0.951 but ECE 0.275.) Circular:
``eccentricity`` sets LR's ECE (paper 0.171) and ``radius`` against ``inner_scale`` and
``ring_scale`` the reachable AUC (paper 0.827 / 0.816 / 0.838). With ``inner_scale=0.9,
radius=3.25, eccentricity=0.25, ring_scale=0.8``: LR AUC 0.510, accuracy 0.529, RMSE 0.499, MCE
0.527, ECE 0.170; isotonic AUC 0.657; histogram, SBB and ABB AUC 0.831, 0.814, 0.839. The paper
reports no numbers for the separable data ("uniformly excellent").

Each generator returns a :class:`~venncal.datasets.Dataset` whose ``meta["model"]`` draws more
data (``model.sample(n, random_state)``) and gives the true posterior (``model.posterior(X)``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from scipy.special import expit, logsumexp

from venncal._validation import check_positive_int, check_random_state
from venncal.datasets._simulated import (
    _blob_in_ring,
    _check_positive,
    _dataset,
    check_features_2d,
)
from venncal.datasets._size import check_n_samples, draw_labels

if TYPE_CHECKING:
    import numpy.typing as npt

    from venncal._typing import ArrayLike, FloatArray, SeedLike
    from venncal.datasets._base import Dataset

__all__ = [
    "OffsetXorModel",
    "EccentricRingModel",
    "SeparableModel",
    "make_offset_xor",
    "make_eccentric_ring",
    "make_separable",
]

_PAPER = "Naeini, Cooper & Hauskrecht 2015 (004_524bdd2b48de3bf8), Section 3 and Table 2(a)-(b)"
_R2 = np.sqrt(0.5)


def _log_gauss(X, centre, scale):
    """Log density of N(centre, scale^2 I) in two dimensions at each row of X."""
    d2 = (X[:, 0] - centre[0]) ** 2 + (X[:, 1] - centre[1]) ** 2
    return -d2 / (2 * scale**2) - np.log(2 * np.pi * scale**2)


@dataclass(frozen=True)
class OffsetXorModel:
    """XOR with the two positive clusters at unequal distances from the centre.

    The classes are equally likely; each class is an equal mixture of two Gaussian clusters with
    covariance ``scale^2 I``. Positives: centres ``near * (1, 1) / sqrt(2)`` and
    ``-far * (1, 1) / sqrt(2)``. Negatives: ``negative * (1, -1) / sqrt(2)`` and
    ``negative * (-1, 1) / sqrt(2)``. The posterior is the ratio of the mixture densities.

    Parameters
    ----------
    near, far : float, default=2.25, 3.25
        Distances of the positive clusters from the centre.
    negative : float, default=1.5
        Distance of each negative cluster from the centre.
    scale : float, default=0.65
        Standard deviation of each coordinate within a cluster.

    Notes
    -----
    The defaults are fitted to Naeini et al.'s Table 2(a); see the module description.
    """

    near: float = 2.25
    far: float = 3.25
    negative: float = 1.5
    scale: float = 0.65
    paper: str = _PAPER

    def _check(self):
        for name in ("near", "far", "negative", "scale"):
            _check_positive(getattr(self, name), name, "OffsetXorModel")

    def _centres(self):
        a, b, c = self.near * _R2, self.far * _R2, self.negative * _R2
        return ((a, a), (-b, -b)), ((c, -c), (-c, c))

    def sample(
        self, n_samples: int, random_state: SeedLike = None
    ) -> tuple[FloatArray, npt.NDArray[np.int8]]:
        """Draw ``n_samples`` i.i.d. pairs; returns X (n, 2) float64 and y (n,) int8."""
        self._check()
        n, rng, y = draw_labels(n_samples, random_state, owner="OffsetXorModel.sample")
        first = rng.random(n) < 0.5
        (p1, p2), (n1, n2) = (np.array(c) for c in self._centres())
        centre = np.where(
            (y == 1)[:, None], np.where(first[:, None], p1, p2), np.where(first[:, None], n1, n2)
        )
        return centre + rng.normal(0.0, self.scale, size=(n, 2)), y

    def posterior(self, X: ArrayLike) -> FloatArray:
        """True probability of y = 1 at each row of ``X`` (n, 2); returns shape (n,)."""
        self._check()
        X = check_features_2d(X, "OffsetXorModel.posterior")
        pos, neg = self._centres()
        lp = logsumexp([_log_gauss(X, c, self.scale) for c in pos], axis=0)
        ln = logsumexp([_log_gauss(X, c, self.scale) for c in neg], axis=0)
        return expit(lp - ln)


@dataclass(frozen=True)
class EccentricRingModel:
    """A Gaussian blob of positives inside a ring of negatives that is wider on one side.

    The classes are equally likely. Given ``y = 1``, ``X ~ N(0, s^2 I)`` (``s = inner_scale``).
    Given ``y = 0``, an angle ``T`` is uniform on [0, 2 pi) and
    ``X = R(T) (cos T, sin T) + N(0, t^2 I)`` with ``R(T) = radius (1 + eccentricity cos T)``
    (``t = ring_scale``). The negative density is the average over ``T`` of a Gaussian density,
    computed by the trapezoidal rule on ``n_angles`` equally spaced angles (exact to machine
    precision for a smooth periodic integrand once ``n_angles`` resolves the ring).

    Parameters
    ----------
    inner_scale : float, default=0.9
    radius : float, default=3.25
    eccentricity : float, default=0.25
        In [0, 1); 0 is a ring centred on the blob.
    ring_scale : float, default=0.8
    n_angles : int, default=2048
        Quadrature nodes of the posterior.

    Notes
    -----
    The defaults are fitted to Naeini et al.'s Table 2(b); see the module description.
    """

    inner_scale: float = 0.9
    radius: float = 3.25
    eccentricity: float = 0.25
    ring_scale: float = 0.8
    n_angles: int = 2048
    paper: str = _PAPER

    def _check(self):
        for name in ("inner_scale", "radius", "ring_scale"):
            _check_positive(getattr(self, name), name, "EccentricRingModel")
        e = self.eccentricity
        if not (isinstance(e, (int, float)) and np.isfinite(e) and 0 <= e < 1):
            raise ValueError(
                "The 'eccentricity' parameter of EccentricRingModel must be in [0, 1). "
                f"Got {e!r} instead."
            )
        check_positive_int(self.n_angles, name="n_angles", owner="EccentricRingModel")

    def sample(
        self, n_samples: int, random_state: SeedLike = None
    ) -> tuple[FloatArray, npt.NDArray[np.int8]]:
        """Draw ``n_samples`` i.i.d. pairs; returns X (n, 2) float64 and y (n,) int8."""
        self._check()
        _, rng, y = draw_labels(n_samples, random_state, owner="EccentricRingModel.sample")
        X = _blob_in_ring(rng, y, self.inner_scale, self.radius, self.ring_scale, self.eccentricity)
        return X, y

    def posterior(self, X: ArrayLike) -> FloatArray:
        """True probability of y = 1 at each row of ``X`` (n, 2); returns shape (n,)."""
        self._check()
        X = check_features_2d(X, "EccentricRingModel.posterior")
        s, t = self.inner_scale, self.ring_scale
        theta = np.arange(self.n_angles) * (2 * np.pi / self.n_angles)
        r = self.radius * (1 + self.eccentricity * np.cos(theta))
        cx, cy = r * np.cos(theta), r * np.sin(theta)
        log_pos = _log_gauss(X, (0.0, 0.0), s)
        log_neg = np.empty(X.shape[0])
        for start in range(0, X.shape[0], 1024):
            x = X[start : start + 1024]
            d2 = (x[:, :1] - cx) ** 2 + (x[:, 1:] - cy) ** 2
            log_neg[start : start + 1024] = logsumexp(-d2 / (2 * t * t), axis=1)
        log_neg += -np.log(self.n_angles) - np.log(2 * np.pi * t * t)
        return expit(log_pos - log_neg)


@dataclass(frozen=True)
class SeparableModel:
    """Linearly separable data: ``X ~ N(0, I)`` and ``y = 1`` exactly when ``x1 + x2 > 0``.

    The posterior is 0 or 1; the Bayes classifier, and any increasing function of
    ``x1 + x2`` thresholded at 0, is always right.
    """

    paper: str = _PAPER

    def sample(
        self, n_samples: int, random_state: SeedLike = None
    ) -> tuple[FloatArray, npt.NDArray[np.int8]]:
        """Draw ``n_samples`` i.i.d. pairs; returns X (n, 2) float64 and y (n,) int8."""
        n = check_n_samples(n_samples, owner="SeparableModel.sample")
        rng = check_random_state(random_state, owner="SeparableModel.sample")
        X = rng.normal(0.0, 1.0, size=(n, 2))
        return X, self.posterior(X).astype(np.int8)

    def posterior(self, X: ArrayLike) -> FloatArray:
        """True probability of y = 1 at each row of ``X`` (n, 2): 1.0 or 0.0."""
        X = check_features_2d(X, "SeparableModel.posterior")
        return (X[:, 0] + X[:, 1] > 0).astype(np.float64)


def make_offset_xor(
    n_samples: int = 600,
    *,
    near: float = 2.25,
    far: float = 3.25,
    negative: float = 1.5,
    scale: float = 0.65,
    random_state: SeedLike = None,
) -> Dataset:
    """Draw the XOR design fitted to Naeini et al.'s Table 2(a).

    Parameters
    ----------
    n_samples : int, default=600
    near, far, negative, scale : float, default=2.25, 3.25, 1.5, 0.65
        See :class:`OffsetXorModel`.
    random_state : int, numpy Generator or None, default=None

    Returns
    -------
    Dataset
        ``meta["model"]`` is the :class:`OffsetXorModel`.

    Examples
    --------
    A linear score ranks the classes no better than chance, though each positive cluster is
    far from the negatives:

    >>> from venncal.metrics import roc_auc
    >>> ds = make_offset_xor(20000, random_state=0)
    >>> round(float(roc_auc(ds.y, expit(ds.X[:, 0] + ds.X[:, 1]))), 1)
    0.5
    >>> p = ds.meta["model"].posterior(ds.X)
    >>> bool(((p > 0.5) == ds.y).mean() > 0.9)
    True
    """
    model = OffsetXorModel(near=near, far=far, negative=negative, scale=scale)
    return _dataset("offset_xor", "XOR, offset positive clusters (simulated)", model, n_samples,
                    random_state)  # fmt: skip


def make_eccentric_ring(
    n_samples: int = 600,
    *,
    inner_scale: float = 0.9,
    radius: float = 3.25,
    eccentricity: float = 0.25,
    ring_scale: float = 0.8,
    random_state: SeedLike = None,
) -> Dataset:
    """Draw the circular design fitted to Naeini et al.'s Table 2(b).

    Parameters
    ----------
    n_samples : int, default=600
    inner_scale, radius, eccentricity, ring_scale : float, default=0.9, 3.25, 0.25, 0.8
        See :class:`EccentricRingModel`.
    random_state : int, numpy Generator or None, default=None

    Returns
    -------
    Dataset
        ``meta["model"]`` is the :class:`EccentricRingModel`.

    Examples
    --------
    Positives sit in the middle; the ring passes 4.06 from them on the right and 2.44 on the
    left, where it overlaps the blob more:

    >>> ds = make_eccentric_ring(random_state=0)
    >>> p = ds.meta["model"].posterior([[0.0, 0.0], [4.06, 0.0], [-2.44, 0.0]])
    >>> bool(p[0] > 0.99 and p[1] < 0.001 < p[2] < 0.5)
    True
    """
    model = EccentricRingModel(
        inner_scale=inner_scale, radius=radius, eccentricity=eccentricity, ring_scale=ring_scale
    )
    return _dataset("eccentric_ring", "Circular, eccentric ring (simulated)", model, n_samples,
                    random_state)  # fmt: skip


def make_separable(n_samples: int = 600, *, random_state: SeedLike = None) -> Dataset:
    """Draw the linearly separable data of Naeini et al. (section 3).

    Parameters
    ----------
    n_samples : int, default=600
    random_state : int, numpy Generator or None, default=None

    Returns
    -------
    Dataset
        ``meta["model"]`` is the :class:`SeparableModel`.

    Examples
    --------
    >>> ds = make_separable(1000, random_state=0)
    >>> bool(np.all(ds.y == (ds.X.sum(axis=1) > 0)))
    True
    """
    return _dataset("separable", "Linearly separable (simulated)", SeparableModel(), n_samples,
                    random_state)  # fmt: skip
