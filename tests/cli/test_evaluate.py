"""``venncal evaluate``: the printed metrics agree with venncal.metrics; files and exit codes."""

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from tests.cli._helpers import expect_usage_error
from venncal import metrics
from venncal.cli import main
from venncal.cli.evaluate import metrics_table


def _has_plotting():
    try:
        from venncal.plotting import BrierCurveDisplay, ReliabilityDisplay  # noqa: F401
    except ImportError:
        return False
    return True


@pytest.fixture
def predictions(tmp_path):
    rng = np.random.default_rng(1)
    n = 300
    truth = rng.uniform(0.05, 0.95, n)
    y = (rng.random(n) < truth).astype(int)
    over = np.clip(0.5 + 1.8 * (truth - 0.5), 0, 1)  # over-confident, with exact 0s and 1s
    p0 = np.clip(truth - 0.03, 0, 1)
    p1 = np.clip(truth + 0.03, 0, 1)
    frame = pd.DataFrame({"y": y, "good": truth, "over": over, "p0": p0, "p1": p1})
    frame.to_csv(tmp_path / "pred.csv", index=False)
    return tmp_path, frame


def run(*args):
    return CliRunner().invoke(main, ["evaluate", *map(str, args)])


def test_metrics_table_agrees_with_the_metrics(predictions):
    _, frame = predictions
    y = frame["y"].to_numpy()
    cols = {"good": frame["good"].to_numpy(), "over": frame["over"].to_numpy()}
    table = metrics_table(y, cols, n_bins=10)
    for name, p in cols.items():
        row = table.loc[name]
        assert row["n"] == len(y)
        assert row["log_loss"] == metrics.log_loss(y, p)
        assert row["brier"] == pytest.approx(metrics.brier_score(y, p))
        assert row["rmse"] == pytest.approx(np.sqrt(np.mean((p - y) ** 2)))
        assert row["ece"] == pytest.approx(metrics.ece(y, p, n_bins=10))
        assert row["mce"] == pytest.approx(metrics.mce(y, p, n_bins=10))
        assert row["auc"] == pytest.approx(metrics.roc_auc(y, p))
        assert row["accuracy"] == pytest.approx(np.mean((p >= 0.5) == y))
    assert table.loc["good", "ece"] < table.loc["over", "ece"]
    assert np.isinf(table.loc["over", "log_loss"])  # 0 or 1 meets the other label


def test_prints_the_table(predictions):
    tmp, frame = predictions
    result = run(tmp / "pred.csv", "--label", "y", "--proba", "good", "--proba", "over")
    assert result.exit_code == 0, result.output
    out = result.output
    for metric in ("log_loss", "brier", "rmse", "ece", "mce", "auc", "accuracy"):
        assert metric in out
    y = frame["y"].to_numpy()
    assert f"{metrics.brier_score(y, frame['good']):.4f}" in out
    assert "inf" in out.split("log_loss")[1].splitlines()[0]
    assert f"{len(frame)} rows, {int(y.sum())} positive" in out


def _printed(output, row):
    """The values printed on the line of ``row``, one per line that has it."""
    return [line.split()[1:] for line in output.splitlines() if line.split()[:1] == [row]]


def test_interval_columns(predictions):
    tmp, _ = predictions
    result = run(tmp / "pred.csv", "--label", "y", "--proba", "good", "--interval", "p0", "p1")
    assert result.exit_code == 0, result.output
    assert _printed(result.output, "interval_width") == [["0.0600"]]
    expect_usage_error(
        run(tmp / "pred.csv", "--label", "y", "--proba", "good", "--interval", "p1", "p0"),
        "must not exceed",
    )


def test_out_dir_and_force(predictions):
    tmp, _ = predictions
    out = tmp / "report"
    args = [tmp / "pred.csv", "--label", "y", "--proba", "good", "--proba", "over"]
    result = run(*args, "--out-dir", out, "--no-plots")
    assert result.exit_code == 0, result.output
    saved = pd.read_csv(out / "metrics.csv")
    assert list(saved["prediction"]) == ["good", "over"]
    assert not (out / "reliability.png").exists()
    before = (out / "metrics.csv").read_text()
    expect_usage_error(run(*args, "--out-dir", out, "--no-plots"), "already exists", "--force")
    assert (out / "metrics.csv").read_text() == before
    assert run(*args, "--out-dir", out, "--no-plots", "--force").exit_code == 0
    (tmp / "afile").write_text("x")
    expect_usage_error(run(*args, "--out-dir", tmp / "afile"), "is a file")


@pytest.mark.skipif(not _has_plotting(), reason="venncal.plotting not in this installation yet")
def test_writes_the_figures(predictions):
    tmp, _ = predictions
    out = tmp / "figs"
    result = run(tmp / "pred.csv", "--label", "y", "--proba", "good", "--proba", "over",
                 "--out-dir", out)  # fmt: skip
    assert result.exit_code == 0, result.output
    for name in ("metrics.csv", "reliability.png", "brier_curve.png"):
        data = (out / name).read_bytes()
        assert len(data) > 100
    assert (out / "reliability.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    expect_usage_error(run(tmp / "pred.csv", "--label", "y", "--proba", "good",
                            "--out-dir", out), "already exists")  # fmt: skip


def test_parquet_and_positive_label(tmp_path, predictions):
    _, frame = predictions
    named = frame.assign(y=np.where(frame["y"] == 1, "sick", "well"))
    named.to_parquet(tmp_path / "pred.parquet")
    a = run(tmp_path / "pred.parquet", "--label", "y", "--proba", "good", "--positive", "sick")
    assert a.exit_code == 0, a.output
    b = run(tmp_path / "pred.parquet", "--label", "y", "--proba", "good")  # 'well' > 'sick'
    assert a.output != b.output
    frame.to_csv(tmp_path / "pred01.csv", index=False)
    c = run(tmp_path / "pred01.csv", "--label", "y", "--proba", "good")
    assert c.output.splitlines()[1:] == a.output.splitlines()[1:]


def test_bad_input(predictions):
    tmp, frame = predictions
    path = tmp / "pred.csv"
    expect_usage_error(run(tmp / "none.csv", "--label", "y", "--proba", "good"), "does not exist")
    expect_usage_error(run(path, "--label", "y", "--proba", "nope"), "--proba 'nope'")
    expect_usage_error(run(path, "--label", "nope", "--proba", "good"), "--label 'nope'")
    expect_usage_error(run(path, "--label", "y", "--proba", "good", "--proba", "good"), "once")
    frame.assign(big=frame["good"] * 2).to_csv(tmp / "big.csv", index=False)
    expect_usage_error(run(tmp / "big.csv", "--label", "y", "--proba", "big"), "[0, 1]")
    frame.assign(good=frame["good"].where(frame.index != 4)).to_csv(tmp / "nan.csv", index=False)
    expect_usage_error(run(tmp / "nan.csv", "--label", "y", "--proba", "good"), "NaN")
    frame.assign(y=frame.index % 3).to_csv(tmp / "three.csv", index=False)
    expect_usage_error(run(tmp / "three.csv", "--label", "y", "--proba", "good"), "3 classes")
    expect_usage_error(
        run(path, "--label", "y", "--proba", "good", "--positive", "2"), "--positive '2'"
    )
    (tmp / "bad.csv").write_bytes(b"\xff\xfe\x00garbage\x00\n\x01,\x02,\x03\n")
    expect_usage_error(run(tmp / "bad.csv", "--label", "y", "--proba", "good"), "bad.csv")
    assert run(path, "--label", "y").exit_code == 2  # --proba is required


def test_one_class_is_accepted_only_when_unambiguous(tmp_path, predictions):
    _, frame = predictions
    frame.assign(y=1).to_csv(tmp_path / "ones.csv", index=False)
    result = run(tmp_path / "ones.csv", "--label", "y", "--proba", "good")
    assert result.exit_code == 0, result.output
    auc_line = [line for line in result.output.splitlines() if line.startswith("auc")][0]
    assert "nan" in auc_line
    brier_line = [line for line in result.output.splitlines() if line.startswith("brier")][0]
    assert f"{np.mean((frame['good'] - 1) ** 2):.4f}" in brier_line
    frame.assign(y="sick").to_csv(tmp_path / "sick.csv", index=False)
    expect_usage_error(run(tmp_path / "sick.csv", "--label", "y", "--proba", "good"),
                        "one class only", "--positive")  # fmt: skip
    ok = run(tmp_path / "sick.csv", "--label", "y", "--proba", "good", "--positive", "sick")
    assert ok.exit_code == 0 and ok.output.splitlines()[1:] == result.output.splitlines()[1:]


def _calibrated_near_miss(tmp_path, n=2000, seed=3):
    """Calibrated predictions whose mean interval misses the observed frequency by half an SE."""
    rng = np.random.default_rng(seed)
    truth = rng.uniform(0.05, 0.95, n)
    y = (rng.random(n) < truth).astype(int)
    f = y.mean()
    se = np.sqrt(f * (1 - f) / n)
    centre = truth - truth.mean() + f + 0.5 * se + 0.01  # mean interval [f + se/2, f + se/2 + .02]
    frame = pd.DataFrame({"y": y, "a": truth, "b": 1 - truth, "p0": centre - 0.01,
                          "p1": centre + 0.01})  # fmt: skip
    assert frame[["p0", "p1"]].to_numpy().min() > 0 and frame["p1"].max() < 1
    frame.to_csv(tmp_path / "near.csv", index=False)
    return frame, f, se


def test_interval_miss_within_sampling_error_is_valid(tmp_path):
    frame, f, se = _calibrated_near_miss(tmp_path)
    result = run(tmp_path / "near.csv", "--label", "y", "--proba", "a", "--interval", "p0", "p1")
    assert result.exit_code == 0, result.output
    values = {row: float(_printed(result.output, row)[0][0]) for row in (
        "observed_frequency", "mean_p0", "mean_p1", "frequency_std_error", "interval_miss",
        "bins_valid_within_2se")}  # fmt: skip
    # a yes/no verdict is printed as yes or no, not as a number
    assert _printed(result.output, "interval_valid_within_2se") == [["yes"]]
    assert values["observed_frequency"] == pytest.approx(f, abs=5e-5)
    assert values["frequency_std_error"] == pytest.approx(se, abs=5e-5)
    assert values["mean_p0"] == pytest.approx(frame["p0"].mean(), abs=5e-5)
    assert values["mean_p1"] == pytest.approx(frame["p1"].mean(), abs=5e-5)
    assert values["interval_miss"] == pytest.approx(0.5 * se, abs=5e-5)
    # per bin, by a naive loop over the 10 equal-width bins of the midpoint
    y, p0, p1 = frame["y"].to_numpy(), frame["p0"].to_numpy(), frame["p1"].to_numpy()
    mid = (p0 + p1) / 2
    verdicts = []
    for b in range(10):
        inside = (mid >= b / 10) & ((mid < (b + 1) / 10) if b < 9 else (mid <= 1))
        if inside.any():
            fb, m = y[inside].mean(), inside.sum()
            miss = max(p0[inside].mean() - fb, fb - p1[inside].mean(), 0.0)
            verdicts.append(miss <= 2 * np.sqrt(fb * (1 - fb) / m))
    assert values["bins_valid_within_2se"] == pytest.approx(np.mean(verdicts), abs=5e-5)
    assert values["bins_valid_within_2se"] >= 0.8
    assert "within 2 standard errors" in result.output


def test_interval_rows_are_printed_once(tmp_path):
    _calibrated_near_miss(tmp_path)
    result = run(tmp_path / "near.csv", "--label", "y", "--proba", "a", "--proba", "b",
                 "--interval", "p0", "p1", "--out-dir", tmp_path / "out", "--no-plots")  # fmt: skip
    assert result.exit_code == 0, result.output
    for row in ("interval_width", "observed_frequency", "interval_miss",
                "interval_valid_within_2se", "bins_valid_within_2se"):  # fmt: skip
        printed = _printed(result.output, row)
        assert len(printed) == 1 and len(printed[0]) == 1, (row, result.output)
    assert len(_printed(result.output, "ece")[0]) == 2
    saved = pd.read_csv(tmp_path / "out" / "metrics.csv")
    assert not [c for c in saved.columns if "interval" in c]
    coverage = pd.read_csv(tmp_path / "out" / "intervals.csv").set_index("metric")["value"]
    assert coverage["interval_valid_within_2se"] == 1.0
    assert not (tmp_path / "out" / "venn_intervals.png").exists()


@pytest.mark.skipif(not _has_plotting(), reason="venncal.plotting not in this installation yet")
def test_writes_the_venn_interval_picture(tmp_path):
    _calibrated_near_miss(tmp_path)
    out = tmp_path / "figs"
    args = [tmp_path / "near.csv", "--label", "y", "--proba", "a", "--out-dir", out]
    result = run(*args, "--interval", "p0", "p1")
    assert result.exit_code == 0, result.output
    data = (out / "venn_intervals.png").read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 1000
    from matplotlib import image

    assert image.imread(out / "venn_intervals.png").ndim == 3
    assert "venn_intervals.png" in result.output
    assert not [p.name for p in out.iterdir() if p.name.startswith(".venncal-tmp-")]
    # without --interval there is no interval picture, and an existing one needs --force
    plain = tmp_path / "plain"
    assert run(*args[:-1], plain).exit_code == 0
    assert not (plain / "venn_intervals.png").exists()
    (out / "metrics.csv").unlink()
    (out / "intervals.csv").unlink()
    for name in ("reliability.png", "brier_curve.png"):
        (out / name).unlink()
    expect_usage_error(run(*args, "--interval", "p0", "p1"), "already exists", "venn_intervals")
