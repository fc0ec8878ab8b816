"""venncal.spark.fit on a local Spark session: the in-memory fit on the same rows, bit for bit."""

import warnings

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("pyspark")

import venncal.spark as vspark  # noqa: E402
from tests._parts import assert_parts_same  # noqa: E402
from tests.calibration.test_aggregates import (  # noqa: E402
    CALIBRATORS,
    assert_identical,
    data,
    outputs,
    probe_scores,
)
from venncal.calibration import (  # noqa: E402
    ACPCalibrator,
    BayesianBinningCalibrator,
    HistogramCalibrator,
    IsotonicCalibrator,
    PlattCalibrator,
    VennAbersCalibrator,
)
from venncal.core.counts import round_scores  # noqa: E402

pytestmark = pytest.mark.filterwarnings(
    "ignore::FutureWarning",
    "ignore::DeprecationWarning",
    "ignore::venncal.exceptions.VenncalWarning",
)


def new(cal, **extra):
    return cal.__class__(**{**cal.get_params(), **extra})


def frame(spark, s, y, w=None, partitions=4):
    """A Spark frame of the rows, spread round-robin over ``partitions`` (ties across them)."""
    cols = {"score": np.asarray(s, dtype=float), "label": y}
    if w is not None:
        cols["w"] = np.asarray(w, dtype=float)
    return spark.createDataFrame(pd.DataFrame(cols)).repartition(partitions)


def rows_of(sdf, weight=False):
    """The frame's rows in its own order (the order the fit sums fractional weights in)."""
    pdf = sdf.toPandas()
    w = pdf["w"].to_numpy() if weight else None
    return pdf["score"].to_numpy(), pdf["label"].to_numpy(), w


def assert_same_state(a, b, path="cal"):
    """Every fitted attribute equal: arrays element for element (and dtype), recursively."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        assert isinstance(a, np.ndarray) and isinstance(b, np.ndarray), path
        assert a.dtype == b.dtype and np.array_equal(a, b, equal_nan=a.dtype.kind == "f"), path
    elif assert_parts_same(a, b, path, assert_same_state):
        return
    elif isinstance(a, float):
        assert a == b or (np.isnan(a) and np.isnan(b)), path
    elif hasattr(a, "__dict__") and not callable(a):
        assert_same_state(vars(a), vars(b), path)
    else:
        assert a == b, path


def assert_same_fit(expected, got, t):
    def public(cal):
        # aggregate_ is built on first use by some in-memory fits
        return {k for k in vars(cal) if k.endswith("_") and not k.startswith("_")} | {"aggregate_"}

    names = public(expected)
    assert public(got) == names  # the same attributes (pos_label_ and those of groups too)
    for name in sorted(names):
        assert_same_state(getattr(expected, name, None), getattr(got, name, None), name)
    assert_identical(outputs(expected, t), outputs(got, t))


@pytest.mark.parametrize("cal", CALIBRATORS, ids=repr)
def test_fit_equals_the_in_memory_fit_bit_for_bit(spark, cal):
    s, y = data(3, n=300)
    rng = np.random.default_rng(3)
    t = probe_scores(s, rng)
    sdf = frame(spark, s, y, partitions=5)
    assert_same_fit(new(cal).fit(s, y), vspark.fit(new(cal), sdf, score="score", label="label"), t)
    # whole-number weights, zeros included: exact sums in any order
    w = rng.integers(0, 4, s.size).astype(float)
    w[:2] = 1.0
    sdf = frame(spark, s, y, w, partitions=3)
    got = vspark.fit(new(cal), sdf, score="score", label="label", weight="w")
    assert_same_fit(new(cal).fit(s, y, sample_weight=w), got, t)


@pytest.mark.parametrize("cal", CALIBRATORS, ids=repr)
def test_fractional_weights_give_the_in_memory_fit_bit_for_bit(spark, cal):
    """Ties of fractional weights are summed on the driver in the frame's row order (Venn-Abers
    adds them in an order of their own, which no order of the rows changes)."""
    s, y = data(7, n=300)
    rng = np.random.default_rng(7)
    w = rng.exponential(size=s.size)
    w[rng.random(s.size) < 0.1] = 0.0
    w[::17] = np.round(w[::17]) + 1.0  # some whole numbers among them
    t = probe_scores(s, rng)
    sdf = frame(spark, s, y, w, partitions=4)
    got = vspark.fit(new(cal), sdf, score="score", label="label", weight="w")
    assert_same_fit(new(cal).fit(*rows_of(sdf, weight=True)), got, t)


def _weights(kind, rng, n):
    if kind == "moderate":  # float geometry
        return rng.uniform(0.2, 3.0, n)
    if kind == "tiny":  # a weight of 1e-9 among them: exact (Python-integer) geometry
        w = rng.exponential(size=n)
        w[::50] = 1e-9
        return w
    w = rng.integers(1, 5, n).astype(float)  # mostly whole, a few fractions
    w[::7] += 0.5
    return w


@pytest.mark.parametrize("kind", ["moderate", "tiny", "mixed"])
def test_fractional_weights_venn_abers_equals_in_memory_in_any_row_order(spark, kind):
    """Venn-Abers from Spark equals the in-memory fit on the rows in their original order (not
    the frame's), with ties spread over partitions, bit for bit: tables, intervals, model."""
    rng = np.random.default_rng(11)
    s, y = data(5, n=400)
    s = np.round(s, 2)  # many ties, each across several partitions
    w = _weights(kind, rng, s.size)
    t = probe_scores(s, rng)
    sdf = frame(spark, s, y, w, partitions=6)
    got = vspark.fit(VennAbersCalibrator(), sdf, score="score", label="label", weight="w")
    expected = VennAbersCalibrator().fit(s, y, sample_weight=w)
    assert_same_fit(expected, got, t)
    shuffled = rng.permutation(s.size)
    again = VennAbersCalibrator().fit(s[shuffled], y[shuffled], sample_weight=w[shuffled])
    assert_same_fit(expected, again, t)


def test_ties_across_partitions_empty_and_one_class_partitions(spark):
    # 12 rows over 20 partitions: most are empty; each tie sits in several partitions
    s = np.array([0.1, 0.1, 0.1, 0.5, 0.5, 0.5, 0.5, 0.9, 0.9, 0.2, 0.2, 0.7])
    y = np.array([0, 1, 0, 1, 0, 1, 1, 1, 0, 0, 0, 1])
    w = np.array([0.3, 1.7, 2.1, 0.1, 0.25, 3.3, 0.7, 1.1, 0.45, 0.6, 0.0, 2.0])
    t = probe_scores(s, np.random.default_rng(0))
    sdf = frame(spark, s, y, w, partitions=20)
    sizes = sdf.rdd.glom().map(len).collect()
    assert sizes.count(0) >= 8
    for cal in (IsotonicCalibrator(), HistogramCalibrator(n_bins=3), VennAbersCalibrator()):
        got = vspark.fit(new(cal), sdf, score="score", label="label")
        assert_same_fit(new(cal).fit(s, y), got, t)
    for cal in (IsotonicCalibrator(), BayesianBinningCalibrator(lam=3.0)):
        got = vspark.fit(new(cal), sdf, score="score", label="label", weight="w")
        assert_same_fit(new(cal).fit(*rows_of(sdf, weight=True)), got, t)
    # partitions holding one class each: sorted by label, then split by range
    one_class = spark.createDataFrame(
        pd.DataFrame({"score": s, "label": y, "w": w}).sort_values("label")
    ).repartitionByRange(2, "label")
    labels = one_class.rdd.glom().map(lambda rows: {r["label"] for r in rows}).collect()
    assert all(len(found) == 1 for found in labels)
    got = vspark.fit(IsotonicCalibrator(), one_class, score="score", label="label", weight="w")
    assert_same_fit(IsotonicCalibrator().fit(*rows_of(one_class, weight=True)), got, t)


@pytest.mark.parametrize("decimals", [2, 0, -1])
def test_decimals_round_in_spark_as_in_memory(spark, decimals):
    rng = np.random.default_rng(decimals + 10)
    s = np.r_[rng.normal(0, 30, 400), [0.125, 0.135, -2.5, 25.0, 1e300, -0.004]]
    y = (rng.random(s.size) < 0.5).astype(int)
    y[:2] = [0, 1]
    cal = VennAbersCalibrator(decimals=decimals)
    got = vspark.fit(new(cal), frame(spark, s, y, partitions=3), score="score", label="label")
    expected = new(cal).fit(s, y)
    assert np.array_equal(got.aggregate_.values, np.unique(round_scores(s, decimals)))
    assert_same_fit(expected, got, np.r_[s, rng.normal(0, 40, 200)])


def test_platt_agrees_with_the_in_memory_fit(spark):
    s, y = data(2, n=300)
    w = np.random.default_rng(2).exponential(size=s.size)
    sdf = frame(spark, s, y, w, partitions=3)
    got = vspark.fit(PlattCalibrator(), sdf, score="score", label="label", weight="w")
    expected = PlattCalibrator().fit(s, y, sample_weight=w)
    assert got.a_ == pytest.approx(expected.a_, rel=1e-9, abs=1e-12)
    assert got.b_ == pytest.approx(expected.b_, rel=1e-9, abs=1e-12)
    t = probe_scores(s, np.random.default_rng(3))
    np.testing.assert_allclose(got.predict_proba(t), expected.predict_proba(t), atol=1e-12)


def test_reversed_scores_warn_as_in_memory(spark):
    from venncal.exceptions import VenncalWarning

    s, y = data(6, n=200)
    with pytest.warns(VenncalWarning, match="rank the positive class 1 below 0"):
        IsotonicCalibrator().fit(-s, y)
    with pytest.warns(VenncalWarning, match="rank the positive class 1 below 0"):
        vspark.fit(
            IsotonicCalibrator(), frame(spark, -s, y, partitions=2), score="score", label="label"
        )


def test_string_labels_and_classes(spark):
    s, y = data(4, n=120)
    labels = np.where(y == 1, "spam", "ham")
    got = vspark.fit(
        IsotonicCalibrator(), frame(spark, s, labels, partitions=2), score="score", label="label"
    )
    expected = IsotonicCalibrator().fit(s, labels)
    assert list(got.classes_) == ["ham", "spam"]
    np.testing.assert_array_equal(got.predict_proba(s), expected.predict_proba(s))


def _errors_frame(spark, **cols):
    return spark.createDataFrame(pd.DataFrame(cols))


@pytest.mark.parametrize(
    "cols, kwargs, error, message",
    [
        ({"s": [0.1, 0.2], "y": [0, 1]}, {"score": "nope"}, ValueError, "'score' of venncal"),
        ({"s": [0.1, 0.2], "y": [0, 1]}, {"label": "nope"}, ValueError, "column 'nope'"),
        ({"s": [0.1, 0.2], "y": [0, 1]}, {"weight": "nope"}, ValueError, "column 'nope'"),
        ({"s": ["a", "b"], "y": [0, 1]}, {}, ValueError, "must be numeric"),
        ({"s": [0.1, 0.2], "y": [0, 2], "z": [1, 1]}, {}, None, None),
        ({"s": [0.1, 0.2, 0.3], "y": [0, 1, 2]}, {}, ValueError, "y"),
        ({"s": [0.1, 0.2], "y": [1, 1]}, {}, ValueError, "one"),
        ({"s": [0.1, np.nan, 0.3], "y": [0, 1, 1]}, {}, ValueError, "holds 1 NaN"),
        ({"s": [0.1, np.inf, 0.3], "y": [0, 1, 1]}, {}, ValueError, "infinite"),
        ({"s": [0.1, 0.2], "y": [0, 1], "w": [1.0, np.nan]}, {"weight": "w"}, ValueError, "NaN"),
        ({"s": [0.1, 0.2], "y": [0, 1], "w": [1.0, -1.0]}, {"weight": "w"}, ValueError, "non-neg"),
        ({"s": [0.1, 0.2], "y": [0, 1], "w": [0.0, 0.0]}, {"weight": "w"}, ValueError, "zero"),
        ({"s": [0.1, 0.2], "y": [0, 1], "w": [0.0, 1.0]}, {"weight": "w"}, ValueError, "one class"),
    ],
)
def test_errors_match_the_in_memory_ones(spark, cols, kwargs, error, message):
    sdf = _errors_frame(spark, **cols)
    args = {"score": "s", "label": "y", **kwargs}
    if error is None:  # any two labels are fine
        assert vspark.fit(IsotonicCalibrator(), sdf, **args).classes_.tolist() == [0, 2]
        return
    with pytest.raises(error, match=message):
        vspark.fit(IsotonicCalibrator(), sdf, **args)


def test_wrong_frame_and_calibrator_types(spark):
    with pytest.raises(TypeError, match="must be a Spark DataFrame"):
        vspark.fit(IsotonicCalibrator(), pd.DataFrame({"s": [0.1]}), score="s", label="y")
    sdf = _errors_frame(spark, s=[0.1, 0.2], y=[0, 1])
    with pytest.raises(TypeError, match="'calibrator' of venncal.spark.fit"):
        vspark.fit(ACPCalibrator(), sdf, score="s", label="y")
    with pytest.raises(TypeError, match="must be a Spark DataFrame"):
        vspark.apply(IsotonicCalibrator().fit([0.1, 0.2], [0, 1]), [0.1], score="s")


def test_empty_frame(spark):
    sdf = spark.createDataFrame([], "s double, y int")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match="empty"):
            vspark.fit(IsotonicCalibrator(), sdf, score="s", label="y")
