"""Each scikit-learn check a wrapper classifier is declared to fail does fail, for its reason.

tests/classifiers/sklearn_checks.py declares, per configuration, the checks that cannot pass
with their reason and what the failure looks like. Here each declared check is run on its
configuration and its failure is matched against that signature (the error's type and message,
the failing line of the check, the error it wrapped); a declared check that passes, or fails
otherwise, fails here. Where the cause can be taken away, the same check then passes: with a
batch-invariant estimator for the one-ulp score differences, with a frozen estimator (no
calibration split) for the weight checks.
"""

import functools
import re
import traceback
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression
from sklearn.utils import get_tags
from sklearn.utils.estimator_checks import (
    check_methods_subset_invariance,
    check_sample_weight_equivalence_on_dense_data,
    check_sample_weight_equivalence_on_sparse_data,
    estimator_checks_generator,
)

from tests.classifiers.sklearn_checks import (
    _ULP,
    CONFIGURATIONS,
    SLOW_CONFIGURATIONS,
    declared_failures,
    declared_signs,
)
from venncal import MulticlassVennAbersClassifier, VennClassifier


def _check_name(check):
    while isinstance(check, functools.partial):
        check = check.func
    return check.__name__


def failure_signature(exc):
    """``"Type: message | failing line of the check | wrapped error"``, on one line."""
    frames = traceback.extract_tb(exc.__traceback__)
    in_check = [f for f in frames if f.filename.endswith("estimator_checks.py")]
    line = (in_check or frames)[-1].line if frames else ""
    wrapped = exc.__cause__ or exc.__context__
    inner = f"{type(wrapped).__name__}: {wrapped}" if wrapped is not None else ""
    return " ".join(f"{type(exc).__name__}: {exc} | {line} | {inner}".split())


def run_checks(estimator, names):
    """Run the checks ``names`` of ``estimator``: ``{name: [signature or None if it passed]}``."""
    runs = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for est, check in estimator_checks_generator(estimator, mark=None):
            name = _check_name(check)
            if name not in names:
                continue
            try:
                check(est)
            except Exception as exc:  # noqa: BLE001 - the failure is what is under test
                runs.setdefault(name, []).append(failure_signature(exc))
            else:
                runs.setdefault(name, []).append(None)
    return runs


DECLARING = [
    pytest.param(e, marks=[pytest.mark.slow] if e in SLOW_CONFIGURATIONS else [], id=repr(e))
    for e in CONFIGURATIONS + SLOW_CONFIGURATIONS
    if declared_failures(e)
]


@pytest.mark.parametrize("estimator", DECLARING)
def test_each_declared_check_fails_for_its_reason(estimator):
    declared = declared_failures(estimator)
    signs = declared_signs(estimator)
    runs = run_checks(estimator, set(declared))
    for name, reason in declared.items():
        assert name in runs, f"{name} is declared but scikit-learn no longer runs it"
        for signature in runs[name]:
            assert signature is not None, f"{name} passes: remove its declaration ({reason})"
            assert re.search(signs[name], signature, re.S), (
                f"{name} fails for another reason than declared ({reason}): {signature}"
            )


def test_every_configuration_is_covered():
    seen = {(type(e).__name__, getattr(e, "method", None)) for e in CONFIGURATIONS}
    seen |= {(type(e).__name__, e.method) for e in SLOW_CONFIGURATIONS}
    for method in ("inductive", "cross", "simplified", "full", "oob"):
        assert ("VennAbersClassifier", method) in seen
    for method in ("inductive", "oob", "full"):
        assert ("VennClassifier", method) in seen
    for method in ("inductive", "cross", "oob"):
        assert ("MulticlassVennAbersClassifier", method) in seen
    taxonomies = {
        e.taxonomy if isinstance(e.taxonomy, str) else "callable"
        for e in CONFIGURATIONS
        if isinstance(e, VennClassifier)
    }
    assert taxonomies == {"label", "bins", "isotonic", "callable"}
    strategies = {
        (e.strategy, e.pooled)
        for e in CONFIGURATIONS
        if isinstance(e, MulticlassVennAbersClassifier)
    }
    assert {("auto", True), ("ovr", True), ("ovr", False)} <= strategies


# ------------------------------------------------------------------------- the causes


def rowwise_scores(model, X):
    """The LogisticRegression ``model``'s decision function, one row at a time."""
    X = X.tocsr() if hasattr(X, "tocsr") else np.asarray(X)
    score = LogisticRegression.decision_function
    return np.concatenate([score(model, X[i : i + 1]) for i in range(X.shape[0])])


class RowwiseLogisticRegression(LogisticRegression):
    """LogisticRegression whose decision_function scores one row at a time, so a row's score
    does not depend on the batch it comes in."""

    def decision_function(self, X):
        return rowwise_scores(self, X)


ULP_DECLARED = [
    e for e in CONFIGURATIONS if declared_failures(e).get("check_methods_subset_invariance") == _ULP
]


@pytest.mark.parametrize("estimator", ULP_DECLARED, ids=repr)
def test_subset_invariance_fails_by_the_estimators_ulp_only(estimator):
    estimator = clone(estimator)
    # the check's data: its fit and its predictions are on these points
    X = 3 * np.random.RandomState(0).uniform(size=(20, 3))
    y = X[:, 0].astype(int)
    y = np.where(y == y.min(), y, y.min() + 1)
    fitted = estimator.set_params(random_state=1).fit(X, y)
    models = getattr(fitted, "estimators_", None) or [fitted.estimator_]
    # the wrapped model's scores of a row differ between the batch and the row alone ...
    diffs = [np.abs(m.decision_function(X) - rowwise_scores(m, X)) for m in models]
    assert max(d.max() for d in diffs) > 0
    assert max(d.max() for d in diffs) < 1e-12  # ... by rounding only
    # ... and with row-by-row scores the same configuration passes the check
    rowwise = estimator.set_params(estimator=RowwiseLogisticRegression(), random_state=None)
    check_methods_subset_invariance(type(rowwise).__name__, rowwise)


def _frozen(estimator, sparse):
    """The configuration around a frozen model fitted on the check's data, or None."""
    rng = np.random.RandomState(42)  # the data of check_sample_weight_equivalence
    X, y = rng.rand(15, 30), rng.randint(0, 3, size=15)
    if not get_tags(estimator).classifier_tags.multi_class:
        y = np.where(y == y.min(), y, y.min() + 1)  # a binary-only estimator's labels
    if sparse:
        from scipy import sparse as sp

        X = sp.csr_array(X)
    # scores of a row that do not depend on its batch: the weighted and the repeated fits
    # score their calibration rows in different batches, and a one-ulp difference would move
    # a tie of "bins" (see test_subset_invariance_fails_by_the_estimators_ulp_only)
    base = estimator.estimator
    if isinstance(base, LogisticRegression):
        base = RowwiseLogisticRegression()
    model = FrozenEstimator(clone(base).fit(X, y))
    return clone(estimator).set_params(estimator=model)


SPLIT_DECLARED = [
    e
    for e in CONFIGURATIONS
    if getattr(e, "method", None) in ("inductive", "simplified")
    and "check_sample_weight_equivalence_on_sparse_data" in declared_failures(e)
]


@pytest.mark.parametrize("estimator", SPLIT_DECLARED, ids=repr)
def test_weight_checks_fail_by_the_calibration_split_or_refit_only(estimator):
    # a frozen model is not refitted: every row calibrates it, nothing is split, and the same
    # checks pass (weight k is k copies of the row)
    check_sample_weight_equivalence_on_dense_data(
        type(estimator).__name__, _frozen(estimator, sparse=False)
    )
    check_sample_weight_equivalence_on_sparse_data(
        type(estimator).__name__, _frozen(estimator, sparse=True)
    )
