"""When the data shift: label shift, covariate shift and monitoring calibration over time.

- :func:`estimate_target_prior`: the class balance of unlabelled target data, by the EM of
  Saerens, Latinne & Decaestecker (2002) or black-box shift estimation (Lipton, Wang & Smola
  2018), with a bootstrap interval (:class:`PriorEstimate`).
- :func:`adjust_for_prior`: calibrated probabilities (or Venn-Abers intervals) moved to a new
  class balance by Bayes' rule.
- :func:`covariate_shift_weights`: importance weights for calibration under covariate shift,
  from a domain classifier's probabilities.
- :class:`CalibrationMonitor`: a test martingale on a stream of probabilities and labels that
  raises an alarm, with false-alarm probability at most ``alpha`` over the whole stream, when
  they stop being calibrated.
- :class:`SegmentedCalibrationMonitor`: one such test per segment (region, age band, device...),
  naming the segments that lost calibration, with false-alarm probability at most ``alpha`` over
  all segments together.

Examples
--------
>>> from venncal.shift import adjust_for_prior
>>> float(adjust_for_prior([0.5], 0.5, 0.2)[0])
0.2
"""

from venncal.shift._covariate import covariate_shift_weights
from venncal.shift._label_shift import PriorEstimate, adjust_for_prior, estimate_target_prior
from venncal.shift._monitor import CalibrationMonitor
from venncal.shift._segmented_monitor import SegmentedCalibrationMonitor

__all__ = [
    "CalibrationMonitor",
    "PriorEstimate",
    "SegmentedCalibrationMonitor",
    "adjust_for_prior",
    "covariate_shift_weights",
    "estimate_target_prior",
]
