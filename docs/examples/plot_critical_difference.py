"""
Ranking calibrators over data sets: a critical-difference diagram
=================================================================

Average ranks over data sets, the Friedman test and Nemenyi's critical difference (Demšar
2006), here for Gaussian naive Bayes raw and after three calibrators on ten bundled data sets,
scored by the Brier score on a held-out test set.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.model_selection import train_test_split
from sklearn.naive_bayes import GaussianNB

import venncal
from venncal.datasets import load_dataset
from venncal.metrics import brier_score
from venncal.metrics.ranking import average_ranks, friedman_test, nemenyi_critical_difference
from venncal.plotting import CriticalDifferenceDisplay

names = [
    "australian",
    "breast-w",
    "diabetes",
    "ionosphere",
    "liver",
    "vote",
    "lofstrom_ce/german",
    "lofstrom_ce/kc1",
    "lofstrom_ce/ttt",
    "lofstrom_ce/transfusion",
]
methods = ["raw", "Platt", "isotonic", "Venn-Abers"]
table = []
for name in names:
    ds = load_dataset(name)
    X, y = np.asarray(ds.X, float), np.asarray(ds.y)
    X_tr, X_rest, y_tr, y_rest = train_test_split(X, y, test_size=0.5, random_state=0, stratify=y)
    X_cal, X_te, y_cal, y_te = train_test_split(
        X_rest, y_rest, test_size=0.5, random_state=0, stratify=y_rest
    )
    nb = GaussianNB().fit(X_tr, y_tr)
    s_cal, s_te = nb.predict_proba(X_cal)[:, 1], nb.predict_proba(X_te)[:, 1]
    row = [brier_score(y_te, s_te)]
    for cal in (
        venncal.PlattCalibrator(),
        venncal.IsotonicCalibrator(),
        venncal.VennAbersCalibrator(),
    ):
        row.append(brier_score(y_te, cal.fit(s_cal, y_cal).predict_proba(s_te)[:, 1]))
    table.append(row)

table = np.array(table)
ranks = dict(zip(methods, average_ranks(table)))
print(friedman_test(table))
cd = nemenyi_critical_difference(len(methods), len(names))
fig, ax = plt.subplots(figsize=(7, 3))
CriticalDifferenceDisplay.from_ranks(ranks, cd, ax=ax)
