"""Multiclass prediction from several threads at once leaves the process's BLAS thread counts
as they were (pairwise coupling runs with one BLAS thread while it works)."""

import threading

import numpy as np
import pytest
from threadpoolctl import threadpool_info

from venncal import MulticlassVennAbersCalibrator
from venncal._blas import single_blas_thread


def _blas_threads():
    return sorted(
        (lib["internal_api"], lib["filepath"], lib["num_threads"])
        for lib in threadpool_info()
        if lib["user_api"] == "blas"
    )


def _data(seed, n, K=5):
    rng = np.random.default_rng(seed)
    y = np.r_[np.arange(K), rng.integers(0, K, size=n - K)]
    return rng.normal(size=(n, K)) + 1.5 * np.eye(K)[y], y


@pytest.fixture
def blas_threads():
    """The process's BLAS thread counts (skip where there is no BLAS with more than one)."""
    counts = _blas_threads()
    if not counts or all(n == 1 for *_, n in counts):
        pytest.skip("no BLAS library with more than one thread: nothing to observe")
    return counts


def test_concurrent_pairwise_prediction_restores_the_blas_threads(blas_threads):
    S, y = _data(0, 400)
    cal = MulticlassVennAbersCalibrator(strategy="pairwise").fit(S, y)
    T, _ = _data(1, 300)
    before = blas_threads
    start = threading.Barrier(8)
    errors = []

    def work():
        try:
            start.wait()
            for _ in range(15):
                cal.predict_proba(T)
        except Exception as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert _blas_threads() == before


def test_blocks_that_end_out_of_order_restore_the_counts(blas_threads):
    entered, release = threading.Event(), threading.Event()

    def hold():
        with single_blas_thread():
            entered.set()
            release.wait(30)

    other = threading.Thread(target=hold)
    other.start()
    entered.wait(30)
    with single_blas_thread():  # entered while the other thread's block runs
        release.set()  # the other block ends first
        other.join()
        with single_blas_thread():  # nested in one thread
            pass
    assert _blas_threads() == blas_threads
