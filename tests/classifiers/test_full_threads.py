"""Full Venn-Abers: one fitted model shared by several threads predicts as it does alone."""

import pickle
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from sklearn.discriminant_analysis import (
    LinearDiscriminantAnalysis,
    QuadraticDiscriminantAnalysis,
)
from sklearn.linear_model import LogisticRegression, RidgeClassifier
from sklearn.naive_bayes import CategoricalNB, GaussianNB, MultinomialNB
from sklearn.neighbors import KNeighborsClassifier
from sklearn.tree import DecisionTreeClassifier

from venncal.classifiers._full import FullVennAbers

N_THREADS = 8

CASES = [
    ("gnb", GaussianNB(), False, True),
    ("mnb", MultinomialNB(alpha=0.5), True, True),
    ("cnb", CategoricalNB(), True, True),
    ("ridge", RidgeClassifier(alpha=3.0), False, True),
    ("lda", LinearDiscriminantAnalysis(), False, True),
    ("qda", QuadraticDiscriminantAnalysis(reg_param=0.1), False, True),
    ("knn", KNeighborsClassifier(n_neighbors=5), False, True),
    ("logistic", LogisticRegression(C=0.7), False, True),
    ("generic", DecisionTreeClassifier(max_depth=2, random_state=0), False, False),
]


def _data(counts, n=60, m=2 * N_THREADS, seed=0):
    rng = np.random.default_rng(seed)
    if counts:
        X = rng.poisson(2.0, size=(n + m, 3)).astype(float)
    else:
        X = rng.normal(size=(n + m, 3))
    y = (X[:, 0] - 0.5 * X[:, 1] + rng.normal(size=n + m) > np.median(X[:, 0])).astype(int)
    y[:2] = [0, 1]
    return X[:n], y[:n], X[n:]


@pytest.fixture
def frequent_thread_switches():
    """Switch threads every microsecond, so that unprotected shared state shows up."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(old)


@pytest.mark.parametrize("name,estimator,counts,fast", CASES, ids=[c[0] for c in CASES])
def test_threads_sharing_one_model_predict_as_one_thread(
    name, estimator, counts, fast, frequent_thread_switches
):
    X, y, Xt = _data(counts)
    model = FullVennAbers(estimator).fit(X, y)
    assert model.uses_fast_path_ is fast
    # each thread predicts its own test objects, so a scratch buffer shared between threads
    # would mix one thread's object into another's scores
    chunks = np.array_split(np.arange(Xt.shape[0]), N_THREADS)
    expected = [model.predict_interval(Xt[rows]) for rows in chunks]
    repeats = 30 if fast else 2
    barrier = threading.Barrier(N_THREADS)

    def work(t):
        barrier.wait()
        wrong = 0
        for _ in range(repeats):
            got = model.predict_interval(Xt[chunks[t]])
            wrong += int((got != expected[t]).any(axis=1).sum())
        return wrong

    with ThreadPoolExecutor(max_workers=N_THREADS) as pool:
        wrong = list(pool.map(work, range(N_THREADS)))
    total = repeats * Xt.shape[0]
    assert sum(wrong) == 0, f"{sum(wrong)} of {total} predictions differ from one thread's"


@pytest.mark.parametrize("name,estimator,counts,fast", CASES, ids=[c[0] for c in CASES])
def test_prediction_leaves_the_fitted_model_unchanged(name, estimator, counts, fast):
    # shared state written during prediction is what makes threads interfere
    X, y, Xt = _data(counts)
    model = FullVennAbers(estimator).fit(X, y)
    before = pickle.dumps(model)
    model.predict_interval(Xt[:3])
    model.predict_interval(Xt[3:4])
    assert pickle.dumps(model) == before


def test_threads_sharing_a_venn_abers_classifier(frequent_thread_switches):
    from venncal import VennAbersClassifier

    X, y, Xt = _data(False)
    clf = VennAbersClassifier(GaussianNB(), method="full").fit(X, np.array(["a", "b"])[y])
    chunks = np.array_split(np.arange(Xt.shape[0]), N_THREADS)
    expected = [clf.predict_proba(Xt[rows]) for rows in chunks]
    barrier = threading.Barrier(N_THREADS)

    def work(t):
        barrier.wait()
        return sum(int((clf.predict_proba(Xt[chunks[t]]) != expected[t]).any()) for _ in range(20))

    with ThreadPoolExecutor(max_workers=N_THREADS) as pool:
        assert sum(pool.map(work, range(N_THREADS))) == 0
