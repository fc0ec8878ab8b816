"""The command line names the offending value, explains a metric it cannot define, and lists
every suffix it accepts."""

import numpy as np
import pandas as pd

from tests.cli.test_fit_apply import one_line_error, run


def test_a_non_numeric_score_is_named_by_its_row_and_value(tmp_path):
    scores = ["0.1", "0.2", "0.3", "0.4", "0.5", "abc", "0.7"]
    pd.DataFrame({"score": scores, "y": [0, 1, 0, 1, 0, 1, 1]}).to_csv(
        tmp_path / "bad.csv", index=False
    )
    result = run("fit", tmp_path / "bad.csv", "--score", "score", "--label", "y", "-o",
                 tmp_path / "m.json")  # fmt: skip
    one_line_error(result, "row 5 holds 'abc'")
    result = run("evaluate", tmp_path / "bad.csv", "--proba", "score", "--label", "y")
    one_line_error(result, "row 5 holds 'abc'")


def test_auc_of_one_class_is_explained(tmp_path):
    pd.DataFrame({"p": np.linspace(0.1, 0.9, 10), "y": np.zeros(10, int)}).to_csv(
        tmp_path / "one.csv", index=False
    )
    result = run("evaluate", tmp_path / "one.csv", "--proba", "p", "--label", "y")
    assert result.exit_code == 0, result.output
    assert "auc is not defined (nan): the labels hold one class only" in result.output


def test_a_wrong_suffix_lists_every_accepted_one(tmp_path):
    (tmp_path / "cal.csv").write_text("score,y\n0.1,0\n0.9,1\n0.4,0\n0.6,1\n")
    result = run("fit", tmp_path / "cal.csv", "--score", "score", "--label", "y", "-o",
                 tmp_path / "m.json")  # fmt: skip
    assert result.exit_code == 0, result.output
    result = run("apply", tmp_path / "m.json", tmp_path / "cal.csv", "-o", tmp_path / "o.xlsx")
    one_line_error(result, ".csv, .tsv, .txt (comma-separated), .parquet or .pq")


def test_a_parquet_folder_whose_files_store_a_column_with_two_types(tmp_path):
    import venncal

    rng = np.random.default_rng(0)
    folder = tmp_path / "cal"
    folder.mkdir()
    ints = pd.DataFrame({"score": np.arange(60) % 7, "y": np.arange(60) % 2})
    floats = pd.DataFrame({"score": rng.random(60), "y": (rng.random(60) < 0.5).astype(int)})
    ints.to_parquet(folder / "a.parquet", index=False)
    floats.to_parquet(folder / "b.parquet", index=False)
    result = run("fit", folder, "--score", "score", "--label", "y", "-o", tmp_path / "m.json")
    assert result.exit_code == 0, result.output
    both = pd.concat([ints.astype({"score": float}), floats])
    want = venncal.VennAbersCalibrator().fit(both["score"], both["y"])
    got = venncal.load(tmp_path / "m.json")
    t = np.linspace(-1, 8, 50)
    np.testing.assert_array_equal(got.predict_interval(t), want.predict_interval(t))
    pd.DataFrame({"score": ["x"] * 5, "y": [0, 1, 0, 1, 1]}).to_parquet(
        folder / "c.parquet", index=False
    )
    result = run("fit", folder, "--score", "score", "--label", "y", "-o", tmp_path / "n.json")
    # a file storing the scores as text is refused as apply refuses it, naming the file
    one_line_error(result, "c.parquet", "column 'score' (--score) must hold numbers")


def test_a_column_named_y_is_named_once(tmp_path):
    """The message of a NaN in a score column called y (or scores) names it once."""
    pd.DataFrame({"y": [0.1, np.nan, 0.3, 0.4], "lab": [0, 1, 0, 1]}).to_csv(
        tmp_path / "cal.csv", index=False
    )
    result = run("fit", tmp_path / "cal.csv", "--score", "y", "--label", "lab", "--method",
                 "platt", "-o", tmp_path / "m.json")  # fmt: skip
    message = one_line_error(result, "column 'y' (--score) holds 1 NaN value(s)")
    assert message.count("(--score)") == 1, message
