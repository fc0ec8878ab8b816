"""venncal.spark with K-class calibrators: fits by Spark passes over partitions reach the
in-memory likelihood, apply equals predict_proba (few tests: Spark jobs are slow)."""

import numpy as np
import pytest

pytest.importorskip("pyspark")

import venncal.spark as vspark  # noqa: E402
from tests._class_frames import assert_same_fit, class_data  # noqa: E402
from venncal.calibration import (  # noqa: E402
    MatrixScalingCalibrator,
    TemperatureCalibrator,
)

pytestmark = pytest.mark.filterwarnings(
    "ignore::FutureWarning",
    "ignore::DeprecationWarning",
)


@pytest.mark.parametrize(
    ("cal", "kind"),
    [
        (TemperatureCalibrator(), "forest"),
        (MatrixScalingCalibrator(), "logits"),
    ],
    ids=repr,
)
def test_a_spark_fit_reaches_the_in_memory_likelihood(spark, cal, kind):
    """The Done-when pair (Dirichlet runs the same passes: tested on Dask)."""
    pdf, S, labels, columns = class_data(kind, n=300)
    frame = spark.createDataFrame(pdf).repartition(2)
    local = cal.__class__(**cal.get_params()).fit(S, labels)
    remote = vspark.fit(cal.__class__(**cal.get_params()), frame, score=columns, label="label")
    assert_same_fit(local, remote, S, labels)


def test_spark_apply_adds_one_column_per_class_equal_to_predict_proba(spark):
    pdf, S, labels, columns = class_data("logits", n=200)
    fitted = MatrixScalingCalibrator().fit(S, labels)
    out = vspark.apply(fitted, spark.createDataFrame(pdf), score=columns).toPandas()
    added = [f"p_{c}" for c in fitted.classes_]
    assert list(out.columns) == [*pdf.columns, *added]
    out = out.sort_values("other")
    expected = fitted.predict_proba(out[columns].to_numpy())
    np.testing.assert_allclose(out[added].to_numpy(), expected, rtol=0, atol=1e-12)


def test_spark_k_class_input_errors_are_one_line(spark):
    pdf, S, labels, columns = class_data("logits", n=40)
    frame = spark.createDataFrame(pdf)
    cases = [
        (
            lambda: vspark.fit(
                TemperatureCalibrator(), frame, score=[*columns[:3], "x"], label="label"
            ),
            "names the column 'x'",
        ),
        (
            lambda: vspark.fit(TemperatureCalibrator(), frame, score=columns[:3], label="label"),
            "holds 4 classes but 'score' lists 3",
        ),
        (
            lambda: vspark.apply(TemperatureCalibrator().fit(S, labels), frame, score=columns[:2]),
            "fitted on 4 score column",
        ),
    ]
    for call, match in cases:
        with pytest.raises(ValueError, match=match) as info:
            call()
        assert "\n" not in str(info.value)
