"""The bivariate-normal model of Tasche (2022), Section 5.2, with its four probability estimates.

Given the class, the features are bivariate normal with class-dependent means and a common
covariance matrix ``Sigma`` (standard deviations ``std``, correlation ``rho``):
``X | y = k ~ N(mean_k, Sigma)``, ``P(y = 1) = prior``. Then:

* the **true posterior** is logistic in ``x``:
  ``eta(x) = expit(w . x + b)`` with ``w = Sigma^-1 (mean1 - mean0)`` and
  ``b = logit(prior) - (mean1' Sigma^-1 mean1 - mean0' Sigma^-1 mean0) / 2``;
* the **partial posterior** uses one component only (the first by default); it is calibrated
  given that component, and its Brier score exceeds the true one by the grouping loss;
* the **naive-Bayes score** applies the same formula with ``rho`` set to 0; with positively
  correlated features it counts evidence twice and is poorly calibrated;
* the **recalibrated naive-Bayes** probability ``P(y = 1 | naive-Bayes score)``: the score is
  increasing in ``u = w0 . x`` (``w0`` the naive weights), and ``u | y = k`` is normal with mean
  ``w0 . mean_k`` and variance ``w0' Sigma w0``, which gives it in closed form. It is perfectly
  calibrated, yet keeps a grouping loss because ``w0`` is not parallel to ``w``.

Tasche's text gives no numerical parameters (the copy in the seeds lost its formulas), so the
defaults are ours: ``mean0 = (0, 0)``, ``mean1 = (1, 1.5)``, unit variances, ``rho = 0.5``,
``prior = 0.5``. They reproduce the qualitative picture of Figure 2: the Brier scores order as
true < recalibrated naive Bayes < partial, and the naive-Bayes score is the worst calibrated.
Setting ``rho = 0`` gives the independent-components setting of Figure 1 (Example 3.12).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy.special import expit, logit

from venncal._params import check_finite_pair
from venncal._validation import check_random_state
from venncal.datasets._base import Dataset
from venncal.datasets._simulated import check_features_2d
from venncal.datasets._size import check_n_samples, draw_labels

if TYPE_CHECKING:
    import numpy.typing as npt

    from venncal._typing import ArrayLike, FloatArray, SeedLike

__all__ = ["BivariateNormalModel", "make_bivariate_normal"]

_TASCHE = "Tasche 2022, Calibrating sufficiently (003_bdfd69973c812da7), Section 5.2, Figure 2"


def _pair(value: object, name: str) -> FloatArray:
    return check_finite_pair(value, name=name, owner="BivariateNormalModel")


def _normal_posterior(
    u: FloatArray, mu0: float, mu1: float, var: float, prior: float
) -> FloatArray:
    """``P(y = 1 | u)`` when ``u | y = k`` is normal with mean ``mu_k`` and variance ``var``
    in both classes, and ``P(y = 1) = prior``."""
    return expit(logit(prior) + ((u - mu0) ** 2 - (u - mu1) ** 2) / (2 * var))


@dataclass(frozen=True)
class BivariateNormalModel:
    """Two classes with bivariate normal features and a common covariance (Tasche 2022, §5.2).

    Parameters
    ----------
    mean0, mean1 : tuple of 2 floats, default=(0, 0), (1, 1.5)
        Class means of the negative and the positive class.
    std : tuple of 2 positive floats, default=(1, 1)
        Standard deviations of the two components (the same in both classes).
    rho : float in (-1, 1), default=0.5
        Correlation of the two components (the same in both classes).
    prior : float in (0, 1), default=0.5
        Probability of the positive class.

    Examples
    --------
    >>> model = BivariateNormalModel()
    >>> X, y = model.sample(50000, random_state=0)
    >>> def brier(p):
    ...     return float(np.mean((p - y) ** 2))
    >>> true = brier(model.posterior(X))
    >>> recal = brier(model.naive_bayes_recalibrated(X))
    >>> partial = brier(model.partial_posterior(X))
    >>> naive = brier(model.naive_bayes_score(X))
    >>> true < recal < partial, true < naive
    (True, True)
    """

    mean0: tuple[float, float] = (0.0, 0.0)
    mean1: tuple[float, float] = (1.0, 1.5)
    std: tuple[float, float] = (1.0, 1.0)
    rho: float = 0.5
    prior: float = 0.5
    paper: str = _TASCHE

    # ------------------------------------------------------------------ parameters
    def _params(self):
        m0, m1 = _pair(self.mean0, "mean0"), _pair(self.mean1, "mean1")
        sd = _pair(self.std, "std")
        if (sd <= 0).any():
            raise ValueError(
                f"The 'std' parameter of BivariateNormalModel must be positive. Got {self.std!r}."
            )
        ok = isinstance(self.rho, numbers.Real) and not isinstance(self.rho, bool)
        ok = ok and -1 < self.rho < 1
        if not ok:
            raise ValueError(
                "The 'rho' parameter of BivariateNormalModel must be a number in (-1, 1). "
                f"Got {self.rho!r} instead."
            )
        prior_ok = isinstance(self.prior, numbers.Real) and not isinstance(self.prior, bool)
        if not (prior_ok and 0 < self.prior < 1):
            raise ValueError(
                "The 'prior' parameter of BivariateNormalModel must be a number in (0, 1). "
                f"Got {self.prior!r} instead."
            )
        return m0, m1, sd, float(self.rho), float(self.prior)

    @property
    def covariance(self) -> FloatArray:
        """The common covariance matrix, shape (2, 2)."""
        _, _, sd, rho, _ = self._params()
        return np.array([[sd[0] ** 2, rho * sd[0] * sd[1]], [rho * sd[0] * sd[1], sd[1] ** 2]])

    def _linear(self, cov):
        """Weights and intercept of the log posterior odds when the covariance is ``cov``."""
        m0, m1, _, _, prior = self._params()
        inv = np.linalg.inv(cov)
        w = inv @ (m1 - m0)
        b = logit(prior) - 0.5 * (m1 @ inv @ m1 - m0 @ inv @ m0)
        return w, b

    # ------------------------------------------------------------------ data
    def sample(
        self, n_samples: int, random_state: SeedLike = None
    ) -> tuple[FloatArray, npt.NDArray[np.int8]]:
        """Draw ``n_samples`` i.i.d. pairs; returns X (n, 2) float64 and y (n,) int8."""
        m0, m1, _, _, prior = self._params()
        owner = "BivariateNormalModel.sample"
        n, rng, y = draw_labels(n_samples, random_state, owner=owner, prior=prior)
        chol = np.linalg.cholesky(self.covariance)
        X = rng.standard_normal((n, 2)) @ chol.T + np.where(y[:, None] == 1, m1, m0)
        return X, y

    # ------------------------------------------------------------------ probabilities
    def posterior(self, X: ArrayLike) -> FloatArray:
        """True posterior ``P(y = 1 | x)`` using both components and their correlation.

        Parameters
        ----------
        X : array-like of shape (n, 2)

        Returns
        -------
        ndarray of shape (n,)
        """
        X = check_features_2d(X, "BivariateNormalModel.posterior")
        w, b = self._linear(self.covariance)
        return expit(X @ w + b)

    def partial_posterior(self, X: ArrayLike, component: int = 0) -> FloatArray:
        """Posterior given one component only, ``P(y = 1 | x[component])``.

        Parameters
        ----------
        X : array-like of shape (n, 2)
        component : {0, 1}, default=0
            Tasche's Figure 2 uses the first component.

        Returns
        -------
        ndarray of shape (n,)
        """
        if component not in (0, 1):
            raise ValueError(f"'component' must be 0 or 1. Got {component!r} instead.")
        X = check_features_2d(X, "BivariateNormalModel.partial_posterior")
        m0, m1, sd, _, prior = self._params()
        v = sd[component] ** 2
        a0, a1 = m0[component], m1[component]
        return _normal_posterior(X[:, component], a0, a1, v, prior)

    def naive_bayes_score(self, X: ArrayLike) -> FloatArray:
        """The posterior formula applied with ``rho = 0`` (naive Bayes, misspecified).

        Returns
        -------
        ndarray of shape (n,)
        """
        X = check_features_2d(X, "BivariateNormalModel.naive_bayes_score")
        _, _, sd, _, _ = self._params()
        w, b = self._linear(np.diag(sd**2))
        return expit(X @ w + b)

    def naive_bayes_recalibrated(self, X: ArrayLike) -> FloatArray:
        """``P(y = 1 | naive-Bayes score)``: the naive-Bayes score perfectly recalibrated.

        Returns
        -------
        ndarray of shape (n,)
        """
        X = check_features_2d(X, "BivariateNormalModel.naive_bayes_recalibrated")
        m0, m1, sd, _, prior = self._params()
        w0, _ = self._linear(np.diag(sd**2))
        u = X @ w0
        mu0, mu1 = w0 @ m0, w0 @ m1
        return _normal_posterior(u, mu0, mu1, w0 @ self.covariance @ w0, prior)

    def probabilities(self, X: ArrayLike) -> dict[str, FloatArray]:
        """All four estimates of Tasche's Figure 2 at ``X``, as a dict of arrays of shape (n,).

        Keys: ``"true posterior"``, ``"partial posterior"``, ``"naive Bayes"``,
        ``"naive Bayes recalibrated"``.
        """
        return {
            "true posterior": self.posterior(X),
            "partial posterior": self.partial_posterior(X),
            "naive Bayes": self.naive_bayes_score(X),
            "naive Bayes recalibrated": self.naive_bayes_recalibrated(X),
        }


def make_bivariate_normal(
    n_samples: int = 1000,
    *,
    mean0: tuple[float, float] = (0.0, 0.0),
    mean1: tuple[float, float] = (1.0, 1.5),
    std: tuple[float, float] = (1.0, 1.0),
    rho: float = 0.5,
    prior: float = 0.5,
    random_state: SeedLike = None,
) -> Dataset:
    """Draw the bivariate-normal example of Tasche (2022), Section 5.2.

    Parameters
    ----------
    n_samples : int, default=1000
    mean0, mean1, std, rho, prior
        See :class:`BivariateNormalModel`; ``rho=0`` gives the setting of Tasche's Figure 1.
    random_state : int, numpy Generator or None, default=None

    Returns
    -------
    Dataset
        ``meta["model"]`` is the :class:`BivariateNormalModel`, with ``posterior``,
        ``partial_posterior``, ``naive_bayes_score`` and ``naive_bayes_recalibrated``.

    References
    ----------
    Tasche, "Calibrating sufficiently", Section 5.2 and Figure 2 (parameters are our choice).

    Examples
    --------
    The partial posterior is calibrated given the first component, yet loses information:

    >>> ds = make_bivariate_normal(40000, random_state=1)
    >>> p = ds.meta["model"].partial_posterior(ds.X)
    >>> bool(abs(p.mean() - ds.y.mean()) < 0.01)
    True
    """
    pairs: dict[str, Any] = {"mean0": mean0, "mean1": mean1, "std": std}
    pairs = {k: tuple(_pair(v, k)) for k, v in pairs.items()}  # refuses scalars and strings
    model = BivariateNormalModel(**pairs, rho=rho, prior=prior)
    check_n_samples(n_samples, owner="make_bivariate_normal")
    check_random_state(random_state, owner="make_bivariate_normal")
    X, y = model.sample(n_samples, random_state=random_state)
    meta = {
        "name": "bivariate-normal",
        "title": "Bivariate normal classes with a common covariance (simulated)",
        "collection": "simulated",
        "n": int(n_samples),
        "d": 2,
        "class_counts": {0: int((y == 0).sum()), 1: int((y == 1).sum())},
        "positive_label": "1",
        "negative_label": "0",
        "source": "simulated by venncal",
        "licence": "BSD-3-Clause (generated data)",
        "papers": [_TASCHE],
        "model": model,
        "random_state": random_state,
    }
    return Dataset(X=X, y=y, feature_names=("x1", "x2"), meta=meta)
