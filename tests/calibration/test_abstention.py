"""AbstentionRule: the estimator around Learn-then-Test abstention."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError

from tests._reference.ltt_naive import ltt_naive
from venncal import VennAbersCalibrator
from venncal.calibration.abstention import AbstentionRule
from venncal.core.abstention import threshold_grid
from venncal.exceptions import VenncalWarning


def _binary(seed, n=2000):
    rng = np.random.default_rng(seed)
    p = rng.random(n) ** 0.3  # mostly confident about class 1
    p = np.where(rng.random(n) < 0.5, p, 1 - p)
    y = (rng.random(n) < p).astype(int)
    return p, y


def _kclass(seed, n=2000, K=4):
    rng = np.random.default_rng(seed)
    P = rng.dirichlet(np.full(K, 0.2), n)
    y = np.minimum((rng.random(n)[:, None] > np.cumsum(P, axis=1)).sum(axis=1), K - 1)
    return P, y


def test_binary_threshold_is_the_naive_procedure_on_the_top_label():
    p, y = _binary(0)
    rule = AbstentionRule(n_thresholds=200).fit(p, y)
    conf = np.maximum(p, 1 - p)
    wrong = (p > 0.5).astype(int) != y
    want = ltt_naive(conf, wrong, threshold_grid(200), target=0.05, delta=0.1, min_accepted=180)
    assert (rule.threshold_, rule.n_accepted_) == want[:2]
    assert rule.coverage_ == pytest.approx(want[1] / p.shape[0])
    assert rule.error_bound_ <= 0.05
    np.testing.assert_array_equal(rule.accept(p), conf >= rule.threshold_)


def test_one_column_two_columns_and_relabelled_classes_agree():
    p, y = _binary(1)
    one = AbstentionRule().fit(p, y)
    two = AbstentionRule().fit(np.column_stack([1 - p, p]), y)
    named = AbstentionRule().fit(p, np.where(y == 1, "yes", "no"))
    assert one.threshold_ == two.threshold_ == named.threshold_
    assert one.n_features_in_ == 1 and two.n_features_in_ == 2
    np.testing.assert_array_equal(named.predict(p), np.where(one.predict(p) == 1, "yes", "no"))
    np.testing.assert_array_equal(one.accept(p), two.accept(np.column_stack([1 - p, p])))


def test_k_classes_use_the_top_label():
    P, y = _kclass(2)
    rule = AbstentionRule(target_error=0.1).fit(P, y)
    top = P.argmax(axis=1)
    want = ltt_naive(
        P.max(axis=1), top != y, threshold_grid(), target=0.1, delta=0.1, min_accepted=88
    )
    assert (rule.threshold_, rule.n_accepted_) == want[:2]
    np.testing.assert_array_equal(rule.predict(P), top)
    with pytest.raises(ValueError, match="4 classes"):
        rule.accept(P[:, :3])
    with pytest.raises(ValueError, match="as at fit"):
        rule.accept(P[:, 0])


def test_doubled_weights_are_duplicated_rows():
    p, y = _binary(3, 800)
    w = np.random.default_rng(0).integers(1, 3, 800)
    weighted = AbstentionRule(target_error=0.1).fit(p, y, sample_weight=w)
    repeated = AbstentionRule(target_error=0.1).fit(np.repeat(p, w), np.repeat(y, w))
    assert weighted.threshold_ == repeated.threshold_
    assert weighted.coverage_ == pytest.approx(repeated.coverage_)


def test_groups_get_their_own_thresholds():
    p, y = _binary(4, 3000)
    g = np.where(np.arange(3000) % 3 == 0, "a", "b")
    rule = AbstentionRule(target_error=0.1).fit(p, y, groups=g)
    for k, label in enumerate(["a", "b"]):
        alone = AbstentionRule(target_error=0.1).fit(p[g == label], y[g == label])
        assert rule.group_thresholds_[k] == alone.threshold_
        assert rule.group_error_bounds_[k] == alone.error_bound_
    want = np.where(g == "a", rule.group_thresholds_[0], rule.group_thresholds_[1])
    np.testing.assert_array_equal(rule.accept(p, groups=g), np.maximum(p, 1 - p) >= want)
    assert rule.coverage_ == pytest.approx(rule.accept(p, groups=g).mean())
    with pytest.raises(ValueError, match="not seen at fit"):
        rule.accept(p[:3], groups=["c"] * 3)
    with pytest.raises(ValueError, match="pass groups="):
        rule.accept(p)
    pooled = clone(rule).set_params(group_fallback="pooled").fit(p, y, groups=g)
    with pytest.warns(VenncalWarning, match="pooled"):
        got = pooled.accept(p[:5], groups=["c"] * 5)
    np.testing.assert_array_equal(got, np.maximum(p[:5], 1 - p[:5]) >= pooled.threshold_)


def test_unmet_target_names_a_target_that_can_be_met():
    p, y = _binary(5, 1000)
    with pytest.raises(ValueError, match="smallest target") as excinfo:
        AbstentionRule(target_error=0.001).fit(p, y)
    message = str(excinfo.value)
    assert "\n" not in message
    smallest = float(message.split("can meet is ")[1].split(" ")[0])
    assert 0.001 < smallest < 0.2
    AbstentionRule(target_error=smallest).fit(p, y)  # met
    with pytest.raises(ValueError, match="smallest target"):
        AbstentionRule(target_error=smallest * 0.97).fit(p, y)


def test_lower_end_of_degenerate_intervals_is_the_probability():
    p, y = _binary(6)
    prob = AbstentionRule(target_error=0.1).fit(p, y)
    lower = AbstentionRule(target_error=0.1, confidence="lower").fit(np.column_stack([p, p]), y)
    assert lower.threshold_ == prob.threshold_
    P, yk = _kclass(6)
    prob_k = AbstentionRule(target_error=0.1).fit(P, yk)
    lower_k = AbstentionRule(target_error=0.1, confidence="lower").fit(np.stack([P, P], 2), yk)
    assert lower_k.threshold_ == prob_k.threshold_


def test_lower_end_of_venn_abers_intervals():
    rng = np.random.default_rng(7)
    s = rng.normal(size=6000)
    y = (rng.random(6000) < 1 / (1 + np.exp(-3 * s))).astype(int)
    va = VennAbersCalibrator().fit(s[:2000], y[:2000])
    iv = va.predict_interval(s[2000:])
    rule = AbstentionRule(confidence="lower").fit(iv[:2000], y[2000:4000])
    conf = rule.predict_confidence(iv[2000:])
    np.testing.assert_array_equal(conf, np.maximum(iv[2000:, 0], 1 - iv[2000:, 1]))
    assert rule.accept(iv[2000:]).mean() > 0.3
    with pytest.raises(ValueError, match=r"p0' exceeds 'p1'"):
        rule.accept(iv[:, ::-1][:5] + [[0.01, 0.0]])
    with pytest.raises(ValueError, match=r"shape \(n, 2\)"):
        rule.accept(iv[:, :1, None])


@pytest.mark.parametrize(
    ("params", "match"),
    [
        ({"target_error": 0.0}, "target_error"),
        ({"target_error": 1.5}, "target_error"),
        ({"delta": 1.0}, "delta"),
        ({"confidence": "upper"}, "confidence"),
        ({"n_thresholds": 1}, "n_thresholds"),
        ({"min_accepted": 0}, "min_accepted"),
        ({"group_fallback": "skip"}, "group_fallback"),
    ],
)
def test_bad_parameters_are_named(params, match):
    p, y = _binary(8, 300)
    with pytest.raises((ValueError, TypeError), match=match):
        AbstentionRule(**params).fit(p, y)


def test_bad_input_gets_one_line():
    p, y = _binary(9, 300)
    for scores, labels in [
        (p[:-1], y),
        (np.r_[p[:-1], np.nan], y),
        (p + 0.5, y),
        (np.column_stack([p, p]), y),  # rows not summing to one
    ]:
        with pytest.raises(ValueError) as excinfo:
            AbstentionRule().fit(scores, labels)
        assert "\n" not in str(excinfo.value)


def test_estimator_api():
    rule = AbstentionRule(target_error=0.1)
    assert clone(rule).get_params() == rule.get_params()
    with pytest.raises(TypeError):
        AbstentionRule(0.1)
    with pytest.raises(NotFittedError):
        rule.accept([0.5])
    p, y = _binary(10, 1000)
    rule.set_params(target_error=0.2)
    first = rule.fit(p, y, groups=np.arange(1000) % 2).group_thresholds_
    assert first is not None and rule.fit(p, y).groups_ is None  # refitting forgets


def test_k_class_rule_is_valid_in_about_one_minus_delta_of_draws():
    """30 draws of 1000 rows of five classes (Dirichlet(0.2) probabilities, calibrated by
    construction), target 0.1: the true error among accepted rows (from 200,000 reference
    rows) passes the target in about 3 draws if the rule is valid; 9 or more happens with
    probability 0.006 then."""
    rng = np.random.default_rng(5)
    ref = rng.dirichlet(np.full(5, 0.2), 200_000).max(axis=1)  # the top label's probability
    exceed = answered = 0
    for _ in range(30):
        P, y = _kclass(int(rng.integers(2**31)), n=1000, K=5)
        try:
            rule = AbstentionRule(target_error=0.1).fit(P, y)
        except ValueError:  # answers nothing, errs never
            continue
        answered += 1
        accepted = ref >= rule.threshold_
        exceed += (1 - ref[accepted]).mean() > 0.1
    assert answered >= 20 and exceed < 9


@pytest.mark.parametrize("seed", range(4))
def test_row_order_and_class_order_do_not_matter(seed):
    P, y = _kclass(seed, n=1500)
    rule = AbstentionRule(target_error=0.1).fit(P, y)
    order = np.random.default_rng(seed).permutation(1500)
    again = AbstentionRule(target_error=0.1).fit(P[order], y[order])
    assert again.threshold_ == rule.threshold_ and again.coverage_ == rule.coverage_
    cols = np.random.default_rng(seed + 1).permutation(4)  # class k becomes class where
    where = np.argsort(cols)
    relabelled = AbstentionRule(target_error=0.1).fit(P[:, cols], where[y])
    assert relabelled.threshold_ == rule.threshold_
    np.testing.assert_array_equal(relabelled.accept(P[:, cols]), rule.accept(P))


@pytest.mark.parametrize("seed", range(3))
def test_a_looser_target_or_delta_never_answers_less(seed):
    """With the start fixed, the p-values fall as the target grows and the level delta
    rises: the sequence passes at least as many thresholds."""
    p, y = _binary(seed, n=3000)
    thresholds = []
    for target in (0.03, 0.05, 0.08, 0.12):
        try:
            fitted = AbstentionRule(target_error=target, min_accepted=250).fit(p, y)
        except ValueError:
            thresholds.append(np.inf)
            continue
        thresholds.append(fitted.threshold_)
    assert thresholds == sorted(thresholds, reverse=True)
    by_delta = [
        AbstentionRule(target_error=0.1, delta=d, min_accepted=250).fit(p, y).threshold_
        for d in (0.01, 0.05, 0.2)
    ]
    assert by_delta == sorted(by_delta, reverse=True)


@pytest.mark.parametrize("weight", [1e308, 1e200])
def test_weights_whose_total_overflows_are_one_line(weight):
    """Weights count as examples: a total past the largest float is refused (it gave a
    threshold with a NaN coverage and overflow warnings)."""
    rng = np.random.default_rng(0)
    p = rng.random(3000)
    y = (rng.random(3000) < p).astype(int)
    w = np.full(3000, weight)
    with np.errstate(over="ignore"):
        finite = np.isfinite(w.sum())
    if finite:  # 3000 x 1e200 is a float: the usual fit, no warning
        rule = AbstentionRule(target_error=0.1).fit(p, y, sample_weight=w)
        assert np.isfinite(rule.coverage_)
        return
    with pytest.raises(ValueError, match="largest float"):
        AbstentionRule(target_error=0.1).fit(p, y, sample_weight=w)
