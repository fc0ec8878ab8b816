"""Choosing a calibrator with evidence: cross-validated comparison with bootstrap intervals.

This layer sits above the calibrators and the metrics (it may import scikit-learn and pandas)
and below plotting and the command line.
"""

from venncal.selection._compare import (
    METRICS,
    CalibratorComparison,
    compare_calibrators,
    default_calibrators,
    default_multiclass_calibrators,
)

__all__ = [
    "METRICS",
    "CalibratorComparison",
    "compare_calibrators",
    "default_calibrators",
    "default_multiclass_calibrators",
]
