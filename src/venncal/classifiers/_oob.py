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
from typing import TYPE_CHECKING, Any

import numpy as np
from sklearn.base import clone
from sklearn.utils import check_random_state

from venncal.core._loo_ivap import loo_ivap_predict
from venncal.exceptions import VenncalWarning

if TYPE_CHECKING:
    from typing_extensions import Self

    from venncal._typing import AnyArray, BoolArray, FloatArray, IntArray

__all__ = ["check_bagged_ensemble", "OOBEnsemble", "OOBVennAbers"]

_SUPPORTED = ("RandomForestClassifier", "ExtraTreesClassifier", "BaggingClassifier")


def check_bagged_ensemble(estimator: Any, *, owner: str) -> None:
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


def _member_samples(ensemble):
    """The bootstrap sample indices of each member, one member at a time.

    scikit-learn's ``estimators_samples_`` materialises every member's indices at once (T
    arrays of n integers); its generator, where present, yields them one by one.
    """
    gen = getattr(ensemble, "_get_estimators_indices", None)
    if gen is None:  # pragma: no cover - every supported scikit-learn version has it
        yield from ensemble.estimators_samples_
        return
    for item in gen():
        yield item[1] if isinstance(item, tuple) else item


class OOBEnsemble:
    """A fitted bagged ensemble with the out-of-bag bookkeeping of section 3.2.

    Out-of-bag probabilities are accumulated member by member (a running sum and count per
    row), so beyond the ensemble itself the bookkeeping holds one bit per example and member
    and O(n) floats, never a (members x rows x classes) array.

    Parameters
    ----------
    ensemble : fitted RandomForestClassifier, ExtraTreesClassifier or BaggingClassifier
    n_samples : int
        Number of training examples the ensemble was fitted on.

    Attributes
    ----------
    oob_mask : ndarray of shape (n_samples, n_members), bool
        ``oob_mask[i, j]`` is True when example i is out of the bootstrap sample of member j
        (unpacked on access from the stored bits).
    n_classes : int
    """

    def __init__(self, ensemble: Any, n_samples: int) -> None:
        self.ensemble = ensemble
        self.n_members = len(ensemble.estimators_)
        bits = np.zeros((n_samples, (self.n_members + 7) // 8), dtype=np.uint8)
        inbag = np.zeros(n_samples, dtype=bool)
        for j, idx in enumerate(_member_samples(ensemble)):
            inbag[:] = False
            inbag[np.asarray(idx, dtype=np.intp)] = True
            bits[:, j >> 3] |= (~inbag).view(np.uint8) << np.uint8(7 - (j & 7))
        self._oob_bits = bits  # np.packbits layout of oob_mask along the members
        self.n_classes = len(ensemble.classes_)
        self._is_bagging = hasattr(ensemble, "estimators_features_")

    @property
    def oob_mask(self) -> BoolArray:
        return np.unpackbits(self._oob_bits, axis=1, count=self.n_members).astype(bool)

    def _oob_column(self, j, rows=None):
        """1.0 where the rows (all, or ``rows``) are out of the bootstrap sample of member j."""
        col = self._oob_bits[:, j >> 3] if rows is None else self._oob_bits[rows, j >> 3]
        return ((col >> np.uint8(7 - (j & 7))) & np.uint8(1)).astype(np.float64)

    def _prepare(self, X):
        return _dense(X, np.float64 if self._is_bagging else np.float32)

    def _member_proba(self, j, Xp):
        """Class probabilities of member j for the prepared rows ``Xp``: (m, n_classes)."""
        ens = self.ensemble
        member = ens.estimators_[j]
        if not self._is_bagging:
            return member.predict_proba(Xp)
        Xj = Xp[:, ens.estimators_features_[j]]
        out = np.zeros((Xp.shape[0], self.n_classes))
        cols = np.asarray(member.classes_, dtype=np.intp)
        if hasattr(member, "predict_proba"):
            out[:, cols] = member.predict_proba(Xj)
        else:
            pred = np.asarray(member.predict(Xj), dtype=np.intp)
            out[np.arange(Xp.shape[0]), pred] = 1.0
        return out

    def member_probas(self, X: Any) -> FloatArray:
        """Class probabilities of every member: ndarray of shape (n_members, m, n_classes)."""
        Xp = self._prepare(X)
        return np.stack([self._member_proba(j, Xp) for j in range(self.n_members)])

    def _oob_mean(self, X, rows):
        """Mean probabilities over the out-of-bag members of ``rows`` (all when None), summed
        member by member in member order; (sums, counts)."""
        Xp = self._prepare(X)
        m = Xp.shape[0]
        sums = np.zeros((m, self.n_classes))
        counts = np.zeros(m)
        for j in range(self.n_members):
            mj = self._oob_column(j, rows)
            counts += mj
            sums += mj[:, None] * self._member_proba(j, Xp)
        return sums, counts

    def calibration_probas(self, X_train: Any) -> tuple[FloatArray, BoolArray]:
        """Out-of-bag class probabilities of the training examples.

        Returns
        -------
        probas : ndarray of shape (n_samples, n_classes)
            Mean probabilities over each example's out-of-bag members; NaN rows for examples
            that are in-bag everywhere.
        has_oob : ndarray of shape (n_samples,), bool
        """
        sums, counts = self._oob_mean(X_train, None)
        has = counts > 0
        probas = np.full_like(sums, np.nan)
        probas[has] = sums[has] / counts[has, None]
        return probas, has

    def test_probas(self, X: Any, r: IntArray) -> FloatArray:
        """Probabilities of test object i by the out-of-bag sub-ensemble of example ``r[i]``."""
        sums, counts = self._oob_mean(X, np.asarray(r, dtype=np.intp))
        return sums / counts[:, None]


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
            shape = np.asarray(X).shape
        except ValueError:  # ragged nested lists
            raise ValueError(f"'X' of {owner} could not be read as a 2-D array.") from None
    if len(shape) != 2:
        raise ValueError(
            f"'X' of {owner} must be 2-D (n_samples, n_features), got shape {tuple(shape)}; "
            "Reshape your data: pass a single object as X.reshape(1, -1)."
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

    def __init__(
        self,
        estimator: Any,
        *,
        response_method: str = "auto",
        random_state: int | np.random.RandomState | None = None,
        fit_params: dict[str, Any] | None = None,
    ) -> None:
        self.estimator = estimator
        self.response_method = response_method
        self.random_state = random_state
        self.fit_params = fit_params

    def fit(self, X: Any, y01: AnyArray) -> Self:
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

    def reference_examples(self, X: Any) -> IntArray:
        """The training rows z_r used for the test rows ``X``, one per row."""
        return draw_reference_examples(self.seed_, self.cal_index_, X)

    def predict_interval(self, X: Any) -> FloatArray:
        """Return ``[p0, p1]`` per test object (eqs. 10-11 with the isotonic taxonomy).

        Every test object is answered from one cumulative-sum diagram of the calibration set
        without refitting per z_r (:mod:`venncal.core._loo_ivap`), with the values of the
        refitting algorithm bit for bit for unit and integer weights, and with the geometry
        the inductive predictor picks for other weights (float, or Python integers for
        weights of extreme range), in O((l + m) log l) for m test objects: a few bridges
        between prefix and suffix hulls per object, each a binary search.

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
        out[:, 0], out[:, 1] = loo_ivap_predict(
            self.cal_scores_, self.cal_y_, self.cal_weight_, pos, t
        )
        return out
