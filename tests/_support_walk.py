"""Walk one declared row of ``venncal._support.SUPPORT`` through one surface.

Each ``check_<surface>(name, task, entry, tmp_path)`` fits the public class ``name`` on small
data of ``task``, then either runs the surface and checks its numbers against the in-memory
estimator (``entry`` True, or the command line's method names), or checks that the surface
refuses it with a one-line error (``entry`` a reason). Shared by ``tests/test_support.py``
and ``tests/spark/test_support_spark.py``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import venncal

N, K = 300, 3


def binary_data(seed=0):
    rng = np.random.default_rng(seed)
    s = np.round(rng.random(N), 3)
    y = (rng.random(N) < s).astype(np.int64)
    y[:2] = (0, 1)
    return s, y


def multiclass_data(seed=0):
    rng = np.random.default_rng(seed)
    p = np.round(rng.dirichlet(np.ones(K) * 2, N), 3)
    p /= p.sum(axis=1, keepdims=True)
    y = np.array([rng.choice(K, p=row) for row in p])
    y[:K] = np.arange(K)
    return p, y


def regression_data(seed=0):
    rng = np.random.default_rng(seed)
    s = np.round(rng.normal(size=N), 3)
    return s, np.round(s + rng.normal(scale=0.5, size=N), 2)


def features(task):
    from sklearn.datasets import make_classification

    if task == "binary":
        return make_classification(N, 5, random_state=0)
    return make_classification(N, 5, n_informative=3, n_classes=K, random_state=0)


def data(task):
    if task == "regression":
        return regression_data()
    return binary_data() if task == "binary" else multiclass_data()


def fitted(name, task):
    """A fitted instance of the public class ``name`` for ``task``, and its scores."""
    cls = getattr(venncal, name)
    if name == "CalibrationMonitor":
        s, y = binary_data()
        return cls().update(s, y), s
    if name == "SegmentedCalibrationMonitor":
        s, y = binary_data()
        return cls().update(s, y, segments={"g": np.arange(N) % 3}), s
    if name == "AbstentionRule":  # a target the small random data can meet
        scores, y = data(task)
        return cls(target_error=0.4).fit(scores, y), scores
    if name == "VennAbersRegressor":
        from sklearn.datasets import make_regression
        from sklearn.linear_model import LinearRegression

        X, y = make_regression(N, 5, noise=10.0, random_state=0)
        return cls(LinearRegression()).fit(X, y), X
    if "Classifier" in name:
        from sklearn.linear_model import LogisticRegression

        X, y = features(task)
        return cls(LogisticRegression()).fit(X, y), X
    scores, y = data(task)
    if name == "MulticalibrationCalibrator":  # needs segment features besides the scores
        return cls().fit(scores, y, segments={"g": np.arange(N) % 3}), scores
    return cls().fit(scores, y), scores


def assert_one_line_refusal(excinfo, name):
    message = str(excinfo.value)
    assert "\n" not in message.strip(), message
    assert excinfo.type in (TypeError, ValueError), excinfo.type
    assert name in message or "score calibrators" in message, message


def predictions(est, scores):
    if hasattr(est, "accept"):  # an abstention rule
        return {"accept": est.accept(scores), "predict": est.predict(scores)}
    if hasattr(est, "predict_cdf"):  # a predictive distribution
        return {
            "cdf": est.predict_cdf(scores, np.linspace(-2, 2, 9)),
            "quantiles": est.predict_quantiles(scores, [0.05, 0.5, 0.95]),
            "interval": est.predict_interval(scores, confidence=0.8),
        }
    kw = {}
    if hasattr(est, "coding_"):  # a multicalibration calibrator: the segments of its fit
        kw["segments"] = {"g": np.arange(np.shape(scores)[0]) % 3}
    out = {"proba": est.predict_proba(scores, **kw)}
    if hasattr(est, "predict_interval") and np.ndim(scores) == 1:
        out["interval"] = est.predict_interval(scores, **kw)
    return out


def check_file(name, task, entry, tmp_path):
    est, scores = fitted(name, task)
    path = tmp_path / "model.json"
    if entry is not True:
        with pytest.raises((TypeError, ValueError)) as excinfo:
            venncal.save(est, path)
        assert_one_line_refusal(excinfo, name)
        return
    venncal.save(est, path)
    back = venncal.load(path)
    if name == "CalibrationMonitor":
        assert back.log_martingale_ == est.log_martingale_ and back.alarm_ == est.alarm_
        return
    if name == "SegmentedCalibrationMonitor":
        pd.testing.assert_frame_equal(back.report(), est.report())
        return
    for key, value in predictions(est, scores).items():
        np.testing.assert_array_equal(predictions(back, scores)[key], value, err_msg=key)


def check_cli(name, task, entry, tmp_path):
    from tests.cli._helpers import run
    from venncal.cli._fitting import CALIBRATORS
    from venncal.cli._segments import SEGMENT_METHODS

    declared = set(entry) if isinstance(entry, tuple) else set()
    # binary methods: the command line's tables name exactly the declared ones
    if task == "binary":
        tables = {**CALIBRATORS, **SEGMENT_METHODS}
        assert {m for m, (public, _, _) in tables.items() if public == name} == declared
    if not declared:
        return
    scores, y = data(task)
    columns = [f"s{j}" for j in range(K)] if task == "multiclass" else ["score"]
    frame = pd.DataFrame(np.reshape(scores, (N, -1)), columns=columns).assign(y=y)
    segments = {"g": np.arange(N) % 3}  # those of ``fitted``: one numerical column
    frame = frame.assign(**segments) if name == "MulticalibrationCalibrator" else frame
    frame.to_csv(tmp_path / "cal.csv", index=False)
    for method in sorted(declared):
        model = tmp_path / f"{method}.json"
        extra = ["--segments", "g"] if method in SEGMENT_METHODS else []
        result = run(
            "fit", tmp_path / "cal.csv", "--score", ",".join(columns), "--label", "y",
            "--method", method, "-o", model, *extra,
        )  # fmt: skip
        assert result.exit_code == 0, result.output
        out = tmp_path / f"{method}.csv"
        result = run("apply", model, tmp_path / "cal.csv", "-o", out)
        assert result.exit_code == 0, result.output
        loaded = venncal.load(model)
        assert type(loaded).__name__ in (name, "LoadedCalibrator")
        if task == "regression":  # the median and the 90% interval of each distribution
            written = pd.read_csv(out)[["median", "lower", "upper"]].to_numpy()
            want = np.column_stack(
                [loaded.predict_quantiles(scores, 0.5), loaded.predict_interval(scores)]
            )
            np.testing.assert_allclose(written, want, rtol=0, atol=1e-12)
            continue
        if method in SEGMENT_METHODS:  # p, and the interval [p0, p1], within the segments
            written = pd.read_csv(out)[["p", "p0", "p1"]].to_numpy()
            want = np.column_stack(
                [
                    loaded.predict_proba(scores, segments=segments)[:, 1],
                    loaded.predict_interval(scores, segments=segments),
                ]
            )
            np.testing.assert_allclose(written, want, rtol=0, atol=1e-12)
            continue
        expected = loaded.predict_proba(np.reshape(scores, (N, -1)) if task != "binary" else scores)
        written = pd.read_csv(out)
        new = ["p"] if task == "binary" else [f"p_{j}" for j in range(K)]
        got = written[new].to_numpy()[:, 0] if task == "binary" else written[new].to_numpy()
        want = expected[:, 1] if task == "binary" else expected
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)


def _export(surface, est, task):
    import venncal.export

    columns = [f"s{j}" for j in range(K)] if task == "multiclass" else "score"
    if surface == "sql":
        return venncal.export.to_sql(est, table="scores", score_column=columns)
    return venncal.export.to_onnx(est)


def check_export(surface, name, task, entry, tmp_path):
    est, scores = fitted(name, task)
    if entry is not True:
        with pytest.raises((TypeError, ValueError)) as excinfo:
            _export(surface, est, task)
        assert_one_line_refusal(excinfo, name)
        return
    want = est.predict_proba(scores)
    if surface == "sql":
        import duckdb

        con = duckdb.connect()
        if task == "binary":
            frame = pd.DataFrame({"score": scores})
        else:
            frame = pd.DataFrame(scores, columns=[f"s{j}" for j in range(K)])
        con.register("scores", frame)
        got = con.execute(_export(surface, est, task)).df()
        if task == "binary":
            np.testing.assert_allclose(got["p"].to_numpy(), want[:, 1], rtol=0, atol=1e-9)
        else:
            np.testing.assert_allclose(got.iloc[:, -K:].to_numpy(), want, rtol=0, atol=1e-9)
        return
    import onnxruntime as ort

    model = _export(surface, est, task)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    feed = {session.get_inputs()[0].name: np.ascontiguousarray(scores, dtype=np.float64)}
    out = session.run(None, feed)[0]
    got = out if task == "multiclass" else np.asarray(out).reshape(-1)
    np.testing.assert_allclose(got, want if task == "multiclass" else want[:, 1], atol=1e-9)


def check_engine(engine, name, task, entry, frame_of):
    """``engine`` is venncal.dask or venncal.spark; ``frame_of(pandas frame)`` its frame."""
    wrapper = "Classifier" in name or name in (
        "CalibrationMonitor",
        "SegmentedCalibrationMonitor",
        "AbstentionRule",
        "VennAbersRegressor",
    )
    if wrapper:
        est, _ = fitted(name, task)
        scores, y = binary_data()
    else:
        scores, y = data(task)
        est = getattr(venncal, name)()
    columns = [f"s{j}" for j in range(K)] if task == "multiclass" and not wrapper else ["score"]
    frame = frame_of(pd.DataFrame(np.reshape(scores, (N, -1)), columns=columns).assign(y=y))
    score = columns if len(columns) > 1 else columns[0]  # K-class: one column per class
    if entry is not True:
        with pytest.raises((TypeError, ValueError)) as excinfo:
            engine.fit(est, frame, score=score, label="y")
        assert_one_line_refusal(excinfo, name)
        return
    fitted_there = engine.fit(est, frame, score=score, label="y")
    local = getattr(venncal, name)().fit(scores, y)
    np.testing.assert_allclose(
        fitted_there.predict_proba(scores), local.predict_proba(scores), rtol=0, atol=1e-9
    )


def check_chooser(name, task, entry):
    from venncal.selection._candidates import (
        default_calibrators,
        default_multiclass_calibrators,
    )

    candidates = default_calibrators() if task == "binary" else default_multiclass_calibrators()
    found = {type(c).__name__ for c in candidates.values()}
    assert (name in found) == (entry is True), (name, task, sorted(found))
