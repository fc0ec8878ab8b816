"""MulticlassVennAbersCalibrator within groups: fit(S, y, groups=g) gives each group the
calibrator fitted on that group's rows alone, prediction uses each row's group, and model files
keep the groups."""

import numpy as np
import pytest

import venncal
from venncal import MulticlassVennAbersCalibrator

STRATEGIES = [
    {"strategy": "ovr", "pooled": False},
    {"strategy": "ovr", "pooled": True},
    {"strategy": "pairwise", "pooled": False},
    {"strategy": "pairwise", "pooled": True},
    {"strategy": "top-label"},
]


def data(seed=0, n=300, K=3):
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(n, K)) * 2
    P = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    g = rng.choice(np.array(["north", "south", "west"]), size=n)
    # the south's labels follow the scores less closely: its own predictor differs
    noisy = (g == "south") & (rng.random(n) < 0.5)
    y = np.array([rng.choice(K, p=p) for p in P])
    y[noisy] = rng.integers(0, K, noisy.sum())
    for label in ("north", "south", "west"):  # every group holds every class
        rows = np.flatnonzero(g == label)[:K]
        y[rows] = np.arange(K)
    return P, y, g


@pytest.mark.parametrize("params", STRATEGIES, ids=str)
def test_each_group_gets_the_fit_on_its_own_rows(params):
    P, y, g = data()
    T, _, h = data(seed=1, n=120)
    w = np.random.default_rng(2).integers(1, 3, y.size).astype(float)
    cal = MulticlassVennAbersCalibrator(**params).fit(P, y, sample_weight=w, groups=g)
    assert cal.groups_ == ["north", "south", "west"]
    proba = cal.predict_proba(T, groups=h)
    interval = cal.predict_interval(T, groups=h)
    for label in cal.groups_:
        own = MulticlassVennAbersCalibrator(**params).fit(P[g == label], y[g == label],
                                                          sample_weight=w[g == label])  # fmt: skip
        rows = h == label
        np.testing.assert_array_equal(proba[rows], own.predict_proba(T[rows]))
        np.testing.assert_array_equal(interval[rows], own.predict_interval(T[rows]))
    np.testing.assert_array_equal(cal.predict(T, groups=h), cal.classes_[np.argmax(proba, axis=1)])
    # the pooled predictor is the fit without groups
    pooled = MulticlassVennAbersCalibrator(**params).fit(P, y, sample_weight=w)
    np.testing.assert_array_equal(
        cal._predict_tables(cal.tables_, cal._class_scores(T))[0], pooled.predict_proba(T)
    )


def test_groups_change_the_answer_where_a_group_differs():
    P, y, g = data()
    T, _, h = data(seed=1, n=120)
    within = MulticlassVennAbersCalibrator().fit(P, y, groups=g).predict_proba(T, groups=h)
    pooled = MulticlassVennAbersCalibrator().fit(P, y).predict_proba(T)
    assert np.abs(within - pooled)[h == "south"].max() > 0.05


def test_model_files_keep_the_groups(tmp_path):
    P, y, g = data()
    T, _, h = data(seed=1, n=60)
    cal = MulticlassVennAbersCalibrator(strategy="ovr", pooled=False).fit(P, y, groups=g)
    venncal.save(cal, tmp_path / "m.json")
    loaded = venncal.load(tmp_path / "m.json")
    assert loaded.groups_ == cal.groups_
    np.testing.assert_array_equal(loaded.predict_proba(T, groups=h), cal.predict_proba(T, groups=h))
    # a calibrator fitted without groups saves and loads as before
    plain = MulticlassVennAbersCalibrator().fit(P, y)
    venncal.save(plain, tmp_path / "p.json")
    np.testing.assert_array_equal(venncal.load(tmp_path / "p.json").predict_proba(T),
                                  plain.predict_proba(T))  # fmt: skip


def test_group_errors_are_one_line():
    P, y, g = data()
    cal = MulticlassVennAbersCalibrator().fit(P, y, groups=g)
    plain = MulticlassVennAbersCalibrator().fit(P, y)
    cases = [
        (lambda: cal.predict_proba(P), "fitted within groups: pass groups="),
        (lambda: plain.predict_proba(P, groups=g), "fitted without groups"),
        (lambda: cal.predict_proba(P[:2], groups=["east", "north"]), "not seen at fit"),
        (lambda: cal.predict_proba(P, groups=g[:5]), "has 5 labels for"),
    ]
    for call, match in cases:
        with pytest.raises(ValueError, match=match) as info:
            call()
        assert "\n" not in str(info.value)
    y2 = y.copy()
    y2[(g == "west") & (y2 == 2)] = 0
    with pytest.raises(ValueError, match="group 'west' has no calibration example of class 2"):
        MulticlassVennAbersCalibrator().fit(P, y2, groups=g)
