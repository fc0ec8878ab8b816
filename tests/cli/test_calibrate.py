"""``venncal calibrate``: results agree with the library, and bad input exits with code 2."""

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from tests.cli._helpers import expect_usage_error
from venncal.cli import main
from venncal.cli.calibrate import CALIBRATORS


def _available(method):
    import venncal

    try:
        getattr(venncal, CALIBRATORS[method][0])
    except (AttributeError, ImportError):
        return False
    return True


def _scores(rng, n):
    s = rng.normal(size=n)
    y = (rng.random(n) < 1 / (1 + np.exp(-2 * s))).astype(int)
    return s, y


@pytest.fixture
def files(tmp_path):
    rng = np.random.default_rng(0)
    s, y = _scores(rng, 400)
    cal = pd.DataFrame({"id": np.arange(400), "score": s, "y": np.where(y == 1, "yes", "no")})
    t, yt = _scores(rng, 150)
    test = pd.DataFrame({"id": np.arange(150), "score": t, "y": np.where(yt == 1, "yes", "no")})
    cal.to_csv(tmp_path / "cal.csv", index=False)
    test.to_csv(tmp_path / "test.csv", index=False)
    return tmp_path, cal, test


def run(*args):
    return CliRunner().invoke(main, ["calibrate", *map(str, args)])


# ----------------------------------------------------------------------------- results
def test_venn_abers_output_matches_the_calibrator(files):
    from venncal import VennAbersCalibrator

    tmp, cal, test = files
    out = tmp / "out.csv"
    result = run(tmp / "cal.csv", tmp / "test.csv", "--score", "score", "--label", "y", "-o", out)
    assert result.exit_code == 0, result.output
    written = pd.read_csv(out)
    assert list(written.columns) == ["id", "score", "y", "p", "p0", "p1"]
    pd.testing.assert_frame_equal(written[["id", "score", "y"]], test)
    ref = VennAbersCalibrator().fit(cal["score"], cal["y"] == "yes")
    np.testing.assert_allclose(written["p"], ref.predict_proba(test["score"])[:, 1])
    np.testing.assert_allclose(written[["p0", "p1"]], ref.predict_interval(test["score"]))
    assert (written["p0"] <= written["p"]).all() and (written["p"] <= written["p1"]).all()
    assert "wrote 150 rows" in result.output


_NO_SKLEARN = """
import sys
from venncal.cli import main
try:
    main(sys.argv[1:], standalone_mode=False)
finally:
    print("sklearn imported:", "sklearn" in sys.modules)
"""


@pytest.mark.parametrize("merge", ["log", "square", "mean"])
@pytest.mark.parametrize("decimals", [None, 2])
def test_parquet_venn_abers_is_the_calibrator_bit_for_bit(tmp_path, merge, decimals):
    """Fitted by the core alone (no scikit-learn), the same numbers as VennAbersCalibrator."""
    import subprocess
    import sys

    import pyarrow as pa
    import pyarrow.parquet as pq

    from venncal import VennAbersCalibrator

    rng = np.random.default_rng(len(merge))
    s, y = _scores(rng, 30_000)
    t, _ = _scores(rng, 70_000)  # enough test scores for the grid search of the tables
    if decimals is not None:  # ties in both files
        s, t = np.round(s, decimals), np.round(t, decimals)
    t = np.r_[t, s[:500], np.nextafter(s[:500], np.inf), -1e308, 1e308]
    pq.write_table(pa.table({"score": s, "y": y}), tmp_path / "cal.parquet")
    t32 = t[:-2].astype(np.float32)  # without the extremes, infinite in float32
    pq.write_table(pa.table({"score": t32, "id": np.arange(t32.shape[0])}),
                   tmp_path / "t32.parquet")  # fmt: skip
    pq.write_table(pa.table({"score": t}), tmp_path / "test.parquet")
    args = ["calibrate", tmp_path / "cal.parquet", tmp_path / "test.parquet", "--score",
            "score", "--label", "y", "--merge", merge, "-o", tmp_path / "out.parquet"]  # fmt: skip
    result = subprocess.run(
        [sys.executable, "-c", _NO_SKLEARN, *map(str, args)], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert "sklearn imported: False" in result.stdout
    got = pd.read_parquet(tmp_path / "out.parquet")
    ref = VennAbersCalibrator(merge=merge).fit(s, y)
    np.testing.assert_array_equal(got["score"], t)
    np.testing.assert_array_equal(got["p"], ref.predict_proba(t)[:, 1])
    np.testing.assert_array_equal(got[["p0", "p1"]].to_numpy(), ref.predict_interval(t))
    # float32 scores are read as their float64 values
    res = run(tmp_path / "cal.parquet", tmp_path / "t32.parquet", "--score", "score", "--label",
              "y", "--merge", merge, "-o", tmp_path / "o32.parquet")  # fmt: skip
    assert res.exit_code == 0, res.output
    t32 = t32.astype(np.float64)
    np.testing.assert_array_equal(
        pd.read_parquet(tmp_path / "o32.parquet")["p"], ref.predict_proba(t32)[:, 1]
    )


@pytest.mark.parametrize(
    "method", ["isotonic", "platt", "histogram", "sbb", "abb", "acp", "beta-logit"]
)
def test_every_calibrator_by_name(files, method):
    if not _available(method):
        pytest.skip(f"{method} not in this installation yet")
    tmp, _, test = files
    out = tmp / f"{method}.parquet"
    result = run(tmp / "cal.csv", tmp / "test.csv", "--score", "score", "--label", "y",
                 "--method", method, "-o", out)  # fmt: skip
    assert result.exit_code == 0, result.output
    written = pd.read_parquet(out)
    assert "p0" not in written.columns and len(written) == len(test)
    assert written["p"].between(0, 1).all()
    # calibrated probabilities rise with the score on average
    # the CSV's score column is copied as its text
    assert np.corrcoef(written["p"], written["score"].astype(float))[0, 1] > 0.5


def test_beta_reads_probabilities_and_refuses_other_scores(files):
    from scipy.special import expit

    from venncal import BetaCalibrator

    tmp, cal, test = files
    cal.assign(prob=expit(cal["score"])).to_csv(tmp / "calp.csv", index=False)
    test.assign(prob=expit(test["score"])).to_csv(tmp / "testp.csv", index=False)
    out = tmp / "beta.csv"
    result = run(tmp / "calp.csv", tmp / "testp.csv", "--score", "prob", "--label", "y",
                 "--method", "beta", "-o", out)  # fmt: skip
    assert result.exit_code == 0, result.output
    ref = BetaCalibrator().fit(expit(cal["score"]), cal["y"] == "yes")
    np.testing.assert_allclose(
        pd.read_csv(out)["p"], ref.predict_proba(expit(test["score"]))[:, 1], rtol=1e-12
    )
    # margins are not probabilities: one line, exit 2, nothing written
    result = run(tmp / "cal.csv", tmp / "test.csv", "--score", "score", "--label", "y",
                 "--method", "beta", "-o", tmp / "no.csv")  # fmt: skip
    expect_usage_error(result, "[0, 1]")
    assert not (tmp / "no.csv").exists()


@pytest.mark.parametrize("method", ["venn-abers", "isotonic"])
def test_positive_label_and_negated_scores_give_the_complement(files, method):
    # calibrators assume larger scores mean the positive class: swapping the positive label and
    # negating the scores must give 1 - p (Venn-Abers' log merge is symmetric in this sense)
    tmp, cal, test = files
    cal.assign(neg=-cal["score"]).to_csv(tmp / "cal2.csv", index=False)
    test.assign(neg=-test["score"]).to_csv(tmp / "test2.csv", index=False)
    outs = []
    for score, positive in (("score", "yes"), ("neg", "no")):
        out = tmp / f"{positive}.csv"
        result = run(tmp / "cal2.csv", tmp / "test2.csv", "--score", score, "--label", "y",
                     "--method", method, "--positive", positive, "-o", out)  # fmt: skip
        assert result.exit_code == 0, result.output
        outs.append(pd.read_csv(out)["p"].to_numpy())
    np.testing.assert_allclose(outs[0], 1 - outs[1], atol=1e-12)


def test_weights_equal_duplicated_rows(tmp_path):
    rng = np.random.default_rng(3)
    s, y = _scores(rng, 120)
    w = rng.integers(1, 4, size=120)
    pd.DataFrame({"score": s, "y": y, "w": w}).to_csv(tmp_path / "w.csv", index=False)
    dup = pd.DataFrame({"score": np.repeat(s, w), "y": np.repeat(y, w)})
    dup.to_csv(tmp_path / "dup.csv", index=False)
    pd.DataFrame({"score": np.linspace(-3, 3, 41)}).to_csv(tmp_path / "t.csv", index=False)
    a = run(tmp_path / "w.csv", tmp_path / "t.csv", "--score", "score", "--label", "y",
            "--weight", "w", "-o", tmp_path / "a.csv")  # fmt: skip
    b = run(tmp_path / "dup.csv", tmp_path / "t.csv", "--score", "score", "--label", "y",
            "-o", tmp_path / "b.csv")  # fmt: skip
    assert a.exit_code == 0 and b.exit_code == 0, a.output + b.output
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "a.csv"), pd.read_csv(tmp_path / "b.csv"))


def test_merge_option_and_prefix(files):
    tmp, _, _ = files
    test = pd.read_csv(tmp / "test.csv").assign(p=0.5)
    test.to_csv(tmp / "clash.csv", index=False)
    base = [tmp / "cal.csv", tmp / "clash.csv", "--score", "score", "--label", "y"]
    expect_usage_error(run(*base, "-o", tmp / "o.csv"), "already has the column", "--prefix")
    result = run(*base, "--merge", "square", "--prefix", "va_", "-o", tmp / "o.csv")
    assert result.exit_code == 0, result.output
    written = pd.read_csv(tmp / "o.csv")
    p0, p1 = written["va_p0"], written["va_p1"]
    np.testing.assert_allclose(written["va_p"], p1 + p0**2 / 2 - p1**2 / 2)
    assert (written["p"] == 0.5).all()


def test_existing_output_needs_force(files):
    tmp, _, _ = files
    out = tmp / "out.csv"
    out.write_text("keep me\n")
    args = [tmp / "cal.csv", tmp / "test.csv", "--score", "score", "--label", "y", "-o", out]
    expect_usage_error(run(*args), "already exists", "--force")
    assert out.read_text() == "keep me\n"
    assert run(*args, "--force").exit_code == 0
    assert "p1" in pd.read_csv(out).columns


# ----------------------------------------------------------------------------- bad input
def _write(path, text):
    path.write_text(text)
    return path


def test_bad_files(files):
    tmp, _, _ = files
    common = ["--score", "score", "--label", "y", "-o", tmp / "o.csv"]
    expect_usage_error(run(tmp / "nope.csv", tmp / "test.csv", *common), "does not exist")
    expect_usage_error(run(tmp / "cal.xlsx", tmp / "test.csv", *common), ".parquet")
    ragged = _write(tmp / "ragged.csv", "score,y\n1,0\n2,1,7,8\n3,0\n")
    expect_usage_error(run(ragged, tmp / "test.csv", *common), "cannot read")
    empty = _write(tmp / "empty.csv", "")
    expect_usage_error(run(empty, tmp / "test.csv", *common), "cannot read")
    header_only = _write(tmp / "header.csv", "score,y\n")
    expect_usage_error(run(header_only, tmp / "test.csv", *common), "no data rows")
    fake_parquet = _write(tmp / "fake.parquet", "not parquet at all")
    expect_usage_error(run(fake_parquet, tmp / "test.csv", *common), "cannot read")
    expect_usage_error(
        run(tmp / "cal.csv", tmp / "test.csv", "--score", "score", "--label", "y",
            "-o", tmp / "out.xlsx"),
        ".parquet",
    )  # fmt: skip
    expect_usage_error(
        run(tmp / "cal.csv", tmp / "test.csv", "--score", "score", "--label", "y",
            "-o", tmp / "missing_dir" / "o.csv"),
        "does not exist",
    )  # fmt: skip
    assert not (tmp / "o.csv").exists()


def test_bad_columns_and_values(files):
    tmp, cal, test = files
    out = ["-o", tmp / "o.csv"]
    expect_usage_error(
        run(tmp / "cal.csv", tmp / "test.csv", "--score", "nope", "--label", "y", *out),
        "--score 'nope'",
        "'id'",
    )
    expect_usage_error(
        run(tmp / "cal.csv", tmp / "test.csv", "--score", "score", "--label", "nope", *out),
        "--label 'nope'",
    )
    three = cal.assign(y=np.resize(["a", "b", "c"], len(cal)))
    three.to_csv(tmp / "three.csv", index=False)
    expect_usage_error(
        run(tmp / "three.csv", tmp / "test.csv", "--score", "score", "--label", "y", *out),
        "3 classes",
        "two classes",
    )
    cal.assign(y="yes").to_csv(tmp / "one.csv", index=False)
    expect_usage_error(
        run(tmp / "one.csv", tmp / "test.csv", "--score", "score", "--label", "y", *out),
        "one class only",
    )
    bad_scores = cal.astype({"score": object})
    bad_scores.loc[5, "score"] = np.nan
    bad_scores.to_csv(tmp / "nan.csv", index=False)
    expect_usage_error(
        run(tmp / "nan.csv", tmp / "test.csv", "--score", "score", "--label", "y", *out),
        "NaN",
        "'score'",
    )
    test.assign(score=test["score"].astype(str).where(test.index != 3, "high")).to_csv(
        tmp / "text.csv", index=False
    )
    expect_usage_error(
        run(tmp / "cal.csv", tmp / "text.csv", "--score", "score", "--label", "y", *out),
        "must hold numbers",
    )
    test.assign(score=np.where(test.index == 2, np.inf, test["score"])).to_csv(
        tmp / "inf.csv", index=False
    )
    expect_usage_error(
        run(tmp / "cal.csv", tmp / "inf.csv", "--score", "score", "--label", "y", *out),
        "infinite",
    )
    cal.assign(y=cal["y"].where(cal.index != 7, None)).to_csv(tmp / "nolabel.csv", index=False)
    expect_usage_error(
        run(tmp / "nolabel.csv", tmp / "test.csv", "--score", "score", "--label", "y", *out),
        "missing labels",
    )
    expect_usage_error(
        run(tmp / "cal.csv", tmp / "test.csv", "--score", "score", "--label", "y",
            "--positive", "maybe", *out),
        "--positive 'maybe'",
    )  # fmt: skip
    cal.assign(w=-1.0).to_csv(tmp / "negw.csv", index=False)
    expect_usage_error(
        run(tmp / "negw.csv", tmp / "test.csv", "--score", "score", "--label", "y",
            "--weight", "w", *out),
        "non-negative",
    )  # fmt: skip
    assert not (tmp / "o.csv").exists()


def test_bad_options(files):
    tmp, _, _ = files
    base = [tmp / "cal.csv", tmp / "test.csv", "--score", "score", "--label", "y",
            "-o", tmp / "o.csv"]  # fmt: skip
    expect_usage_error(run(*base, "--method", "isotonic", "--merge", "log"), "--merge")
    expect_usage_error(run(*base, "--n-bins", "5"), "--n-bins applies to")
    assert run(*base, "--method", "magic").exit_code == 2
    assert run(*base[:-2]).exit_code == 2  # --out is required


def test_commands_are_registered():
    result = CliRunner().invoke(main, ["--help"])
    assert result.exit_code == 0
    assert "calibrate" in result.output and "evaluate" in result.output
