"""Which class is positive in a wrapper classifier, and why the wrappers take no ``pos_label``.

The score calibrators' ``fit`` takes ``pos_label`` because their scores come with no labels
attached. A wrapper fits the estimator on the labels it is given, so the estimator's score points
to ``classes_[1]`` (scikit-learn's convention) and every output has one column per class: the
probability of a class is read from its column. These tests check that the probability of
"malignant" does not depend on how the labels are given (strings, 0/1, a categorical with its
categories in either order), nor, from the same calibration examples, on names that sort
"malignant" first or second.
"""

import inspect
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.ensemble import RandomForestClassifier
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import GaussianNB

from venncal import MulticlassVennAbersClassifier, VennAbersClassifier, VennClassifier


def _data(n=240, m=40, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n + m, 3))
    malignant = X[:, 0] + 0.8 * rng.normal(size=n + m) > 0.3
    return X[:n], malignant[:n], X[n:]


def _venn_oob(**params):
    forest = RandomForestClassifier(n_estimators=20, random_state=0)
    return VennClassifier(forest, method="oob", random_state=0, **params)


# one configuration per method and taxonomy
WRAPPERS = {
    "VennAbers-inductive": VennAbersClassifier(GaussianNB(), random_state=0),
    "VennAbers-cross": VennAbersClassifier(
        GaussianNB(), method="cross", n_splits=3, random_state=0
    ),
    "VennAbers-simplified": VennAbersClassifier(GaussianNB(), method="simplified"),
    "VennAbers-simplified-square": VennAbersClassifier(
        GaussianNB(), method="simplified", merge="square"
    ),
    "VennAbers-full": VennAbersClassifier(GaussianNB(), method="full"),
    "VennAbers-oob": VennAbersClassifier(
        RandomForestClassifier(n_estimators=20, random_state=0), method="oob", random_state=0
    ),
    "Venn-label": VennClassifier(GaussianNB(), random_state=0),
    "Venn-bins": VennClassifier(GaussianNB(), taxonomy="bins", random_state=0),
    "Venn-isotonic": VennClassifier(GaussianNB(), taxonomy="isotonic", random_state=0),
    "Venn-oob": _venn_oob(),
    "Venn-oob-isotonic": _venn_oob(taxonomy="isotonic"),
    "Venn-full-isotonic": VennClassifier(GaussianNB(), method="full", taxonomy="isotonic"),
    "Multiclass-pairwise": MulticlassVennAbersClassifier(GaussianNB(), random_state=0),
    "Multiclass-ovr": MulticlassVennAbersClassifier(
        GaussianNB(), strategy="ovr", pooled=False, random_state=0
    ),
    "Multiclass-cross": MulticlassVennAbersClassifier(
        GaussianNB(), method="cross", n_splits=3, random_state=0
    ),
}


def p_malignant(clf, X, y, Xt, malignant_label):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # out-of-bag: examples that are in every bootstrap
        fitted = clone(clf).fit(X, y)
    column = list(fitted.classes_).index(malignant_label)
    return fitted.predict_proba(Xt)[:, column]


@pytest.mark.parametrize("name", sorted(WRAPPERS))
def test_probability_of_malignant_does_not_depend_on_the_order_of_the_labels(name):
    pd = pytest.importorskip("pandas")
    X, malignant, Xt = _data()
    clf = WRAPPERS[name]
    names = np.where(malignant, "malignant", "benign")
    expected = p_malignant(clf, X, names, Xt, "malignant")
    # the labels in either order of categories, as a plain list, and coded 0/1
    for order in (["benign", "malignant"], ["malignant", "benign"]):
        y = pd.Series(pd.Categorical(names, categories=order))
        np.testing.assert_array_equal(p_malignant(clf, X, y, Xt, "malignant"), expected)
    np.testing.assert_array_equal(p_malignant(clf, X, names.tolist(), Xt, "malignant"), expected)
    np.testing.assert_allclose(
        p_malignant(clf, X, malignant.astype(int), Xt, 1), expected, rtol=0, atol=1e-12
    )
    # the probabilities are not constant: the estimator's ranking is used, the right way round
    assert np.corrcoef(expected, Xt[:, 0])[0, 1] > 0.5


# the configurations that split nothing at random (the stratified split and folds draw the
# classes in sorted order of their labels, so a renaming can change them), and whose taxonomy
# is symmetric in the labels ("bins" counts its equal-mass bins from the smallest score of
# classes_[1], and "label" on a forest ties probabilities of exactly 1/2 towards classes_[0])
SYMMETRIC = {
    name: WRAPPERS[name]
    for name in (
        "VennAbers-simplified",
        "VennAbers-simplified-square",
        "VennAbers-full",
        "VennAbers-oob",
        "Venn-oob-isotonic",
        "Venn-full-isotonic",
    )
}
SYMMETRIC_FROZEN = {
    "VennAbers-frozen": lambda model: VennAbersClassifier(model),
    "Venn-label-frozen": lambda model: VennClassifier(model),
    "Venn-isotonic-frozen": lambda model: VennClassifier(model, taxonomy="isotonic"),
    "Multiclass-pairwise-frozen": lambda model: MulticlassVennAbersClassifier(model),
    "Multiclass-ovr-frozen": lambda model: MulticlassVennAbersClassifier(
        model, strategy="ovr", pooled=False
    ),
}


def _fit_predict(name, X, y, Xt, label):
    if name in SYMMETRIC:
        return p_malignant(SYMMETRIC[name], X, y, Xt, label)
    model = FrozenEstimator(GaussianNB().fit(X, y))
    fitted = SYMMETRIC_FROZEN[name](model).fit(X, y)
    return fitted.predict_proba(Xt)[:, list(fitted.classes_).index(label)]


@pytest.mark.parametrize("name", sorted(SYMMETRIC) + sorted(SYMMETRIC_FROZEN))
def test_renaming_the_labels_so_their_order_flips_keeps_the_probability(name):
    X, malignant, Xt = _data()
    # "malignant" sorts second here (classes_[1], the class the estimator's score points to)
    second = _fit_predict(name, X, np.where(malignant, "malignant", "benign"), Xt, "malignant")
    # ... and first here: the estimator's score now points to "non-malignant"
    first = _fit_predict(
        name, X, np.where(malignant, "malignant", "non-malignant"), Xt, "malignant"
    )
    np.testing.assert_allclose(first, second, rtol=0, atol=1e-9)


@pytest.mark.parametrize("name", ["VennAbers-simplified", "Venn-oob-isotonic"])
def test_interval_of_the_other_class_is_the_mirror_image(name):
    X, malignant, Xt = _data(seed=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = clone(WRAPPERS[name]).fit(X, np.where(malignant, "malignant", "benign"))
        b = clone(WRAPPERS[name]).fit(X, np.where(malignant, "malignant", "non-malignant"))
    # a: the interval of "malignant" (classes_[1]); b: that of "non-malignant"
    np.testing.assert_allclose(
        a.predict_interval(Xt), 1.0 - b.predict_interval(Xt)[:, ::-1], rtol=0, atol=1e-9
    )


@pytest.mark.parametrize(
    "make",
    [
        lambda est: VennAbersClassifier(est),
        lambda est: VennClassifier(est),
        lambda est: MulticlassVennAbersClassifier(est),
    ],
    ids=["VennAbersClassifier", "VennClassifier", "MulticlassVennAbersClassifier"],
)
def test_frozen_estimator_fitted_on_other_labels_is_refused(make):
    # the frozen model's scores point to its own classes_[1]; read with other labels they
    # would be the scores of an unknown class (of "benign", if it was coded 1)
    X, malignant, _ = _data()
    model = FrozenEstimator(LogisticRegression().fit(X, malignant.astype(int)))
    owner = type(make(model)).__name__
    with pytest.raises(ValueError, match=rf"FrozenEstimator of {owner} was fitted on the classes"):
        make(model).fit(X, np.where(malignant, "malignant", "benign"))
    # with the labels it was fitted on, it calibrates
    fitted = make(model).fit(X, malignant.astype(int))
    assert fitted.predict_proba(X[:3]).shape == (3, 2)


def test_wrappers_document_why_they_take_no_pos_label():
    for cls in (VennAbersClassifier, VennClassifier, MulticlassVennAbersClassifier):
        doc = " ".join(cls.__doc__.split())
        assert "**Positive class.**" in doc and "pos_label" in doc, cls.__name__
        assert "pos_label" not in inspect.signature(cls.fit).parameters
