"""Optional parts (Parquet, Dask) that are not installed: one line naming the extra, exit 2,
before anything is fitted or written."""

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from venncal.cli import main
from venncal.cli._extras import MissingExtraError, has_module, require_extra


@pytest.fixture
def no_parquet(monkeypatch):
    """Pretend neither Parquet engine is installed (``import pyarrow`` fails)."""
    for name in ("pyarrow", "fastparquet"):
        monkeypatch.setitem(sys.modules, name, None)


@pytest.fixture
def no_dask(monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)


@pytest.fixture
def fits(monkeypatch):
    """Record every fit of a calibrator the command would run."""
    from venncal import VennAbersCalibrator

    calls = []
    original = VennAbersCalibrator.fit

    def fit(self, *args, **kwargs):
        calls.append(1)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(VennAbersCalibrator, "fit", fit)
    return calls


@pytest.fixture
def files(tmp_path):
    rng = np.random.default_rng(0)
    s = rng.normal(size=60)
    y = (rng.random(60) < 1 / (1 + np.exp(-2 * s))).astype(int)
    frame = pd.DataFrame({"score": s, "y": y, "p": 1 / (1 + np.exp(-s))})
    frame.to_csv(tmp_path / "cal.csv", index=False)
    frame[["score"]].to_csv(tmp_path / "test.csv", index=False)
    frame.to_parquet(tmp_path / "data.parquet", index=False)  # written while pyarrow is there
    return tmp_path


def _one_line_error(result, *fragments):
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    assert lines[0].startswith("Error: "), result.output
    assert "Traceback" not in result.output
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


def _calibrate(tmp, cal, test, out):
    args = ["calibrate", str(tmp / cal), str(tmp / test), "--score", "score", "--label", "y"]
    return CliRunner().invoke(main, [*args, "-o", str(tmp / out)])


def test_the_simulated_missing_module_is_missing(no_parquet, no_dask):
    """The fixtures must be able to make the check fail."""
    assert not has_module("pyarrow") and not has_module("distributed")
    with pytest.raises(ImportError):
        pd.DataFrame({"a": [1]}).to_parquet("never-written.parquet")


def test_require_extra_names_the_extra(no_parquet):
    require_extra("numpy", "parquet", "something")  # installed: nothing happens
    require_extra(("pyarrow", "numpy"), "parquet", "something")  # one alternative is enough
    with pytest.raises(MissingExtraError, match=r'pip install "venncal\[parquet\]"'):
        require_extra("pyarrow", "parquet", "writing Parquet")


def test_calibrate_to_parquet_without_pyarrow_stops_before_the_fit(files, no_parquet, fits):
    result = _calibrate(files, "cal.csv", "test.csv", "out.parquet")
    _one_line_error(result, 'pip install "venncal[parquet]"', "out.parquet", "writing")
    assert not (files / "out.parquet").exists()
    assert fits == []


def test_calibrate_from_parquet_without_pyarrow_names_the_extra(files, no_parquet, fits):
    result = _calibrate(files, "data.parquet", "test.csv", "out.csv")
    _one_line_error(result, 'pip install "venncal[parquet]"', "data.parquet", "reading")
    assert not (files / "out.csv").exists()
    assert fits == []


BLOCKED = """
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {"pyarrow", "fastparquet"}:
            raise ImportError("blocked " + name)
sys.meta_path.insert(0, Block())
from venncal.cli import main
main(sys.argv[1:])
"""


@pytest.mark.parametrize("out", ["out.csv", "out.parquet"])
def test_an_installation_without_pyarrow(files, out):
    """As in an installation without pyarrow (a dependency since CSV values are read as the
    text they are by its reader): one line naming the extra, before the fit."""
    args = [str(files / "cal.csv"), str(files / "test.csv"), "--score", "score", "--label", "y"]
    result = subprocess.run(
        [sys.executable, "-c", BLOCKED, "calibrate", *args, "-o", str(files / out)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 2, result.stderr
    assert result.stderr.strip().count("\n") == 0, result.stderr
    assert 'pip install "venncal[parquet]"' in result.stderr
    assert not (files / out).exists()


def test_calibrate_checks_the_output_suffix_before_the_fit(files, fits):
    result = _calibrate(files, "cal.csv", "test.csv", "out.xlsx")
    _one_line_error(result, "--out", ".xlsx")
    assert fits == []


def test_evaluate_parquet_without_pyarrow_names_the_extra(files, no_parquet):
    result = CliRunner().invoke(
        main,
        ["evaluate", str(files / "data.parquet"), "--label", "y", "--proba", "p",
         "--out-dir", str(files / "ev")],
    )  # fmt: skip
    _one_line_error(result, 'pip install "venncal[parquet]"')
    assert not (files / "ev").exists()


def test_reproduce_dask_without_distributed_stops_before_the_run(tmp_path, no_dask, monkeypatch):
    from venncal.experiments import studies

    runs = []
    monkeypatch.setattr(studies, "run_study", lambda *a, **k: runs.append(1))
    out = tmp_path / "report"
    result = CliRunner().invoke(
        main, ["reproduce", "tasche-2022", "--backend", "dask", "--out", str(out)]
    )
    _one_line_error(result, 'pip install "venncal[dask]"', "--backend dask")
    assert not out.exists()
    assert runs == []


def test_run_grid_dask_without_distributed_stops_before_the_first_cell(no_dask):
    from venncal.experiments.runner import run_grid

    calls = []
    with pytest.raises(ImportError, match=r'pip install "venncal\[dask\]"'):
        run_grid([{"a": 1}], lambda cell: calls.append(cell) or [], backend="dask", progress=False)
    assert calls == []
