"""``--interval P0 P1`` means one thing on the command line: the columns of the lower and upper
end of each row's probability interval (what ``venncal apply`` writes as p0 and p1, what
``venncal evaluate`` checks). The confidence interval of a score that ACP takes as input is
``--score-interval LOW HIGH`` in ``venncal apply``; ``--interval`` there is its old name, still
accepted with a one-line notice on stderr."""

import numpy as np
import pandas as pd
from click.testing import CliRunner

import venncal
from venncal.cli import main


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def _acp_files(tmp):
    rng = np.random.default_rng(0)
    s = rng.normal(size=400)
    y = (rng.random(400) < 1 / (1 + np.exp(-2 * s))).astype(int)
    pd.DataFrame({"score": s[:300], "y": y[:300]}).to_csv(tmp / "cal.csv", index=False)
    test = pd.DataFrame({"score": s[300:]})
    test.assign(lo=test["score"] - 0.4, hi=test["score"] + 0.1).to_csv(tmp / "iv.csv", index=False)
    res = run("fit", tmp / "cal.csv", "--score", "score", "--label", "y", "--method", "acp",
              "-o", tmp / "model.json")  # fmt: skip
    assert res.exit_code == 0, res.output
    return test


def test_apply_takes_the_score_interval_of_acp(tmp_path):
    test = _acp_files(tmp_path)
    res = run("apply", tmp_path / "model.json", tmp_path / "iv.csv", "-o", tmp_path / "o.csv",
              "--score-interval", "lo", "hi")  # fmt: skip
    assert res.exit_code == 0, res.output
    model = venncal.load(tmp_path / "model.json")
    iv = np.column_stack([test["score"] - 0.4, test["score"] + 0.1])
    want = model.predict_proba(test["score"], interval=iv)[:, 1]
    np.testing.assert_allclose(pd.read_csv(tmp_path / "o.csv")["p"], want, rtol=1e-12)


def test_the_old_name_in_apply_works_with_one_line_on_stderr(tmp_path):
    _acp_files(tmp_path)
    runner = CliRunner()  # keeps standard error apart (click >= 8.2)
    args = ["apply", tmp_path / "model.json", tmp_path / "iv.csv", "-o"]
    new = runner.invoke(main, [str(a) for a in [*args, tmp_path / "a.csv", "--score-interval",
                                                  "lo", "hi"]])  # fmt: skip
    old = runner.invoke(main, [str(a) for a in [*args, tmp_path / "b.csv", "--interval", "lo",
                                                  "hi"]])  # fmt: skip
    assert new.exit_code == 0 and old.exit_code == 0, (new.output, old.output)
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "a.csv"), pd.read_csv(tmp_path / "b.csv"))
    notice = [line for line in old.stderr.splitlines() if "--score-interval" in line]
    assert len(notice) == 1
    assert "--score-interval" not in new.stderr


def test_apply_score_interval_is_for_acp_only(tmp_path):
    _acp_files(tmp_path)
    res = run("fit", tmp_path / "cal.csv", "--score", "score", "--label", "y",
              "-o", tmp_path / "va.json")  # fmt: skip
    assert res.exit_code == 0, res.output
    res = run("apply", tmp_path / "va.json", tmp_path / "iv.csv", "-o", tmp_path / "o.csv",
              "--score-interval", "lo", "hi")  # fmt: skip
    assert res.exit_code == 2
    assert "--score-interval applies to ACP models only" in res.output


def test_evaluate_prints_the_verdict_as_yes_or_no(tmp_path):
    rng = np.random.default_rng(1)
    s = rng.random(2000)
    y = (rng.random(2000) < s).astype(int)
    cal = venncal.VennAbersCalibrator().fit(s[:1000], y[:1000])
    iv = cal.predict_interval(s[1000:])
    frame = pd.DataFrame({"y": y[1000:], "p": cal.predict_proba(s[1000:])[:, 1],
                          "p0": iv[:, 0], "p1": iv[:, 1]})  # fmt: skip
    frame.to_csv(tmp_path / "pred.csv", index=False)
    res = run("evaluate", tmp_path / "pred.csv", "--label", "y", "--proba", "p",
              "--interval", "p0", "p1")  # fmt: skip
    assert res.exit_code == 0, res.output
    line = [ln for ln in res.output.splitlines() if ln.startswith("interval_valid_within_2se")]
    assert len(line) == 1 and line[0].split()[-1] in ("yes", "no"), res.output
    assert "0.0000" not in line[0] and "1.0000" not in line[0]
