"""Shared by the Dask and Spark tests of K-class calibrators: calibration data as a frame of K
score columns and a label column, and the comparison of a distributed fit with the in-memory
fit on the same rows."""

import numpy as np

from tests.calibration._score_matrix import forest_like, make
from venncal.calibration import (
    DirichletCalibrator,
    MatrixScalingCalibrator,
    TemperatureCalibrator,
)

#: the K-class calibrators the engines fit, with the score type of the data each gets
CASES = [
    (TemperatureCalibrator(), "logits"),
    (TemperatureCalibrator(), "forest"),
    (MatrixScalingCalibrator(), "logits"),
    (MatrixScalingCalibrator(structure="svs"), "forest"),
    (DirichletCalibrator(), "forest"),
]
NAMES = ["ant", "bee", "cat", "dog"]


def class_data(kind, n=400):
    """(pandas frame with columns s0..s3 and label, score matrix, labels, score columns):
    logits, or forest-like probabilities with exact zeros (read through the probability
    floor); string labels whose sorted order is the column order."""
    import pandas as pd

    if kind == "logits":
        S, y, _ = make(3, n=n, K=4)
    else:
        S, y, _, _ = forest_like(3, n=n, m=10, K=4)
    columns = [f"s{k}" for k in range(S.shape[1])]
    pdf = pd.DataFrame(S, columns=columns)
    pdf["label"] = np.asarray(NAMES, dtype=object)[y]
    pdf["other"] = np.arange(n)
    return pdf, S, pdf["label"].to_numpy(), columns


def mean_log_loss(cal, S, labels):
    """The mean negative log-likelihood of ``labels`` under ``cal`` (naive: the definition)."""
    P = cal.predict_proba(S)
    idx = np.searchsorted(cal.classes_, labels)
    return float(-np.mean(np.log(P[np.arange(len(labels)), idx])))


def assert_same_fit(local, remote, S, labels):
    """The likelihood within 1e-9 (relative), the parameters close, the same attributes."""
    assert type(remote) is type(local)
    assert list(remote.classes_) == list(local.classes_)
    assert remote.score_type_ == local.score_type_
    assert remote.n_features_in_ == local.n_features_in_
    a, b = mean_log_loss(local, S, labels), mean_log_loss(remote, S, labels)
    assert abs(a - b) <= 1e-9 * abs(a)
    if isinstance(local, TemperatureCalibrator):
        assert remote.temperature_ == __import__("pytest").approx(local.temperature_, rel=1e-9)
        assert remote.map_.log_floor == local.map_.log_floor
        assert remote.map_.scale == local.map_.scale
    else:
        np.testing.assert_allclose(remote.map_.bias, local.map_.bias, rtol=0, atol=1e-7)
        assert remote.map_.log_floor == local.map_.log_floor
    np.testing.assert_allclose(remote.predict_proba(S), local.predict_proba(S), atol=1e-9)
