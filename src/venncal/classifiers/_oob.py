"""Out-of-bag calibration of bagged ensembles (Johansson et al. 2018, section 3.2).

Every training example is a calibration example: its calibration score is the prediction of
its out-of-bag sub-ensemble OOB(z_i), the members whose bootstrap sample left z_i out. To keep
the test object exchangeable with the calibration examples, a test object is scored by the
out-of-bag sub-ensemble of a calibration example z_r drawn at random, and z_r is left out of the
calibration set for that test object (eqs. 10-11): then every one of the l objects
z_1..z_{r-1}, z_{r+1}..z_l, z_{l+1} is scored by a sub-ensemble that did not see it.

Choices made here, all documented in the estimators that use this module:

* the sub-ensemble prediction is the mean of its members' ``predict_proba`` (soft voting, as
  ``RandomForestClassifier`` and ``BaggingClassifier`` predict);
* a training example that is in the bootstrap sample of every member has no out-of-bag score;
  it is dropped from the calibration set (with a ``VenncalWarning``) and never drawn as z_r;
* z_r is drawn uniformly from the remaining calibration examples, independently per test
  object, by a hash of the object's feature values and a seed drawn once at fit time from
  ``random_state``: the draw depends on the row only, never on its position or on the other
  rows of the batch, so a row gets the same answer alone or in any batch, as scikit-learn
  expects of predictions (equal rows share their z_r);
* an ensemble without bootstrap sampling (``bootstrap=False``) has no out-of-bag examples and is
  refused with a ``ValueError``.
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.base import clone
from sklearn.utils import check_random_state

from venncal.core.venn_abers import ivap_fit
from venncal.exceptions import VenncalWarning

__all__ = ["check_bagged_ensemble", "OOBEnsemble", "OOBVennAbers"]

_SUPPORTED = ("RandomForestClassifier", "ExtraTreesClassifier", "BaggingClassifier")


def check_bagged_ensemble(estimator, *, owner):
    """Raise unless ``estimator`` is an (unfitted) bagged classifier with bootstrap sampling."""
    from sklearn.ensemble import BaggingClassifier, ExtraTreesClassifier, RandomForestClassifier

    if not isinstance(estimator, (RandomForestClassifier, ExtraTreesClassifier, BaggingClassifier)):
        raise TypeError(
            f"method='oob' of {owner} needs a bagged ensemble ({', '.join(_SUPPORTED)}), "
            f"got {type(estimator).__name__}; use method='inductive' for other estimators."
        )
    if not getattr(estimator, "bootstrap", False):
        raise ValueError(
            f"method='oob' of {owner} needs bootstrap sampling, but "
            f"{type(estimator).__name__} has bootstrap=False, so every member sees every "
            "example and no example is out-of-bag; set bootstrap=True."
        )


def _dense(X, dtype):
    if hasattr(X, "tocsr"):
        return X.tocsr().astype(dtype)
    if hasattr(X, "to_numpy"):
        X = X.to_numpy()
    return np.asarray(X, dtype=dtype)


class OOBEnsemble:
    """A fitted bagged ensemble with the out-of-bag bookkeeping of section 3.2.

    Parameters
    ----------
    ensemble : fitted RandomForestClassifier, ExtraTreesClassifier or BaggingClassifier
    n_samples : int
        Number of training examples the ensemble was fitted on.

    Attributes
    ----------
    oob_mask : ndarray of shape (n_samples, n_members), bool
        ``oob_mask[i, j]`` is True when example i is out of the bootstrap sample of member j.
    n_classes : int
    """

    def __init__(self, ensemble, n_samples):
        self.ensemble = ensemble
        n_members = len(ensemble.estimators_)
        mask = np.ones((n_samples, n_members), dtype=bool)
        for j, idx in enumerate(ensemble.estimators_samples_):
            mask[np.asarray(idx, dtype=np.intp), j] = False
        self.oob_mask = mask
        self.n_classes = len(ensemble.classes_)
        self._is_bagging = hasattr(ensemble, "estimators_features_")

    def member_probas(self, X):
        """Class probabilities of every member: ndarray of shape (n_members, m, n_classes)."""
        ens = self.ensemble
        K = self.n_classes
        if not self._is_bagging:
            Xf = _dense(X, np.float32)
            return np.stack([t.predict_proba(Xf) for t in ens.estimators_])
        Xd = _dense(X, np.float64)
        out = np.zeros((len(ens.estimators_), Xd.shape[0], K))
        for j, (member, feats) in enumerate(zip(ens.estimators_, ens.estimators_features_)):
            Xj = Xd[:, feats]
            cols = np.asarray(member.classes_, dtype=np.intp)
            if hasattr(member, "predict_proba"):
                out[j][:, cols] = member.predict_proba(Xj)
            else:
                pred = np.asarray(member.predict(Xj), dtype=np.intp)
                out[j][np.arange(Xd.shape[0]), pred] = 1.0
        return out

    def calibration_probas(self, X_train):
        """Out-of-bag class probabilities of the training examples.

        Returns
        -------
        probas : ndarray of shape (n_samples, n_classes)
            Mean probabilities over each example's out-of-bag members; NaN rows for examples
            that are in-bag everywhere.
        has_oob : ndarray of shape (n_samples,), bool
        """
        P = self.member_probas(X_train)  # (T, n, K)
        M = self.oob_mask.astype(np.float64)  # (n, T)
        counts = M.sum(axis=1)
        sums = np.einsum("it,tik->ik", M, P)
        has = counts > 0
        probas = np.full_like(sums, np.nan)
        probas[has] = sums[has] / counts[has, None]
        return probas, has

    def test_probas(self, X, r):
        """Probabilities of test object i by the out-of-bag sub-ensemble of example ``r[i]``."""
        P = self.member_probas(X)  # (T, m, K)
        M = self.oob_mask[r].astype(np.float64)  # (m, T)
        return np.einsum("it,tik->ik", M, P) / M.sum(axis=1)[:, None]


def fit_oob_ensemble(estimator, X, y_encoded, fit_params, *, owner):
    """Clone and fit the ensemble; return the bookkeeping and the calibration probabilities."""
    check_bagged_ensemble(estimator, owner=owner)
    ens = clone(estimator).fit(X, y_encoded, **(fit_params or {}))
    n = y_encoded.shape[0]
    oob = OOBEnsemble(ens, n)
    probas, has = oob.calibration_probas(X)
    n_empty = int((~has).sum())
    if n_empty == n:
        raise ValueError(
            f"No training example of {owner} is out-of-bag for any member; use more members "
            "(n_estimators) or a smaller max_samples."
        )
    if n_empty:
        warnings.warn(
            f"{n_empty} training example(s) are in the bootstrap sample of every member and "
            "have no out-of-bag score; they are left out of the calibration set. Use more "
            "members (n_estimators) to avoid this.",
            VenncalWarning,
            stacklevel=3,
        )
    return oob, probas, has


_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def _mix(h):
    """The splitmix64 finaliser on uint64 arrays (wrapping arithmetic)."""
    h = (h ^ (h >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    h = (h ^ (h >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return h ^ (h >> np.uint64(31))


def row_hashes(X, seed):
    """A 64-bit hash of each row's feature values (as float64) and ``seed``.

    A row's hash depends on its values only (``-0.0`` counts as ``0.0``), not on its position
    or on the other rows.
    """
    if hasattr(X, "toarray"):
        X = X.toarray()
    X = _dense(X, np.float64)
    if X.ndim == 1:
        X = X[:, None]
    X = np.ascontiguousarray(X + 0.0)  # -0.0 -> 0.0
    words = X.view(np.uint64).reshape(X.shape[0], -1)
    h = np.full(X.shape[0], np.uint64(seed % 2**64) ^ np.uint64(words.shape[1]))
    for col in words.T:
        h = _mix(h + _GOLDEN + col)
    return _mix(h)


def check_test_rows(X, *, owner):
    """Return the number of rows of a 2-D ``X``; raise a one-line ValueError otherwise."""
    shape = getattr(X, "shape", None)
    if shape is None:
        try:
            shape = np.shape(X)
        except ValueError:  # ragged nested lists
            raise ValueError(f"'X' of {owner} could not be read as a 2-D array.") from None
    if len(shape) != 2:
        raise ValueError(
            f"'X' of {owner} must be 2-D (n_samples, n_features), got shape {tuple(shape)}; "
            "pass a single object as X.reshape(1, -1)."
        )
    return shape[0]


def draw_reference_examples(seed, valid_idx, X):
    """Indices z_r, one per test row of ``X``, drawn uniformly from ``valid_idx``.

    Each draw is a function of the row's values and ``seed`` only (see :func:`row_hashes`).
    """
    h = row_hashes(X, seed)
    return valid_idx[(h % np.uint64(valid_idx.shape[0])).astype(np.intp)]


def seed_from(random_state):
    """An integer seed drawn once from ``random_state`` (int, RandomState, Generator or None)."""
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(2**63 - 1))
    return int(check_random_state(random_state).randint(np.iinfo(np.int32).max))


class OOBVennAbers:
    """Inductive Venn-Abers calibrated out-of-bag on a bagged ensemble.

    Parameters
    ----------
    estimator : RandomForestClassifier, ExtraTreesClassifier or BaggingClassifier
        Unfitted, with ``bootstrap=True``.
    response_method : {"auto", "predict_proba"}, default="auto"
        The score is always the sub-ensemble's mean ``predict_proba[:, 1]``.
    random_state : int, RandomState, Generator or None, default=None
        Seeds the draws of z_r (not the ensemble, which has its own ``random_state``).
    fit_params : dict, default=None
        Extra keyword arguments of the ensemble's ``fit``. A ``sample_weight`` entry also
        weights the calibration examples.

    Attributes
    ----------
    oob_ : OOBEnsemble
    cal_scores_ : ndarray of shape (n_cal,)
        Out-of-bag scores of the calibration examples.
    cal_index_ : ndarray of shape (n_cal,)
        Their rows in the training set.

    References
    ----------
    Johansson, Löfström, Sundell, Linusson, Gidenstam, Boström (2018), section 3.2,
    eqs. (10)-(11); Vovk & Petej (2014), Algorithm 1 with a fixed scorer.

    Examples
    --------
    >>> from sklearn.ensemble import RandomForestClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 3)); y = (X[:, 0] + rng.normal(size=200) > 0).astype(int)
    >>> rf = RandomForestClassifier(n_estimators=30, random_state=0)
    >>> va = OOBVennAbers(rf, random_state=0).fit(X, y)
    >>> p = va.predict_interval(X[:4])
    >>> bool(((p[:, 0] <= p[:, 1]) & (p[:, 1] > 0) & (p[:, 0] < 1)).all())
    True
    >>> bool(np.array_equal(p, va.predict_interval(X[:4])))  # deterministic
    True
    """

    def __init__(self, estimator, *, response_method="auto", random_state=None, fit_params=None):
        self.estimator = estimator
        self.response_method = response_method
        self.random_state = random_state
        self.fit_params = fit_params

    def fit(self, X, y01):
        """Fit the ensemble on (X, y01) and compute the out-of-bag calibration scores."""
        if self.response_method not in ("auto", "predict_proba"):
            raise ValueError(
                "The 'response_method' parameter of VennAbersClassifier must be 'auto' or "
                f"'predict_proba' with method='oob'. Got {self.response_method!r} instead."
            )
        y01 = np.asarray(y01).astype(np.int64)
        oob, probas, has = fit_oob_ensemble(
            self.estimator, X, y01, self.fit_params, owner="VennAbersClassifier"
        )
        self.oob_ = oob
        self.cal_index_ = np.flatnonzero(has)
        self.cal_scores_ = probas[has, 1]
        self.cal_y_ = y01[has]
        w = (self.fit_params or {}).get("sample_weight")
        self.cal_weight_ = None if w is None else np.asarray(w, dtype=np.float64)[has]
        self.seed_ = seed_from(self.random_state)
        return self

    def reference_examples(self, X):
        """The training rows z_r used for the test rows ``X``, one per row."""
        return draw_reference_examples(self.seed_, self.cal_index_, X)

    def predict_interval(self, X):
        """Return ``[p0, p1]`` per test object (eqs. 10-11 with the isotonic taxonomy).

        Returns
        -------
        ndarray of shape (m, 2)
        """
        if not hasattr(self, "oob_"):
            from sklearn.exceptions import NotFittedError

            raise NotFittedError("This OOBVennAbers instance is not fitted yet; call fit first.")
        m = check_test_rows(X, owner="VennAbersClassifier")
        out = np.empty((m, 2))
        if m == 0:
            return out
        r = self.reference_examples(X)
        t = self.oob_.test_probas(X, r)[:, 1]
        # position of z_r among the calibration examples, to leave it out
        pos = np.searchsorted(self.cal_index_, r)
        for p in np.unique(pos):
            rows = np.flatnonzero(pos == p)
            keep = np.ones(self.cal_scores_.shape[0], dtype=bool)
            keep[p] = False
            w = None if self.cal_weight_ is None else self.cal_weight_[keep]
            tables = ivap_fit(self.cal_scores_[keep], self.cal_y_[keep], sample_weight=w)
            p0, p1 = tables.predict_unchecked(t[rows])
            out[rows, 0], out[rows, 1] = p0, p1
        return out
