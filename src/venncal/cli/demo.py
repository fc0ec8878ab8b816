"""``venncal demo``: Venn-Abers calibration of a classifier on a bundled dataset."""

from __future__ import annotations

import click
import numpy as np
import pandas as pd

__all__ = ["demo", "run_demo"]

_CLASSIFIERS = ("naive-bayes", "logistic", "forest")


def _make_classifier(name, seed):
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import GaussianNB
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    if name == "naive-bayes":
        return GaussianNB()
    if name == "logistic":
        return make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))
    return RandomForestClassifier(n_estimators=200, random_state=seed)


def run_demo(
    *, classifier: str = "naive-bayes", seed: int = 0, n_rows: int = 5
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Calibrate a classifier on scikit-learn's breast-cancer data with Venn-Abers.

    The data are split into training (60%) and test (40%) parts; the classifier is fitted on
    80% of the training part and the inductive Venn-Abers predictor on the other 20%.

    Parameters
    ----------
    classifier : {"naive-bayes", "logistic", "forest"}, default="naive-bayes"
    seed : int, default=0
        Seeds the split and the classifier.
    n_rows : int, default=5
        How many test rows to show.

    Returns
    -------
    rows : pandas.DataFrame
        For ``n_rows`` test objects: the label, the raw probability, p0, p1 and the merged p.
    scores : pandas.DataFrame
        Test log loss and Brier score of the raw and the calibrated probabilities.

    Examples
    --------
    >>> rows, scores = run_demo(n_rows=3)
    >>> list(rows.columns)
    ['label', 'raw', 'p0', 'p1', 'p']
    >>> bool((rows["p0"] <= rows["p1"]).all())
    True
    """
    from sklearn.datasets import load_breast_cancer
    from sklearn.model_selection import train_test_split

    from venncal.classifiers.venn_abers import VennAbersClassifier
    from venncal.metrics import brier_score, log_loss

    X, y = load_breast_cancer(return_X_y=True)
    # in this dataset 0 is "malignant": make the positive class the malignant one
    y = 1 - y
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.4, stratify=y, random_state=seed)
    base = _make_classifier(classifier, seed)
    va = VennAbersClassifier(base, cal_size=0.2, random_state=seed).fit(X_tr, y_tr)
    raw = va.estimator_.predict_proba(X_te)[:, 1]
    interval = va.predict_interval(X_te)
    p = va.predict_proba(X_te)[:, 1]
    pick = np.random.default_rng(seed).choice(len(y_te), size=min(n_rows, len(y_te)), replace=False)
    rows = pd.DataFrame(
        {
            "label": y_te[pick],
            "raw": raw[pick],
            "p0": interval[pick, 0],
            "p1": interval[pick, 1],
            "p": p[pick],
        }
    )
    scores = pd.DataFrame(
        {
            "log loss": [log_loss(y_te, raw), log_loss(y_te, p)],
            "Brier score": [brier_score(y_te, raw), brier_score(y_te, p)],
        },
        index=[f"{classifier} (raw)", f"{classifier} + Venn-Abers"],
    )
    return rows, scores


@click.command()
@click.option(
    "--classifier",
    type=click.Choice(_CLASSIFIERS),
    default="naive-bayes",
    show_default=True,
    help="The classifier to calibrate.",
)
@click.option(
    "--seed",
    type=click.IntRange(0, 2**32 - 1),
    default=0,
    show_default=True,
    help="Random seed (0 to 2**32 - 1).",
)
@click.option(
    "--rows",
    "n_rows",
    type=click.IntRange(1, 100),
    default=5,
    show_default=True,
    help="How many test rows to show.",
)
def demo(classifier: str, seed: int, n_rows: int) -> None:
    """Calibrate a classifier on the breast-cancer data with Venn-Abers and compare."""
    rows, scores = run_demo(classifier=classifier, seed=seed, n_rows=n_rows)
    click.echo("Breast cancer (Wisconsin diagnostic), positive class = malignant.")
    click.echo(
        f"Test rows: raw {classifier} probability, Venn-Abers interval [p0, p1] "
        "and the merged probability p = p1 / (1 - p0 + p1):\n"
    )
    click.echo(rows.to_string(index=False, float_format=lambda v: f"{v:.4f}"))
    click.echo("\nOn the whole test set (lower is better):\n")
    click.echo(scores.to_string(float_format=lambda v: f"{v:.4f}"))
