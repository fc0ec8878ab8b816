"""Diagnostics that need the features, a model or simulation, not only the predictions.

- :func:`grouping_loss`: how much a probabilistic classifier leaves unused of what the
  features tell about the label (Tasche, Sections 2.3-2.4).
- :func:`sufficiency_check`: Tasche's criteria of sufficiency (Theorem 3.4, Propositions 3.6
  and 3.7) on a sample with a known posterior.
- :func:`cost_weighted_loss`, :func:`cost_weighted_bayes_loss`: Tasche's eqs. (6a)-(6b), the
  Brier curves of a classifier and of the information it uses.
- :func:`gaussian_bayes_loss`, :func:`bivariate_normal_bayes_loss_curves`: those curves in
  closed form for Gaussian classes (Tasche, Figure 1 and Example 3.12).
- :func:`prior_shift_brier_curve`, :func:`prior_shift_posterior`: a calibrated Brier curve and
  posterior under another prior (Tasche, Proposition 5.2, item 6).
- :func:`unbiasedness_in_the_large`: Corollary 1 of Vovk & Petej (2014) checked by simulation
  for any interval predictor (simplified Venn-Abers can fail it, Proposition 2).
"""

from venncal.diagnostics._bayes_loss import (
    BayesLossCurves,
    bivariate_normal_bayes_loss_curves,
    cost_weighted_bayes_loss,
    cost_weighted_loss,
    gaussian_bayes_loss,
    gaussian_refinement_loss,
    prior_shift_brier_curve,
    prior_shift_posterior,
)
from venncal.diagnostics._grouping_loss import GroupingLoss, grouping_loss
from venncal.diagnostics._sufficiency import SufficiencyCheck, sufficiency_check
from venncal.diagnostics._unbiasedness import UnbiasednessInTheLarge, unbiasedness_in_the_large

__all__ = [
    "BayesLossCurves",
    "GroupingLoss",
    "SufficiencyCheck",
    "UnbiasednessInTheLarge",
    "bivariate_normal_bayes_loss_curves",
    "cost_weighted_bayes_loss",
    "cost_weighted_loss",
    "gaussian_bayes_loss",
    "gaussian_refinement_loss",
    "grouping_loss",
    "prior_shift_brier_curve",
    "prior_shift_posterior",
    "sufficiency_check",
    "unbiasedness_in_the_large",
]
