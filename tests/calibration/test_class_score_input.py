"""How the K-class calibrators read their input: the probability floor (a model's exact zeros),
score types detected without mistaking rounded probabilities for logits, rows that are not
probabilities, huge K and tiny weights refused in one line, and top-label Venn-Abers exact on
tied probabilities."""

import numpy as np
import pytest

from tests._reference.venn_abers_naive import venn_abers_naive
from tests.calibration._score_matrix import bad_score_matrices, forest_like
from venncal import (
    DirichletCalibrator,
    MatrixScalingCalibrator,
    MulticlassVennAbersCalibrator,
    TemperatureCalibrator,
)
from venncal.core.class_scores import MAX_MATRIX_CLASSES, probability_floor
from venncal.core.dirichlet import DirichletMap
from venncal.core.matrix_scaling import MatrixScalingMap
from venncal.core.temperature import TemperatureMap
from venncal.core.top_label import TopLabelTables
from venncal.core.venn_abers import IVAPTables
from venncal.persistence._codec import DecodeError, decode, encode

CALIBRATORS = [
    TemperatureCalibrator,
    DirichletCalibrator,
    MatrixScalingCalibrator,
    lambda **kw: MulticlassVennAbersCalibrator(strategy="top-label", **kw),
    MulticlassVennAbersCalibrator,
    lambda **kw: MulticlassVennAbersCalibrator(strategy="ovr", pooled=False, **kw),
]
IDS = ["temperature", "dirichlet", "matrix-scaling", "top-label", "pairwise", "ovr"]


def log_loss(y, P):
    return float(-np.log(np.clip(P[np.arange(y.shape[0]), y], 1e-15, 1.0)).mean())


def floor_naive(P, y, w=None):
    """The documented floor, pair by pair: (hits + 1/2) / (pairs + 1) over the zero pairs, the
    weights scaled to one per example on average; the smallest probability without zeros."""
    n, K = P.shape
    w = np.ones(n) if w is None else np.asarray(w, dtype=float)
    w = w * (np.count_nonzero(w) / w.sum())
    pairs = hits = 0.0
    for i in range(n):
        for k in range(K):
            if P[i, k] == 0.0:
                pairs += w[i]
                hits += w[i] * (y[i] == k)
    if pairs == 0.0:
        return float(P.min())
    return (hits + 0.5) / (pairs + 1.0)


@pytest.mark.parametrize("seed", range(3))
def test_probability_floor_matches_its_definition(seed):
    P, y, _, _ = forest_like(seed, n=60, m=1, K=3, trees=5)
    w = np.random.default_rng(seed).integers(0, 4, size=60).astype(float)
    w[:3] = 1.0
    assert probability_floor(P, y) == pytest.approx(floor_naive(P, y), rel=1e-12)
    assert probability_floor(P, y, w) == pytest.approx(floor_naive(P, y, w), rel=1e-12)
    smooth = np.full((4, 2), 0.5) + [[0.1, -0.1]] * 4
    assert probability_floor(smooth, np.array([0, 1, 0, 1])) == 0.4


@pytest.fixture(scope="module")
def forest():
    """A random forest's probabilities on a noisy 4-class problem (a tenth of them exact
    zeros), and the test log loss of scikit-learn's temperature scaling of the forest."""
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.datasets import make_classification
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.frozen import FrozenEstimator
    from sklearn.model_selection import train_test_split

    X, y = make_classification(3000, 20, n_informative=6, n_classes=4, flip_y=0.1, random_state=1)
    X_fit, X_rest, y_fit, y_rest = train_test_split(X, y, train_size=0.5, stratify=y,
                                                    random_state=1)  # fmt: skip
    X_cal, X_te, y_cal, y_te = train_test_split(X_rest, y_rest, train_size=0.5,
                                                stratify=y_rest, random_state=1)  # fmt: skip
    rf = RandomForestClassifier(20, random_state=1, n_jobs=1).fit(X_fit, y_fit)
    sk = CalibratedClassifierCV(FrozenEstimator(rf), method="temperature").fit(X_cal, y_cal)
    P, Pt = rf.predict_proba(X_cal), rf.predict_proba(X_te)
    return P, y_cal, Pt, y_te, log_loss(y_te, sk.predict_proba(X_te))


@pytest.mark.parametrize("make", CALIBRATORS[:4], ids=IDS[:4])
def test_forest_zeros_do_not_flatten_the_calibrated_probabilities(make, forest):
    # log(0) read as about -708 drove the fitted temperature to hundreds: every output near
    # uniform, worse than the forest itself (1.34 against 1.03 nats on the forest of the
    # issue); Dirichlet calibration (1.09) and top-label Venn-Abers (0.98, with zeros kept as
    # 1e-308) lost to scikit-learn's temperature scaling too
    P, y, Pt, yt, sk_loss = forest
    assert (P == 0).mean() > 0.1
    cal = make().fit(P, y)
    proba = cal.predict_proba(Pt)
    loss = log_loss(yt, proba)
    assert loss <= sk_loss + 0.02 and loss <= log_loss(yt, Pt), (loss, sk_loss)
    # a model's zeros are not kept: they get a share that the calibration data give them
    assert proba[Pt == 0].min() > 1e-4


@pytest.mark.parametrize("make", CALIBRATORS, ids=IDS)
def test_rounded_probabilities_are_probabilities(make):
    P, y, Pt, _ = forest_like(3, n=300, m=50, K=5, trees=50)
    rng = np.random.default_rng(0)
    P = 0.9 * P + 0.1 * rng.dirichlet(np.ones(5), size=P.shape[0])
    Pt = 0.9 * Pt + 0.1 * rng.dirichlet(np.ones(5), size=Pt.shape[0])
    R, Rt = P.round(4), Pt.round(4)
    assert (np.abs(R.sum(axis=1) - 1) > 1e-6).any()  # read as logits before
    auto = make().fit(R, y)
    given = make(score_type="probabilities").fit(R, y)
    assert auto.score_type_ == "probabilities"
    np.testing.assert_array_equal(auto.predict_proba(Rt), given.predict_proba(Rt))


@pytest.mark.parametrize("make", CALIBRATORS, ids=IDS)
@pytest.mark.parametrize("case", range(len(bad_score_matrices())))
def test_bad_score_matrices_are_refused_in_one_line(make, case):
    scores, y, params, match = bad_score_matrices()[case]
    with pytest.raises(ValueError, match=match) as info:
        make(**params).fit(scores, y)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("make", CALIBRATORS, ids=IDS)
def test_rows_that_are_not_probabilities_are_refused_at_prediction(make):
    P, y, Pt, _ = forest_like(4, n=60, m=5, K=3, trees=10)
    cal = make().fit(P, y)
    for bad, match in ((np.zeros((1, 3)), "sums to 0"), (np.full((1, 3), 0.5), "sums to 1.5")):
        with pytest.raises(ValueError, match=match) as info:
            cal.predict_proba(np.r_[Pt, bad])
        assert "\n" not in str(info.value)


@pytest.mark.parametrize(
    "make",
    [
        DirichletCalibrator,
        MatrixScalingCalibrator,
        lambda: MatrixScalingCalibrator(structure="full"),
        lambda: TemperatureCalibrator(bias=True),
    ],
    ids=["dirichlet", "sms", "full", "temperature-bias"],
)
def test_huge_k_is_refused_in_one_line(make):
    K = MAX_MATRIX_CLASSES + 1
    S = np.eye(K) * 3.0
    with pytest.raises(ValueError, match=f"{K} classes .* up to {MAX_MATRIX_CLASSES}") as info:
        make().fit(S, np.arange(K))
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("weight", [1e-320, 5e-324, 1e-310])
def test_tiny_weights_are_refused_in_one_line_or_fitted(weight):
    P, y, Pt, _ = forest_like(5, n=60, m=5, K=3, trees=10)
    w = np.full(60, weight)
    with pytest.raises(ValueError, match="total weight") as info:
        MatrixScalingCalibrator().fit(P, y, sample_weight=w)
    assert "\n" not in str(info.value)
    for make in CALIBRATORS:
        if make is MatrixScalingCalibrator:
            continue
        proba = make().fit(P, y, sample_weight=w).predict_proba(Pt)
        assert np.isfinite(proba).all()


def merged_by_log():
    """Two-decimal probabilities v in [0.26, 0.49] whose logarithm equals that of the next
    float above: log(max p) cannot tell them apart."""
    values = [v / 100 for v in range(26, 50)]
    return [v for v in values if np.log(v) == np.log(np.nextafter(v, 1.0))]


@pytest.mark.parametrize("seed", range(3))
def test_top_label_is_exact_on_tied_probabilities(seed):
    # probabilities rounded to two decimals and renormalised sit one ulp apart; log(max p)
    # merged them and moved the interval from the definition (by up to 0.036 in 3% of rows)
    vs = merged_by_log()
    assert vs  # 0.34
    vs = vs + [0.3, 0.41, 0.45]
    rng = np.random.default_rng(seed)
    n, K = 80, 4
    top = rng.choice(vs, size=n) + 0.0
    up = rng.random(n) < 0.5
    top[up] = np.nextafter(top[up], 1.0)
    P = np.empty((n, K))
    P[:, 0] = top
    P[:, 1:] = ((1.0 - top) / (K - 1))[:, None]
    # the top class is right more often one ulp up: the definition tells the two apart
    right = rng.random(n) < np.where(up, 0.8, 0.3)
    y = np.where(right, 0, rng.integers(1, K, size=n))
    y[:K] = np.arange(K)
    fit, test = slice(0, 60), slice(60, n)
    cal = MulticlassVennAbersCalibrator(strategy="top-label").fit(P[fit], y[fit])
    iv = cal.predict_interval(P[test])
    p0, p1 = venn_abers_naive(P[fit, 0], (y[fit] == 0).astype(int), P[test, 0])
    np.testing.assert_array_equal(iv[:, 0, 0], p0)
    np.testing.assert_array_equal(iv[:, 0, 1], p1)


@pytest.mark.parametrize("make", CALIBRATORS[:4], ids=IDS[:4])
@pytest.mark.parametrize("bad", [float("nan"), float("inf"), 5.0, -1e308])
def test_an_edited_floor_is_refused_when_read(make, bad):
    # the file's fields are decoded into the fitted map, whose own check refuses them
    P, y, _, _ = forest_like(6, n=60, m=1, K=3, trees=10)
    cal = make().fit(P, y)
    fitted = cal.tables_ if hasattr(cal, "tables_") else cal.map_
    types = (DirichletMap, MatrixScalingMap, TemperatureMap, TopLabelTables, IVAPTables)
    obj = encode(fitted, types=types)
    assert type(decode(obj, types=types)) is type(fitted)
    obj["dataclass"]["fields"]["log_floor"] = bad
    with pytest.raises(DecodeError, match="log_floor") as info:
        decode(obj, types=types)
    assert "\n" not in str(info.value)
