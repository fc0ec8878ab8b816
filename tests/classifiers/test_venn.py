"""VennClassifier: taxonomies, methods, outputs and input checks."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.ensemble import RandomForestClassifier
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import GaussianNB
from sklearn.svm import LinearSVC

from tests._reference.venn_abers_naive import venn_abers_naive
from venncal.classifiers.venn import VennClassifier
from venncal.core.venn import venn_predict


def make_data(seed, n=300, m=40, k=2):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n + m, 3))
    z = X[:, 0] + 0.5 * X[:, 1] + rng.normal(size=n + m)
    y = np.digitize(z, np.quantile(z, np.linspace(0, 1, k + 1)[1:-1]))
    return X[:n], y[:n], X[n:], y[n:]


def naive_label_taxonomy(cal_cat, cal_y, test_cat, k):
    lower = np.empty((len(test_cat), k))
    upper = np.empty((len(test_cat), k))
    for i, c in enumerate(test_cat):
        members = cal_y[cal_cat == c]
        freq = [
            [(np.sum(members == j) + (t == j)) / (len(members) + 1) for j in range(k)]
            for t in range(k)
        ]
        lower[i], upper[i] = np.min(freq, axis=0), np.max(freq, axis=0)
    return lower, upper


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("k", [2, 3])
def test_label_taxonomy_matches_definition(seed, k):
    X, y, Xt, _ = make_data(seed, k=k)
    vp = VennClassifier(GaussianNB(), random_state=seed).fit(X, y)
    pred = vp.predict_venn(Xt)
    # categories of the calibration set are the model's predicted labels
    cal_scores = vp.cal_scores_
    cal_cat = (cal_scores > 0.5).astype(int) if k == 2 else np.argmax(cal_scores, axis=1)
    test_cat = np.argmax(vp.estimator_.predict_proba(Xt), axis=1)
    lo, hi = naive_label_taxonomy(cal_cat, vp.cal_labels_, test_cat, k)
    np.testing.assert_allclose(pred.lower, lo, atol=1e-12)
    np.testing.assert_allclose(pred.upper, hi, atol=1e-12)
    np.testing.assert_array_equal(vp.predict(Xt), vp.classes_[np.argmax(lo, axis=1)])
    proba = vp.predict_proba(Xt)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    if k == 2:  # the log merge lies in [L, U] for two classes
        assert ((proba >= lo - 1e-12) & (proba <= hi + 1e-12)).all()


def test_labels_any_type_and_decision_function_estimator():
    X, y, Xt, _ = make_data(1)
    names = np.array(["neg", "pos"])[y]
    vp = VennClassifier(LinearSVC(), random_state=0).fit(X, names)
    assert set(vp.predict(Xt)) <= {"neg", "pos"}
    assert vp.predict_interval(Xt).shape == (len(Xt), 2)


def test_isotonic_taxonomy_is_inductive_venn_abers():
    X, y, Xt, _ = make_data(2)
    vp = VennClassifier(LogisticRegression(), taxonomy="isotonic", random_state=0).fit(X, y)
    got = vp.predict_interval(Xt)
    t = vp.estimator_.predict_proba(Xt)[:, 1]
    p0, p1 = venn_abers_naive(vp.cal_scores_, vp.cal_labels_, t)
    np.testing.assert_allclose(got, np.column_stack([p0, p1]), atol=1e-12)
    pred = vp.predict_venn(Xt)
    np.testing.assert_allclose(pred.lower.sum(1) + (pred.upper - pred.lower)[:, 1], 1.0)


def test_callable_taxonomy():
    X, y, Xt, _ = make_data(3)
    tax = lambda s: np.round(s * 3).astype(int)  # noqa: E731
    vp = VennClassifier(GaussianNB(), taxonomy=tax, random_state=0).fit(X, y)
    ref = venn_predict(
        tax(vp.cal_scores_), vp.cal_labels_, tax(vp.estimator_.predict_proba(Xt)[:, 1])
    )
    np.testing.assert_allclose(vp.predict_interval(Xt), ref.p0_p1)
    bad = VennClassifier(GaussianNB(), taxonomy=lambda s: s[:3], random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="one category per object"):
        bad.predict_venn(Xt)


@pytest.mark.parametrize("taxonomy", ["label", "bins", "isotonic"])
def test_oob_leaves_z_r_out(taxonomy):
    X, y, Xt, _ = make_data(4, n=200)
    rf = RandomForestClassifier(n_estimators=30, max_depth=4, random_state=0)
    vp = VennClassifier(rf, method="oob", taxonomy=taxonomy, n_bins=4, random_state=3)
    vp.fit(X, y)
    from venncal.classifiers._oob import draw_reference_examples

    r = draw_reference_examples(vp.seed_, vp.cal_index_, Xt)
    s = vp.oob_.test_probas(Xt, r)[:, 1]
    got = vp.predict_interval(Xt)
    for i in range(len(Xt)):
        keep = vp.cal_index_ != r[i]
        cs, cy = vp.cal_scores_[keep], vp.cal_labels_[keep]
        if taxonomy == "label":
            ref = venn_predict((cs > 0.5).astype(int), cy, [int(s[i] > 0.5)]).p0_p1[0]
        elif taxonomy == "isotonic":
            ref = np.ravel(venn_abers_naive(cs, cy, s[i : i + 1]))
        else:
            from venncal.core.venn import equal_mass_venn_predict

            ref = equal_mass_venn_predict(cs, cy, s[i : i + 1], n_bins=4).p0_p1[0]
        np.testing.assert_allclose(got[i], ref, atol=1e-12)


def test_deterministic_and_clonable():
    X, y, Xt, _ = make_data(5)
    a = VennClassifier(GaussianNB(), taxonomy="bins", random_state=1)
    b = clone(a)
    np.testing.assert_array_equal(
        a.fit(X, y).predict_interval(Xt), b.fit(X, y).predict_interval(Xt)
    )


def test_merges():
    X, y, Xt, _ = make_data(6)
    p = {
        m: VennClassifier(GaussianNB(), merge=m, random_state=0).fit(X, y)
        for m in ("log", "mean", "square")
    }
    iv = p["log"].predict_interval(Xt)
    for m, vp in p.items():
        q = vp.predict_proba(Xt)[:, 1]
        assert ((q >= iv[:, 0] - 1e-12) & (q <= iv[:, 1] + 1e-12)).all(), m
    q = p["log"].predict_proba(Xt)[:, 1]
    np.testing.assert_allclose(q, iv[:, 1] / (1 - iv[:, 0] + iv[:, 1]))


def test_bad_input():
    X, y, Xt, _ = make_data(0, k=3)
    with pytest.raises(ValueError, match="taxonomy"):
        VennClassifier(GaussianNB(), taxonomy="foo").fit(X, y)
    with pytest.raises(ValueError, match="two classes"):
        VennClassifier(GaussianNB(), taxonomy="isotonic").fit(X, y)
    with pytest.raises(ValueError, match="two classes"):
        VennClassifier(GaussianNB(), merge="square").fit(X, y)
    with pytest.raises(ValueError, match="method"):
        VennClassifier(GaussianNB(), method="transductive").fit(X, y)
    with pytest.raises(ValueError, match="cal_size"):
        VennClassifier(GaussianNB(), cal_size=1.5).fit(X, y)
    with pytest.raises(ValueError, match="n_bins"):
        VennClassifier(GaussianNB(), n_bins=0).fit(X, y)
    with pytest.raises(ValueError, match="one class"):
        VennClassifier(GaussianNB()).fit(X, np.zeros(len(X)))
    with pytest.raises(ValueError, match="NaN"):
        VennClassifier(GaussianNB()).fit(X, np.r_[np.nan, y[1:]])
    with pytest.raises(ValueError, match="Inconsistent"):
        VennClassifier(GaussianNB()).fit(X, y[:-1])
    with pytest.raises(TypeError, match="bagged"):
        VennClassifier(GaussianNB(), method="oob").fit(X, y)
    with pytest.raises(NotFittedError):
        VennClassifier(GaussianNB()).predict(Xt)
    vp = VennClassifier(GaussianNB(), random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="two classes"):
        vp.predict_interval(Xt)
    assert vp.predict_venn(Xt).lower.shape == (len(Xt), 3)


@pytest.mark.parametrize("method", ["inductive", "oob"])
def test_multiclass_bins_are_label_then_equal_mass_bins(method):
    from venncal.core.venn import equal_mass_venn_predict

    X, y, Xt, _ = make_data(7, k=3)
    est = GaussianNB() if method == "inductive" else RandomForestClassifier(30, random_state=0)
    vp = VennClassifier(est, taxonomy="bins", n_bins=3, method=method, random_state=2).fit(X, y)
    pred = vp.predict_venn(Xt)
    if method == "inductive":
        s, ex = vp.estimator_.predict_proba(Xt), None
    else:
        from venncal.classifiers._oob import draw_reference_examples

        r = draw_reference_examples(vp.seed_, vp.cal_index_, Xt)
        s, ex = vp.oob_.test_probas(Xt, r), np.searchsorted(vp.cal_index_, r)
    cal_lab = np.argmax(vp.cal_scores_, axis=1)
    for i in range(len(Xt)):
        c = np.argmax(s[i])
        members = np.flatnonzero(cal_lab == c)
        local = (
            -1 if ex is None or ex[i] not in members else int(np.flatnonzero(members == ex[i])[0])
        )
        ref = equal_mass_venn_predict(
            vp.cal_scores_[members, c],
            vp.cal_labels_[members],
            s[i : i + 1, c],
            n_bins=3,
            n_classes=3,
            exclude=[local],
        )
        np.testing.assert_allclose(pred.lower[i], ref.lower[0])
        np.testing.assert_allclose(pred.upper[i], ref.upper[0])


def test_refit_forgets_the_last_fit():
    X, y, Xt, _ = make_data(8, n=200)
    vp = VennClassifier(RandomForestClassifier(20, random_state=0), method="oob", random_state=0)
    vp.fit(X, y)
    assert hasattr(vp, "oob_")
    vp.set_params(method="inductive").fit(X, y)
    assert not hasattr(vp, "oob_") and not hasattr(vp, "cal_index_")
    ref = VennClassifier(RandomForestClassifier(20, random_state=0), random_state=0).fit(X, y)
    np.testing.assert_array_equal(vp.predict_interval(Xt), ref.predict_interval(Xt))


@pytest.mark.parametrize("method", ["inductive", "oob"])
def test_regressor_is_a_one_line_error_naming_estimator(method):
    from sklearn.linear_model import LinearRegression

    from venncal import VennAbersClassifier
    from venncal.classifiers.multiclass import MulticlassVennAbersClassifier

    X, y, _, _ = make_data(0)
    owners = [VennClassifier(LinearRegression(), method=method)]
    if method == "inductive":
        owners += [
            VennAbersClassifier(LinearRegression()),
            MulticlassVennAbersClassifier(LinearRegression()),
        ]
    for owner in owners:
        with pytest.raises(TypeError, match="'estimator' parameter of .*LinearRegression") as info:
            owner.fit(X, y)
        assert "\n" not in str(info.value)
