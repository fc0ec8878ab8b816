"""Model files of the multiclass Venn-Abers calibrator: every strategy round-trips bit for bit."""

import subprocess
import sys

import numpy as np
import pytest

import venncal


def _scores(seed=0, n=400, K=4):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, K, size=n)
    S = rng.normal(size=(n, K)) + 1.5 * np.eye(K)[y]
    return S, y


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"strategy": "ovr"},
        {"strategy": "ovr", "pooled": False},
        {"strategy": "pairwise", "pooled": False, "coupling": "price"},
        {"strategy": "pairwise", "merge": "mean"},
    ],
    ids=["default", "ovr-pooled", "ovr", "pairwise-price", "pairwise-mean"],
)
def test_round_trip_is_exact(tmp_path, params):
    S, y = _scores()
    labels = np.array(["ant", "bee", "cat", "dog"])[y]
    cal = venncal.MulticlassVennAbersCalibrator(**params).fit(S, labels)
    path = tmp_path / "mc.json"
    venncal.save(cal, path)
    loaded = venncal.load(path)
    T, _ = _scores(seed=1, n=200)
    assert type(loaded) is type(cal)
    assert np.array_equal(loaded.classes_, cal.classes_)
    assert np.array_equal(loaded.predict_proba(T), cal.predict_proba(T))
    assert np.array_equal(loaded.predict_interval(T), cal.predict_interval(T))
    assert np.array_equal(loaded.predict(T), cal.predict(T))


def test_fresh_process_predicts_the_same(tmp_path):
    S, y = _scores(seed=2)
    cal = venncal.MulticlassVennAbersCalibrator().fit(S, y)
    venncal.save(cal, tmp_path / "mc.json")
    T, _ = _scores(seed=3, n=50)
    np.save(tmp_path / "T.npy", T)
    code = (
        "import numpy as np, venncal, sys\n"
        f"c = venncal.load({str(tmp_path / 'mc.json')!r})\n"
        f"p = c.predict_proba(np.load({str(tmp_path / 'T.npy')!r}))\n"
        "sys.stdout.write(' '.join(float(v).hex() for v in p.ravel()))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    expected = " ".join(float(v).hex() for v in cal.predict_proba(T).ravel())
    assert out.stdout == expected
