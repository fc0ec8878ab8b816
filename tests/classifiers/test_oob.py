"""Out-of-bag calibration: the rules of Johansson et al. (2018), section 3.2, checked naively."""

import warnings

import numpy as np
import pytest
from sklearn.ensemble import BaggingClassifier, ExtraTreesClassifier, RandomForestClassifier
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import LogisticRegression, RidgeClassifier

from tests._reference.venn_abers_naive import venn_abers_naive
from venncal import VennAbersClassifier, VennClassifier
from venncal.classifiers._oob import OOBEnsemble, OOBVennAbers
from venncal.exceptions import VenncalWarning


def make_data(seed, n=80, m=10):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n + m, 3))
    y = (X[:, 0] + rng.normal(size=n + m) > 0).astype(int)
    return X[:n], y[:n], X[n:]


ENSEMBLES = [
    ("rf", RandomForestClassifier(n_estimators=15, max_depth=3, random_state=0)),
    ("et", ExtraTreesClassifier(n_estimators=15, bootstrap=True, max_depth=3, random_state=1)),
    ("bag", BaggingClassifier(LogisticRegression(), n_estimators=12, random_state=2)),
    (
        "bag_feats",
        BaggingClassifier(
            RidgeClassifier(), n_estimators=12, max_features=2, max_samples=0.7, random_state=3
        ),
    ),
]


def naive_member_proba(member, feats, x):
    """Probability of class 1 by one member, with votes for members without predict_proba."""
    xj = x[None, feats] if feats is not None else x[None, :].astype(np.float32)
    if hasattr(member, "predict_proba"):
        p = member.predict_proba(xj)[0]
        return p[list(member.classes_).index(1)] if 1 in member.classes_ else 0.0
    return float(member.predict(xj)[0] == 1)


@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("name,ens", ENSEMBLES, ids=[e[0] for e in ENSEMBLES])
def test_no_calibration_score_comes_from_a_member_that_saw_its_example(seed, name, ens):
    X, y, Xt = make_data(seed)
    va = OOBVennAbers(ens, random_state=seed).fit(X, y)
    fitted = va.oob_.ensemble
    feats = getattr(fitted, "estimators_features_", [None] * len(fitted.estimators_))
    for pos, i in enumerate(va.cal_index_):
        members = [
            j for j, idx in enumerate(fitted.estimators_samples_) if i not in set(idx.tolist())
        ]
        assert members, "an example without out-of-bag members was kept"
        ref = np.mean([naive_member_proba(fitted.estimators_[j], feats[j], X[i]) for j in members])
        assert va.cal_scores_[pos] == pytest.approx(ref, abs=1e-12)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("name,ens", ENSEMBLES[:3], ids=[e[0] for e in ENSEMBLES[:3]])
def test_test_object_uses_z_r_subensemble_and_excludes_z_r(seed, name, ens):
    X, y, Xt = make_data(seed)
    va = OOBVennAbers(ens, random_state=seed).fit(X, y)
    got = va.predict_interval(Xt)
    r = va.reference_examples(Xt)
    fitted = va.oob_.ensemble
    feats = getattr(fitted, "estimators_features_", [None] * len(fitted.estimators_))
    for t in range(len(Xt)):
        members = [
            j for j, idx in enumerate(fitted.estimators_samples_) if r[t] not in set(idx.tolist())
        ]
        s_t = np.mean([naive_member_proba(fitted.estimators_[j], feats[j], Xt[t]) for j in members])
        keep = va.cal_index_ != r[t]
        assert keep.sum() == len(va.cal_index_) - 1  # z_r is left out, nothing else
        p0, p1 = venn_abers_naive(va.cal_scores_[keep], va.cal_y_[keep], np.array([s_t]))
        np.testing.assert_allclose(got[t], [p0[0], p1[0]], atol=1e-12)


def test_deterministic_under_random_state():
    X, y, Xt = make_data(4)
    ens = RandomForestClassifier(n_estimators=25, random_state=0)
    a = OOBVennAbers(ens, random_state=7).fit(X, y)
    b = OOBVennAbers(ens, random_state=7).fit(X, y)
    np.testing.assert_array_equal(a.predict_interval(Xt), b.predict_interval(Xt))
    np.testing.assert_array_equal(a.predict_interval(Xt), a.predict_interval(Xt))
    c = OOBVennAbers(ens, random_state=8).fit(X, y)
    assert not np.array_equal(a.reference_examples(Xt[:50]), c.reference_examples(Xt[:50]))


def test_examples_without_out_of_bag_members_are_dropped_and_never_drawn():
    X, y, Xt = make_data(5, n=60)
    ens = RandomForestClassifier(n_estimators=2, random_state=0)
    with pytest.warns(VenncalWarning, match="no out-of-bag score"):
        va = OOBVennAbers(ens, random_state=0).fit(X, y)
    mask = va.oob_.oob_mask
    dropped = np.flatnonzero(~mask.any(axis=1))
    assert dropped.size > 0
    assert not np.isin(dropped, va.cal_index_).any()
    rows = np.random.default_rng(0).normal(size=(500, X.shape[1]))
    assert not np.isin(va.reference_examples(rows), dropped).any()
    assert np.isfinite(va.predict_interval(Xt)).all()


def test_oob_mask_matches_bootstrap_samples():
    X, y, _ = make_data(6)
    ens = BaggingClassifier(LogisticRegression(), n_estimators=5, random_state=0).fit(X, y)
    oob = OOBEnsemble(ens, len(y))
    for j, idx in enumerate(ens.estimators_samples_):
        expected = np.ones(len(y), bool)
        expected[idx] = False
        np.testing.assert_array_equal(oob.oob_mask[:, j], expected)


def test_bad_ensembles_and_input():
    X, y, Xt = make_data(0)
    with pytest.raises(ValueError, match="bootstrap=False"):
        OOBVennAbers(RandomForestClassifier(bootstrap=False)).fit(X, y)
    with pytest.raises(ValueError, match="bootstrap=False"):
        OOBVennAbers(ExtraTreesClassifier()).fit(X, y)
    with pytest.raises(TypeError, match="bagged ensemble"):
        OOBVennAbers(LogisticRegression()).fit(X, y)
    with pytest.raises(ValueError, match="response_method"):
        OOBVennAbers(RandomForestClassifier(), response_method="decision_function").fit(X, y)
    with pytest.raises(NotFittedError):
        OOBVennAbers(RandomForestClassifier()).predict_interval(Xt)


def test_through_venn_abers_classifier():
    from venncal import VennAbersClassifier

    X, y, Xt = make_data(9)
    rf = RandomForestClassifier(n_estimators=20, random_state=0)
    clf = VennAbersClassifier(rf, method="oob", random_state=5).fit(X, np.where(y, "b", "a"))
    direct = OOBVennAbers(rf, random_state=5).fit(X, y)
    np.testing.assert_array_equal(clf.predict_interval(Xt), direct.predict_interval(Xt))
    np.testing.assert_allclose(clf.predict_proba(Xt).sum(axis=1), 1.0)
    with pytest.raises(ValueError, match="bootstrap"):
        VennAbersClassifier(RandomForestClassifier(bootstrap=False), method="oob").fit(X, y)


def test_sample_weight_weights_the_calibration():
    X, y, Xt = make_data(10)
    rf = RandomForestClassifier(n_estimators=20, random_state=0)
    w = np.where(y == 1, 3.0, 1.0)
    va = OOBVennAbers(rf, random_state=1, fit_params={"sample_weight": w}).fit(X, y)
    got = va.predict_interval(Xt)
    r = va.reference_examples(Xt)
    s = va.oob_.test_probas(Xt, r)[:, 1]
    for t in range(len(Xt)):
        keep = va.cal_index_ != r[t]
        p0, p1 = venn_abers_naive(
            va.cal_scores_[keep],
            va.cal_y_[keep],
            s[t : t + 1],
            sample_weight=w[va.cal_index_][keep],
        )
        np.testing.assert_allclose(got[t], [p0[0], p1[0]], atol=1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_prediction_of_a_row_does_not_depend_on_the_batch(seed):
    """z_r is drawn per row (a hash of its values): alone, shuffled or repeated, same answer."""
    X, y, Xt = make_data(seed)
    rf = RandomForestClassifier(n_estimators=25, random_state=0)
    clf = VennAbersClassifier(rf, method="oob", random_state=seed).fit(X, y)
    batch = clf.predict_proba(Xt)
    alone = np.vstack([clf.predict_proba(Xt[i : i + 1]) for i in range(len(Xt))])
    np.testing.assert_array_equal(batch, alone)
    perm = np.random.default_rng(seed).permutation(len(Xt))
    np.testing.assert_array_equal(clf.predict_proba(Xt[perm]), batch[perm])
    np.testing.assert_array_equal(
        clf.predict_interval(np.r_[Xt[:3], Xt])[3:], clf.predict_interval(Xt)
    )
    vp = VennClassifier(rf, method="oob", taxonomy="isotonic", random_state=seed).fit(X, y)
    batch = vp.predict_proba(Xt)
    alone = np.vstack([vp.predict_proba(Xt[i : i + 1]) for i in range(len(Xt))])
    np.testing.assert_array_equal(batch, alone)


def test_one_dimensional_input_is_a_clear_error():
    X, y, Xt = make_data(0)
    clf = VennAbersClassifier(
        RandomForestClassifier(n_estimators=10, random_state=0), method="oob", random_state=0
    ).fit(X, y)
    for method in (clf.predict_proba, clf.predict_interval, clf.predict):
        with pytest.raises(ValueError, match="'X'.*2-D") as info:
            method(Xt[0])
        assert "\n" not in str(info.value)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("name,ens", ENSEMBLES, ids=[e[0] for e in ENSEMBLES])
def test_member_by_member_probabilities_equal_the_dense_computation(seed, name, ens):
    from tests._reference.oob_venn_abers_naive import dense_oob_probas

    X, y, Xt = make_data(seed)
    va = OOBVennAbers(ens, random_state=seed).fit(X, y)
    oob = va.oob_
    probas, has = dense_oob_probas(oob.member_probas(X), oob.oob_mask)
    np.testing.assert_array_equal(va.cal_scores_, probas[has, 1])
    np.testing.assert_array_equal(va.cal_index_, np.flatnonzero(has))
    r = va.reference_examples(Xt)
    M = oob.oob_mask[r].astype(np.float64)
    dense = np.einsum("it,tik->ik", M, oob.member_probas(Xt)) / M.sum(axis=1)[:, None]
    np.testing.assert_array_equal(oob.test_probas(Xt, r), dense)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("weights", [None, "int", "float", "extreme"])
def test_prediction_equals_refitting_per_reference_example(seed, weights):
    from tests._reference.oob_venn_abers_naive import oob_venn_abers_naive

    X, y, Xt = make_data(20 + seed, n=150, m=60)
    X = np.round(X, 1)  # coarse features: tied out-of-bag scores
    rf = RandomForestClassifier(n_estimators=10, max_depth=2, random_state=seed)
    w = {
        None: None,
        "int": np.arange(len(y)) % 3 + 1.0,
        "float": np.arange(len(y)) % 3 + 0.5,
        "extreme": 10.0 ** (np.arange(len(y)) % 25 - 12.0),  # Python-integer geometry
    }
    fit_params = None if weights is None else {"sample_weight": w[weights]}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", VenncalWarning)
        va = OOBVennAbers(rf, random_state=seed, fit_params=fit_params).fit(X, y)
    Xq = np.vstack([Xt, X[:40]])
    r = va.reference_examples(Xq)
    t = va.oob_.test_probas(Xq, r)[:, 1]
    pos = np.searchsorted(va.cal_index_, r)
    ref = oob_venn_abers_naive(va.cal_scores_, va.cal_y_, t, pos, va.cal_weight_)
    np.testing.assert_array_equal(va.predict_interval(Xq), ref)


def test_multiclass_oob_prediction_sets_the_blas_limit_once(monkeypatch):
    """The pairwise couplings of every left-out example run under one BLAS limit: setting it
    per example (threadpoolctl finds the process's libraries each time) cost about 4 ms each."""
    import threadpoolctl

    from venncal import MulticlassVennAbersClassifier

    rng = np.random.default_rng(0)
    X = rng.normal(size=(150, 3))
    y = np.argmax(X + rng.normal(size=X.shape), axis=1)
    forest = RandomForestClassifier(n_estimators=10, random_state=0)
    clf = MulticlassVennAbersClassifier(forest, method="oob", random_state=0).fit(X, y)
    calls = []
    limits = threadpoolctl.threadpool_limits

    def counted(*args, **kwargs):
        calls.append(args)
        return limits(*args, **kwargs)

    monkeypatch.setattr(threadpoolctl, "threadpool_limits", counted)
    proba = clf.predict_proba(X[:40])
    assert len(np.unique(clf.oob_index_)) > 1 and len(calls) == 1
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
