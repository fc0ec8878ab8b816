"""compare_calibrators: the recommendation is what the user gets, and input is read as the
calibrators read it (pos_label, one score per row, one warning per cause)."""

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.model_selection import StratifiedKFold

from venncal import PlattCalibrator, VennAbersCalibrator
from venncal.exceptions import VenncalWarning
from venncal.selection import compare_calibrators, default_calibrators
from venncal.selection._inputs import configured_name


def _data(n=600, seed=0, power=2.0):
    rng = np.random.default_rng(seed)
    s = rng.uniform(size=n)
    y = (rng.random(n) < s**power).astype(int)
    return s, y


def _sigmoid_data(n=4000, seed=8):
    # y ~ Bernoulli(sigmoid(2 z)) on margins: Platt's sigmoid is the truth
    rng = np.random.default_rng(seed)
    z = rng.normal(size=n)
    return z, (rng.random(n) < 1 / (1 + np.exp(-2 * z))).astype(int)


@pytest.mark.parametrize("case", ["venn-abers", "other"])
def test_the_recommended_estimator_is_the_measured_configuration_fitted_on_all_rows(case):
    s, y = _data(n=800, seed=1) if case == "venn-abers" else _sigmoid_data()
    cv = StratifiedKFold(4, shuffle=True, random_state=0)
    res = compare_calibrators(s, y, cv=cv, n_boot=100, random_state=0)
    if case == "venn-abers":
        assert res.recommended == "venn-abers", res.rule
    else:
        assert res.recommended not in {"venn-abers", "uncalibrated"}, res.rule
    est = res.recommended_estimator
    # the parameters of the measured candidate, and of the default set's candidate
    assert type(est) is type(res.candidates[res.recommended])
    assert est.get_params() == res.candidates[res.recommended].get_params()
    assert (
        est.get_params() == default_calibrators(case == "venn-abers")[res.recommended].get_params()
    )
    # fitted on all rows: it predicts what a fresh fit of that configuration on all rows does
    grid = np.linspace(s.min(), s.max(), 501)
    np.testing.assert_array_equal(est.predict_proba(grid), clone(est).fit(s, y).predict_proba(grid))
    # and its configuration is the one whose out-of-fold probabilities were scored
    oof = res.oof[res.recommended].to_numpy()
    for train, test in cv.split(s[:, None], y):
        ref = clone(est).fit(s[train], y[train]).predict_proba(s[test])[:, 1]
        np.testing.assert_array_equal(oof[test], ref)


def test_the_default_venn_abers_is_the_mean_merge_and_says_so():
    s, y = _data(n=500, seed=2)
    res = compare_calibrators(s, y, n_boot=50, random_state=0)
    assert res.recommended == "venn-abers"
    assert res.recommended_estimator.get_params()["merge"] == "mean"
    # not the class's default (log merge): the printed name says the configuration
    assert VennAbersCalibrator().get_params()["merge"] == "log"
    assert res.label("venn-abers") == "venn-abers (merge='mean')"
    assert res.rule.startswith("venn-abers (merge='mean') is the default")
    mean = VennAbersCalibrator(merge="mean").fit(s, y).predict_proba(s)
    np.testing.assert_array_equal(res.recommended_estimator.predict_proba(s), mean)
    assert not np.array_equal(VennAbersCalibrator().fit(s, y).predict_proba(s), mean)


def test_the_uncalibrated_recommendation_has_no_estimator():
    # calibrated probabilities; Platt on the probability scale is the wrong shape
    rng = np.random.default_rng(3)
    s = rng.uniform(0.02, 0.98, size=3000)
    y = (rng.random(3000) < s).astype(int)
    res = compare_calibrators(
        s, y, calibrators={"platt": PlattCalibrator()}, default="uncalibrated", n_boot=100,
        random_state=0,
    )  # fmt: skip
    assert res.recommended == "uncalibrated", res.rule
    assert res.recommended_estimator is None


def test_configured_names_list_the_parameters_that_differ_from_the_defaults():
    assert configured_name("va", VennAbersCalibrator()) == "va"
    assert configured_name("va", VennAbersCalibrator(merge="mean")) == "va (merge='mean')"
    # every name of the default set reads back to its estimator's parameters
    for name, est in default_calibrators().items():
        label = configured_name(name, est)
        params = est.get_params()
        for key, value in params.items():
            if value != type(est)().get_params()[key]:
                assert f"{key}={value!r}" in label, label


def _reversed(n=600, seed=4):
    # scores that point to benign (and overestimate it), with the labels benign and malignant:
    # the larger label, malignant, is the positive class unless pos_label says otherwise
    rng = np.random.default_rng(seed)
    s = rng.uniform(size=n)
    benign = rng.random(n) < s**2
    return s, np.where(benign, "benign", "malignant")


def test_reversed_labels_warn_once_with_the_labels_and_pos_label_fixes_them():
    s, labels = _reversed()
    with pytest.warns(VenncalWarning) as record:
        compare_calibrators(s, labels, n_boot=50, random_state=0)
    assert len(record) == 1, [str(w.message) for w in record]
    text = str(record[0].message)
    assert "'malignant' below 'benign'" in text and "pos_label" in text
    assert "shown once" in text
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = compare_calibrators(s, labels, n_boot=50, random_state=0, pos_label="benign")
    assert res.positive == "benign"
    est = res.recommended_estimator
    assert est.pos_label_ == "benign" and list(est.classes_) == ["benign", "malignant"]
    # the same comparison as on 0/1 labels with benign as 1
    ref = compare_calibrators(s, (labels == "benign").astype(int), n_boot=50, random_state=0)
    pd.testing.assert_frame_equal(
        res.table.drop(columns="fit_seconds"), ref.table.drop(columns="fit_seconds")
    )
    assert res.recommended == ref.recommended
    np.testing.assert_array_equal(
        est.predict_proba(s)[:, 0], ref.recommended_estimator.predict_proba(s)[:, 1]
    )


def test_pos_label_equal_to_the_larger_label_changes_nothing():
    s, y = _data(n=400, seed=5)
    a = compare_calibrators(s, y, n_boot=50, random_state=1)
    b = compare_calibrators(s, y, n_boot=50, random_state=1, pos_label=1)
    pd.testing.assert_frame_equal(
        a.table.drop(columns="fit_seconds"), b.table.drop(columns="fit_seconds")
    )


def test_a_warning_of_every_fit_is_issued_once_with_its_count():
    class Noisy(PlattCalibrator):
        def fit(self, scores, y, sample_weight=None, *, pos_label=None):
            warnings.warn(f"fitted on {len(y)} rows", UserWarning, stacklevel=2)
            return super().fit(scores, y, sample_weight, pos_label=pos_label)

    s, y = _data(n=300, seed=6)
    with pytest.warns(UserWarning) as record:
        compare_calibrators(s, y, calibrators={"noisy": Noisy()}, cv=5, n_boot=20, n_jobs=2)
    assert len(record) == 1
    assert "raised 6 times" in str(record[0].message)  # 5 folds and all rows


def test_two_columns_with_two_classes_are_refused_as_by_every_binary_calibrator():
    s, y = _data(n=300, seed=7)
    P = np.column_stack([1 - s, s])  # predict_proba of a binary classifier
    with pytest.raises(ValueError, match=r"two columns.*predict_proba\(X\)\[:, 1\]") as info:
        compare_calibrators(P, y)
    assert "\n" not in str(info.value)
    # one rule: every binary-only candidate refuses that shape too (temperature scaling, binary
    # and K-class, reads it as two classes)
    for name, est in default_calibrators().items():
        if name == "temperature":
            continue
        with pytest.raises(ValueError, match="one column"):
            clone(est).fit(P, y)
    # and one column reads as the 1-D scores
    a = compare_calibrators(s, y, n_boot=30, random_state=0)
    b = compare_calibrators(s[:, None], y, n_boot=30, random_state=0)
    assert a.recommended == b.recommended
    pd.testing.assert_frame_equal(
        a.table.drop(columns="fit_seconds"), b.table.drop(columns="fit_seconds")
    )


@pytest.mark.parametrize(
    "scores, labels, pos_label, match",
    [
        ("1d", "ab", "c", r"'pos_label' of compare_calibrators must be one of the labels \['a', 'b'\]"),
        ("3col", "abc", "a", "'pos_label' of compare_calibrators applies to binary scores"),
    ],
)  # fmt: skip
def test_bad_pos_label(scores, labels, pos_label, match):
    rng = np.random.default_rng(8)
    y = np.array(list(labels))[rng.integers(len(labels), size=90)]
    S = rng.uniform(size=90) if scores == "1d" else rng.dirichlet(np.ones(3), size=90)
    with pytest.raises(ValueError, match=match):
        compare_calibrators(S, y, pos_label=pos_label)
