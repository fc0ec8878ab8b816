"""Each scikit-learn check a K-class calibrator is declared to fail does fail, for its reason.

The calibrators that take one score column per class (multiclass Venn-Abers, matrix scaling,
Dirichlet and temperature scaling) declare the checks that fit them on a feature matrix whose
number of columns is not the number of classes, or whose features in [0, 1] are ambiguous scores
(tests/calibration/_score_matrix.py). Here every
check runs: nothing undeclared may fail, and each declared check must fail with the
calibrator's one-line error about the columns and the classes, not for another reason.
"""

import re

import pytest

from tests.calibration._score_matrix import N_ITER_XFAILS, XFAILS
from tests.calibration.sklearn_checks import run_declared_checks
from venncal import (
    DirichletCalibrator,
    MatrixScalingCalibrator,
    MulticlassVennAbersCalibrator,
    TemperatureCalibrator,
)

CASES = [
    (MulticlassVennAbersCalibrator(), XFAILS),
    (MulticlassVennAbersCalibrator(strategy="top-label"), XFAILS),
    (MatrixScalingCalibrator(), N_ITER_XFAILS),
    (DirichletCalibrator(), N_ITER_XFAILS),
    (TemperatureCalibrator(), N_ITER_XFAILS),
]
#: the calibrators' own error when the columns are not one per class (or too few to be scores),
#: or when features in [0, 1] are ambiguous scores (score_type="auto" asks for score_type)
COLUMNS_ERROR = re.compile(r"(column|class|score_type=)", re.I)


@pytest.mark.parametrize("estimator, declared", CASES, ids=lambda c: repr(c)[:60])
def test_only_declared_checks_fail_and_for_the_column_count(estimator, declared):
    by_name = run_declared_checks(estimator, declared)
    for name in declared:
        runs = by_name.get(name, [])
        if not runs:  # a check scikit-learn runs only for some estimators (n_iter_)
            assert name == "check_non_transformer_estimators_n_iter"
            continue
        for r in runs:
            error = r["exception"]
            chain = [e for e in (error, error.__cause__, error.__context__) if e is not None]
            text = " | ".join(f"{type(e).__name__}: {e}" for e in chain)
            if name == "check_classifiers_train" and _accuracy_assertion(error):
                continue  # as many features as classes: read as scores, low accuracy
            assert any(isinstance(e, ValueError) for e in chain), f"{name}: {text}"
            assert COLUMNS_ERROR.search(text), f"{name} fails for another reason: {text}"


def _accuracy_assertion(error):
    """Whether ``error`` is the accuracy assertion of scikit-learn's check_classifiers_train."""
    import traceback

    frames = traceback.extract_tb(error.__traceback__)
    return isinstance(error, AssertionError) and "accuracy_score" in (frames[-1].line or "")
