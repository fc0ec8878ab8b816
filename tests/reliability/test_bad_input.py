"""Bad input to every public calibrator and classifier: a one-line error naming the parameter.

Each case calls ``fit``, a prediction method or the constructor's options with one bad value
and expects ``ValueError`` or ``TypeError`` (scikit-learn's ``NotFittedError``, itself a
ValueError, for use before fit) whose message is a single line naming the offending parameter.
Metrics, displays and the command line have their own tables elsewhere.
"""

import numpy as np
import pytest
from sklearn.ensemble import RandomForestClassifier
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.utils import get_tags

from tests.reliability._strategies import CALIBRATORS, VARIANTS, make
from venncal import (
    MulticlassVennAbersClassifier,
    ProbingClassifier,
    VennAbersClassifier,
    VennClassifier,
    logistic_wald_interval,
)

N = 40
_rng = np.random.default_rng(0)
S = _rng.normal(size=N)
Y = (S + _rng.normal(size=N) > 0).astype(int)
W = np.ones(N)
X = np.column_stack([S, _rng.normal(size=N)])
Y3 = np.digitize(S, [-0.5, 0.5])


def with_value(a, i, v):
    a = np.array(a, dtype=object if isinstance(v, str) else np.asarray(a).dtype)
    a = a.astype(np.float64) if not isinstance(v, str) and a.dtype.kind in "iub" else a
    a[i] = v
    return a


def check_error(call, names, types=(ValueError, TypeError)):
    with pytest.raises(types) as info:
        call()
    if names is None:
        return
    msg = str(info.value)
    assert "\n" not in msg.strip(), f"not one line: {msg!r}"
    if names:
        assert any(n in msg for n in names), f"{msg!r} names none of {names}"


def check_predictions_refused(est, data, names, types=(ValueError, TypeError)):
    """Every prediction method of ``est`` refuses ``data``, as :func:`check_error` checks."""
    for method in ("predict_proba", "predict", "predict_interval"):
        if hasattr(est, method):
            check_error(lambda m=method: getattr(est, m)(data), names, types)


# --------------------------------------------------------------------------------------------
# calibrators: bad data to fit and predict

FIT_CASES = {
    "scores-nan": (lambda: (with_value(S, 3, np.nan), Y, None), ["scores"]),
    "scores-inf": (lambda: (with_value(S, 3, np.inf), Y, None), ["scores"]),
    "scores-neg-inf": (lambda: (with_value(S, 3, -np.inf), Y, None), ["scores"]),
    "scores-2col": (lambda: (np.column_stack([S, S]), Y, None), ["scores"]),
    "scores-3d": (lambda: (S.reshape(N, 1, 1), Y, None), ["scores"]),
    "scores-0d": (lambda: (np.float64(0.5), Y, None), ["scores"]),
    "scores-strings": (lambda: (np.array(["a"] * N), Y, None), ["scores"]),
    "scores-one-string": (lambda: (with_value(S, 0, "x"), Y, None), ["scores"]),
    "scores-none": (lambda: (None, Y, None), ["scores"]),
    "scores-complex": (lambda: (S + 1j, Y, None), ["scores"]),
    "empty": (lambda: (np.array([]), np.array([]), None), ["scores", "y"]),
    "y-three-classes": (lambda: (S, with_value(Y, 0, 2), None), ["y"]),
    "y-one-class": (lambda: (S, np.ones(N, int), None), ["y"]),
    "y-nan": (lambda: (S, with_value(Y, 0, np.nan), None), ["y"]),
    "y-inf": (lambda: (S, with_value(Y, 0, np.inf), None), ["y"]),
    "y-2col": (lambda: (S, np.column_stack([Y, Y]), None), ["y"]),
    "y-continuous": (lambda: (S, S, None), ["y"]),
    "length-mismatch": (lambda: (S, Y[:-1], None), ["scores", "y"]),
    "weight-negative": (lambda: (S, Y, with_value(W, 0, -1.0)), ["sample_weight"]),
    "weight-nan": (lambda: (S, Y, with_value(W, 0, np.nan)), ["sample_weight"]),
    "weight-inf": (lambda: (S, Y, with_value(W, 0, np.inf)), ["sample_weight"]),
    "weight-length": (lambda: (S, Y, W[:-1]), ["sample_weight"]),
    "weight-2d": (lambda: (S, Y, np.column_stack([W, W])), ["sample_weight"]),
    "weight-all-zero": (lambda: (S, Y, np.zeros(N)), ["sample_weight"]),
    "weight-zero-class": (lambda: (S, Y, (Y == 1).astype(float)), ["sample_weight"]),
    "weight-strings": (lambda: (S, Y, np.array(["a"] * N)), ["sample_weight"]),
}

PREDICT_CASES = {
    "nan": (with_value(S[:3], 1, np.nan), ["scores"]),
    "inf": (with_value(S[:3], 1, np.inf), ["scores"]),
    "2col": (np.column_stack([S[:3], S[:3]]), ["scores"]),
    "3d": (S[:3].reshape(3, 1, 1), ["scores"]),
    "strings": (np.array(["a", "b"]), ["scores"]),
    "none": (None, ["scores"]),
}

# bad options: (calibrator, params, names)
OPTION_CASES = [
    ("VennAbersCalibrator", {"merge": "foo"}, ["merge"]),
    ("VennAbersCalibrator", {"merge": None}, ["merge"]),
    ("IsotonicCalibrator", {"rule": "linear"}, ["rule"]),
    ("PlattCalibrator", {"max_iter": 0}, ["max_iter"]),
    ("PlattCalibrator", {"max_iter": 2.5}, ["max_iter"]),
    ("PlattCalibrator", {"max_iter": "100"}, ["max_iter"]),
    ("PlattCalibrator", {"smoothing": "no"}, ["smoothing"]),
    ("ACPCalibrator", {"confidence": 0.0}, ["confidence"]),
    ("ACPCalibrator", {"confidence": 1.5}, ["confidence"]),
    ("ACPCalibrator", {"confidence": float("nan")}, ["confidence"]),
    ("ACPCalibrator", {"alpha": -1.0}, ["alpha"]),
    ("ACPCalibrator", {"alpha": float("nan")}, ["alpha"]),
    ("HistogramCalibrator", {"n_bins": 0}, ["n_bins"]),
    ("HistogramCalibrator", {"n_bins": -3}, ["n_bins"]),
    ("HistogramCalibrator", {"n_bins": 2.5}, ["n_bins"]),
    ("HistogramCalibrator", {"n_bins": "10"}, ["n_bins"]),
    ("HistogramCalibrator", {"strategy": "kmeans"}, ["strategy"]),
    ("HistogramCalibrator", {"alpha": -1.0}, ["alpha"]),
    ("HistogramCalibrator", {"alpha": float("nan")}, ["alpha"]),
    ("BayesianBinningCalibrator", {"method": "both"}, ["method"]),
    ("BayesianBinningCalibrator", {"lam": 0.0}, ["lam"]),
    ("BayesianBinningCalibrator", {"lam": -1.0}, ["lam"]),
    ("BayesianBinningCalibrator", {"lam": float("nan")}, ["lam"]),
    ("BayesianBinningCalibrator", {"lam": float("inf")}, ["lam"]),
    ("BayesianBinningCalibrator", {"lam": "10"}, ["lam"]),
    ("BetaCalibrator", {"parameters": "abc"}, ["parameters"]),
    ("BetaCalibrator", {"score_scale": "odds"}, ["score_scale"]),
    ("BetaCalibrator", {"max_iter": 0}, ["max_iter"]),
    ("QuadraticCalibrator", {"score_scale": "odds"}, ["score_scale"]),
    ("QuadraticCalibrator", {"monotone": "none"}, ["monotone"]),
    ("QuadraticCalibrator", {"max_iter": 0}, ["max_iter"]),
    ("ScalingBinningCalibrator", {"n_bins": 0}, ["n_bins"]),
    ("ScalingBinningCalibrator", {"scaling_fraction": 1.0}, ["scaling_fraction"]),
    ("ScalingBinningCalibrator", {"smoothing": "no"}, ["smoothing"]),
    ("ScalingBinningCalibrator", {"max_iter": 0}, ["max_iter"]),
]


@pytest.mark.parametrize("case", sorted(FIT_CASES))
@pytest.mark.parametrize("name", sorted(CALIBRATORS))
def test_calibrator_fit_refuses_bad_data(name, case):
    make_data, names = FIT_CASES[case]
    s, y, w = make_data()
    cal = CALIBRATORS[name]()
    check_error(lambda: cal.fit(s, y, sample_weight=w), names)


@pytest.mark.parametrize("case", sorted(PREDICT_CASES))
@pytest.mark.parametrize("name", sorted(CALIBRATORS))
def test_calibrator_predict_refuses_bad_scores(name, case):
    t, names = PREDICT_CASES[case]
    # the first setting of the battery: beta calibration reads these real scores as log-odds
    cal = make(name, VARIANTS.get(name, [{}])[0]).fit(S, Y)
    check_predictions_refused(cal, t, names)


@pytest.mark.parametrize("name", sorted(CALIBRATORS))
def test_calibrator_used_before_fit(name):
    cal = CALIBRATORS[name]()
    check_predictions_refused(cal, S[:3], [], types=NotFittedError)


@pytest.mark.parametrize(
    "name, params, names",
    [
        pytest.param(
            *c[:3], id=f"{c[0]}-{next(iter(c[1]))}={next(iter(c[1].values()))!r}", marks=c[3:]
        )
        for c in OPTION_CASES
    ],
)
def test_calibrator_refuses_bad_options(name, params, names):
    cal = CALIBRATORS[name](**params)
    check_error(lambda: cal.fit(S, Y), names)


def test_every_calibrator_has_option_cases():
    assert {c[0] for c in OPTION_CASES} == set(CALIBRATORS)


# --------------------------------------------------------------------------------------------
# classifiers


def lr():
    return LogisticRegression()


BINARY = {
    "VennAbersClassifier": lambda **kw: VennAbersClassifier(lr(), random_state=0, **kw),
    "VennAbersClassifier-cross": lambda **kw: VennAbersClassifier(
        lr(), method="cross", n_splits=3, random_state=0, **kw
    ),
    "VennAbersClassifier-oob": lambda **kw: VennAbersClassifier(
        RandomForestClassifier(n_estimators=5, random_state=0), method="oob", random_state=0, **kw
    ),
    "VennClassifier": lambda **kw: VennClassifier(lr(), random_state=0, **kw),
    "ProbingClassifier": lambda **kw: ProbingClassifier(lr(), n_probes=4, **kw),
}
WEIGHTED = {
    "VennAbersClassifier",
    "VennAbersClassifier-cross",
    "VennAbersClassifier-oob",
    "ProbingClassifier",
}
# X is validated by the wrapped learner (it decides what it accepts: NaN, text, sparse), so its
# own error, which may span several lines, is passed through: only the type is checked.
LEARNER_CHECKS_X = {"X-nan", "X-inf", "X-1d", "X-strings", "nan", "1d", "strings"}

CLF_FIT_CASES = {
    "y-one-class": (lambda: (X, np.ones(N, int), None), ["y"]),
    "y-three-classes": (lambda: (X, Y3, None), ["y"]),
    "y-nan": (lambda: (X, with_value(Y, 0, np.nan), None), ["y"]),
    "y-continuous": (lambda: (X, S, None), ["y"]),
    "y-2col": (lambda: (X, np.column_stack([Y, Y]), None), ["y"]),
    "length-mismatch": (lambda: (X, Y[:-1], None), ["X", "y"]),
    "X-nan": (lambda: (with_value(X, (0, 0), np.nan), Y, None), ["X"]),
    "X-inf": (lambda: (with_value(X, (0, 0), np.inf), Y, None), ["X"]),
    "X-1d": (lambda: (S, Y, None), ["X"]),
    "X-strings": (lambda: (np.full((N, 2), "a"), Y, None), ["X"]),
    "X-empty": (lambda: (np.empty((0, 2)), np.array([], int), None), ["X", "y"]),
    "weight-negative": (lambda: (X, Y, with_value(W, 0, -1.0)), ["sample_weight"]),
    "weight-nan": (lambda: (X, Y, with_value(W, 0, np.nan)), ["sample_weight"]),
    "weight-length": (lambda: (X, Y, W[:-1]), ["sample_weight"]),
    "weight-all-zero": (lambda: (X, Y, np.zeros(N)), ["sample_weight"]),
}

CLF_PREDICT_CASES = {
    "nan": (with_value(X[:3], (1, 0), np.nan), ["X"]),
    "1d": (X[0], ["X"]),
    "features": (np.column_stack([X[:3], X[:3]]), ["X", "feature"]),
    "strings": (np.full((3, 2), "a"), ["X"]),
}


def _fit_case_params():
    out = []
    for clf in sorted(BINARY):
        for case in sorted(CLF_FIT_CASES):
            if case.startswith("weight") and clf not in WEIGHTED:
                continue
            if case == "y-three-classes" and clf == "VennClassifier":  # multiclass is supported
                continue
            out.append(pytest.param(clf, case, id=f"{clf}-{case}"))
    return out


@pytest.mark.parametrize("clf, case", _fit_case_params())
def test_classifier_fit_refuses_bad_data(clf, case):
    make_data, names = CLF_FIT_CASES[case]
    names = None if case in LEARNER_CHECKS_X else names
    Xb, yb, wb = make_data()
    est = BINARY[clf]()
    if case in ("X-nan", "X-inf") and get_tags(est.estimator).input_tags.allow_nan:
        pytest.skip("the learner accepts missing values")
    if wb is None:
        check_error(lambda: est.fit(Xb, yb), names)
    else:
        check_error(lambda: est.fit(Xb, yb, sample_weight=wb), names)


@pytest.mark.parametrize("case", sorted(CLF_PREDICT_CASES))
@pytest.mark.parametrize("clf", sorted(BINARY))
def test_classifier_predict_refuses_bad_data(clf, case):
    Xt, names = CLF_PREDICT_CASES[case]
    names = None if case in LEARNER_CHECKS_X else names
    est = BINARY[clf]().fit(X, Y)
    if case == "nan" and get_tags(est.estimator).input_tags.allow_nan:
        pytest.skip("the learner accepts missing values")
    check_predictions_refused(est, Xt, names)


@pytest.mark.parametrize("clf", sorted(BINARY))
def test_classifier_used_before_fit(clf):
    est = BINARY[clf]()
    check_predictions_refused(est, X[:3], [], types=NotFittedError)


CLF_OPTION_CASES = [
    (lambda: VennAbersClassifier(lr(), method="bagging"), ["method"]),
    (lambda: VennAbersClassifier(lr(), cal_size=0.0), ["cal_size"]),
    (lambda: VennAbersClassifier(lr(), cal_size=1.0), ["cal_size"]),
    (lambda: VennAbersClassifier(lr(), cal_size=float("nan")), ["cal_size"]),
    (lambda: VennAbersClassifier(lr(), method="cross", n_splits=1), ["n_splits"]),
    (lambda: VennAbersClassifier(lr(), method="cross", n_splits=2.5), ["n_splits"]),
    (lambda: VennAbersClassifier(lr(), merge="max"), ["merge"]),
    (lambda: VennAbersClassifier(lr(), response_method="predict"), ["response_method"]),
    (lambda: VennAbersClassifier(lr(), method="oob"), ["estimator", "oob"]),
    (lambda: VennAbersClassifier(LinearRegression()), ["estimator"]),
    (lambda: VennAbersClassifier(None), ["estimator"]),
    (lambda: VennClassifier(lr(), taxonomy="quantiles"), ["taxonomy"]),
    (lambda: VennClassifier(lr(), method="cross"), ["method"]),
    (lambda: VennClassifier(lr(), cal_size=2.0), ["cal_size"]),
    (lambda: VennClassifier(lr(), taxonomy="bins", n_bins=0), ["n_bins"]),
    (lambda: VennClassifier(lr(), merge="max"), ["merge"]),
    (lambda: VennClassifier(LinearRegression()), ["estimator"]),
    (lambda: ProbingClassifier(lr(), n_probes=0), ["n_probes"]),
    (lambda: ProbingClassifier(lr(), n_probes=2.5), ["n_probes"]),
    (lambda: ProbingClassifier(LinearRegression()), ["estimator"]),
    (lambda: MulticlassVennAbersClassifier(lr(), strategy="ovo"), ["strategy"]),
    (lambda: MulticlassVennAbersClassifier(lr(), method="full"), ["method"]),
    (lambda: MulticlassVennAbersClassifier(lr(), cal_size=0.0), ["cal_size"]),
    (lambda: MulticlassVennAbersClassifier(lr(), method="cross", n_splits=1), ["n_splits"]),
    (lambda: MulticlassVennAbersClassifier(lr(), merge="max"), ["merge"]),
    (lambda: MulticlassVennAbersClassifier(lr(), response_method="x"), ["response_method"]),
    (lambda: MulticlassVennAbersClassifier(LinearRegression()), ["estimator"]),
]


@pytest.mark.parametrize(
    "make, names",
    [pytest.param(*c, id=f"{i:02d}-{c[1][0]}") for i, c in enumerate(CLF_OPTION_CASES)],
)
def test_classifier_refuses_bad_options(make, names):
    est = make()
    y = Y3 if isinstance(est, MulticlassVennAbersClassifier) else Y
    check_error(lambda: est.fit(X, y), names)


@pytest.mark.parametrize(
    "case", ["y-one-class", "y-nan", "length-mismatch", "X-nan", "X-1d", "X-empty"]
)
def test_multiclass_fit_refuses_bad_data(case):
    make_data, names = CLF_FIT_CASES[case]
    names = None if case in LEARNER_CHECKS_X else names
    Xb, yb, _ = make_data()
    est = MulticlassVennAbersClassifier(lr(), random_state=0)
    check_error(lambda: est.fit(Xb, yb), names)


def test_multiclass_used_before_fit():
    est = MulticlassVennAbersClassifier(lr())
    for method in ("predict_proba", "predict", "predict_interval"):
        check_error(lambda m=method: getattr(est, m)(X[:3]), [], types=NotFittedError)


# --------------------------------------------------------------------------------------------
# the other public entry points of the calibrators and classifiers


def _acp():
    return CALIBRATORS["ACPCalibrator"]().fit(S, Y)


OTHER_CASES = {
    "acp-interval-shape": (
        lambda: _acp().predict_proba(S[:3], interval=np.ones((3, 3))),
        ["interval"],
    ),
    "acp-interval-rows": (
        lambda: _acp().predict_proba(S[:3], interval=np.ones((2, 2))),
        ["interval"],
    ),
    "acp-interval-nan": (
        lambda: _acp().predict_proba(S[:2], interval=[[0.0, np.nan], [0.0, 1.0]]),
        ["interval"],
    ),
    "acp-interval-strings": (
        lambda: _acp().predict_proba(S[:2], interval=[["a", "b"], ["c", "d"]]),
        ["interval"],
    ),
    "acp-score-interval-nan": (lambda: _acp().score_interval([np.nan]), ["scores"]),
    "wald-unfitted": (
        lambda: logistic_wald_interval(LogisticRegression(), X, X[:2]),
        None,
    ),
    "wald-confidence": (
        lambda: logistic_wald_interval(LogisticRegression().fit(X, Y), X, X[:2], confidence=1.5),
        ["confidence"],
    ),
    "wald-X-features": (
        lambda: logistic_wald_interval(LogisticRegression().fit(X, Y), X, X[:2, :1]),
        ["X"],
    ),
    "wald-X-train-nan": (
        lambda: logistic_wald_interval(
            LogisticRegression().fit(X, Y), with_value(X, (0, 0), np.nan), X[:2]
        ),
        ["X_train"],
    ),
    "venn-predict-venn-unfitted": (
        lambda: VennClassifier(lr()).predict_venn(X[:2]),
        None,
    ),
    "venn-predict-venn-features": (
        lambda: VennClassifier(lr(), random_state=0).fit(X, Y).predict_venn(X[:2, :1]),
        ["X", "feature"],
    ),
    "venn-interval-multiclass": (
        lambda: VennClassifier(lr(), random_state=0).fit(X, Y3).predict_interval(X[:2]),
        ["predict_interval", "classes"],
    ),
}


@pytest.mark.parametrize("case", sorted(OTHER_CASES))
def test_other_entry_points_refuse_bad_input(case):
    call, names = OTHER_CASES[case]
    check_error(call, names)


@pytest.mark.parametrize(
    "w, said",
    [
        (with_value(W, 3, np.inf), "weights must be finite"),
        (np.column_stack([W]), "must be a 1-D array of weights"),
        (np.column_stack([W, W]), "must be a 1-D array of weights"),
    ],
)
def test_weight_messages_speak_of_weights(w, said):
    from venncal import IsotonicCalibrator

    with pytest.raises(ValueError, match=said) as info:
        IsotonicCalibrator().fit(S, Y, sample_weight=w)
    assert "scores" not in str(info.value)
