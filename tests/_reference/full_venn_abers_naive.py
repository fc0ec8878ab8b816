"""Full Venn-Abers written straight from Algorithm 1 of Vovk & Petej (2014), for the tests.

For each test object and each label y: clone the estimator, fit it on the training set plus
(x, y), score every object, fit scikit-learn's isotonic regression to the l + 1 pairs, and read
its value at x. Independent of venncal's isotonic code.
"""

import numpy as np
from sklearn.base import clone
from sklearn.isotonic import IsotonicRegression


def score(est, X):
    if hasattr(est, "decision_function"):
        return np.asarray(est.decision_function(X), dtype=float)
    return np.asarray(est.predict_proba(X), dtype=float)[:, 1]


def full_venn_abers_naive(estimator, X, y, X_test, score_fn=score):
    out = np.empty((len(X_test), 2))
    for i in range(len(X_test)):
        X_aug = np.vstack([X, X_test[i : i + 1]])
        for lab in (0, 1):
            y_aug = np.r_[y, lab]
            est = clone(estimator).fit(X_aug, y_aug)
            s = score_fn(est, X_aug)
            iso = IsotonicRegression(out_of_bounds="clip").fit(s, y_aug)
            out[i, lab] = iso.predict(s[-1:])[0]
    return out
