"""venncal.dask on a distributed LocalCluster: fits equal the in-memory fits on the same rows."""

import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

import venncal.dask as vdask  # noqa: E402
from tests.calibration.test_aggregates import (  # noqa: E402
    CALIBRATORS,
    assert_identical,
    data,
    outputs,
    probe_scores,
)
from venncal.calibration import (  # noqa: E402
    ACPCalibrator,
    PlattCalibrator,
    VennAbersCalibrator,
)


def new(cal, **extra):
    return cal.__class__(**{**cal.get_params(), **extra})


def frame(s, y, w=None, npartitions=4):
    cols = {"score": s, "label": y}
    if w is not None:
        cols["w"] = w
    return dd.from_pandas(pd.DataFrame(cols), npartitions=npartitions, sort=False)


def partition_lengths(ddf):
    return list(ddf.map_partitions(len).compute())


@pytest.mark.parametrize("cal", CALIBRATORS, ids=repr)
@pytest.mark.parametrize("seed", [0, pytest.param(1, marks=pytest.mark.slow)])
def test_dask_fit_equals_the_in_memory_fit_bit_for_bit(client, cal, seed):
    s, y = data(seed, n=300)
    rng = np.random.default_rng(seed)
    t = probe_scores(s, rng)
    expected = outputs(new(cal).fit(s, y), t)
    got = vdask.fit(
        new(cal), frame(s, y, npartitions=int(rng.integers(1, 6))), score="score", label="label"
    )
    assert_identical(expected, outputs(got, t))
    # whole-number weights (zeros included): exact sums, the same fit bit for bit
    w = rng.integers(0, 4, s.size).astype(float)
    w[:2] = 1.0
    expected = outputs(new(cal).fit(s, y, sample_weight=w), t)
    got = vdask.fit(new(cal), frame(s, y, w), score="score", label="label", weight="w")
    assert_identical(expected, outputs(got, t))


@pytest.mark.parametrize("cal", CALIBRATORS, ids=repr)
@pytest.mark.parametrize("kind", ["moderate", "tiny"])
def test_fractional_weights_give_the_in_memory_fit_bit_for_bit(client, cal, kind):
    """Ties of fractional weights across partitions: their rows are gathered and added as in
    memory, in an order no partitioning changes (moderate weights: float geometry for
    Venn-Abers; a weight of 1e-9 among them: exact geometry)."""
    s, y = data(5, n=300)
    s = np.round(s, 2)  # many ties, spread over the partitions
    rng = np.random.default_rng(0)
    w = rng.exponential(size=s.size)
    w[::13] = np.round(w[::13]) + 1.0  # whole numbers among them
    w[rng.random(s.size) < 0.1] = 0.0
    if kind == "tiny":
        w[::50] = 1e-9
    t = probe_scores(s, np.random.default_rng(1))
    expected = outputs(new(cal).fit(s, y, sample_weight=w), t)
    got = vdask.fit(
        new(cal), frame(s, y, w, npartitions=5), score="score", label="label", weight="w"
    )
    assert_identical(expected, outputs(got, t))


def test_a_tied_score_split_across_two_partitions(client):
    s = np.array([0.1, 0.2, 0.5, 0.5, 0.5, 0.5, 0.5, 0.9])
    y = np.array([0, 0, 1, 0, 1, 0, 1, 1])
    ddf = dd.from_pandas(pd.DataFrame({"score": s, "label": y}), npartitions=2, sort=False)
    parts = [p.compute() for p in ddf.to_delayed()]
    assert 0.5 in set(parts[0]["score"]) and 0.5 in set(parts[1]["score"])  # the tie is split
    for cal in CALIBRATORS:
        expected = outputs(new(cal).fit(s, y), probe_scores(s, np.random.default_rng(0)))
        got = vdask.fit(new(cal), ddf, score="score", label="label")
        assert_identical(expected, outputs(got, probe_scores(s, np.random.default_rng(0))))
        assert got.aggregate_.n_distinct == 4


def test_empty_partitions_and_a_partition_with_one_class(client):
    s, y = data(8, n=200)
    order = np.argsort(y, kind="stable")  # the first partitions hold negatives only
    s, y = s[order], y[order]
    empty = pd.DataFrame({"score": np.empty(0), "label": np.empty(0, int)})
    full = dd.from_pandas(pd.DataFrame({"score": s, "label": y}), npartitions=3, sort=False)
    ddf = dd.concat(
        [dd.from_pandas(empty, npartitions=1), full, dd.from_pandas(empty, npartitions=1)]
    )
    lengths = partition_lengths(ddf)
    assert lengths[0] == 0 and lengths[-1] == 0
    first = ddf.to_delayed()[1].compute()
    assert first["label"].nunique() == 1
    t = probe_scores(s, np.random.default_rng(0))
    for cal in CALIBRATORS:
        expected = outputs(new(cal).fit(s, y), t)
        assert_identical(
            expected, outputs(vdask.fit(new(cal), ddf, score="score", label="label"), t)
        )
    applied = vdask.apply(VennAbersCalibrator().fit(s, y), ddf, score="score").compute()
    assert len(applied) == len(s)


def test_one_class_overall_is_the_in_memory_error(client):
    s = np.array([0.1, 0.2, 0.3])
    y = np.array([1, 1, 1])
    with pytest.raises(ValueError) as in_memory:
        VennAbersCalibrator().fit(s, y)
    for cal in (VennAbersCalibrator(), PlattCalibrator()):
        with pytest.raises(ValueError) as distributed_:
            vdask.fit(cal, frame(s, y, npartitions=2), score="score", label="label")
        assert str(distributed_.value) == str(in_memory.value)
        assert "\n" not in str(distributed_.value)


def test_weights_zero_on_one_class_is_the_in_memory_error(client):
    s, y, w = np.array([0.1, 0.2, 0.3]), np.array([0, 1, 1]), np.array([0.0, 1.0, 2.0])
    with pytest.raises(ValueError) as in_memory:
        VennAbersCalibrator().fit(s, y, sample_weight=w)
    with pytest.raises(ValueError) as distributed_:
        vdask.fit(
            VennAbersCalibrator(), frame(s, y, w, 2), score="score", label="label", weight="w"
        )
    assert str(distributed_.value) == str(in_memory.value)


@pytest.mark.parametrize(
    "column, values, match",
    [
        ("score", [0.1, np.nan, 0.3, 0.4], "NaN"),
        ("score", [0.1, np.inf, 0.3, 0.4], "infinite"),
        ("w", [1.0, -1.0, 1.0, 1.0], "non-negative"),
        ("w", [1.0, np.nan, 1.0, 1.0], "NaN"),
        ("label", [0.0, np.nan, 1.0, 1.0], "NaN"),
        ("label", [0, 1, 2, 1], "Only binary"),
    ],
)
def test_bad_columns_are_one_line_errors(client, column, values, match):
    cols = {"score": [0.1, 0.2, 0.3, 0.4], "label": [0, 1, 0, 1], "w": [1.0, 1.0, 1.0, 1.0]}
    cols[column] = values
    ddf = dd.from_pandas(pd.DataFrame(cols), npartitions=2)
    for cal in (VennAbersCalibrator(), PlattCalibrator()):
        with pytest.raises(ValueError, match=match) as exc:
            vdask.fit(cal, ddf, score="score", label="label", weight="w")
        assert "\n" not in str(exc.value)


def test_wrong_frame_column_or_calibrator(client):
    ddf = frame(np.array([0.1, 0.2]), np.array([0, 1]), npartitions=1)
    with pytest.raises(TypeError, match="must be a Dask DataFrame"):
        vdask.fit(VennAbersCalibrator(), pd.DataFrame({"s": [1]}), score="s", label="y")
    with pytest.raises(ValueError, match="'label' of venncal.dask.fit names the column 'y'"):
        vdask.fit(VennAbersCalibrator(), ddf, score="score", label="y")
    with pytest.raises(TypeError, match="must be VennAbersCalibrator"):
        vdask.fit(ACPCalibrator(), ddf, score="score", label="label")


@pytest.mark.parametrize("smoothing", [True, False])
@pytest.mark.parametrize("weighted", [False, True])
def test_platt_by_distributed_newton_steps_agrees_with_the_in_memory_fit(
    client, smoothing, weighted
):
    rng = np.random.default_rng(3)
    s = rng.normal(size=2000) * 50 + 1e4
    y = (rng.random(2000) < 1 / (1 + np.exp(-(s - 1e4) / 20))).astype(int)
    w = rng.exponential(size=2000) * 1e-3 if weighted else None
    cal = PlattCalibrator(smoothing=smoothing)
    expected = cal.fit(s, y, sample_weight=w)
    got = vdask.fit(
        PlattCalibrator(smoothing=smoothing),
        frame(s, y, w, 5),
        score="score",
        label="label",
        weight="w" if weighted else None,
    )
    t = np.r_[s, rng.normal(size=100) * 100 + 1e4]
    np.testing.assert_allclose(got.predict_proba(t), expected.predict_proba(t), rtol=0, atol=1e-9)
    np.testing.assert_allclose([got.a_, got.b_], [expected.a_, expected.b_], rtol=1e-7)
    assert got.n_iter_ == expected.n_iter_


@pytest.mark.parametrize(
    "cal", [PlattCalibrator(), CALIBRATORS[5], CALIBRATORS[6], CALIBRATORS[7]], ids=repr
)
def test_distributed_integer_weights_are_repeated_rows(client, cal):
    # a weight of k is k copies on the distributed path as in memory: the fit on weighted rows
    # equals the in-memory fit on the rows repeated k times
    s, y = data(4, n=300)
    rng = np.random.default_rng(4)
    k = rng.integers(0, 4, s.size)
    k[:2] = 1
    t = probe_scores(s, rng)
    repeated = outputs(new(cal).fit(np.repeat(s, k), np.repeat(y, k)), t)
    got = vdask.fit(new(cal), frame(s, y, k.astype(float)), score="score", label="label",
                    weight="w")  # fmt: skip
    for key in repeated:
        np.testing.assert_allclose(outputs(got, t)[key], repeated[key], rtol=0, atol=1e-9)


def test_apply_is_lazy_and_adds_the_columns_partition_by_partition(client, tmp_path):
    s, y = data(2, n=300)
    cal = VennAbersCalibrator(merge="square").fit(s, y)
    t = probe_scores(s, np.random.default_rng(0))
    ddf = dd.from_pandas(pd.DataFrame({"score": t, "id": np.arange(t.size)}), npartitions=4)
    out = vdask.apply(cal, ddf, score="score")
    assert isinstance(out, dd.DataFrame) and list(out.columns) == ["score", "id", "p", "p0", "p1"]
    out.to_parquet(tmp_path / "out")
    back = dd.read_parquet(tmp_path / "out").compute().sort_values("id")
    np.testing.assert_array_equal(back["p"].to_numpy(), cal.predict_proba(t)[:, 1])
    np.testing.assert_array_equal(back[["p0", "p1"]].to_numpy(), cal.predict_interval(t))
    iso = CALIBRATORS[1].fit(s, y)
    got = vdask.apply(iso, ddf, score="score").compute()
    np.testing.assert_array_equal(got["p"].to_numpy(), iso.predict_proba(t)[:, 1])
    with pytest.raises(ValueError, match="already has the column"):
        vdask.apply(cal, out, score="score")


def test_rounding_is_the_same_on_dask(client):
    s, y = data(6, n=300)
    s = s * 0.377
    t = probe_scores(s, np.random.default_rng(0))
    for cal in CALIBRATORS[:4]:
        expected = outputs(new(cal, decimals=1).fit(s, y), t)
        got = vdask.fit(new(cal, decimals=1), frame(s, y), score="score", label="label")
        assert got.decimals_ == 1
        assert_identical(expected, outputs(got, t))


def test_without_dask_the_error_names_the_extra():
    code = """
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] == 'dask':
            raise ImportError('blocked ' + name)
sys.meta_path.insert(0, Block())
import venncal.dask
from venncal import VennAbersCalibrator
try:
    venncal.dask.fit(VennAbersCalibrator(), None, score='s', label='y')
except ImportError as exc:
    print(exc)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == (
        'venncal.dask.fit needs dask, which is not installed; pip install "venncal[dask]".'
    )


def test_platt_on_dask_warns_at_the_users_call_and_agrees_when_stopped_early():

    from venncal import VenncalWarning
    from venncal.dask import fit as dask_fit

    rng = np.random.default_rng(1)
    s = rng.normal(size=400)
    y = (rng.random(400) < 1 / (1 + np.exp(-3 * s))).astype(int)
    ddf = dd.from_pandas(pd.DataFrame({"score": s, "label": y}), npartitions=3, sort=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        dist = dask_fit(PlattCalibrator(max_iter=2), ddf, score="score", label="label")
    said = [w for w in caught if "did not converge in 2 iterations" in str(w.message)]
    assert len(said) == 1 and said[0].filename == __file__
    with pytest.warns(VenncalWarning, match="did not converge"):
        mem = PlattCalibrator(max_iter=2).fit(s, y)
    np.testing.assert_allclose([dist.a_, dist.b_], [mem.a_, mem.b_], rtol=1e-9)
    assert dist.n_iter_ == mem.n_iter_ == 2


def _saved_fields(cal, path):
    """The fitted fields of ``cal``'s model file, by name (the JSON tree of each)."""
    import json

    import venncal

    venncal.save(cal, path)
    return json.loads(path.read_text())["fitted"]


@pytest.mark.parametrize("cal", [*CALIBRATORS, PlattCalibrator()], ids=repr)
def test_the_model_file_of_a_dask_fit_is_that_of_the_in_memory_fit(client, cal, tmp_path):
    """The same fields, with the same values (Platt: its Newton steps agree to 1e-9); a Dask
    fit's file used to lack ``pos_label_`` and, for Venn-Abers, the attributes of groups."""
    s, y = data(4, n=300)
    table = frame(s, np.where(y == 1, "yes", "no"))
    rows = table.compute()  # the same rows in memory (labels as pandas holds them)
    local = _saved_fields(new(cal).fit(rows.score, rows.label), tmp_path / "local.json")
    fitted = vdask.fit(new(cal), table, score="score", label="label")
    remote = _saved_fields(fitted, tmp_path / "dask.json")
    assert sorted(remote) == sorted(local)
    assert remote["pos_label_"] == local["pos_label_"] == "yes"
    if not isinstance(cal, PlattCalibrator):
        assert remote == local
