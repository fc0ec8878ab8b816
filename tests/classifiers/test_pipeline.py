"""Intervals through a scikit-learn Pipeline: the pipeline inside the wrapper, and
``venncal.predict_interval`` for a pipeline that ends in a Venn predictor."""

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import venncal
from venncal import VennAbersClassifier, VennClassifier


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(n_samples=300, n_features=6, random_state=0)
    X = X * np.array([1, 10, 100, 0.1, 1000, 1])  # features on very different scales
    return X[:200], y[:200], X[200:]


def test_both_exports_are_the_same_function():
    from venncal.classifiers import predict_interval

    assert venncal.predict_interval is predict_interval


def test_pipeline_inside_the_wrapper_gives_intervals(data):
    X, y, X_test = data
    clf = VennAbersClassifier(make_pipeline(StandardScaler(), GaussianNB()), random_state=0)
    interval = clf.fit(X, y).predict_interval(X_test)
    assert interval.shape == (X_test.shape[0], 2)
    assert np.all((0 <= interval[:, 0]) & (interval[:, 0] <= interval[:, 1]))
    assert np.all(interval[:, 1] <= 1)


def test_a_pipeline_around_the_wrapper_hides_predict_interval(data):
    """Why the helper exists: Pipeline does not pass predict_interval on."""
    X, y, X_test = data
    pipe = make_pipeline(StandardScaler(), VennAbersClassifier(GaussianNB())).fit(X, y)
    with pytest.raises(AttributeError):
        pipe.predict_interval(X_test)


@pytest.mark.parametrize("method", ["simplified", "full"])
def test_helper_equals_the_pipeline_inside_the_wrapper(data, method):
    """Fitted on the same rows (no calibration split), scaler-then-wrapper and
    wrapper-of-pipeline are the same predictor."""
    X, y, X_test = data
    outside = make_pipeline(StandardScaler(), VennAbersClassifier(GaussianNB(), method=method))
    inside = VennAbersClassifier(make_pipeline(StandardScaler(), GaussianNB()), method=method)
    got = venncal.predict_interval(outside.fit(X, y), X_test)
    expected = inside.fit(X, y).predict_interval(X_test)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


def test_helper_transforms_through_the_earlier_steps(data):
    X, y, X_test = data
    pipe = make_pipeline(StandardScaler(), VennAbersClassifier(GaussianNB(), random_state=0))
    pipe.fit(X, y)
    scaler, clf = pipe[0], pipe[-1]
    expected = clf.predict_interval(scaler.transform(X_test))
    np.testing.assert_array_equal(venncal.predict_interval(pipe, X_test), expected)
    # a plain estimator: called directly
    np.testing.assert_array_equal(venncal.predict_interval(clf, scaler.transform(X_test)), expected)
    # a pipeline nested as the last step
    nested = make_pipeline(StandardScaler(), make_pipeline(StandardScaler(), clf))
    nested.fit(X, y)
    inner = nested[-1]
    expected = inner[-1].predict_interval(inner[0].transform(nested[0].transform(X_test)))
    np.testing.assert_array_equal(venncal.predict_interval(nested, X_test), expected)


def test_helper_with_a_venn_predictor(data):
    X, y, X_test = data
    pipe = make_pipeline(StandardScaler(), VennClassifier(GaussianNB(), random_state=0))
    pipe.fit(X, y)
    expected = pipe[-1].predict_venn(pipe[0].transform(X_test)).p0_p1
    np.testing.assert_array_equal(venncal.predict_interval(pipe, X_test), expected)


def test_helper_falls_back_to_predict_venn():
    class OnlyVenn:
        def predict_venn(self, X):
            class Prediction:
                p0_p1 = np.tile([0.25, 0.75], (len(X), 1))

            return Prediction()

    np.testing.assert_array_equal(
        venncal.predict_interval(OnlyVenn(), [[0.0], [1.0]]), [[0.25, 0.75]] * 2
    )


def test_a_pipeline_without_an_interval_is_a_type_error(data):
    X, y, X_test = data
    pipe = make_pipeline(StandardScaler(), GaussianNB()).fit(X, y)
    with pytest.raises(TypeError, match="'model'") as info:
        venncal.predict_interval(pipe, X_test)
    assert "GaussianNB" in str(info.value) and "\n" not in str(info.value)
    with pytest.raises(TypeError, match="'model'"):
        venncal.predict_interval(GaussianNB().fit(X, y), X_test)
