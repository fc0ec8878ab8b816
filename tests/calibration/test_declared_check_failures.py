"""Each scikit-learn check a score calibrator is declared to fail does fail, for its reason.

scikit-learn's checks run on every score calibrator of ``venncal.calibration.__all__``, with
default and other parameters. A check may fail only if tests/calibration/sklearn_checks.py
declares it, and then its failure must look like the declared reason (its signature: the error,
the failing line of the check, the error it wrapped). A declared check that starts to pass, or
fails for another reason, fails here.
"""

import re

import pytest
from sklearn.utils import get_tags

import venncal.calibration
from tests.calibration.sklearn_checks import (
    failure_signature,
    run_declared_checks,
    score_calibrator_signs,
    score_calibrator_xfails,
)
from venncal.calibration import (
    BayesianBinningCalibrator,
    BetaCalibrator,
    HistogramCalibrator,
    IsotonicCalibrator,
    QuadraticCalibrator,
    ScalingBinningCalibrator,
    VennAbersCalibrator,
)

# non-default configurations; every score calibrator also runs with its defaults
OTHERS = [
    VennAbersCalibrator(merge="log"),
    IsotonicCalibrator(rule="nearest"),
    HistogramCalibrator(n_bins=5, strategy="quantile"),
    BayesianBinningCalibrator(method="averaging", lam=5.0),
    BetaCalibrator(parameters="am", score_scale="logit"),
    QuadraticCalibrator(score_scale="logit", monotone="affine"),
    ScalingBinningCalibrator(n_bins=5),
]


def _score_calibrators():
    out = []
    for name in venncal.calibration.__all__:
        cls = getattr(venncal.calibration, name)
        if isinstance(cls, type) and get_tags(cls()).input_tags.one_d_array:
            out.append(cls())
    return out + OTHERS


@pytest.mark.parametrize("estimator", _score_calibrators(), ids=repr)
def test_only_declared_checks_fail_and_for_their_reason(estimator):
    declared = score_calibrator_xfails(estimator)
    signs = score_calibrator_signs(estimator)
    by_name = run_declared_checks(estimator, declared)
    for name in declared:
        runs = by_name.get(name, [])
        assert runs, f"{name} is declared but scikit-learn no longer runs it"
        for r in runs:
            signature = failure_signature(r["exception"])
            assert re.search(signs[name], signature, re.S), (
                f"{name} fails for another reason than declared ({declared[name]}): {signature}"
            )


def test_every_score_calibrator_is_covered():
    covered = {type(e).__name__ for e in _score_calibrators()}
    assert {"PlattCalibrator", "ACPCalibrator", "BetaCalibrator", "QuadraticCalibrator"} <= covered
