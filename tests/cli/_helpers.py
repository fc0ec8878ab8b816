"""Assertions shared by the command-line tests."""


def expect_usage_error(result, *fragments):
    """Exit code 2 and a one-line ``Error: ...`` message (click may print usage lines above)."""
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    message = lines[-1]
    assert message.startswith("Error: "), result.output
    assert sum(line.startswith("Error:") for line in lines) == 1, result.output
    for fragment in fragments:
        assert fragment in message, message


def run(*args):
    """``venncal ARGS`` in-process (paths given as they are)."""
    from click.testing import CliRunner

    from venncal.cli import main

    return CliRunner().invoke(main, [str(a) for a in args])


def assert_same_model(path, local_path, method):
    """The model at ``path`` predicts as the local backend's (Platt to 1e-9, bit for bit else)."""
    import numpy as np

    import venncal

    model, local = venncal.load(path), venncal.load(local_path)
    t = np.linspace(-0.1, 1.1, 2001)
    if method == "platt":
        np.testing.assert_allclose(model.predict_proba(t), local.predict_proba(t), atol=1e-9)
    else:
        np.testing.assert_array_equal(model.predict_proba(t), local.predict_proba(t))


def check_apply_matches_local(files, backend):
    """``venncal apply --backend BACKEND`` on the folder ``files/scores`` writes the local
    backend's output, with ``--keep`` and ``--prefix`` too; returns the local output."""
    import numpy as np
    import pandas as pd

    fit = run(
        "fit", files / "cal.parquet", "--score", "score", "--label", "label", "-o", files / "m.json"
    )
    assert fit.exit_code == 0
    for name, out in (("local", "a.parquet"), (backend, "b.parquet")):
        result = run(
            "apply", files / "m.json", files / "scores", "-o", files / out, "--backend", name
        )
        assert result.exit_code == 0, result.output
    a, b = pd.read_parquet(files / "a.parquet"), pd.read_parquet(files / "b.parquet")
    assert list(b.columns) == ["id", "score", "p", "p0", "p1"] and len(b) == 3000
    pd.testing.assert_frame_equal(a, b)
    result = run(
        "apply",
        files / "m.json",
        files / "scores",
        "-o",
        files / "c.csv",
        "--backend",
        backend,
        "--keep",
        "id",
        "--prefix",
        "cal_",
    )
    assert result.exit_code == 0, result.output
    c = pd.read_csv(files / "c.csv")
    assert list(c.columns) == ["id", "cal_p", "cal_p0", "cal_p1"]
    np.testing.assert_allclose(c["cal_p"], a["p"], rtol=1e-15)
    return a


def check_k_class_model_refused(files, backend, out):
    """``venncal apply --backend BACKEND`` refuses a 3-class model in one line, exit 2."""
    import numpy as np

    import venncal

    rng = np.random.default_rng(1)
    X, y = rng.normal(size=(300, 3)), rng.integers(0, 3, 300)
    venncal.save(venncal.MatrixScalingCalibrator().fit(X, y), files / "k.json")
    result = run(
        "apply", files / "k.json", files / "scores", "-o", files / out,
        "--score", "score", "--backend", backend,
    )  # fmt: skip
    assert result.exit_code == 2, result.output
    assert "3 score columns" in result.output
    assert "Traceback" not in result.output and len(result.output.strip().splitlines()) == 1


def write_backend_files(tmp_path, weights=False):
    """The files of the backend tests in ``tmp_path``: 3000 calibration rows (``cal.parquet``
    with a ``w`` column of weights if ``weights``, and ``cal.csv``) and a folder ``scores`` of
    three Parquet files of 1000 rows (``id``, ``score``); returns ``tmp_path``."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(0)
    s = np.round(rng.random(3000), 2)
    y = np.where(rng.random(3000) < s, "yes", "no")
    extra = {"w": rng.integers(0, 3, 3000).astype(float)} if weights else {}
    pd.DataFrame({"score": s, "label": y, **extra}).to_parquet(tmp_path / "cal.parquet")
    pd.DataFrame({"score": s, "label": y}).to_csv(tmp_path / "cal.csv", index=False)
    folder = tmp_path / "scores"
    folder.mkdir()
    for i in range(3):
        part = pd.DataFrame({"id": np.arange(1000) + 1000 * i, "score": rng.random(1000)})
        part.to_parquet(folder / f"part-{i}.parquet")
    return tmp_path


def check_backend_separators_and_progress(tmp_path, backend):
    """``--sep``, ``--out-sep`` and ``--progress`` with ``--backend BACKEND``: a
    semicolon-separated CSV input gives the model and output the local backend gives from a
    comma-separated one (the output tab-separated when asked), and a bar is shown on standard
    error only when asked for."""
    import csv
    import re

    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(5)
    n = 600
    s = np.round(rng.normal(size=n), 3)
    y = (rng.random(n) < 1 / (1 + np.exp(-2 * s))).astype(int)
    frame = pd.DataFrame({"id": [f"{i:05d}" for i in range(n)], "note": np.resize(["a;b", ""], n),
                          "score": s, "y": y})  # fmt: skip
    frame.to_csv(tmp_path / "comma.csv", index=False)
    frame.to_csv(tmp_path / "semi.csv", index=False, sep=";")
    fit = ["--score", "score", "--label", "y", "--method", "venn-abers", "--force"]
    local = run("fit", tmp_path / "comma.csv", *fit, "-o", tmp_path / "local.json")
    assert local.exit_code == 0, local.output
    on = ["--backend", backend]
    got = run("fit", tmp_path / "semi.csv", *fit, *on, "--sep", ";", "-o", tmp_path / "b.json")
    assert got.exit_code == 0, got.output
    assert_same_model(tmp_path / "b.json", tmp_path / "local.json", "venn-abers")

    def rows(path, sep):
        with open(path, newline="", encoding="utf-8") as fh:
            return list(csv.reader(fh, delimiter=sep))

    keep = ["--keep", "id,note", "--force"]
    model = tmp_path / "local.json"
    want = run("apply", model, tmp_path / "comma.csv", *keep, "-o", tmp_path / "want.csv")
    assert want.exit_code == 0, want.output
    out = tmp_path / "got.csv"
    args = ["apply", model, tmp_path / "semi.csv", *keep, *on, "--sep", ";", "--out-sep", "tab"]
    got = run(*args, "-o", out)
    assert got.exit_code == 0, got.output
    assert rows(out, "\t") == rows(tmp_path / "want.csv", ",")

    def bar(result):
        assert result.exit_code == 0, result.output
        return re.search(r"(row|step)/s|s/(row|step)", result.stderr) is not None

    assert bar(run(*args, "-o", out, "--progress"))
    assert not bar(run(*args, "-o", out, "--no-progress"))
    fit_args = ["fit", tmp_path / "semi.csv", *fit, *on, "--sep", ";", "-o", tmp_path / "c.json"]
    assert bar(run(*fit_args, "--progress"))
    assert not bar(run(*fit_args))  # standard error is not a terminal here
