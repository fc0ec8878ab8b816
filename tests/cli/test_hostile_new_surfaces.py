"""Hostile input to the newest command-line surfaces: regression fits and applies, K-class
score columns, multicalibration segments, abstention, export of every model kind, monitor,
evaluate, compare, calibrate, demo and reproduce.

Every refusal must exit with code 2 and one ``Error:`` line on standard error (no traceback,
nothing on standard output), leave every file of the folder as it was and write nothing new.
Arguments starting with ``@`` name files of the shared folder.
"""

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import venncal
from tests.cli._helpers import run
from venncal.cli import _stream


def _write_files(folder):
    rng = np.random.default_rng(0)
    n = 300
    s = rng.random(n)
    y = (rng.random(n) < s).astype(int)
    g, age = rng.choice(["a", "b"], n), rng.integers(20, 60, n)
    w = rng.random(n) + 0.5
    binary = pd.DataFrame({"id": np.arange(n), "score": s, "y": y, "w": w, "g": g, "age": age})
    binary.to_csv(folder / "bin.csv", index=False)
    binary.to_parquet(folder / "bin.parquet", index=False)
    pred = rng.normal(size=n)
    reg = pd.DataFrame({"pred": pred, "t": pred + rng.normal(size=n), "w": rng.random(n) + 0.5})
    reg.to_csv(folder / "reg.csv", index=False)
    P = rng.dirichlet([1, 1, 1], n)
    labels = np.array(["cat", "dog", "eel"])[[rng.choice(3, p=p) for p in P]]
    k = pd.DataFrame({"p_cat": P[:, 0], "p_dog": P[:, 1], "p_eel": P[:, 2], "y": labels})
    k.to_csv(folder / "k.csv", index=False)
    k.assign(y="cat").to_csv(folder / "k_one_class.csv", index=False)
    clash = k.rename(columns={"p_dog": "a_lower", "p_cat": "a"})
    clash.assign(y=np.array(["a", "a_lower", "p_eel"])[rng.integers(0, 3, n)]).to_csv(
        folder / "k_classes_clash.csv", index=False
    )
    binary.assign(g=np.nan).to_csv(folder / "seg_all_missing.csv", index=False)
    text = {
        "empty.csv": "",
        "reg_header.csv": "pred,t\n",
        "reg_dup.csv": "pred,pred,t\n1,2,3\n2,3,4\n",
        "reg_text_target.csv": "pred,t\n1,2\n2,abc\n3,4\n",
        "reg_empty_target.csv": "pred,t\n1,2\n2,\n3,4\n",
        "reg_inf_target.csv": "pred,t\n1,2\n2,inf\n3,4\n",
        "reg_nan_pred.csv": "pred,t\n1,2\nnan,3\n3,4\n",
        "reg_neg_weight.csv": "pred,t,w\n1,2,1\n2,3,-1\n3,4,1\n",
        "reg_zero_weight.csv": "pred,t,w\n1,2,0\n2,3,0\n3,4,0\n",
        "reg_nan_weight.csv": "pred,t,w\n1,2,1\n2,3,nan\n3,4,1\n",
        "new_pred.csv": "pred\n0.1\n-1e308\n1e308\n",
        "new_pred_blank.csv": "pred\n0.1\n\n0.3\n",  # a one-column file: the blank is a row
        "new_pred_text.csv": "pred\n0.1\nabc\n",
        "new_pred_median.csv": "pred,median\n0.1,1\n",
        "new_pred_q.csv": "pred,q_0.5\n0.1,1\n",
        "new_score_blank.csv": "score\n0.1\n\n0.3\n",
        "mon_out.csv": "p,y\n0.5,1\n1.5,0\n0.2,0\n",
        "mon.csv": "p,y\n0.5,1\n0.4,0\n0.2,0\n",
        "mc_no_segment.csv": "score,age\n0.2,30\n",
    }
    for name, content in text.items():
        (folder / name).write_text(content)


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """The shared folder: inputs, and one model file of each kind (fitted by the command)."""
    folder = tmp_path_factory.mktemp("hostile")
    _write_files(folder)
    fits = [
        ("bin.csv", "--score", "score", "--label", "y", "-o", "va.json"),
        ("reg.csv", "--score", "pred", "--label", "t", "--task", "regression", "-o", "reg.json"),
        ("k.csv", "--score", "p_cat,p_dog,p_eel", "--label", "y", "--method", "temperature",
         "-o", "kt.json"),
        ("k.csv", "--score", "p_cat,p_dog,p_eel", "--label", "y", "--method",
         "multiclass-venn-abers", "-o", "kva.json"),
        ("bin.csv", "--score", "score", "--label", "y", "--method", "multicalibration",
         "--segments", "g,age", "-o", "mc.json"),
    ]  # fmt: skip
    for cal, *args in fits:
        named = [str(folder / a) if a.endswith(".json") else a for a in args]
        result = run("fit", folder / cal, *named)
        assert result.exit_code == 0, result.output
    rng = np.random.default_rng(1)
    p = rng.random(2000)
    rule = venncal.AbstentionRule(target_error=0.2).fit(p, (rng.random(2000) < p).astype(int))
    venncal.save(rule, folder / "rule.json")
    # a model that venncal apply cannot write the columns of: classes a and a_lower
    X = rng.dirichlet([1, 1, 1], 300)
    labels = np.array(["a", "a_lower", "b"])[rng.integers(0, 3, 300)]
    kva = venncal.MulticlassVennAbersCalibrator().fit(X, labels)
    venncal.save(kva, folder / "kva_clash.json", metadata={"score": "p_cat,p_dog,p_eel"})
    return folder


def _state(folder):
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.iterdir())
        if p.is_file()
    }


def _refused(folder, args, fragment):
    """Run ``venncal ARGS``: exit 2, one line, the folder as it was (a new file removed)."""
    before = _state(folder)
    try:
        result = run(*[folder / a[1:] if a.startswith("@") else a for a in args])
        after = _state(folder)
        assert result.exit_code == 2, result.output
        assert "Traceback" not in result.output and result.stdout == "", result.output
        # click puts its usage lines above a usage error; the message itself is one line
        lines = [
            line
            for line in result.stderr.strip().splitlines()
            if line and not line.startswith(("Usage: ", "Try '"))
        ]
        assert len(lines) == 1 and lines[0].startswith("Error: "), result.stderr
        assert fragment in lines[0], lines[0]
        assert after == before, "a file of the folder was written or changed"
    finally:
        for name in set(_state(folder)) - set(before):
            (folder / name).unlink()


REGRESSION = [
    ("fit-empty", ["fit", "@empty.csv", "--score", "pred", "--label", "t", "--task", "regression",
                   "-o", "@o.json"], "is empty"),
    ("fit-header-only", ["fit", "@reg_header.csv", "--score", "pred", "--label", "t", "--task",
                         "regression", "-o", "@o.json"], "no data rows"),
    ("fit-duplicate-column", ["fit", "@reg_dup.csv", "--score", "pred", "--label", "t", "--task",
                              "regression", "-o", "@o.json"], "more than once"),
    ("fit-missing-column", ["fit", "@reg.csv", "--score", "nope", "--label", "t", "--task",
                            "regression", "-o", "@o.json"], "no such column"),
    ("fit-text-target", ["fit", "@reg_text_target.csv", "--score", "pred", "--label", "t",
                         "--task", "regression", "-o", "@o.json"], "row 1 holds 'abc'"),
    ("fit-empty-target", ["fit", "@reg_empty_target.csv", "--score", "pred", "--label", "t",
                          "--task", "regression", "-o", "@o.json"], "missing or NaN at row 1"),
    ("fit-inf-target", ["fit", "@reg_inf_target.csv", "--score", "pred", "--label", "t",
                        "--task", "regression", "-o", "@o.json"], "infinite at row 1"),
    ("fit-nan-prediction", ["fit", "@reg_nan_pred.csv", "--score", "pred", "--label", "t",
                            "--task", "regression", "-o", "@o.json"], "NaN"),
    ("fit-negative-weight", ["fit", "@reg_neg_weight.csv", "--score", "pred", "--label", "t",
                             "--task", "regression", "--weight", "w", "-o", "@o.json"],
     "non-negative"),
    ("fit-zero-weights", ["fit", "@reg_zero_weight.csv", "--score", "pred", "--label", "t",
                          "--task", "regression", "--weight", "w", "-o", "@o.json"], "zero"),
    ("fit-nan-weight", ["fit", "@reg_nan_weight.csv", "--score", "pred", "--label", "t",
                        "--task", "regression", "--weight", "w", "-o", "@o.json"], "NaN"),
    ("fit-out-is-input", ["fit", "@reg.csv", "--score", "pred", "--label", "t", "--task",
                          "regression", "-o", "@reg.csv", "--force"], ".json"),
    ("fit-out-is-model", ["fit", "@reg.csv", "--score", "pred", "--label", "t", "--task",
                          "regression", "-o", "@reg.json"], "already exists"),
    ("fit-out-missing-folder", ["fit", "@reg.csv", "--score", "pred", "--label", "t", "--task",
                                "regression", "-o", "@nowhere/o.json"], "does not exist"),
    ("fit-n-bins", ["fit", "@reg.csv", "--score", "pred", "--label", "t", "--task",
                    "regression", "--n-bins", "5", "-o", "@o.json"], "--n-bins"),
    ("fit-positive", ["fit", "@reg.csv", "--score", "pred", "--label", "t", "--task",
                      "regression", "--positive", "1", "-o", "@o.json"], "--positive"),
    ("fit-classifier-method", ["fit", "@reg.csv", "--score", "pred", "--label", "t", "--task",
                               "regression", "--method", "isotonic", "-o", "@o.json"],
     "isotonic"),
    ("fit-k-columns", ["fit", "@reg.csv", "--score", "pred,w", "--label", "t", "--task",
                       "regression", "-o", "@o.json"], "several columns"),
    ("apply-quantile-nan", ["apply", "@reg.json", "@new_pred.csv", "-o", "@o.csv",
                            "--quantiles", "nan"], "between 0 and 1"),
    ("apply-quantile-zero", ["apply", "@reg.json", "@new_pred.csv", "-o", "@o.csv",
                             "--quantiles", "0"], "between 0 and 1"),
    ("apply-quantile-one", ["apply", "@reg.json", "@new_pred.csv", "-o", "@o.csv",
                            "--quantiles", "0.5,1"], "between 0 and 1"),
    ("apply-quantile-empty", ["apply", "@reg.json", "@new_pred.csv", "-o", "@o.csv",
                              "--quantiles", "0.5,"], "not a number"),
    ("apply-quantile-twice", ["apply", "@reg.json", "@new_pred.csv", "-o", "@o.csv",
                              "--quantiles", "0.5,0.50"], "twice"),
    ("apply-confidence-nan", ["apply", "@reg.json", "@new_pred.csv", "-o", "@o.csv",
                              "--confidence", "nan"], "--confidence"),
    ("apply-confidence-one", ["apply", "@reg.json", "@new_pred.csv", "-o", "@o.csv",
                              "--confidence", "1"], "--confidence"),
    ("apply-median-column", ["apply", "@reg.json", "@new_pred_median.csv", "-o", "@o.csv"],
     "'median'"),
    ("apply-quantile-column", ["apply", "@reg.json", "@new_pred_q.csv", "-o", "@o.csv",
                               "--quantiles", "0.5"], "'q_0.5'"),
    ("apply-text-prediction", ["apply", "@reg.json", "@new_pred_text.csv", "-o", "@o.csv"],
     "row 1 holds 'abc'"),
    ("apply-blank-line", ["apply", "@reg.json", "@new_pred_blank.csv", "-o", "@o.csv"],
     "missing value at row 1"),
    ("apply-header-only", ["apply", "@reg.json", "@reg_header.csv", "-o", "@o.csv",
                           "--score", "pred"], "no data rows"),
    ("apply-out-is-input", ["apply", "@reg.json", "@new_pred.csv", "-o", "@new_pred.csv",
                            "--force"], "never overwrites its input"),
    ("apply-out-missing-folder", ["apply", "@reg.json", "@new_pred.csv", "-o",
                                  "@nowhere/o.csv"], "does not exist"),
    ("apply-abstain", ["apply", "@reg.json", "@new_pred.csv", "-o", "@o.csv", "--abstain-at",
                       "0.1"], "--abstain-at"),
    ("apply-delta", ["apply", "@reg.json", "@new_pred.csv", "-o", "@o.csv", "--delta", "0.2"],
     "--delta"),
    ("apply-spark", ["apply", "@reg.json", "@new_pred.csv", "-o", "@o.csv", "--backend",
                     "spark"], "--backend spark"),
    ("apply-k-class-columns", ["apply", "@kt.json", "@reg.csv", "-o", "@o.csv", "--score",
                               "pred"], "3 score columns"),
    ("apply-classifier-band", ["apply", "@va.json", "@bin.csv", "-o", "@o.csv", "--band"],
     "regression models only"),
    ("apply-classifier-quantiles", ["apply", "@va.json", "@bin.csv", "-o", "@o.csv",
                                    "--quantiles", "0.5"], "regression models only"),
    ("apply-regression-no-column", ["apply", "@reg.json", "@bin.csv", "-o", "@o.csv"],
     "no such column"),
    ("apply-binary-blank-line", ["apply", "@va.json", "@new_score_blank.csv", "-o", "@o.csv"],
     "missing value at row 1"),
]  # fmt: skip

K_CLASS = [
    ("fit-one-class", ["fit", "@k_one_class.csv", "--score", "p_cat,p_dog,p_eel", "--label",
                       "y", "--method", "temperature", "-o", "@o.json"], "one class only ('cat')"),
    ("fit-classes-clash", ["fit", "@k_classes_clash.csv", "--score", "a,a_lower,p_eel",
                           "--label", "y", "--method", "multiclass-venn-abers", "-o", "@o.json"],
     "'p_a_lower' twice"),
    ("fit-column-twice", ["fit", "@k.csv", "--score", "p_cat,p_cat,p_eel", "--label", "y",
                          "--method", "temperature", "-o", "@o.json"], "twice"),
    ("fit-binary-method", ["fit", "@k.csv", "--score", "p_cat,p_dog,p_eel", "--label", "y",
                           "--method", "platt", "-o", "@o.json"], "platt"),
    ("fit-positive", ["fit", "@k.csv", "--score", "p_cat,p_dog,p_eel", "--label", "y",
                      "--method", "temperature", "--positive", "cat", "-o", "@o.json"],
     "--positive"),
    ("apply-two-columns", ["apply", "@kt.json", "@k.csv", "-o", "@o.csv", "--score",
                           "p_cat,p_dog"], "3 score columns"),
    ("apply-output-columns", ["apply", "@kt.json", "@k.csv", "-o", "@o.csv"], "--prefix"),
    ("apply-text-column", ["apply", "@kt.json", "@k.csv", "-o", "@o.csv", "--score",
                           "p_cat,p_dog,y", "--prefix", "c_"], "(--score) must hold numbers"),
    ("apply-classes-clash", ["apply", "@kva_clash.json", "@k.csv", "-o", "@o.csv", "--prefix",
                             "c_"], "'c_p_a_lower' twice"),
    ("apply-positive", ["apply", "@kt.json", "@k.csv", "-o", "@o.csv", "--prefix", "c_",
                        "--positive", "cat"], "--positive"),
    ("apply-abstain", ["apply", "@kva.json", "@k.csv", "-o", "@o.csv", "--prefix", "c_",
                       "--abstain-at", "0.1", "--abstain-data", "@k.csv"], "--abstain-at"),
    ("apply-out-is-input", ["apply", "@kt.json", "@k.csv", "-o", "@k.csv", "--prefix", "c_",
                            "--force"], "never overwrites its input"),
    ("apply-binary-model-k-columns", ["apply", "@va.json", "@k.csv", "-o", "@o.csv",
                                      "--score", "p_cat,p_dog,p_eel"], "no such column"),
]  # fmt: skip

SEGMENTS = [
    ("fit-all-missing", ["fit", "@seg_all_missing.csv", "--score", "score", "--label", "y",
                         "--method", "multicalibration", "--segments", "g", "-o", "@o.json"],
     "missing in every row"),
    ("fit-segment-is-score", ["fit", "@bin.csv", "--score", "score", "--label", "y",
                              "--method", "multicalibration", "--segments", "score", "-o",
                              "@o.json"], "score, label or weight"),
    ("fit-segment-twice", ["fit", "@bin.csv", "--score", "score", "--label", "y", "--method",
                           "multicalibration", "--segments", "g,g", "-o", "@o.json"], "twice"),
    ("fit-no-segments", ["fit", "@bin.csv", "--score", "score", "--label", "y", "--method",
                         "multicalibration", "-o", "@o.json"], "needs --segments"),
    ("fit-text-numerical", ["fit", "@bin.csv", "--score", "score", "--label", "y", "--method",
                            "multicalibration", "--segments", "g", "--numerical", "g", "-o",
                            "@o.json"], "must hold numbers"),
    ("fit-dask", ["fit", "@bin.csv", "--score", "score", "--label", "y", "--method",
                  "multicalibration", "--segments", "g", "--backend", "dask", "-o", "@o.json"],
     "--backend dask"),
    ("apply-missing-segment", ["apply", "@mc.json", "@mc_no_segment.csv", "-o", "@o.csv"],
     "segment column 'g'"),
    ("apply-delta", ["apply", "@mc.json", "@bin.csv", "-o", "@o.csv", "--delta", "0.2"],
     "--delta"),
    ("apply-out-is-input", ["apply", "@mc.json", "@bin.parquet", "-o", "@bin.parquet",
                            "--force"], "never overwrites its input"),
]  # fmt: skip

EXPORT = [
    ("regression", ["export", "@reg.json", "--to", "onnx", "-o", "@o.onnx"],
     "VennAbersDistribution (a regression model)"),
    ("multicalibration", ["export", "@mc.json", "--to", "sql", "--table", "t",
                          "--score-column", "score", "-o", "@o.sql"], "cannot be exported"),
    ("multiclass-venn-abers", ["export", "@kva.json", "--to", "onnx", "-o", "@o.onnx"],
     "cannot be exported"),
    ("abstention-rule", ["export", "@rule.json", "--to", "onnx", "-o", "@o.onnx"],
     "holds an AbstentionRule"),
    ("k-class-two-columns", ["export", "@kt.json", "--to", "sql", "--table", "t",
                             "--score-column", "p_cat,p_dog", "-o", "@o.sql"], "fitted on 3"),
    ("sql-into-onnx-file", ["export", "@va.json", "--to", "sql", "--table", "t",
                            "--score-column", "score", "-o", "@o.onnx"], "name it .sql"),
    ("onnx-into-sql-file", ["export", "@va.json", "--to", "onnx", "-o", "@o.sql"],
     "name it .onnx"),
    ("out-is-model", ["export", "@va.json", "--to", "onnx", "-o", "@va.json", "--force"],
     "never overwrites its input"),
    ("table-injection", ["export", "@va.json", "--to", "sql", "--table", "t; drop table x",
                         "--score-column", "score", "-o", "@o.sql"], "SQL identifier"),
    ("not-a-model", ["export", "@bin.csv", "--to", "onnx", "-o", "@o.onnx"],
     "not a venncal model file"),
    ("rule-as-apply-model", ["apply", "@rule.json", "@bin.csv", "-o", "@o.csv"],
     "holds an AbstentionRule"),
]  # fmt: skip

OTHERS = [
    ("monitor-alpha-nan", ["monitor", "@mon.csv", "--score", "p", "--label", "y", "--alpha",
                           "nan"], "--alpha"),
    ("monitor-plot-suffix", ["monitor", "@mon.csv", "--score", "p", "--label", "y", "--plot",
                             "@o.txt", "-o", "@o.csv"], "not a picture format"),
    ("monitor-n-bins", ["monitor", "@mon.csv", "--score", "p", "--label", "y", "--n-bins",
                        "101"], "--n-bins"),
    ("monitor-out-is-input", ["monitor", "@mon.csv", "--score", "p", "--label", "y", "-o",
                              "@mon.csv", "--force"], "never overwrites its input"),
    ("monitor-plot-missing-folder", ["monitor", "@mon.csv", "--score", "p", "--label", "y",
                                     "--plot", "@nowhere/o.png"], "does not exist"),
    ("monitor-probability", ["monitor", "@mon_out.csv", "--score", "p", "--label", "y"],
     "row 1 holds 1.5."),
    ("abstain-delta-alone", ["apply", "@va.json", "@bin.csv", "-o", "@o.csv", "--delta", "0.2"],
     "go with --abstain-at"),
    ("abstain-at-nan", ["apply", "@va.json", "@bin.csv", "-o", "@o.csv", "--abstain-at", "nan",
                        "--abstain-data", "@bin.csv"], "--abstain-at"),
    ("abstain-delta-nan", ["apply", "@va.json", "@bin.csv", "-o", "@o.csv", "--abstain-at",
                           "0.1", "--abstain-data", "@bin.csv", "--delta", "nan"], "--delta"),
    ("evaluate-huge-n-bins", ["evaluate", "@mon.csv", "--label", "y", "--proba", "p",
                              "--n-bins", str(10**23)], "2**52"),
    ("compare-huge-n-bins", ["compare", "@bin.csv", "--score", "score", "--label", "y",
                             "--n-bins", str(2**52 + 1)], "2**52"),
    ("compare-huge-n-boot", ["compare", "@bin.csv", "--score", "score", "--label", "y",
                             "--n-boot", str(10**14)], "--n-boot"),
    ("compare-multicalibration", ["compare", "@bin.csv", "--score", "score", "--label", "y",
                                  "--method", "multicalibration"], "--method"),
    ("calibrate-huge-n-bins", ["calibrate", "@bin.csv", "@bin.csv", "--score", "score",
                               "--label", "y", "--method", "histogram", "--n-bins",
                               str(10**23), "-o", "@o.csv"], "2**52"),
    ("calibrate-out-is-input", ["calibrate", "@bin.csv", "@bin.csv", "--score", "score",
                                "--label", "y", "-o", "@bin.csv", "--force"],
     "never overwrites its input"),
    ("demo-rows", ["demo", "--rows", "0"], "--rows"),
    ("reproduce-unknown", ["reproduce", "nope"], "STUDY"),
    ("reproduce-out-is-file", ["reproduce", "tasche-2022", "--out", "@bin.csv", "--force"],
     "not a folder"),
]  # fmt: skip


def _cases(group, cases):
    return [pytest.param(args, said, id=f"{group}-{name}") for name, args, said in cases]


@pytest.mark.parametrize(
    "args, said",
    _cases("regression", REGRESSION)
    + _cases("k-class", K_CLASS)
    + _cases("segments", SEGMENTS)
    + _cases("export", EXPORT)
    + _cases("other", OTHERS),
)
def test_refused_in_one_line_and_nothing_written(folder, args, said):
    _refused(folder, args, said)


@pytest.mark.parametrize(
    "model, name, content, extra",
    [
        ("reg.json", "late.csv", {"pred": "p"}, ["--band", "--quantiles", "0.1"]),
        ("reg.json", "late.parquet", {"pred": "p"}, []),
        ("kva.json", "late.csv", {"p_cat": "a", "p_dog": "b", "p_eel": "c"}, ["--prefix", "c_"]),
        ("mc.json", "late.csv", {"score": "p", "g": "g", "age": "age"}, []),
    ],
    ids=["regression-csv", "regression-parquet", "k-class-csv", "segments-csv"],
)
@pytest.mark.parametrize("existing", [False, True], ids=["new", "forced"])
def test_a_bad_row_in_a_late_chunk_leaves_no_partial_output(
    tmp_path, folder, monkeypatch, model, name, content, extra, existing
):
    """A bad value at row 150 of 200, read in chunks of 16 rows: exit 2 naming the row; the
    output is not there (or is the old file, with --force), and no temporary file is left."""
    monkeypatch.setattr(_stream, "BATCH_ROWS", 16)
    rng = np.random.default_rng(2)
    columns = {
        "p": rng.random(200), "a": rng.random(200), "b": rng.random(200), "c": rng.random(200),
        "g": rng.choice(["a", "b"], 200), "age": rng.integers(20, 60, 200),
    }  # fmt: skip
    frame = pd.DataFrame({new: columns[old] for new, old in content.items()}).astype(object)
    first = next(iter(content))
    frame.loc[150, first] = "inf" if name.endswith(".parquet") else "bad"
    if name.endswith(".parquet"):
        frame[first] = frame[first].astype(float)
        frame.to_parquet(tmp_path / name, index=False)
    else:
        frame.to_csv(tmp_path / name, index=False)
    out = tmp_path / ("out" + Path(name).suffix)
    if existing:
        out.write_bytes(b"the user's file\n")
    before = _state(tmp_path)
    result = run("apply", folder / model, tmp_path / name, "-o", out, *extra,
                 *(["--force"] if existing else []))  # fmt: skip
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert len(result.stderr.strip().splitlines()) == 1 and "row 150" in result.stderr
    assert _state(tmp_path) == before  # the old output kept, nothing new beside it
    assert sorted(os.listdir(tmp_path)) == sorted(
        [name, *(["out" + out.suffix] if existing else [])]
    )


def test_outputs_of_edge_values_are_named_as_given(folder, tmp_path):
    """A subnormal quantile level names its column by its shortest text (q_1e-320, not a
    rounded q_9.99989e-321); predictions of +-1e308 give finite quantiles."""
    out = tmp_path / "o.csv"
    result = run("apply", folder / "reg.json", folder / "new_pred.csv", "-o", out,
                 "--quantiles", "1e-320,0.05")  # fmt: skip
    assert result.exit_code == 0, result.output
    got = pd.read_csv(out)
    assert list(got.columns) == ["pred", "median", "lower", "upper", "q_1e-320", "q_0.05"]
    assert np.isfinite(got[["median", "lower", "upper", "q_0.05"]].to_numpy()).all()


def _script():
    script = Path(sys.executable).parent / "venncal"
    if not script.exists():
        pytest.skip("no venncal script beside this interpreter")
    return script


@pytest.mark.parametrize(
    "model, inp, out, extra",
    [
        ("va.json", "bin.parquet", "o.csv", []),
        ("reg.json", "new_pred.csv", "o.parquet", ["--band", "--quantiles", "0.1"]),
        ("kva.json", "k.csv", "o.csv", ["--prefix", "c_"]),
        ("mc.json", "bin.csv", "o.tsv", []),
    ],
    ids=["binary", "regression", "k-class", "segments"],
)
def test_the_script_by_its_full_path_without_the_environment(folder, tmp_path, model, inp, out,
                                                            extra):  # fmt: skip
    """``env -i PATH=/usr/bin:/bin /path/to/venv/bin/venncal apply ...`` works for every model
    kind, and a bad input there is still exit 2 and one line."""
    script = _script()
    env = {"PATH": "/usr/bin:/bin"}
    args = [script, "apply", folder / model, folder / inp, "-o", tmp_path / out, *extra]
    done = subprocess.run(args, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / out).is_file()
    if model == "reg.json":
        bad = subprocess.run([script, "apply", folder / model, folder / "new_pred_text.csv", "-o",
                              tmp_path / "bad.csv"], env=env, capture_output=True, text=True,
                             timeout=120)  # fmt: skip
        assert bad.returncode == 2 and "Traceback" not in bad.stderr
        assert len(bad.stderr.strip().splitlines()) == 1, bad.stderr
        assert not (tmp_path / "bad.csv").exists()


def test_a_regression_fit_by_the_script_without_the_environment(folder, tmp_path):
    script = _script()
    done = subprocess.run([script, "fit", folder / "reg.csv", "--score", "pred", "--label", "t",
                           "--task", "regression", "-o", tmp_path / "m.json"],
                          env={"PATH": "/usr/bin:/bin"}, capture_output=True, text=True,
                          timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert type(venncal.load(tmp_path / "m.json")).__name__ == "VennAbersDistribution"
