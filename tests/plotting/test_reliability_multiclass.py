"""ReliabilityDisplay's multiclass mode: top-label and per-class diagrams."""

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402

from tests._reference import multiclass_metrics_loops as loops  # noqa: E402
from venncal.metrics import ece  # noqa: E402
from venncal.plotting import ReliabilityDisplay  # noqa: E402


def _data(seed=0, n=400, K=4):
    rng = np.random.default_rng(seed)
    P = rng.dirichlet(np.ones(K), size=n)
    y = (rng.random((n, 1)) > P.cumsum(axis=1)).sum(axis=1).clip(0, K - 1)
    y[:K] = np.arange(K)
    return y, P


def test_top_label_is_the_default_for_more_than_two_columns():
    y, P = _data()
    disp = ReliabilityDisplay.from_predictions(y, P, n_bins=8)
    assert disp.kind == "top_label"
    assert disp.ece == pytest.approx(loops.top_label_ece(y, P.tolist(), list(range(4)), 8))
    top = P.max(axis=1)
    hit = (P.argmax(axis=1) == y).astype(float)
    binary = ReliabilityDisplay.from_predictions(hit, top, n_bins=8)
    np.testing.assert_array_equal(disp.curve.counts, binary.curve.counts)
    np.testing.assert_allclose(disp.curve.observed, binary.curve.observed, equal_nan=True)
    assert disp.ax_.get_ylabel().startswith("accuracy")


@pytest.mark.parametrize("k", [0, 3])
def test_classwise_draws_one_class(k):
    y, P = _data(1)
    labels = np.array(["a", "b", "c", "d"])
    disp = ReliabilityDisplay.from_predictions(
        labels[y], P, multiclass="classwise", class_label=labels[k], n_bins=6
    )
    assert disp.ece == pytest.approx(ece(y == k, P[:, k], n_bins=6))
    np.testing.assert_allclose(
        disp.line_.get_ydata(),
        ReliabilityDisplay.from_predictions(y == k, P[:, k], n_bins=6).curve.observed,
        equal_nan=True,
    )
    assert f"class {labels[k]}" in disp.ax_.get_xlabel()


def test_from_estimator_with_three_classes():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(300, 2))
    y = np.digitize(X[:, 0] + rng.normal(size=300), [-0.5, 0.5])
    clf = LogisticRegression().fit(X, y)
    a = ReliabilityDisplay.from_estimator(clf, X, y)
    b = ReliabilityDisplay.from_predictions(y, clf.predict_proba(X))
    assert a.ece == b.ece and a.name == "LogisticRegression"
    c = ReliabilityDisplay.from_estimator(clf, X, y, multiclass="classwise", class_label=2)
    assert c.ece == pytest.approx(ece(y == 2, clf.predict_proba(X)[:, 2]))


@pytest.mark.parametrize("class_label", ["no", "yes"])
def test_two_class_estimator_drawn_classwise_uses_its_class_names(class_label):
    # multiclass= on a binary estimator: both columns, labelled by classes_, any pos_label unused
    rng = np.random.default_rng(4)
    X = rng.normal(size=(300, 2))
    y = np.where(X[:, 0] + rng.normal(size=300) > 0, "yes", "no")
    clf = LogisticRegression().fit(X, y)
    a = ReliabilityDisplay.from_estimator(
        clf, X, y, multiclass="classwise", class_label=class_label, pos_label="yes", n_bins=5
    )
    column = list(clf.classes_).index(class_label)
    assert a.kind == "classwise" and a.class_label == class_label
    assert a.name == "LogisticRegression"
    assert a.ece == pytest.approx(ece(y == class_label, clf.predict_proba(X)[:, column], n_bins=5))


@pytest.mark.parametrize(
    "kw, match",
    [
        ({"multiclass": "classwise"}, "class_label"),
        ({"multiclass": "classwise", "class_label": 9}, "not among"),
        ({"multiclass": "pairs"}, "multiclass"),
    ],
)
def test_bad_options(kw, match):
    y, P = _data()
    with pytest.raises(ValueError, match=match):
        ReliabilityDisplay.from_predictions(y, P, **kw)
