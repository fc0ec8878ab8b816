"""``venncal fit --group`` and ``venncal apply`` of models fitted within groups (Mondrian):
the library's numbers with ``groups=``, bit for bit, in chunks, and one-line refusals."""

import hashlib

import numpy as np
import pandas as pd
import pytest

import venncal
from tests.cli._helpers import expect_usage_error, run
from venncal.cli import _stream


def _table(seed, n):
    """Binary scores miscalibrated differently in each group ``g`` (integers 1..3), a
    regressor's prediction ``pred`` with real labels ``r``, and three class scores."""
    rng = np.random.default_rng(seed)
    g = rng.integers(1, 4, n)
    s = np.round(rng.normal(size=n), 3)
    y = (rng.random(n) < 1 / (1 + np.exp(-s - (g - 2)))).astype(np.int64)
    pred = np.round(rng.normal(size=n), 4)
    r = pred + g * rng.normal(size=n)
    P = rng.dirichlet(np.ones(3), n)
    cls = np.array(["cat", "dog", "eel"])[[rng.choice(3, p=row) for row in P]]
    frame = pd.DataFrame({"id": np.arange(n), "s": s, "y": y, "g": g, "pred": pred, "r": r})
    return frame.assign(p_cat=P[:, 0], p_dog=P[:, 1], p_eel=P[:, 2], c=cls)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("groups")
    cal, test = _table(0, 900), _table(1, 300)
    for name, frame in (("cal", cal), ("test", test)):
        frame.to_csv(tmp / f"{name}.csv", index=False)
        frame.to_parquet(tmp / f"{name}.parquet", index=False)
    return tmp, cal, test


def _digest(*paths):
    return [hashlib.sha256(p.read_bytes()).hexdigest() for p in paths]


@pytest.mark.parametrize("kind", ["csv", "parquet"])
def test_binary_venn_abers_is_the_library_within_groups(files, kind, monkeypatch):
    tmp, cal, test = files
    model = tmp / f"va_{kind}.json"
    fit = run("fit", tmp / f"cal.{kind}", "--score", "s", "--label", "y", "--group", "g",
              "-o", model, "--force")  # fmt: skip
    assert fit.exit_code == 0, fit.output
    assert "within 3 groups of 'g'" in fit.output
    loaded = venncal.load(model)
    assert loaded.groups_ == ["1", "2", "3"]  # group values are text
    assert venncal.persistence.read_model_state(model).metadata["group"] == "g"
    # the calibrator the Python API fits on the same rows, groups as text
    direct = venncal.VennAbersCalibrator().fit(cal["s"], cal["y"], groups=cal["g"].astype(str))
    g = test["g"].astype(str).to_numpy()
    s = test["s"].to_numpy()
    np.testing.assert_array_equal(
        loaded.predict_interval(s, groups=g), direct.predict_interval(s, groups=g)
    )
    monkeypatch.setattr(_stream, "BATCH_ROWS", 37)  # many chunks
    out = tmp / f"va_out.{kind}"
    result = run("apply", model, tmp / f"test.{kind}", "-o", out, "--force", "--keep", "id")
    assert result.exit_code == 0, result.output
    got = pd.read_csv(out) if kind == "csv" else pd.read_parquet(out)
    assert list(got.columns) == ["id", "p", "p0", "p1"]
    np.testing.assert_array_equal(got["p"], loaded.predict_proba(s, groups=g)[:, 1])
    np.testing.assert_array_equal(got[["p0", "p1"]], loaded.predict_interval(s, groups=g))
    # each row by its own group: a row's numbers are those of its group alone
    rows = np.flatnonzero(g == "2")
    np.testing.assert_array_equal(
        got["p"].to_numpy()[rows], loaded.predict_proba(s[rows], groups=g[rows])[:, 1]
    )


def test_group_column_given_at_apply(files):
    tmp, _, test = files
    run("fit", tmp / "cal.csv", "--score", "s", "--label", "y", "--group", "g", "-o",
        tmp / "va.json", "--force")  # fmt: skip
    renamed = tmp / "renamed.csv"
    test.rename(columns={"g": "region"}).to_csv(renamed, index=False)
    missing = run("apply", tmp / "va.json", renamed, "-o", tmp / "r.csv", "--force")
    expect_usage_error(missing, "reads the group column 'g'")
    result = run("apply", tmp / "va.json", renamed, "-o", tmp / "r.csv", "--force",
                 "--group", "region")  # fmt: skip
    assert result.exit_code == 0, result.output
    want = venncal.load(tmp / "va.json").predict_proba(test["s"], groups=test["g"].astype(str))
    np.testing.assert_array_equal(pd.read_csv(tmp / "r.csv")["p"], want[:, 1])


@pytest.mark.parametrize("kind", ["csv", "parquet"])
def test_distribution_is_the_library_within_groups(files, kind, monkeypatch):
    tmp, _, test = files
    model = tmp / f"dist_{kind}.json"
    fit = run("fit", tmp / f"cal.{kind}", "--score", "pred", "--label", "r", "--task",
              "regression", "--group", "g", "-o", model, "--force")  # fmt: skip
    assert fit.exit_code == 0, fit.output
    loaded = venncal.load(model)
    assert loaded.groups_ == ["1", "2", "3"]
    monkeypatch.setattr(_stream, "BATCH_ROWS", 41)
    s, g = test["pred"].to_numpy(), test["g"].astype(str).to_numpy()
    for band in (False, True):
        out = tmp / f"d_out_{band}.{kind}"
        extra = ["--band"] if band else []
        result = run("apply", model, tmp / f"test.{kind}", "-o", out, "--force", "--keep", "id",
                     "--confidence", "0.8", "--quantiles", "0.25", *extra)  # fmt: skip
        assert result.exit_code == 0, result.output
        got = pd.read_csv(out) if kind == "csv" else pd.read_parquet(out)
        assert list(got.columns) == ["id", "median", "lower", "upper", "q_0.25"]
        q = loaded.predict_quantiles(s, [0.5, 0.25], groups=g)
        np.testing.assert_array_equal(got["median"], q[:, 0])
        np.testing.assert_array_equal(got["q_0.25"], q[:, 1])
        interval = loaded.predict_interval(
            s, confidence=0.8, groups=g, kind="band" if band else "merged"
        )
        np.testing.assert_array_equal(got[["lower", "upper"]], interval)


def test_multiclass_venn_abers_within_groups(files):
    tmp, _, test = files
    model = tmp / "k.json"
    fit = run("fit", tmp / "cal.parquet", "--score", "p_cat,p_dog,p_eel", "--label", "c",
              "--method", "multiclass-venn-abers", "--group", "g", "-o", model, "--force")  # fmt: skip
    assert fit.exit_code == 0, fit.output
    out = tmp / "k_out.parquet"
    result = run("apply", model, tmp / "test.parquet", "-o", out, "--force", "--keep", "id",
                 "--prefix", "cal_")  # fmt: skip
    assert result.exit_code == 0, result.output
    got = pd.read_parquet(out)
    loaded = venncal.load(model)
    S, g = test[["p_cat", "p_dog", "p_eel"]].to_numpy(), test["g"].astype(str).to_numpy()
    names = ["cal_p_cat", "cal_p_dog", "cal_p_eel"]
    np.testing.assert_array_equal(got[names], loaded.predict_proba(S, groups=g))
    lower = [f"{n}_lower" for n in names]
    np.testing.assert_array_equal(got[lower], loaded.predict_interval(S, groups=g)[:, :, 0])


def test_abstention_of_a_grouped_model(files):
    tmp, cal, test = files
    run("fit", tmp / "cal.csv", "--score", "s", "--label", "y", "--group", "g", "-o",
        tmp / "va.json", "--force")  # fmt: skip
    held = _table(2, 600)
    held.to_csv(tmp / "held.csv", index=False)
    result = run("apply", tmp / "va.json", tmp / "test.csv", "-o", tmp / "acc.csv", "--force",
                 "--abstain-at", "0.35", "--abstain-data", tmp / "held.csv")  # fmt: skip
    assert result.exit_code == 0, result.output
    loaded = venncal.load(tmp / "va.json")
    p_held = loaded.predict_proba(held["s"], groups=held["g"].astype(str))[:, 1]
    rule = venncal.AbstentionRule(target_error=0.35, delta=0.1).fit(p_held, held["y"])
    got = pd.read_csv(tmp / "acc.csv")
    np.testing.assert_array_equal(got["accept"], rule.accept(got["p"].to_numpy()))


def _refused_fit(tmp, *extra, cal="cal.csv"):
    out = tmp / "refused.json"
    before = _digest(tmp / cal)
    result = run("fit", tmp / cal, "--score", "s", "--label", "y", "-o", out, *extra)
    assert _digest(tmp / cal) == before and not out.exists()
    return result


@pytest.mark.parametrize(
    ("extra", "fragment"),
    [
        (["--method", "platt"], "not 'platt'"),
        (["--method", "isotonic"], "not 'isotonic'"),
        (["--backend", "dask"], "--backend local only"),
        (["--backend", "spark"], "--backend local only"),
    ],
)
def test_fit_refusals(files, extra, fragment):
    tmp, _, _ = files
    expect_usage_error(_refused_fit(tmp, "--group", "g", *extra), "--group", fragment)


def test_fit_refuses_other_methods_and_columns(files):
    tmp, _, _ = files
    k = run("fit", tmp / "cal.csv", "--score", "p_cat,p_dog,p_eel", "--label", "c", "--group",
            "g", "--method", "matrix-scaling", "-o", tmp / "refused.json")  # fmt: skip
    expect_usage_error(k, "not 'matrix-scaling'")
    segments = _refused_fit(tmp, "--group", "g", "--method", "multicalibration", "--segments", "id")
    expect_usage_error(segments, "--group does not apply to --method multicalibration")
    expect_usage_error(_refused_fit(tmp, "--group", "y"), "the score, label or weight column")
    expect_usage_error(_refused_fit(tmp, "--group", "nope"), "--group 'nope': no such column")


@pytest.mark.parametrize("kind", ["csv", "parquet"])
def test_a_missing_group_names_its_row(files, kind):
    tmp, cal, test = files
    frame = cal.astype({"g": object})
    frame.loc[17, "g"] = None
    path = tmp / f"cal_missing.{kind}"
    frame.to_csv(path, index=False) if kind == "csv" else frame.to_parquet(path, index=False)
    result = _refused_fit(tmp, "--group", "g", cal=path.name)
    expect_usage_error(result, "column 'g' (--group) has a missing value at row 17")
    # at apply too
    run("fit", tmp / "cal.csv", "--score", "s", "--label", "y", "--group", "g", "-o",
        tmp / "va.json", "--force")  # fmt: skip
    bad = test.astype({"g": object})
    bad.loc[5, "g"] = None
    path = tmp / f"test_missing.{kind}"
    bad.to_csv(path, index=False) if kind == "csv" else bad.to_parquet(path, index=False)
    before = _digest(path)
    out = tmp / f"never.{kind}"
    result = run("apply", tmp / "va.json", path, "-o", out)
    expect_usage_error(result, "has a missing value at row 5")
    assert _digest(path) == before and not out.exists()


def test_float_groups_are_refused_as_the_library_refuses_them(files):
    tmp, cal, _ = files
    cal.assign(g=cal["g"] + 0.5).to_parquet(tmp / "float_groups.parquet", index=False)
    with pytest.raises(TypeError, match="integers, strings or booleans"):
        venncal.VennAbersCalibrator().fit(cal["s"], cal["y"], groups=cal["g"] + 0.5)
    result = _refused_fit(tmp, "--group", "g", cal="float_groups.parquet")
    expect_usage_error(result, "must hold integers, strings or booleans", "double")


def test_apply_refusals(files):
    tmp, _, test = files
    run("fit", tmp / "cal.csv", "--score", "s", "--label", "y", "--group", "g", "-o",
        tmp / "va.json", "--force")  # fmt: skip
    run("fit", tmp / "cal.csv", "--score", "s", "--label", "y", "-o", tmp / "plain.json",
        "--force")  # fmt: skip
    unseen = test.copy()
    unseen.loc[9, "g"] = 7
    unseen.to_csv(tmp / "unseen.csv", index=False)
    inputs = [tmp / "unseen.csv", tmp / "test.csv", tmp / "va.json", tmp / "plain.json"]
    before = _digest(*inputs)
    out = tmp / "never.csv"
    with pytest.raises(ValueError, match="not seen at fit"):  # the library's rule
        venncal.load(tmp / "va.json").predict_proba(unseen["s"], groups=unseen["g"].astype(str))
    cases = [
        (["va.json", "unseen.csv"], ["row 9 has the group '7'", "did not see at fit"]),
        (["plain.json", "test.csv", "--group", "g"], ["fitted without groups"]),
        (["va.json", "test.csv", "--backend", "dask"], ["--backend local only"]),
        (["va.json", "test.csv", "--group", "nope"], ["reads the group column 'nope'"]),
    ]
    for (model, data, *extra), fragments in cases:
        result = run("apply", tmp / model, tmp / data, "-o", out, *extra)
        expect_usage_error(result, *fragments)
        assert not out.exists()
    assert _digest(*inputs) == before


def test_export_of_a_grouped_model_is_refused(files):
    tmp, _, _ = files
    run("fit", tmp / "cal.csv", "--score", "s", "--label", "y", "--group", "g", "-o",
        tmp / "va.json", "--force")  # fmt: skip
    for extra, out in (
        (["--to", "sql", "--table", "t", "--score-column", "s"], tmp / "q.sql"),
        (["--to", "onnx"], tmp / "m.onnx"),
    ):
        result = run("export", tmp / "va.json", *extra, "-o", out)
        expect_usage_error(result, "fitted within groups")
        assert not out.exists()
