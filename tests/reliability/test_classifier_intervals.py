"""Properties of the wrapper classifiers' intervals and probabilities, on small random problems.

Every interval is finite, inside [0, 1] and ordered (p0 <= p1); probabilities are finite rows
summing to one; predicting a row alone gives what it gets inside a batch; repeated calls are
bit-identical and inputs are not modified. Cheap learners and small sets keep this fast.
"""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import GaussianNB
from sklearn.tree import DecisionTreeClassifier

from tests.reliability._settings import fewer
from venncal import MulticlassVennAbersClassifier, VennAbersClassifier, VennClassifier


@st.composite
def problems(draw, n_classes=2):
    """(X, y, X_test): a noisy linear problem, with ties and duplicated rows now and then."""
    seed = draw(st.integers(0, 2**32 - 1))
    n = draw(st.integers(40, 120))
    d = draw(st.integers(1, 3))
    noise = draw(st.sampled_from([0.0, 0.5, 2.0, 10.0]))
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    if draw(st.booleans()):
        X = np.round(X, 1)  # ties
    z = X.sum(axis=1) + noise * rng.normal(size=n)
    cuts = np.quantile(z, np.linspace(0, 1, n_classes + 1)[1:-1])
    y = np.digitize(z, cuts)
    X_test = np.vstack([rng.normal(size=(15, d)) * 3, X[:5]])
    return X, y, X_test


BINARY = [
    pytest.param(
        lambda rs: VennAbersClassifier(LogisticRegression(), random_state=rs), id="va-inductive"
    ),
    pytest.param(
        lambda rs: VennAbersClassifier(GaussianNB(), method="cross", n_splits=3, random_state=rs),
        id="va-cross-nb",
    ),
    pytest.param(
        lambda rs: VennAbersClassifier(
            DecisionTreeClassifier(max_depth=3, random_state=0),
            method="cross",
            n_splits=4,
            random_state=rs,
        ),
        id="va-cross-tree",
    ),
    pytest.param(
        lambda rs: VennAbersClassifier(LogisticRegression(), method="simplified", random_state=rs),
        id="va-simplified",
    ),
    pytest.param(
        lambda rs: VennAbersClassifier(
            RandomForestClassifier(n_estimators=15, random_state=0), method="oob", random_state=rs
        ),
        id="va-oob",
    ),
    pytest.param(lambda rs: VennAbersClassifier(GaussianNB(), method="full"), id="va-full-nb"),
    pytest.param(lambda rs: VennClassifier(LogisticRegression(), random_state=rs), id="venn-label"),
    pytest.param(
        lambda rs: VennClassifier(LogisticRegression(), taxonomy="bins", n_bins=3, random_state=rs),
        id="venn-bins",
    ),
    pytest.param(
        lambda rs: VennClassifier(
            RandomForestClassifier(n_estimators=15, random_state=0), method="oob", random_state=rs
        ),
        id="venn-oob",
    ),
]


def check_interval(iv, ordered=True):
    assert np.isfinite(iv).all(), iv
    assert ((iv >= 0) & (iv <= 1)).all(), iv
    if not ordered:
        return
    bad = iv[..., 0] > iv[..., 1]
    assert not bad.any(), f"{bad.sum()} intervals with p0 > p1, e.g. {iv[bad][:3].tolist()}"


def check_proba(proba):
    assert np.isfinite(proba).all(), proba
    assert ((proba >= 0) & (proba <= 1)).all(), proba
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=0, atol=1e-12)


@pytest.mark.parametrize("make", BINARY)
@fewer(20)
@given(data=problems(), rs=st.integers(0, 1000))
def test_binary_intervals_are_ordered_probabilities(make, data, rs):
    X, y, X_test = data
    clf = make(rs).fit(X, y)
    iv = clf.predict_interval(X_test)
    proba = clf.predict_proba(X_test)
    # documented exception: full Venn-Abers refits the scorer per label, so p0 > p1 can happen
    full = getattr(clf, "method", None) == "full"
    check_interval(iv, ordered=not full)
    check_proba(proba)
    if isinstance(clf, VennAbersClassifier) and not full:
        # documented: the interval contains the probability predict_proba returns
        p = proba[:, 1]
        assert ((iv[:, 0] <= p) & (p <= iv[:, 1])).all(), (iv, p)


@pytest.mark.parametrize("make", BINARY)
@fewer(20)
@given(data=problems(), rs=st.integers(0, 1000))
def test_binary_predictions_are_per_row_repeatable_and_leave_inputs_alone(make, data, rs):
    X, y, X_test = data
    copies = X.copy(), y.copy(), X_test.copy()
    clf = make(rs).fit(X, y)
    iv, proba = clf.predict_interval(X_test), clf.predict_proba(X_test)
    assert clf.predict_interval(X_test).tobytes() == iv.tobytes()
    assert clf.predict_proba(X_test).tobytes() == proba.tobytes()
    for k in (0, 7, X_test.shape[0] - 1):
        np.testing.assert_array_equal(clf.predict_interval(X_test[k : k + 1])[0], iv[k])
        np.testing.assert_array_equal(clf.predict_proba(X_test[k : k + 1])[0], proba[k])
    for a, b in zip((X, y, X_test), copies):
        assert np.array_equal(a, b), "an input was modified"


@pytest.mark.parametrize("strategy", ["ovr", "pairwise"])
@pytest.mark.parametrize("method", ["inductive", "cross"])
@fewer(20)
@given(data=problems(n_classes=3), rs=st.integers(0, 1000))
def test_multiclass_intervals_are_ordered_probabilities(strategy, method, data, rs):
    X, y, X_test = data
    clf = MulticlassVennAbersClassifier(
        LogisticRegression(), strategy=strategy, method=method, n_splits=3, random_state=rs
    ).fit(X, y)
    iv = clf.predict_interval(X_test)
    assert iv.shape == (X_test.shape[0], 3, 2)
    check_interval(iv)
    check_proba(clf.predict_proba(X_test))
    np.testing.assert_array_equal(clf.predict_interval(X_test[:1])[0], iv[0])


@pytest.mark.parametrize("scale", [1e-300, 1e-150, 1e150, 1e300, 1e307])
@pytest.mark.parametrize("make", BINARY)
def test_features_of_extreme_magnitude_give_intervals_or_a_clear_error(make, scale):
    """Valid but extreme features: finite intervals in [0, 1], or a one-line ValueError."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 2))
    y = (X[:, 0] + rng.normal(size=80) > 0).astype(int)
    X_test = rng.normal(size=(10, 2))
    clf = make(0)
    try:
        with np.errstate(all="ignore"):
            clf.fit(X * scale, y)
            iv = clf.predict_interval(X_test * scale)
            proba = clf.predict_proba(X_test * scale)
    except ValueError as exc:
        assert "\n" not in str(exc).strip(), str(exc)
        return
    check_interval(iv, ordered=getattr(clf, "method", None) != "full")
    check_proba(proba)
