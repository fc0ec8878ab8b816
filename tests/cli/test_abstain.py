"""``venncal apply --abstain-at``: the accept column of an abstention rule fitted on held rows."""

import numpy as np
import pandas as pd
import pytest

import venncal
from tests.cli._helpers import expect_usage_error, run


@pytest.fixture
def files(tmp_path):
    rng = np.random.default_rng(0)
    for name, n in [("cal", 2000), ("held", 3000), ("new", 1000)]:
        s = np.round(rng.normal(size=n), 4)
        y = np.where(rng.random(n) < 1 / (1 + np.exp(-3 * s)), "yes", "no")
        pd.DataFrame({"score": s, "y": y, "id": np.arange(n)}).to_csv(
            tmp_path / f"{name}.csv", index=False
        )
    result = run("fit", tmp_path / "cal.csv", "--score", "score", "--label", "y",
                 "--method", "venn-abers", "-o", tmp_path / "model.json")  # fmt: skip
    assert result.exit_code == 0, result.output
    return tmp_path


def test_accept_is_the_rule_fitted_on_the_held_rows(files):
    out = files / "out.parquet"
    result = run("apply", files / "model.json", files / "new.csv", "-o", out,
                 "--abstain-at", "0.05", "--abstain-data", files / "held.csv")  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "accept" in result.output
    cal = venncal.load(files / "model.json")
    held = pd.read_csv(files / "held.csv")
    rule = venncal.AbstentionRule(target_error=0.05).fit(
        cal.predict_proba(held["score"])[:, 1], (held["y"] == "yes").astype(int)
    )
    new = pd.read_csv(files / "new.csv")
    written = pd.read_parquet(out)
    assert written["accept"].dtype == bool
    want = rule.accept(cal.predict_proba(new["score"])[:, 1])
    np.testing.assert_array_equal(written["accept"].to_numpy(), want)
    assert 0.2 < want.mean() < 1.0
    assert f"{rule.threshold_:.6g}" in result.output


def test_delta_and_prefix(files):
    out = files / "out.csv"
    result = run("apply", files / "model.json", files / "new.csv", "-o", out, "--prefix", "c_",
                 "--abstain-at", "0.1", "--delta", "0.01", "--abstain-data", files / "held.csv",
                 "--label", "y", "--positive", "yes")  # fmt: skip
    assert result.exit_code == 0, result.output
    written = pd.read_csv(out)
    assert list(written.columns[-4:]) == ["c_p", "c_p0", "c_p1", "c_accept"]
    cal = venncal.load(files / "model.json")
    held = pd.read_csv(files / "held.csv")
    rule = venncal.AbstentionRule(target_error=0.1, delta=0.01).fit(
        cal.predict_proba(held["score"])[:, 1], (held["y"] == "yes").astype(int)
    )
    np.testing.assert_array_equal(written["c_accept"].to_numpy(), rule.accept(written["c_p"]))


def test_refusals_are_one_line(files):
    model, new, out = files / "model.json", files / "new.csv", files / "out.csv"
    held = files / "held.csv"
    expect_usage_error(run("apply", model, new, "-o", out, "--abstain-at", "0.05"),
                       "--abstain-data")  # fmt: skip
    expect_usage_error(
        run("apply", model, new, "-o", out, "--abstain-at", "0.001", "--abstain-data", held),
        "smallest target these rows can meet is",
    )
    expect_usage_error(run("apply", model, new, "-o", out, "--abstain-data", held),
                       "go with --abstain-at")  # fmt: skip
    expect_usage_error(
        run("apply", model, new, "-o", out, "--abstain-at", "0.05", "--abstain-data", held,
            "--backend", "dask"),
        "--backend local only",
    )  # fmt: skip
    expect_usage_error(
        run("apply", model, new, "-o", out, "--abstain-at", "0.05", "--abstain-data", held,
            "--label", "nope"),
        "nope",
    )  # fmt: skip
    result = run("apply", model, new, "-o", out, "--abstain-at", "1.5")
    assert result.exit_code == 2
    assert not out.exists()


def _saved_rule(files, **params):
    cal = venncal.load(files / "model.json")
    held = pd.read_csv(files / "held.csv")
    y = (held["y"] == "yes").astype(int)
    rule = venncal.AbstentionRule(**params)
    if params.get("confidence") == "lower":
        rule.fit(cal.predict_interval(held["score"]), y)
    else:
        rule.fit(cal.predict_proba(held["score"])[:, 1], y)
    path = venncal.save(rule, files / f"rule{len(params)}.json")
    return rule, path


def test_a_saved_rule_gives_its_accept(files):
    cal = venncal.load(files / "model.json")
    new = pd.read_csv(files / "new.csv")
    for params in ({"target_error": 0.05}, {"target_error": 0.1, "confidence": "lower"}):
        rule, path = _saved_rule(files, **params)
        out = files / f"out{len(params)}.csv"
        result = run("apply", files / "model.json", files / "new.csv", "-o", out,
                     "--abstain-rule", path)  # fmt: skip
        assert result.exit_code == 0, result.output
        scores = new["score"].to_numpy()
        want = rule.accept(
            cal.predict_interval(scores) if "confidence" in params
            else cal.predict_proba(scores)[:, 1]
        )  # fmt: skip
        np.testing.assert_array_equal(pd.read_csv(out)["accept"].to_numpy(), want)
        assert f"{rule.threshold_:.6g}" in result.output


def test_saved_rules_that_do_not_fit_are_refused(files):
    model, new, out = files / "model.json", files / "new.csv", files / "out.csv"
    _, path = _saved_rule(files, target_error=0.05)
    expect_usage_error(run("apply", model, new, "-o", out, "--abstain-rule", path,
                           "--abstain-at", "0.05"), "not both")  # fmt: skip
    expect_usage_error(run("apply", model, new, "-o", out, "--abstain-rule", model),
                       "not an AbstentionRule")  # fmt: skip
    rng = np.random.default_rng(3)
    p = rng.random(3000)
    y = (rng.random(3000) < p).astype(int)
    grouped = venncal.AbstentionRule(target_error=0.1).fit(p, y, groups=np.arange(3000) % 2)
    gpath = venncal.save(grouped, files / "grouped.json")
    expect_usage_error(run("apply", model, new, "-o", out, "--abstain-rule", gpath),
                       "without groups")  # fmt: skip
    result = run("fit", files / "cal.csv", "--score", "score", "--label", "y",
                 "--method", "platt", "-o", files / "platt.json")  # fmt: skip
    assert result.exit_code == 0, result.output
    _, lower = _saved_rule(files, target_error=0.1, confidence="lower")
    expect_usage_error(run("apply", files / "platt.json", new, "-o", out, "--abstain-rule",
                           lower), "gives no interval")  # fmt: skip
    assert not out.exists()
