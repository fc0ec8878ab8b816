"""Intervals of a scikit-learn ``Pipeline`` whose last step is a Venn predictor.

A ``Pipeline`` passes on ``predict_proba`` but not ``predict_interval``. The usual remedy is to
put the pipeline inside the wrapper, ``VennAbersClassifier(make_pipeline(...))``; for a pipeline
that ends in a Venn predictor, :func:`predict_interval` transforms ``X`` through the earlier
steps and asks the last one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sklearn.pipeline import Pipeline

if TYPE_CHECKING:
    from venncal._typing import FloatArray

__all__ = ["predict_interval"]


def predict_interval(model: Any, X: Any) -> FloatArray:
    """Return the probability intervals ``[p0, p1]`` of a fitted model, pipelines included.

    Parameters
    ----------
    model : estimator or sklearn.pipeline.Pipeline
        A fitted estimator with ``predict_interval`` (or ``predict_venn``), or a fitted
        ``Pipeline`` whose last step has one (a nested pipeline as last step works too).
    X : array-like of shape (m, n_features)
        Test objects, as the first step of ``model`` takes them.

    Returns
    -------
    ndarray of shape (m, 2)
        Lower and upper probability of the positive class, as the last step's
        ``predict_interval`` returns them.

    Raises
    ------
    TypeError
        When neither ``model`` nor the last step of its pipeline has ``predict_interval`` or
        ``predict_venn``.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.naive_bayes import GaussianNB
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> import venncal
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> pipe = make_pipeline(StandardScaler(), venncal.VennAbersClassifier(GaussianNB()))
    >>> interval = venncal.predict_interval(pipe.fit(X[:400], y[:400]), X[400:])
    >>> interval.shape
    (169, 2)
    """
    if isinstance(model, Pipeline):
        last = model.steps[-1][1]
        if _has_interval(last) or isinstance(last, Pipeline):
            Xt = model[:-1].transform(X) if len(model.steps) > 1 else X
            return predict_interval(last, Xt)
        raise TypeError(
            f"'model' must end in an estimator with predict_interval or predict_venn; the last "
            f"step of the Pipeline is {type(last).__name__}."
        )
    if hasattr(model, "predict_interval"):
        return model.predict_interval(X)
    if hasattr(model, "predict_venn"):
        return model.predict_venn(X).p0_p1
    raise TypeError(
        "'model' must have predict_interval or predict_venn (a venncal classifier or "
        f"calibrator, or a Pipeline ending in one), got {type(model).__name__}."
    )


def _has_interval(estimator):
    return hasattr(estimator, "predict_interval") or hasattr(estimator, "predict_venn")
