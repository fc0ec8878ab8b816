"""Diagnostics that need the features, not only the predictions (uses scikit-learn).

- :func:`grouping_loss`: how much a probabilistic classifier leaves unused of what the
  features tell about the label (Tasche, Sections 2.3-2.4).
"""

from venncal.diagnostics._grouping_loss import GroupingLoss, grouping_loss

__all__ = ["GroupingLoss", "grouping_loss"]
