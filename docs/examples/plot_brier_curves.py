"""
Brier curves: the loss at every cost
====================================

The Brier curve of a probability forecast is the loss of thresholding it at every cost c in
[0, 1]; its area is half the Brier score. In Tasche's bivariate normal model (Figure 2 of
"Calibrating sufficiently"), the true posterior is lowest. The partial posterior, which ignores
the second feature, is perfectly calibrated yet higher: that gap is the grouping loss.
Recalibrating the naive-Bayes score removes its calibration loss, not its grouping loss.
"""

import matplotlib.pyplot as plt
import numpy as np

from venncal.datasets import make_bivariate_normal
from venncal.plotting import BrierCurveDisplay

data = make_bivariate_normal(50_000, random_state=0)
model = data.meta["model"]
X, y = np.asarray(data.X, float), np.asarray(data.y)
curves = {
    "true posterior": model.posterior(X),
    "partial posterior": model.partial_posterior(X),
    "naive Bayes, recalibrated": model.naive_bayes_recalibrated(X),
}

fig, ax = plt.subplots(figsize=(6.5, 4.8))
BrierCurveDisplay.from_predictions(y, curves, ax=ax)
ax.set_title("Brier curves (area = Brier score / 2)")
fig.tight_layout()
