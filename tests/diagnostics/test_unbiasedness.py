"""Unbiasedness in the large: Proposition 2 of Vovk & Petej (2014), simplified vs full VA."""

from math import comb

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin

from venncal import VennAbersClassifier, VennClassifier
from venncal.diagnostics import unbiasedness_in_the_large

P_NEG, P_POS = 1 / 3, 2 / 3  # P(Y = 1 | X < 0), P(Y = 1 | X > 0); P(Y = 1) = 1/2


class SeenOrNot(ClassifierMixin, BaseEstimator):
    """The scoring function of the proof of Proposition 2: 0 or 1 for a training object by its
    sign, 2 for any other object."""

    def fit(self, X, y):
        self.seen_ = np.asarray(X)[:, 0]
        self.classes_ = np.unique(y)
        return self

    def decision_function(self, X):
        x = np.asarray(X)[:, 0]
        return np.where(np.isin(x, self.seen_), (x > 0).astype(float), 2.0)


def sampler(n, rng):
    x = rng.uniform(-1, 1, size=(n, 1))
    return x, (rng.random(n) < np.where(x[:, 0] > 0, P_POS, P_NEG)).astype(int)


def _pava_value_at_last(blocks):
    """Isotonic fit of (weight, total) blocks in score order; value of the last block."""
    stack = []
    for w, t in blocks:
        stack.append([w, t])
        while len(stack) > 1 and stack[-2][1] / stack[-2][0] >= stack[-1][1] / stack[-1][0]:
            w2, t2 = stack.pop()
            stack[-1][0] += w2
            stack[-1][1] += t2
    return stack[-1][1] / stack[-1][0]


def exact_simplified_lower(l):
    """E[p0] of simplified Venn-Abers in the setting of Proposition 2, by enumeration.

    n1 of the l training objects are positive (score 1), k1 of them labelled 1; the n0 = l - n1
    others (score 0) hold k0 ones; the test object scores 2 and, labelled 0, is the last block.
    Training sets with one class only are left out, as the simulation draws them again.
    """
    total = mass = 0.0
    for n1 in range(l + 1):
        n0 = l - n1
        p_n = comb(l, n1) / 2**l
        for k1 in range(n1 + 1):
            p_k1 = comb(n1, k1) * P_POS**k1 * (1 - P_POS) ** (n1 - k1)
            for k0 in range(n0 + 1):
                p = p_n * p_k1 * comb(n0, k0) * P_NEG**k0 * (1 - P_NEG) ** (n0 - k0)
                if k0 + k1 in (0, l):
                    continue
                blocks = [b for b in ((n0, k0), (n1, k1)) if b[0] > 0] + [(1, 0)]
                total += p * _pava_value_at_last(blocks)
                mass += p
    return total / mass


def test_simplified_violates_unbiasedness_in_the_large_full_does_not():
    l = 40
    simplified, full = (
        unbiasedness_in_the_large(
            VennAbersClassifier(SeenOrNot(), method=method),
            sampler,
            n_train=l,
            n_trials=300,
            positive_rate=0.5,
            random_state=1,
        )
        for method in ("simplified", "full")
    )
    # simplified: the upper end is always 1 and the lower end is about 2/3, as in the proof
    assert simplified.mean_upper == 1.0
    want = exact_simplified_lower(l)
    assert want > 0.6
    assert abs(simplified.mean_lower - want) < 4 * simplified.excess_lower_se
    assert simplified.excess_lower > 0.1 + 4 * simplified.excess_lower_se
    # full Venn-Abers is a Venn predictor: (2) holds up to Monte-Carlo error
    assert full.violation < 3 * max(full.excess_lower_se, full.excess_upper_se)
    assert full.mean_lower < 0.5 < full.mean_upper


def test_transductive_venn_predictor_with_the_same_scorer_is_unbiased():
    # the isotonic taxonomy of VennClassifier(method="full") is full Venn-Abers; the label
    # taxonomy (score > 0) is another Venn predictor built on the same scorer
    for taxonomy in ("isotonic", "label"):
        res = unbiasedness_in_the_large(
            VennClassifier(SeenOrNot(), taxonomy=taxonomy, method="full"),
            sampler,
            n_train=20,
            n_trials=200,
            positive_rate=0.5,
            random_state=2,
        )
        assert res.violation < 3 * max(res.excess_lower_se, res.excess_upper_se)


class _Constant(ClassifierMixin, BaseEstimator):
    def __init__(self, lo=0.2, hi=0.3):
        self.lo = lo
        self.hi = hi

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        return self

    def predict_interval(self, X):
        return np.tile([self.hi, self.lo], (len(X), 1))  # in either order


def test_arithmetic_on_a_constant_interval():
    res = unbiasedness_in_the_large(
        _Constant(), sampler, n_train=10, n_test=3, n_trials=50, positive_rate=0.5
    )
    assert (res.mean_lower, res.mean_upper) == pytest.approx((0.2, 0.3))
    assert res.excess_upper == pytest.approx(0.2) and res.excess_upper_se == pytest.approx(0.0)
    assert res.violation == pytest.approx(0.2) and res.n_trials == 50
    est = unbiasedness_in_the_large(_Constant(0.0, 1.0), sampler, n_train=10, n_trials=400)
    assert est.violation == 0.0
    assert abs(est.positive_rate - 0.5) < 0.1


@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [
        ({"predictor": object()}, TypeError, "predict_interval"),
        ({"sampler": 3}, TypeError, "sampler"),
        ({"n_train": 1}, ValueError, "n_train"),
        ({"n_trials": 1}, ValueError, "n_trials"),
        ({"n_test": 0}, ValueError, "n_test"),
        ({"positive_rate": 1.5}, ValueError, "positive_rate"),
        ({"sampler": lambda n, rng: (np.zeros((n, 1)), np.zeros(n))}, ValueError, "one class"),
        ({"sampler": lambda n, rng: (np.zeros((n, 1)), np.full(n, 2))}, ValueError, "labels 0"),
    ],
)
def test_bad_input(kwargs, exc, match):
    args = {"predictor": _Constant(), "sampler": sampler, "n_train": 10, "n_trials": 5}
    args.update(kwargs)
    predictor = args.pop("predictor")
    with pytest.raises(exc, match=match):
        unbiasedness_in_the_large(predictor, args.pop("sampler"), **args)
