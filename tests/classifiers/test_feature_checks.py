"""The wrapper classifiers leave X to the estimator, as scikit-learn's CalibratedClassifierCV does.

What the wrapped estimator accepts (n-dimensional arrays, missing values it imputes, string
columns it encodes, documents) the wrapper accepts; what it refuses, it refuses with its own
error. The wrapper checks only what it needs itself: a number of rows matching y.
"""

import warnings

import numpy as np
import pytest
from sklearn.calibration import CalibratedClassifierCV
from sklearn.compose import make_column_transformer
from sklearn.ensemble import BaggingClassifier, HistGradientBoostingClassifier
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import GaussianNB, MultinomialNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer, OneHotEncoder

from venncal import (
    MulticlassVennAbersClassifier,
    ProbingClassifier,
    VennAbersClassifier,
    VennClassifier,
)

rng = np.random.default_rng(0)
X = rng.normal(size=(120, 3))
y = (X[:, 0] + 0.5 * rng.normal(size=120) > 0).astype(int)


def bagged():
    return BaggingClassifier(GaussianNB(), n_estimators=30, random_state=0)


# (name, wrapper factory taking the estimator); the out-of-bag ones need a bagged ensemble
WRAPPERS = [
    ("inductive", lambda est: VennAbersClassifier(est, random_state=0)),
    ("cross", lambda est: VennAbersClassifier(est, method="cross", random_state=0)),
    ("simplified", lambda est: VennAbersClassifier(est, method="simplified")),
    ("full", lambda est: VennAbersClassifier(est, method="full")),
    ("venn", lambda est: VennClassifier(est, random_state=0)),
    ("venn-full", lambda est: VennClassifier(est, method="full")),
    ("multiclass", lambda est: MulticlassVennAbersClassifier(est, random_state=0)),
    ("probing", lambda est: ProbingClassifier(est, n_probes=4)),
]
IDS = [w[0] for w in WRAPPERS]
# probing trains cost-weighted, which a Pipeline's fit does not take as sample_weight
PIPELINE_WRAPPERS = WRAPPERS[:-1]
PIPELINE_IDS = IDS[:-1]


def reference(est):
    """scikit-learn's own wrapper: the behaviour the wrappers follow."""
    return CalibratedClassifierCV(est, cv=2)


def quiet_fit(model, X_fit, y_fit):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return model.fit(X_fit, y_fit)


def flattening_logistic():
    """A pipeline that takes objects of any shape: it flattens each one first."""
    return make_pipeline(
        FunctionTransformer(lambda a: np.asarray(a).reshape(len(a), -1)), LogisticRegression()
    )


@pytest.mark.parametrize("shape", [(2, 3), (2, 2, 2)], ids=["3-D", "4-D"])
@pytest.mark.parametrize("name,make", PIPELINE_WRAPPERS, ids=PIPELINE_IDS)
def test_n_dimensional_objects_reach_an_estimator_that_takes_them(name, make, shape):
    Xnd = rng.normal(size=(80, *shape))
    ynd = (Xnd.reshape(80, -1)[:, 0] > 0).astype(int)
    # the reference takes them, so must the wrapper
    ref = quiet_fit(reference(flattening_logistic()), Xnd, ynd).predict_proba(Xnd[:4])
    model = quiet_fit(make(flattening_logistic()), Xnd, ynd)
    proba = model.predict_proba(Xnd[:4])
    assert proba.shape == ref.shape == (4, 2)
    assert np.isfinite(proba).all()
    assert set(model.predict(Xnd[:4])) <= {0, 1}


def mixed_frame(n=120, missing=True):
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame(
        {
            "a": rng.normal(size=n),
            "b": rng.normal(size=n),
            "colour": rng.choice(["red", "green", "blue"], n),
        }
    )
    labels = (df["a"] + 0.3 * rng.normal(size=n) > 0).astype(int).to_numpy()
    if missing:
        df.loc[::5, "b"] = np.nan
    return df, labels


def imputing_pipeline():
    """A ColumnTransformer that imputes the numeric columns and encodes the string one."""
    return make_pipeline(
        make_column_transformer(
            (SimpleImputer(), ["a", "b"]), (OneHotEncoder(handle_unknown="ignore"), ["colour"])
        ),
        LogisticRegression(),
    )


@pytest.mark.parametrize("missing", [True, False], ids=["with-NaN", "strings-only"])
@pytest.mark.parametrize("name,make", PIPELINE_WRAPPERS, ids=PIPELINE_IDS)
def test_a_frame_with_missing_values_and_strings_reaches_the_pipeline(name, make, missing):
    df, labels = mixed_frame(missing=missing)
    assert np.isfinite(
        quiet_fit(reference(imputing_pipeline()), df, labels).predict_proba(df.iloc[:5])
    ).all()
    model = quiet_fit(make(imputing_pipeline()), df, labels)
    proba = model.predict_proba(df.iloc[:5])
    assert proba.shape == (5, 2)
    assert np.isfinite(proba).all()
    assert np.allclose(proba.sum(axis=1), 1.0)


@pytest.mark.parametrize("name,make", WRAPPERS, ids=IDS)
def test_missing_values_refused_by_the_estimator_itself(name, make):
    bad = X.copy()
    bad[3, 1] = np.nan
    with pytest.raises(ValueError) as expected:
        GaussianNB().fit(bad, y)
    with pytest.raises(ValueError) as excinfo:
        quiet_fit(make(GaussianNB()), bad, y)
    # the estimator's own message, as with CalibratedClassifierCV
    assert str(expected.value) == str(excinfo.value)
    with pytest.raises(ValueError) as ref:
        quiet_fit(reference(GaussianNB()), bad, y)
    assert str(ref.value) == str(expected.value)


@pytest.mark.parametrize("name,make", WRAPPERS, ids=IDS)
def test_wrong_number_of_features_refused_by_the_estimator(name, make):
    model = quiet_fit(make(GaussianNB()), X, y)
    assert model.n_features_in_ == 3
    # the full methods join each test object to the training objects: they need the shape
    full = {"full": "VennAbersClassifier", "venn-full": "VennClassifier"}
    owner = full.get(name, "GaussianNB")
    with pytest.raises(ValueError, match=f"X has 2 features, but {owner} is expecting 3") as info:
        model.predict_proba(X[:5, :2])
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("method", ["oob"])
def test_out_of_bag_leaves_x_to_the_ensemble(method):
    bad = X.copy()
    bad[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        quiet_fit(VennAbersClassifier(bagged(), method=method, random_state=0), bad, y)


@pytest.mark.parametrize("name,make", WRAPPERS, ids=IDS)
def test_rows_are_counted_in_one_line(name, make):
    with pytest.raises((TypeError, ValueError)) as excinfo:
        make(GaussianNB()).fit(X[:-1], y)
    assert "\n" not in str(excinfo.value)
    assert "119" in str(excinfo.value) and "120" in str(excinfo.value)


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
