"""Risk-coverage curve, AURC and selective error against loops over their definitions."""

import numpy as np
import pytest
from scipy.stats import beta

from tests._reference.selective_loops import aurc_prefix_mean, risk_coverage_loops
from venncal.metrics import aurc, risk_coverage_curve, selective_error


def _binary(seed, n=200, ties=True):
    rng = np.random.default_rng(seed)
    p = rng.random(n)
    if ties:
        p = np.round(p, 1)
    y = (rng.random(n) < p).astype(int)
    return y, p


@pytest.mark.parametrize("seed", range(5))
def test_curve_matches_the_loops_with_ties_and_weights(seed):
    y, p = _binary(seed)
    w = np.random.default_rng(seed).uniform(0.1, 3.0, y.shape[0]) if seed % 2 else None
    curve = risk_coverage_curve(y, p, sample_weight=w)
    wrong = (p > 0.5).astype(int) != y
    t, cov, risk, area = risk_coverage_loops(wrong, np.maximum(p, 1 - p), w)
    np.testing.assert_allclose(curve.thresholds, t, rtol=0, atol=0)
    np.testing.assert_allclose(curve.coverage, cov, rtol=1e-12)
    np.testing.assert_allclose(curve.risk, risk, rtol=1e-12)
    assert curve.aurc == pytest.approx(area, rel=1e-12)


def test_without_ties_the_area_is_the_mean_prefix_error():
    y, p = _binary(7, ties=False)
    conf = np.maximum(p, 1 - p)
    wrong = ((p > 0.5).astype(int) != y)[np.argsort(-conf)]
    assert aurc(y, p) == pytest.approx(aurc_prefix_mean(wrong), rel=1e-12)


def test_k_classes_use_the_top_label_and_labels():
    rng = np.random.default_rng(3)
    P = rng.dirichlet(np.ones(4), 150)
    y = np.array([rng.choice(4, p=row) for row in P])
    y[:4] = np.arange(4)
    wrong = P.argmax(axis=1) != y
    _, cov, risk, area = risk_coverage_loops(wrong, P.max(axis=1))
    curve = risk_coverage_curve(y, P)
    np.testing.assert_allclose(curve.risk, risk, rtol=1e-12)
    named = np.array(["a", "b", "c", "d"])
    assert aurc(named[y], P, labels=named) == pytest.approx(area, rel=1e-12)


def test_another_confidence_ranks_the_rows():
    y, p = _binary(4)
    raw = np.random.default_rng(0).normal(size=y.shape[0])
    wrong = (p > 0.5).astype(int) != y
    assert aurc(y, p, confidence=raw) == pytest.approx(risk_coverage_loops(wrong, raw)[3])
    # the best ranking puts the wrong rows last
    assert aurc(y, p, confidence=~wrong) <= aurc(y, p) <= aurc(y, p, confidence=wrong)


def test_doubled_weights_are_duplicated_rows():
    y, p = _binary(5)
    k = np.random.default_rng(1).integers(1, 3, y.shape[0])
    assert aurc(y, p, sample_weight=k) == pytest.approx(aurc(np.repeat(y, k), np.repeat(p, k)))


def test_selective_error_and_its_exact_interval():
    y, p = _binary(6, n=400)
    accept = np.maximum(p, 1 - p) >= 0.8
    res = selective_error(y, p, accept=accept, level=0.9)
    wrong = ((p > 0.5).astype(int) != y)[accept]
    n, k = int(accept.sum()), int(wrong.sum())
    assert res.error == k / n and res.coverage == n / 400 and res.n_effective == n
    lo, hi = beta.ppf(0.05, k, n - k + 1), beta.ppf(0.95, k + 1, n - k)
    np.testing.assert_allclose(res.error_interval, (lo, hi), rtol=1e-9)
    lo, hi = beta.ppf(0.05, n, 400 - n + 1), beta.ppf(0.95, n + 1, 400 - n)
    np.testing.assert_allclose(res.coverage_interval, (lo, hi), rtol=1e-9)


def test_selective_error_interval_covers_about_level():
    """The 90% interval of the error among accepted rows holds the true error in about 90% of
    200 samples (at least 82%; binomial sd 2.1%)."""
    rng = np.random.default_rng(11)
    hits = 0
    for _ in range(200):
        p = rng.random(300)
        y = (rng.random(300) < p).astype(int)
        accept = np.maximum(p, 1 - p) >= 0.8  # true error among them: 0.1
        lo, hi = selective_error(y, p, accept=accept, level=0.9).error_interval
        hits += lo <= 0.1 <= hi
    assert 0.82 <= hits / 200 <= 0.97


def test_bad_input_is_one_line():
    y, p = _binary(0, n=10)
    for call in (
        lambda: selective_error(y, p, accept=np.ones(9, dtype=bool)),
        lambda: selective_error(y, p, accept=np.ones(10)),
        lambda: aurc(y, p, confidence=np.ones(9)),
        lambda: aurc(y, p + 1),
        lambda: selective_error(y, p, level=1.0),
    ):
        with pytest.raises((ValueError, TypeError)) as excinfo:
            call()
        assert "\n" not in str(excinfo.value)
    empty = selective_error(y, p, accept=np.zeros(10, dtype=bool))
    assert np.isnan(empty.error) and empty.error_interval == (0.0, 1.0) and empty.coverage == 0


def test_weights_count_by_their_effective_number():
    y, p = _binary(8, n=300)
    accept = np.maximum(p, 1 - p) >= 0.7
    plain = selective_error(y, p, accept=accept)
    equal = selective_error(y, p, accept=accept, sample_weight=np.full(300, 7.5))
    assert equal == plain
    w = np.random.default_rng(2).uniform(0.5, 2.0, 300)
    weighted = selective_error(y, p, accept=accept, sample_weight=w)
    n_eff = w[accept].sum() ** 2 / (w[accept] ** 2).sum()
    assert weighted.n_effective == pytest.approx(n_eff)
    wrong = ((p > 0.5).astype(int) != y)[accept]
    assert weighted.error == pytest.approx(np.average(wrong, weights=w[accept]))
