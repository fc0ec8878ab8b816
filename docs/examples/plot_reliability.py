"""
Reliability diagrams before and after Venn-Abers
================================================

Gaussian naive Bayes is badly overconfident on the Adult census data: its probabilities crowd
at 0 and 1. A reliability diagram shows it, and inductive Venn-Abers, fitted on a held-out
calibration set, repairs it.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.model_selection import train_test_split
from sklearn.naive_bayes import GaussianNB

import venncal
from venncal.datasets import load_dataset
from venncal.plotting import ReliabilityDisplay

ds = load_dataset("adult")
X, y = np.asarray(ds.X, float), np.asarray(ds.y)
X_train, X_rest, y_train, y_rest = train_test_split(X, y, train_size=10_000, random_state=0)
X_cal, X_test, y_cal, y_test = train_test_split(X_rest, y_rest, train_size=5_000, random_state=0)

nb = GaussianNB().fit(X_train, y_train)
s_cal, s_test = nb.predict_proba(X_cal)[:, 1], nb.predict_proba(X_test)[:, 1]
cal = venncal.VennAbersCalibrator().fit(s_cal, y_cal)

fig, axes = plt.subplots(1, 2, figsize=(11, 4.8))
ReliabilityDisplay.from_predictions(y_test, s_test, name="naive Bayes", ax=axes[0])
ReliabilityDisplay.from_predictions(
    y_test, cal.predict_proba(s_test)[:, 1], name="after Venn-Abers", ax=axes[1]
)
fig.tight_layout()
