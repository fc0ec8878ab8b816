"""The transductive Venn predictor written straight from Vovk & Petej (2014), section 2.

For each test object x and each hypothetical label k: clone the estimator, fit it on the
training set followed by (x, k), score all l + 1 objects, put them into categories with the
taxonomy computed on those l + 1 scores (and labels, for the isotonic taxonomy), and return the
label frequencies in the category of the last object. Loops only; independent of venncal (the
isotonic taxonomy uses scikit-learn's isotonic regression).
"""

import numpy as np
from sklearn.base import clone
from sklearn.isotonic import IsotonicRegression


def score(est, X, n_classes):
    """predict_proba (column 1 for two classes), else decision_function."""
    if hasattr(est, "predict_proba"):
        p = np.asarray(est.predict_proba(X), dtype=float)
        return p[:, 1] if n_classes == 2 else p
    return np.asarray(est.decision_function(X), dtype=float)


def equal_mass_bin(values, n_bins):
    """Bin of each value: how many of the bag's edges (its order statistics at positions
    floor(j n / n_bins), j = 1..n_bins-1) are at most the value."""
    n = len(values)
    ordered = sorted(values)
    edges = [ordered[(j * n) // n_bins] for j in range(1, n_bins)]
    return [sum(1 for e in edges if e <= v) for v in values]


def categories(s, y_aug, taxonomy, n_bins, threshold):
    n = len(y_aug)
    if callable(taxonomy):
        return list(taxonomy(s))
    if taxonomy == "isotonic":  # level sets of the isotonic fit: objects with one fitted value
        fitted = IsotonicRegression().fit(s, y_aug).predict(s)
        return [round(float(v), 12) for v in fitted]
    if s.ndim == 1:
        if taxonomy == "label":
            return [int(s[i] > threshold) for i in range(n)]
        return equal_mass_bin(list(s), n_bins)
    lab = [int(np.argmax(s[i])) for i in range(n)]
    if taxonomy == "label":
        return lab
    cats = [None] * n
    for c in set(lab):
        rows = [i for i in range(n) if lab[i] == c]
        bins = equal_mass_bin([s[i, c] for i in rows], n_bins)
        for i, b in zip(rows, bins):
            cats[i] = (c, b)
    return cats


def full_venn_naive(estimator, X, y, X_test, *, taxonomy, n_classes, n_bins=10):
    """Array of shape (m, n_classes, n_classes): [i, k] is the distribution with label k."""
    X = np.asarray(X, dtype=float)
    X_test = np.asarray(X_test, dtype=float)
    out = np.empty((len(X_test), n_classes, n_classes))
    for i in range(len(X_test)):
        X_aug = np.vstack([X, X_test[i : i + 1]])
        for k in range(n_classes):
            y_aug = np.r_[y, k].astype(int)
            est = clone(estimator).fit(X_aug, y_aug)
            s = score(est, X_aug, n_classes)
            threshold = 0.5 if hasattr(est, "predict_proba") else 0.0
            cats = categories(s, y_aug, taxonomy, n_bins, threshold)
            members = [j for j in range(len(y_aug)) if cats[j] == cats[-1]]
            for lab in range(n_classes):
                out[i, k, lab] = sum(1 for j in members if y_aug[j] == lab) / len(members)
    return out
