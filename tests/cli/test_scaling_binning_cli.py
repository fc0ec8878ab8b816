"""``--method scaling-binning`` on the command line agrees with the library."""

import numpy as np
import pandas as pd
from click.testing import CliRunner

from venncal import ScalingBinningCalibrator
from venncal.cli import main


def _files(tmp_path):
    rng = np.random.default_rng(0)
    s = rng.normal(size=400)
    y = (rng.random(400) < 1 / (1 + np.exp(-2 * s))).astype(int)
    t = rng.normal(size=100)
    pd.DataFrame({"score": s, "y": y}).to_csv(tmp_path / "cal.csv", index=False)
    pd.DataFrame({"score": t}).to_csv(tmp_path / "test.csv", index=False)
    return s, y, t


def run(*args):
    return CliRunner().invoke(main, ["calibrate", *map(str, args)])


def test_calibrate_matches_the_calibrator(tmp_path):
    s, y, t = _files(tmp_path)
    out = tmp_path / "out.csv"
    result = run(tmp_path / "cal.csv", tmp_path / "test.csv", "--score", "score", "--label", "y",
                 "--method", "scaling-binning", "--n-bins", 5, "-o", out)  # fmt: skip
    assert result.exit_code == 0, result.output
    ref = ScalingBinningCalibrator(n_bins=5).fit(s, y)
    np.testing.assert_allclose(pd.read_csv(out)["p"], ref.predict_proba(t)[:, 1], rtol=1e-12)
    assert pd.read_csv(out)["p"].nunique() <= 5


def test_options_of_other_methods_are_refused(tmp_path):
    _files(tmp_path)
    common = [tmp_path / "cal.csv", tmp_path / "test.csv", "--score", "score", "--label", "y"]
    result = run(*common, "--method", "scaling-binning", "--strategy", "uniform", "-o",
                 tmp_path / "a.csv")  # fmt: skip
    assert result.exit_code == 2
    assert "--strategy applies to --method histogram only" in result.output
    result = run(*common, "--method", "platt", "--n-bins", 4, "-o", tmp_path / "b.csv")
    assert result.exit_code == 2
    assert "--n-bins applies to --method histogram and scaling-binning only" in result.output
