"""
Which calibrator? Compare them on your own scores
=================================================

:func:`venncal.compare_calibrators` fits every candidate by cross-validation over the
calibration data, scores the out-of-fold probabilities with bootstrap intervals, and recommends
the simplest calibrator that cannot be told from the best.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import train_test_split

import venncal
from venncal.datasets import load_dataset
from venncal.plotting import ReliabilityDisplay

ds = load_dataset("adult")
X, y = np.asarray(ds.X, float), np.asarray(ds.y)
X_train, X_cal, y_train, y_cal = train_test_split(
    X, y, train_size=4000, test_size=3000, random_state=0
)
forest = RandomForestClassifier(n_estimators=100, min_samples_leaf=3, random_state=0)
s_cal = forest.fit(X_train, y_train).predict_proba(X_cal)[:, 1]

result = venncal.compare_calibrators(s_cal, y_cal, n_boot=300, random_state=0)
print(result.wide().round(4))
print("recommended:", result.recommended)
print(result.rule)

# %%
# The out-of-fold probabilities behind the table, as reliability diagrams:

names = ["uncalibrated", "platt", "beta", "venn-abers"]
fig, axes = plt.subplots(1, len(names), figsize=(4.2 * len(names), 4.2))
for ax, name in zip(axes, names):
    ReliabilityDisplay.from_predictions(result.oof["y"], result.oof[name], name=name, ax=ax)
    ax.set_title(name)
fig.tight_layout()
