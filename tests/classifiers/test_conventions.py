"""scikit-learn conventions of the wrapper classifiers: sample_weight, cal_size counts,
predict_log_proba and metadata routing."""

import warnings

import numpy as np
import pytest
import sklearn
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression
from sklearn.neighbors import KNeighborsClassifier

from venncal.classifiers.multiclass import MulticlassVennAbersClassifier
from venncal.classifiers.venn import VennClassifier
from venncal.classifiers.venn_abers import VennAbersClassifier
from venncal.exceptions import VenncalWarning


def _binary(n=200, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = (X[:, 0] + rng.normal(size=n) > 0).astype(int)
    return X, y


def _three(n=300, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = np.digitize(X[:, 0] + 0.7 * rng.normal(size=n), [-0.6, 0.6])
    return X, y


def _weights(n, seed=1):
    return np.random.default_rng(seed).integers(0, 4, size=n)


# --------------------------------------------------------------------------- sample_weight


@pytest.mark.parametrize("strategy", ["ovr", "pairwise"])
def test_multiclass_integer_weights_equal_repeated_rows(strategy):
    X, y = _three()
    frozen = FrozenEstimator(LogisticRegression().fit(X, y))
    w = _weights(len(y))
    Xt = _three(50, seed=5)[0]
    a = MulticlassVennAbersClassifier(frozen, strategy=strategy).fit(X, y, sample_weight=w)
    rep = np.repeat(np.arange(len(y)), w)
    b = MulticlassVennAbersClassifier(frozen, strategy=strategy).fit(X[rep], y[rep])
    np.testing.assert_array_equal(a.predict_interval(Xt), b.predict_interval(Xt))
    np.testing.assert_array_equal(a.predict_proba(Xt), b.predict_proba(Xt))
    unweighted = MulticlassVennAbersClassifier(frozen, strategy=strategy).fit(X, y)
    assert not np.array_equal(a.predict_interval(Xt), unweighted.predict_interval(Xt))


def test_venn_isotonic_integer_weights_equal_repeated_rows():
    X, y = _binary()
    frozen = FrozenEstimator(LogisticRegression().fit(X, y))
    w = _weights(len(y))
    Xt = _binary(50, seed=5)[0]
    a = VennClassifier(frozen, taxonomy="isotonic").fit(X, y, sample_weight=w)
    rep = np.repeat(np.arange(len(y)), w)
    b = VennClassifier(frozen, taxonomy="isotonic").fit(X[rep], y[rep])
    np.testing.assert_array_equal(a.predict_interval(Xt), b.predict_interval(Xt))
    unweighted = VennClassifier(frozen, taxonomy="isotonic").fit(X, y)
    assert not np.array_equal(a.predict_interval(Xt), unweighted.predict_interval(Xt))


@pytest.mark.parametrize("taxonomy", ["label", "bins"])
@pytest.mark.parametrize("k", [2, 3])
def test_venn_frequency_taxonomies_weight_the_counts(taxonomy, k):
    # weight w is w copies in the category counts, without a warning (they used to be ignored)
    X, y = _binary() if k == 2 else _three()
    frozen = FrozenEstimator(LogisticRegression().fit(X, y))
    w = _weights(len(y))
    Xt = (_binary if k == 2 else _three)(50, seed=5)[0]
    with warnings.catch_warnings():
        warnings.simplefilter("error", VenncalWarning)
        a = VennClassifier(frozen, taxonomy=taxonomy, n_bins=4).fit(X, y, sample_weight=w)
    rep = np.repeat(np.arange(len(y)), w)
    b = VennClassifier(frozen, taxonomy=taxonomy, n_bins=4).fit(X[rep], y[rep])
    np.testing.assert_allclose(a.predict_venn(Xt).lower, b.predict_venn(Xt).lower, atol=1e-12)
    np.testing.assert_allclose(a.predict_venn(Xt).upper, b.predict_venn(Xt).upper, atol=1e-12)
    unweighted = VennClassifier(frozen, taxonomy=taxonomy, n_bins=4).fit(X, y)
    assert not np.allclose(a.predict_venn(Xt).lower, unweighted.predict_venn(Xt).lower)


def test_venn_weighted_out_of_bag_leaves_z_r_out_with_its_weight():
    from sklearn.ensemble import RandomForestClassifier

    from venncal.classifiers._oob import draw_reference_examples
    from venncal.core.venn import venn_predict

    X, y = _binary()
    w = _weights(len(y)).astype(float)
    Xt = _binary(30, seed=5)[0]
    rf = RandomForestClassifier(n_estimators=40, random_state=0)
    vp = VennClassifier(rf, method="oob", random_state=0).fit(X, y, sample_weight=w)
    r = draw_reference_examples(vp.seed_, vp.cal_index_, Xt)
    s = vp.oob_.test_probas(Xt, r)[:, 1]
    got = vp.predict_venn(Xt)
    for i in range(len(Xt)):
        keep = vp.cal_index_ != r[i]
        cs, cy, cw = vp.cal_scores_[keep], vp.cal_labels_[keep], vp.cal_weights_[keep]
        reps = cw.astype(int)
        ref = venn_predict(
            np.repeat(cs > 0.5, reps).astype(int), np.repeat(cy, reps), [int(s[i] > 0.5)]
        )
        np.testing.assert_allclose(got.lower[i], ref.lower[0], atol=1e-12)
        np.testing.assert_allclose(got.upper[i], ref.upper[0], atol=1e-12)


class _RecordingLR(LogisticRegression):
    def fit(self, X, y, sample_weight=None):
        self.seen_weight_ = sample_weight
        return super().fit(X, y, sample_weight=sample_weight)


@pytest.mark.parametrize(
    "make",
    [
        lambda est: VennClassifier(est, taxonomy="isotonic", random_state=0),
        lambda est: MulticlassVennAbersClassifier(est, random_state=0),
        lambda est: MulticlassVennAbersClassifier(est, method="cross", n_splits=3, random_state=0),
    ],
)
def test_weights_reach_the_estimator(make):
    X, y = _binary()
    w = _weights(len(y)) + 1.0
    clf = make(_RecordingLR()).fit(X, y, sample_weight=w)
    est = getattr(clf, "estimator_", None) or clf.estimators_[0]
    assert est.seen_weight_ is not None
    assert set(est.seen_weight_) <= set(w)


@pytest.mark.parametrize(
    "make",
    [
        lambda est: VennClassifier(est, taxonomy="isotonic", random_state=0),
        lambda est: MulticlassVennAbersClassifier(est, random_state=0),
    ],
)
def test_estimator_without_weights_warns_and_fits(make):
    X, y = _binary()
    with pytest.warns(VenncalWarning, match="does not take sample_weight"):
        clf = make(KNeighborsClassifier()).fit(X, y, sample_weight=np.ones(len(y)))
    assert clf.predict_proba(X[:5]).shape == (5, 2)


@pytest.mark.parametrize(
    "make",
    [
        lambda: VennClassifier(LogisticRegression(), taxonomy="isotonic"),
        lambda: MulticlassVennAbersClassifier(LogisticRegression()),
    ],
)
@pytest.mark.parametrize("bad", ["negative", "length"])
def test_bad_weights_are_refused(make, bad):
    X, y = _binary()
    w = np.ones(len(y))
    if bad == "negative":
        w[3] = -1.0
    else:
        w = w[:-1]
    with pytest.raises(ValueError, match="sample_weight") as info:
        make().fit(X, y, sample_weight=w)
    assert "\n" not in str(info.value)


# ------------------------------------------------------------------------------- cal_size


@pytest.mark.parametrize(
    "make",
    [
        lambda c: VennAbersClassifier(LogisticRegression(), cal_size=c, random_state=0),
        lambda c: VennClassifier(LogisticRegression(), cal_size=c, random_state=0),
        lambda c: MulticlassVennAbersClassifier(LogisticRegression(), cal_size=c, random_state=0),
    ],
)
def test_int_cal_size_is_a_count(make):
    X, y = _binary()
    clf = make(37).fit(X, y)
    if isinstance(clf, VennClassifier):
        assert clf.cal_labels_.shape[0] == 37
    assert make(0.25).fit(X, y).predict_proba(X[:3]).shape == (3, 2)


@pytest.mark.parametrize(
    "make",
    [
        lambda c: VennAbersClassifier(LogisticRegression(), cal_size=c),
        lambda c: VennClassifier(LogisticRegression(), cal_size=c),
        lambda c: MulticlassVennAbersClassifier(LogisticRegression(), cal_size=c),
    ],
)
@pytest.mark.parametrize("bad", [True, False, 0, 200, 500, -3, 1.0, 0.0, 1.5, "0.2", None])
def test_bad_cal_size_is_refused(make, bad):
    X, y = _binary()
    with pytest.raises(ValueError, match="cal_size") as info:
        make(bad).fit(X, y)
    assert "\n" not in str(info.value)


def test_int_cal_size_calibrates_on_that_many():
    """With cal_size=37 the estimators are trained on the other 163 examples."""
    X, y = _three(200)
    sizes = {}

    class _Count(LogisticRegression):
        def fit(self, X, y, sample_weight=None):
            sizes["train"] = len(y)
            return super().fit(X, y)

    for clf in (
        VennAbersClassifier(_Count(), cal_size=37, random_state=0),
        VennClassifier(_Count(), cal_size=37, random_state=0),
        MulticlassVennAbersClassifier(_Count(), cal_size=37, random_state=0),
    ):
        sizes.clear()
        clf.fit(X, y if not isinstance(clf, VennAbersClassifier) else (y > 0).astype(int))
        assert sizes["train"] == 163


# ---------------------------------------------------------------------- predict_log_proba


@pytest.mark.parametrize(
    "clf",
    [
        VennAbersClassifier(LogisticRegression(), random_state=0),
        VennClassifier(LogisticRegression(), random_state=0),
        MulticlassVennAbersClassifier(LogisticRegression(), random_state=0),
    ],
)
def test_predict_log_proba_is_log_of_predict_proba(clf):
    X, y = _three() if isinstance(clf, MulticlassVennAbersClassifier) else _binary()
    clf.fit(X, y)
    np.testing.assert_allclose(np.exp(clf.predict_log_proba(X)), clf.predict_proba(X))


@pytest.mark.parametrize(
    "cls", [VennAbersClassifier, VennClassifier, MulticlassVennAbersClassifier]
)
def test_predict_log_proba_of_zero_is_minus_inf_without_warning(cls, monkeypatch):
    # Venn probabilities are rarely exactly zero (pairwise coupling can clip to zero); the
    # log is taken of whatever predict_proba gives
    monkeypatch.setattr(cls, "predict_proba", lambda self, X: np.array([[0.0, 1.0], [0.5, 0.5]]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        logp = cls(LogisticRegression()).predict_log_proba(None)
    np.testing.assert_array_equal(logp, [[-np.inf, 0.0], [np.log(0.5), np.log(0.5)]])


def test_log_proba_helper_gives_minus_inf_silently():
    from venncal.classifiers._common import log_proba

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = log_proba(np.array([[0.0, 1.0]]))
    assert out[0, 0] == -np.inf and out[0, 1] == 0.0


# ------------------------------------------------------------------------ metadata routing


class _Consumer(ClassifierMixin, BaseEstimator):
    """Logistic regression that records the metadata its fit receives."""

    def fit(self, X, y, sample_weight=None, groups=None):
        self.seen_ = {"sample_weight": sample_weight, "groups": groups}
        self.model_ = LogisticRegression().fit(X, y)
        self.classes_ = self.model_.classes_
        self.n_features_in_ = X.shape[1]
        return self

    def decision_function(self, X):
        return self.model_.decision_function(X)


def test_metadata_routing_passes_requested_params():
    X, y = _binary()
    groups = np.arange(len(y)) % 4
    w = np.ones(len(y))
    with sklearn.config_context(enable_metadata_routing=True):
        est = _Consumer().set_fit_request(groups=True, sample_weight=False)
        clf = VennAbersClassifier(est, method="simplified").fit(
            X, y, groups=groups, sample_weight=w
        )
        seen = clf.estimator_.seen_
        np.testing.assert_array_equal(seen["groups"], groups)
        assert seen["sample_weight"] is None
        router = clf.get_metadata_routing()
        assert "groups" in str(router)


def test_metadata_routing_sample_weight_still_weights_calibration():
    X, y = _binary()
    frozen_base = LogisticRegression().fit(X, y)
    w = _weights(len(y))
    Xt = _binary(50, seed=5)[0]
    rep = np.repeat(np.arange(len(y)), w)
    with sklearn.config_context(enable_metadata_routing=True):
        est = _Consumer().set_fit_request(sample_weight=True, groups=False)
        clf = VennAbersClassifier(est, method="simplified").fit(X, y, sample_weight=w)
        np.testing.assert_array_equal(clf.estimator_.seen_["sample_weight"], w)
        a = VennAbersClassifier(FrozenEstimator(frozen_base)).fit(X, y, sample_weight=w)
    b = VennAbersClassifier(FrozenEstimator(frozen_base)).fit(X[rep], y[rep])
    np.testing.assert_array_equal(a.predict_interval(Xt), b.predict_interval(Xt))


def test_metadata_routing_refuses_unrequested_params():
    X, y = _binary()
    with sklearn.config_context(enable_metadata_routing=True):
        with pytest.raises((ValueError, TypeError), match="groups"):
            VennAbersClassifier(_Consumer(), method="simplified").fit(X, y, groups=np.zeros(len(y)))


def test_without_routing_fit_params_go_to_the_estimator():
    X, y = _binary()
    groups = np.arange(len(y)) % 4
    clf = VennAbersClassifier(_Consumer(), method="simplified").fit(X, y, groups=groups)
    np.testing.assert_array_equal(clf.estimator_.seen_["groups"], groups)
