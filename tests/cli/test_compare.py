"""``venncal compare``: the table agrees with the library, and bad input exits with code 2."""

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from venncal.cli import main
from venncal.selection import compare_calibrators


@pytest.fixture
def files(tmp_path):
    rng = np.random.default_rng(0)
    s = rng.uniform(size=400)
    y = rng.random(400) < s**2
    frame = pd.DataFrame({"s": s, "f": np.log(s / (1 - s)), "y": np.where(y, "yes", "no")})
    frame.to_csv(tmp_path / "cal.csv", index=False)
    return tmp_path, frame


def run(*args):
    return CliRunner().invoke(main, ["compare", *map(str, args)])


def one_line_error(result, *fragments):
    assert result.exit_code == 2, result.output
    lines = [ln for ln in result.output.strip().splitlines() if ln.startswith("Error:")]
    assert len(lines) == 1, result.output
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


def test_table_and_files_agree_with_the_library(files):
    tmp, frame = files
    out = tmp / "cmp"
    res = run(tmp / "cal.csv", "--score", "s", "--label", "y", "--n-boot", 100, "--seed", 3,
              "--out-dir", out)  # fmt: skip
    assert res.exit_code == 0, res.output
    ref = compare_calibrators(
        frame["s"], frame["y"] == "yes", n_boot=100, random_state=3
    ).table.drop(columns="fit_seconds")
    got = pd.read_csv(out / "comparison.csv").drop(columns="fit_seconds")
    pd.testing.assert_frame_equal(got, ref, check_dtype=False)
    assert (out / "reliability.png").stat().st_size > 1000
    for name in ("uncalibrated", "venn-abers", "isotonic", "platt", "beta", "histogram"):
        assert any(line.startswith(name) for line in res.output.splitlines()), name
    assert "Recommended: " in res.output
    # existing outputs are not overwritten without --force
    again = run(tmp / "cal.csv", "--score", "s", "--label", "y", "--out-dir", out)
    one_line_error(again, "already exists", "--force")


def test_chosen_methods_on_margins(files):
    tmp, _ = files
    res = run(tmp / "cal.csv", "--score", "f", "--label", "y", "--method", "platt",
              "--method", "beta-logit", "--n-boot", 50)  # fmt: skip
    assert res.exit_code == 0, res.output
    names = [ln.split()[0] for ln in res.output.splitlines()[3:5]]
    assert names == ["platt", "beta-logit"]
    assert "uncalibrated" not in res.output


@pytest.mark.parametrize(
    "extra, fragments",
    [
        (["--score", "f", "--label", "y", "--method", "beta"], ["[0, 1]"]),
        (["--score", "nope", "--label", "y"], ["nope"]),
        (["--score", "s", "--label", "y", "--cv", "300"], ["--cv 300"]),
        (["--score", "s", "--label", "y", "--method", "platt", "--method", "platt"],
         ["once"]),
    ],
)  # fmt: skip
def test_bad_input_exits_2(files, extra, fragments):
    tmp, _ = files
    one_line_error(run(tmp / "cal.csv", *extra), *fragments)


def test_one_class_and_malformed_files(files, tmp_path):
    tmp, frame = files
    frame.assign(y="yes").to_csv(tmp / "one.csv", index=False)
    one_line_error(run(tmp / "one.csv", "--score", "s", "--label", "y"))
    (tmp / "bad.csv").write_text("s,y\n0.1,1\n0.2\n")
    one_line_error(run(tmp / "bad.csv", "--score", "s", "--label", "y"))
    (tmp / "file").write_text("x")
    one_line_error(
        run(tmp / "cal.csv", "--score", "s", "--label", "y", "--out-dir", tmp / "file"), "file"
    )


def test_progress_is_shown_when_asked_and_on_a_terminal_only_by_default(files):
    tmp, _ = files
    args = [tmp / "cal.csv", "--score", "s", "--label", "y", "--n-boot", 50, "--method", "platt"]
    runner = CliRunner()
    shown = runner.invoke(main, ["compare", *map(str, args), "--progress"])
    assert shown.exit_code == 0, shown.output
    assert "step" in shown.stderr
    # CliRunner's standard error is not a terminal: no bar by default
    quiet = runner.invoke(main, ["compare", *map(str, args)])
    assert quiet.exit_code == 0, quiet.output
    assert "step" not in quiet.stderr


def test_names_say_the_configuration_and_save_model_writes_the_recommendation(files):
    import venncal

    tmp, frame = files
    model = tmp / "model.json"
    res = run(tmp / "cal.csv", "--score", "s", "--label", "y", "--n-boot", 100, "--seed", 3,
              "--save-model", model)  # fmt: skip
    assert res.exit_code == 0, res.output
    ref = compare_calibrators(frame["s"], frame["y"] == "yes", n_boot=100, random_state=3)
    assert "venn-abers (merge='mean')" in res.output  # the default candidate's merge
    label = ref.label(ref.recommended)
    assert f"Recommended: {label} = {ref.recommended_estimator!r}." in res.output
    loaded = venncal.load(model)
    assert type(loaded).__name__ == type(ref.recommended_estimator).__name__
    assert loaded.get_params() == ref.candidates[ref.recommended].get_params()
    grid = np.linspace(0, 1, 501)
    np.testing.assert_array_equal(
        loaded.predict_proba(grid), ref.recommended_estimator.predict_proba(grid)
    )
    meta = venncal.persistence.read_model_file(model).metadata
    assert meta["method"] == ref.recommended and meta["calibrator"] == label
    # an existing model file is kept without --force, and --force replaces it
    again = run(tmp / "cal.csv", "--score", "s", "--label", "y", "--save-model", model)
    one_line_error(again, "--save-model", "already exists", "--force")
    forced = run(tmp / "cal.csv", "--score", "s", "--label", "y", "--n-boot", 20,
                 "--save-model", model, "--force")  # fmt: skip
    assert forced.exit_code == 0, forced.output


def test_saved_recommendation_is_the_model_venncal_fit_writes(files):
    # --method venn-abers is VennAbersCalibrator() as venncal fit makes it (the log merge):
    # the two model files predict the same
    import venncal

    tmp, _ = files
    args = [tmp / "cal.csv", "--score", "s", "--label", "y", "--positive", "yes"]
    res = run(*args, "--method", "venn-abers", "--n-boot", 50, "--save-model", tmp / "a.json")
    assert res.exit_code == 0, res.output
    assert "Recommended: venn-abers = VennAbersCalibrator()." in res.output
    fit = CliRunner().invoke(main, ["fit", *map(str, args), "--method", "venn-abers",
                                    "-o", str(tmp / "b.json")])  # fmt: skip
    assert fit.exit_code == 0, fit.output
    grid = np.linspace(0, 1, 1001)
    a, b = venncal.load(tmp / "a.json"), venncal.load(tmp / "b.json")
    np.testing.assert_array_equal(a.predict_proba(grid), b.predict_proba(grid))


def test_no_model_is_written_when_the_scores_need_no_calibrator(tmp_path):
    rng = np.random.default_rng(3)
    s = rng.uniform(0.02, 0.98, size=3000)
    y = (rng.random(3000) < s).astype(int)  # calibrated; Platt on probabilities is the wrong shape
    pd.DataFrame({"s": s, "y": y}).to_csv(tmp_path / "cal.csv", index=False)
    res = run(tmp_path / "cal.csv", "--score", "s", "--label", "y", "--method", "platt",
              "--n-boot", 100, "--save-model", tmp_path / "m.json")  # fmt: skip
    assert res.exit_code == 0, res.output
    assert "Recommended: uncalibrated." in res.output
    assert "No model written" in res.output and not (tmp_path / "m.json").exists()


@pytest.mark.parametrize(
    "target, fragments", [("m.csv", ["must end in .json"]), ("cal.csv", ["must end in .json"]),
                          ("nofolder/m.json", ["does not exist"])],
)  # fmt: skip
def test_bad_save_model_paths_exit_2_before_any_work(files, target, fragments):
    tmp, _ = files
    one_line_error(
        run(tmp / "cal.csv", "--score", "s", "--label", "y", "--save-model", tmp / target),
        *fragments,
    )
