"""The wrapper classifiers check the objects they pass on to the estimator: one line naming X."""

import numpy as np
import pytest
from sklearn.ensemble import BaggingClassifier, HistGradientBoostingClassifier
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.naive_bayes import GaussianNB, MultinomialNB
from sklearn.pipeline import make_pipeline

from venncal import MulticlassVennAbersClassifier, VennAbersClassifier, VennClassifier

rng = np.random.default_rng(0)
X = rng.normal(size=(120, 3))
y = (X[:, 0] + 0.5 * rng.normal(size=120) > 0).astype(int)


def bagged():
    return BaggingClassifier(GaussianNB(), n_estimators=30, random_state=0)


WRAPPERS = [
    ("inductive", lambda: VennAbersClassifier(GaussianNB(), random_state=0)),
    ("cross", lambda: VennAbersClassifier(GaussianNB(), method="cross", random_state=0)),
    ("simplified", lambda: VennAbersClassifier(GaussianNB(), method="simplified")),
    ("full", lambda: VennAbersClassifier(GaussianNB(), method="full")),
    ("oob", lambda: VennAbersClassifier(bagged(), method="oob", random_state=0)),
    ("venn", lambda: VennClassifier(GaussianNB(), random_state=0)),
    ("venn-oob", lambda: VennClassifier(bagged(), method="oob", random_state=0)),
    ("multiclass", lambda: MulticlassVennAbersClassifier(GaussianNB(), random_state=0)),
]


def fitted(make):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return make().fit(X, y)


def assert_one_line_naming_x(excinfo):
    message = str(excinfo.value)
    assert "\n" not in message, message
    assert "X" in message, message


@pytest.mark.parametrize("name,make", WRAPPERS, ids=[w[0] for w in WRAPPERS])
def test_missing_values_at_fit(name, make):
    bad = X.copy()
    bad[3, 1] = np.nan
    with pytest.raises(ValueError) as excinfo:
        make().fit(bad, y)
    assert_one_line_naming_x(excinfo)
    assert "NaN" in str(excinfo.value)


@pytest.mark.parametrize("name,make", WRAPPERS, ids=[w[0] for w in WRAPPERS])
@pytest.mark.parametrize(
    "case",
    ["nan", "inf", "one-dimensional", "too-few-features", "too-many-features"],
)
def test_bad_objects_at_prediction(name, make, case):
    model = fitted(make)
    bad = {
        "nan": np.where(np.arange(15).reshape(5, 3) == 4, np.nan, X[:5]),
        "inf": np.where(np.arange(15).reshape(5, 3) == 4, np.inf, X[:5]),
        "one-dimensional": X[:, 0],
        "too-few-features": X[:5, :2],
        "too-many-features": np.hstack([X[:5], X[:5]]),
    }[case]
    method = "predict_venn" if name.startswith("venn") else "predict_interval"
    for call in (getattr(model, method), model.predict_proba, model.predict):
        with pytest.raises(ValueError) as excinfo:
            call(bad)
        assert_one_line_naming_x(excinfo)


def test_an_estimator_that_takes_missing_values_still_gets_them():
    Xn = X.copy()
    Xn[::7, 2] = np.nan
    model = VennAbersClassifier(HistGradientBoostingClassifier(max_iter=20), random_state=0)
    iv = model.fit(Xn, y).predict_interval(Xn[:10])
    assert np.isfinite(iv).all()


def test_a_text_pipeline_still_takes_a_list_of_documents():
    words = np.array(["good", "bad", "fine", "awful", "great", "poor"])
    docs = [
        " ".join(
            rng.choice(
                words,
                3,
                p=[0.3, 0.05, 0.3, 0.05, 0.25, 0.05] if yi else [0.05, 0.3, 0.05, 0.3, 0.05, 0.25],
            )
        )
        for yi in y
    ]
    model = VennAbersClassifier(make_pipeline(CountVectorizer(), MultinomialNB()), random_state=0)
    proba = model.fit(docs, y).predict_proba(["good fine", "awful poor"])
    assert proba[0, 1] > proba[1, 1]


def test_wrong_number_of_features_message_follows_scikit_learn():
    model = fitted(WRAPPERS[0][1])
    with pytest.raises(
        ValueError, match="X has 2 features, but VennAbersClassifier is expecting 3"
    ):
        model.predict_proba(X[:5, :2])
