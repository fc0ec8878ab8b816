"""venncal.spark.apply: the calibrator's own predictions, batch by batch, on Spark."""

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("pyspark")

import venncal.spark as vspark  # noqa: E402
from tests.calibration.test_aggregates import data  # noqa: E402
from venncal.calibration import (  # noqa: E402
    BayesianBinningCalibrator,
    BetaCalibrator,
    HistogramCalibrator,
    IsotonicCalibrator,
    PlattCalibrator,
    VennAbersCalibrator,
)

pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning", "ignore::DeprecationWarning")

FITTED = [
    VennAbersCalibrator(),
    VennAbersCalibrator(merge="log"),
    IsotonicCalibrator(),
    HistogramCalibrator(n_bins=5),
    BayesianBinningCalibrator(lam=3.0),
    PlattCalibrator(),
    BetaCalibrator(score_scale="logit"),
]


@pytest.mark.parametrize("cal", FITTED, ids=repr)
def test_apply_gives_predict_proba_bit_for_bit(spark, cal):
    s, y = data(8, n=200)
    cal = cal.fit(s, y)
    rng = np.random.default_rng(8)
    t = np.r_[s, rng.normal(s.mean(), s.std() + 1, 300)]  # over several Arrow batches
    pdf = pd.DataFrame({"id": np.arange(t.size), "score": t})
    out = vspark.apply(cal, spark.createDataFrame(pdf).repartition(3), score="score").toPandas()
    out = out.sort_values("id").reset_index(drop=True)
    assert list(out.columns[:2]) == ["id", "score"]
    np.testing.assert_array_equal(out["score"], t)
    np.testing.assert_array_equal(out["p"], cal.predict_proba(t)[:, 1], strict=True)
    if isinstance(cal, VennAbersCalibrator):
        assert list(out.columns) == ["id", "score", "p", "p0", "p1"]
        np.testing.assert_array_equal(out[["p0", "p1"]].to_numpy(), cal.predict_interval(t))
    else:
        assert list(out.columns) == ["id", "score", "p"]


def test_apply_keeps_an_empty_partition_and_is_lazy(spark):
    cal = IsotonicCalibrator().fit([0.1, 0.2, 0.3, 0.4], [0, 0, 1, 1])
    frame = spark.createDataFrame(pd.DataFrame({"s": [0.15, 0.35]})).repartition(5)
    out = vspark.apply(cal, frame, score="s")
    assert out.columns == ["s", "p"]
    assert sorted(out.toPandas()["p"]) == [0.0, 1.0]


def test_other_columns_pass_through_unchanged(spark):
    import datetime
    import decimal

    cal = VennAbersCalibrator().fit([0.1, 0.2, 0.3, 0.4], [0, 1, 0, 1])
    rows = [
        (i, f"row {i}", datetime.datetime(2024, 1, 1 + i), decimal.Decimal(f"{i}.25"), [i, i], s)
        for i, s in enumerate([0.05, 0.25, 0.35, 0.5])
    ]
    frame = spark.createDataFrame(
        rows, "id long, name string, at timestamp, amount decimal(10,2), xs array<int>, s float"
    ).repartition(2)
    out = vspark.apply(cal, frame, score="s")
    assert out.schema.fields[:6] == frame.schema.fields
    got = sorted(out.collect())
    assert [tuple(r)[:6] for r in got] == sorted(tuple(r) for r in frame.collect())
    s = np.array([r["s"] for r in got], dtype=np.float64)  # float32 scores, widened
    np.testing.assert_array_equal([r["p"] for r in got], cal.predict_proba(s)[:, 1])
    np.testing.assert_array_equal([[r["p0"], r["p1"]] for r in got], cal.predict_interval(s))


def test_apply_errors(spark):
    cal = IsotonicCalibrator().fit([0.1, 0.2, 0.3, 0.4], [0, 0, 1, 1])
    frame = spark.createDataFrame(pd.DataFrame({"s": [0.15, np.nan], "p": [1.0, 2.0]}))
    with pytest.raises(ValueError, match=r"already has the column\(s\) \['p'\]"):
        vspark.apply(cal, frame, score="s")
    with pytest.raises(ValueError, match="'score' of venncal.spark.apply"):
        vspark.apply(cal, frame, score="nope")
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        vspark.apply(IsotonicCalibrator(), frame.drop("p"), score="s")
    with pytest.raises(Exception, match="holds 1 NaN"):  # the calibrator's error, from Spark
        vspark.apply(cal, frame.drop("p"), score="s").collect()
