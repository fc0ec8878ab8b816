"""Displays for calibration: reliability diagrams (binned and smooth), Venn intervals, Brier
curves, critical-difference diagrams, predictive CDF bands and PIT histograms, and
risk-coverage curves of abstention.

Each display follows scikit-learn's pattern: a ``from_...`` constructor computes the data with
the functions of :mod:`venncal.metrics` (stored on the display, so that the picture and the
numbers agree), and ``plot(ax=None)`` draws it and returns the display, with ``figure_`` and
``ax_`` set. matplotlib is imported only when something is drawn.

Examples
--------
>>> import matplotlib
>>> matplotlib.use("Agg")
>>> from venncal.plotting import ReliabilityDisplay
>>> disp = ReliabilityDisplay.from_predictions([0, 1, 1, 0], [0.1, 0.8, 0.7, 0.35])
>>> disp.curve.counts.tolist()
[0.0, 1.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0]
"""

from venncal.plotting._brier_curve import BrierCurveDisplay
from venncal.plotting._critical_difference import CriticalDifferenceDisplay, cliques
from venncal.plotting._regression import PITDisplay, PredictiveBandDisplay
from venncal.plotting._reliability import ReliabilityDisplay
from venncal.plotting._risk_coverage import RiskCoverageDisplay
from venncal.plotting._smooth_reliability import SmoothReliabilityDisplay
from venncal.plotting._venn import VennIntervalDisplay

__all__ = [
    "ReliabilityDisplay",
    "SmoothReliabilityDisplay",
    "VennIntervalDisplay",
    "BrierCurveDisplay",
    "CriticalDifferenceDisplay",
    "PredictiveBandDisplay",
    "PITDisplay",
    "RiskCoverageDisplay",
    "cliques",
]
