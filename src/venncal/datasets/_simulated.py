"""Simulated two-dimensional data with known posterior probabilities.

* :func:`make_xor` and :func:`make_circular`: the two linearly non-separable configurations of
  Naeini, Cooper & Hauskrecht (2015), Section 3 and Figures 1-2. The paper shows them only as
  scatter plots; the exact distributions below are ours, chosen to look like those figures and
  to give Bayes accuracies close to the best accuracies the paper reports (0.888 and 0.795).
  A linear score sees each configuration as a one-dimensional pattern with the positive class
  at both ends (XOR) or in the middle (circular), which is why a non-monotone calibrator
  (histogram, SBB, ABB) can beat a monotone one (isotonic, Platt) there.
* :func:`make_bivariate_normal`: the bivariate-normal model of Tasche (2022), Section 5.2 and
  Figure 2, with its true posterior, a partial posterior, the naive-Bayes score and the
  recalibrated naive-Bayes score (see ``venncal.datasets._bivariate``).

Each generator returns a :class:`~venncal.datasets.Dataset` whose ``meta["model"]`` is a frozen
model object: ``model.sample(n, random_state)`` draws more data and ``model.posterior(X)`` is
the true probability of the positive class.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from scipy.special import expit, i0e
from scipy.stats import norm

from venncal._validation import check_random_state
from venncal.datasets._base import Dataset
from venncal.datasets._size import check_n_samples, draw_labels

if TYPE_CHECKING:
    import numpy.typing as npt

    from venncal._typing import ArrayLike, FloatArray, SeedLike

__all__ = ["XorModel", "CircularModel", "make_xor", "make_circular", "check_features_2d"]

_NAEINI = "Naeini, Cooper & Hauskrecht 2015 (004_524bdd2b48de3bf8), Section 3, Figures 1-2"


def check_features_2d(X: ArrayLike, owner: str) -> FloatArray:
    """Return ``X`` as a finite float64 array of shape (n, 2)."""
    try:
        arr = np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"'X' of {owner} must hold numbers, shape (n, 2).") from None
    if arr.ndim == 1 and arr.shape[0] == 2:
        arr = arr[None, :]
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise ValueError(f"'X' of {owner} must have shape (n, 2), got shape {arr.shape}.")
    if not np.isfinite(arr).all():
        raise ValueError(f"'X' of {owner} holds NaN or infinite values.")
    return arr


def _check_positive(value, name, owner):
    real = isinstance(value, numbers.Real) and not isinstance(value, bool)
    if not real or not np.isfinite(value) or value <= 0:
        raise ValueError(
            f"The '{name}' parameter of {owner} must be a positive number. Got {value!r} instead."
        )
    return float(value)


def _blob_in_ring(
    rng: np.random.Generator,
    y: npt.NDArray[np.int8],
    inner_scale: float,
    radius: float,
    ring_scale: float,
    eccentricity: float = 0.0,
) -> FloatArray:
    """Features of labels ``y``: positives ``N(0, inner_scale^2 I)``; negatives at a uniform
    angle ``T`` on the ring of radius ``radius (1 + eccentricity cos T)``, plus
    ``N(0, ring_scale^2 I)`` (the angles are drawn first, then all the normal noise)."""
    n = y.shape[0]
    angle = rng.uniform(0.0, 2 * np.pi, size=n)
    r = radius * (1 + eccentricity * np.cos(angle))
    ring = r[:, None] * np.column_stack([np.cos(angle), np.sin(angle)])
    noise = rng.normal(0.0, 1.0, size=(n, 2))
    return np.where(y[:, None] == 1, noise * inner_scale, ring + noise * ring_scale)


def _dataset(name, title, model, n_samples, random_state):
    owner = f"make_{name}"
    check_n_samples(n_samples, owner=owner)
    check_random_state(random_state, owner=owner)
    X, y = model.sample(n_samples, random_state=random_state)
    meta = {
        "name": name,
        "title": title,
        "collection": "simulated",
        "n": int(n_samples),
        "d": 2,
        "class_counts": {0: int((y == 0).sum()), 1: int((y == 1).sum())},
        "positive_label": "1",
        "negative_label": "0",
        "source": "simulated by venncal",
        "licence": "BSD-3-Clause (generated data)",
        "papers": [model.paper],
        "model": model,
        "random_state": random_state,
    }
    return Dataset(X=X, y=y, feature_names=("x1", "x2"), meta=meta)


@dataclass(frozen=True)
class XorModel:
    """XOR configuration: two Gaussian clusters per class on opposite corners of a square.

    The classes are equally likely. Given ``y = 1``, ``X`` is drawn from an equal mixture of
    ``N((c, c), s^2 I)`` and ``N((-c, -c), s^2 I)``; given ``y = 0`` from the mixture at
    ``(c, -c)`` and ``(-c, c)`` (``c = center``, ``s = scale``). The posterior is

    .. math:: P(y = 1 | x) = \\frac{\\cosh(c (x_1 + x_2) / s^2)}
              {\\cosh(c (x_1 + x_2) / s^2) + \\cosh(c (x_1 - x_2) / s^2)},

    the Bayes classifier is ``x1 * x2 > 0`` and its accuracy is ``q^2 + (1 - q)^2`` with
    ``q = Phi(c / s)``.

    Parameters
    ----------
    center : float, default=1.0
    scale : float, default=0.65
        With the defaults the Bayes accuracy is 0.884 (Naeini et al. report 0.888 at best).
    """

    center: float = 1.0
    scale: float = 0.65
    paper: str = _NAEINI

    def _check(self):
        _check_positive(self.center, "center", "XorModel")
        _check_positive(self.scale, "scale", "XorModel")

    def sample(
        self, n_samples: int, random_state: SeedLike = None
    ) -> tuple[FloatArray, npt.NDArray[np.int8]]:
        """Draw ``n_samples`` i.i.d. pairs; returns X (n, 2) float64 and y (n,) int8."""
        self._check()
        n, rng, y = draw_labels(n_samples, random_state, owner="XorModel.sample")
        sign = np.where(rng.random(n) < 0.5, 1.0, -1.0)
        centre = np.column_stack([sign, np.where(y == 1, sign, -sign)]) * self.center
        X = centre + rng.normal(0.0, self.scale, size=(n, 2))
        return X, y

    def posterior(self, X: ArrayLike) -> FloatArray:
        """True probability of y = 1 at each row of ``X`` (n, 2); returns shape (n,)."""
        self._check()
        X = check_features_2d(X, "XorModel.posterior")
        k = self.center / self.scale**2
        a = np.abs(k * (X[:, 0] + X[:, 1]))
        b = np.abs(k * (X[:, 0] - X[:, 1]))
        # cosh(a) / (cosh(a) + cosh(b)) = 1 / (1 + cosh(b)/cosh(a)), computed in log space
        log_ratio = (b - a) + np.log1p(np.exp(-2 * b)) - np.log1p(np.exp(-2 * a))
        return expit(-log_ratio)

    @property
    def bayes_accuracy(self) -> float:
        """Accuracy of the Bayes classifier ``x1 * x2 > 0``."""
        q = norm.cdf(self.center / self.scale)
        return float(q**2 + (1 - q) ** 2)


@dataclass(frozen=True)
class CircularModel:
    """Circular configuration: a Gaussian blob of positives inside a noisy ring of negatives.

    The classes are equally likely. Given ``y = 1``, ``X ~ N(0, s^2 I)`` (``s = inner_scale``).
    Given ``y = 0``, ``X = r (cos T, sin T) + N(0, t^2 I)`` with ``T`` uniform on [0, 2 pi)
    (``r = radius``, ``t = ring_scale``), whose density at distance ``q`` from the origin is
    ``exp(-(q^2 + r^2) / (2 t^2)) I_0(r q / t^2) / (2 pi t^2)`` (``I_0``: modified Bessel
    function). The posterior is the ratio of the two densities, computed in log space.

    Parameters
    ----------
    inner_scale : float, default=0.85
    radius : float, default=2.0
    ring_scale : float, default=0.75
        With the defaults the Bayes accuracy is about 0.80 (Naeini et al. report 0.795 at best).
    """

    inner_scale: float = 0.85
    radius: float = 2.0
    ring_scale: float = 0.75
    paper: str = _NAEINI

    def _check(self):
        for name in ("inner_scale", "radius", "ring_scale"):
            _check_positive(getattr(self, name), name, "CircularModel")

    def sample(
        self, n_samples: int, random_state: SeedLike = None
    ) -> tuple[FloatArray, npt.NDArray[np.int8]]:
        """Draw ``n_samples`` i.i.d. pairs; returns X (n, 2) float64 and y (n,) int8."""
        self._check()
        _, rng, y = draw_labels(n_samples, random_state, owner="CircularModel.sample")
        return _blob_in_ring(rng, y, self.inner_scale, self.radius, self.ring_scale), y

    def posterior(self, X: ArrayLike) -> FloatArray:
        """True probability of y = 1 at each row of ``X`` (n, 2); returns shape (n,)."""
        self._check()
        X = check_features_2d(X, "CircularModel.posterior")
        s, r, t = self.inner_scale, self.radius, self.ring_scale
        q2 = X[:, 0] ** 2 + X[:, 1] ** 2
        z = r * np.sqrt(q2) / t**2
        log_pos = -2 * np.log(s) - q2 / (2 * s**2)
        log_neg = -2 * np.log(t) - (q2 + r**2) / (2 * t**2) + np.log(i0e(z)) + z
        return expit(log_pos - log_neg)


def make_xor(
    n_samples: int = 600, *, center: float = 1.0, scale: float = 0.65, random_state: SeedLike = None
) -> Dataset:
    """Draw the XOR configuration of Naeini et al. (2015).

    Parameters
    ----------
    n_samples : int, default=600
        The paper uses 600 examples each to train, calibrate and test.
    center, scale : float, default=1.0, 0.65
        See :class:`XorModel`.
    random_state : int, numpy Generator or None, default=None

    Returns
    -------
    Dataset
        ``X`` of shape (n, 2), ``y`` in {0, 1}; ``meta["model"]`` is the :class:`XorModel`,
        whose ``posterior(X)`` gives the true probabilities.

    References
    ----------
    Naeini, Cooper & Hauskrecht, "Binary classifier calibration: a Bayesian non-parametric
    approach", Section 3 and Figure 1 (the distribution is our choice; see module docstring).

    Examples
    --------
    The true posterior is calibrated: among points where it exceeds 0.8, about that fraction
    is positive.

    >>> ds = make_xor(20000, random_state=0)
    >>> p = ds.meta["model"].posterior(ds.X)
    >>> hi = p > 0.8
    >>> bool(abs(ds.y[hi].mean() - p[hi].mean()) < 0.02)
    True
    >>> round(ds.meta["model"].bayes_accuracy, 3)
    0.884
    """
    model = XorModel(center=center, scale=scale)
    return _dataset("xor", "XOR configuration (simulated)", model, n_samples, random_state)


def make_circular(
    n_samples: int = 600,
    *,
    inner_scale: float = 0.85,
    radius: float = 2.0,
    ring_scale: float = 0.75,
    random_state: SeedLike = None,
) -> Dataset:
    """Draw the circular configuration of Naeini et al. (2015).

    Parameters
    ----------
    n_samples : int, default=600
    inner_scale, radius, ring_scale : float, default=0.85, 2.0, 0.75
        See :class:`CircularModel`.
    random_state : int, numpy Generator or None, default=None

    Returns
    -------
    Dataset
        ``meta["model"]`` is the :class:`CircularModel`.

    References
    ----------
    Naeini, Cooper & Hauskrecht, Section 3 and Figure 2 (the distribution is our choice).

    Examples
    --------
    Positives sit in the middle: the posterior falls with the distance from the origin.

    >>> ds = make_circular(random_state=0)
    >>> p = ds.meta["model"].posterior([[0.0, 0.0], [1.0, 0.0], [2.0, 0.0]])
    >>> bool(p[0] > p[1] > p[2])
    True
    >>> ds.X.shape
    (600, 2)
    """
    model = CircularModel(inner_scale=inner_scale, radius=radius, ring_scale=ring_scale)
    return _dataset(
        "circular", "Circular configuration (simulated)", model, n_samples, random_state
    )
