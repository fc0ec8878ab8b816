"""Diagnostics that need the features, a model or simulation, not only the predictions.

- :func:`grouping_loss`: how much a probabilistic classifier leaves unused of what the
  features tell about the label (Tasche, Sections 2.3-2.4).
- :func:`unbiasedness_in_the_large`: Corollary 1 of Vovk & Petej (2014) checked by simulation
  for any interval predictor (simplified Venn-Abers can fail it, Proposition 2).
"""

from venncal.diagnostics._grouping_loss import GroupingLoss, grouping_loss
from venncal.diagnostics._unbiasedness import UnbiasednessInTheLarge, unbiasedness_in_the_large

__all__ = [
    "GroupingLoss",
    "UnbiasednessInTheLarge",
    "grouping_loss",
    "unbiasedness_in_the_large",
]
