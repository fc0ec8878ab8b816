"""
Reading the Venn-Abers interval
===============================

Each test object gets an interval [p0, p1]. Binning the test objects by the middle of their
interval, the observed frequency of positives should fall inside the bin's mean interval. The
width shows where the calibration set is thin.
"""

import matplotlib.pyplot as plt
import numpy as np

import venncal
from venncal.plotting import VennIntervalDisplay

rng = np.random.default_rng(0)


def draw(n):
    s = rng.normal(size=n)
    y = (rng.random(n) < 1 / (1 + np.exp(-(1.5 * s + 0.5 * s**3)))).astype(int)
    return s, y


s_cal, y_cal = draw(400)
s_test, y_test = draw(20_000)
cal = venncal.VennAbersCalibrator().fit(s_cal, y_cal)
p0, p1 = cal.predict_interval(s_test).T

fig, axes = plt.subplots(1, 2, figsize=(11, 4.6))
VennIntervalDisplay.from_predictions(y_test, p0, p1, n_bins=10, ax=axes[0])
order = np.argsort(s_test)
axes[1].fill_between(s_test[order], p0[order], p1[order], alpha=0.4, label="[p0, p1]")
axes[1].plot(s_test[order], cal.predict_proba(s_test[order])[:, 1], lw=1, label="log merge")
axes[1].set_xlabel("score")
axes[1].set_ylabel("probability of the positive class")
axes[1].set_title("The interval is wide where calibration scores are few")
axes[1].legend()
fig.tight_layout()

print(f"mean width {np.mean(p1 - p0):.3f}; widest {np.max(p1 - p0):.3f}")
