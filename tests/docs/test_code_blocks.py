"""Every ```python block of the user guide runs as a reader who pastes it would run it.

Each page of docs/user_guide/ runs in a fresh namespace with nothing defined beforehand: its
blocks in order, one top-level statement at a time, in a fresh temporary folder as the working
directory. The pages load their own data (the datasets bundled with venncal and
scikit-learn), so a name used before the page defines it fails here as it fails for a reader,
and so does a name that one block gives binary data and another multiclass data (or another
number of columns): see ``_pages.run_page``.

Pages that start a process-wide service run in a fresh Python process of their own
(``FRESH_PROCESS``, each with its reason). The README is the one page that runs after a
prelude (``README_PRELUDE``): a landing page shows the calls on the reader's data and leaves
the data out; the prelude defines those names from the bundled data, and the guide pages
carry the runnable versions. No page is skipped; a page that needs an optional part
(PySpark and Java) skips with that reason when it is missing.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.docs._pages import page_blocks, run_page

ROOT = Path(__file__).resolve().parents[2]
GUIDE = sorted((ROOT / "docs" / "user_guide").glob("*.md"))

#: pages run with ``python -m tests.docs._pages PAGE`` in a fresh process, and why
FRESH_PROCESS = {
    "sql_onnx_spark.md": "its Spark section starts a Spark session, which lives as long as "
    "the process: in the test process getOrCreate() would return the session of an earlier "
    "test, with that test's settings and working folder",
}

#: the names the README's snippets take from the reader, from the bundled diabetes data
README_PRELUDE = """
import os

import numpy as np
import pandas as pd
from sklearn.naive_bayes import GaussianNB

import venncal
from venncal.datasets import load_dataset

_data = load_dataset("diabetes")
_rows = np.random.default_rng(0).permutation(len(_data.y))
_train, _cal, _test = _rows[:384], _rows[384:576], _rows[576:]
_model = GaussianNB().fit(_data.X[_train], _data.y[_train])
scores_cal = _model.predict_proba(_data.X[_cal])[:, 1]
scores_test = _model.predict_proba(_data.X[_test])[:, 1]
y_cal = _data.y[_cal]
region_cal = np.where(_data.X[_cal, 7] < 30, "under 30", "30 and over")  # age
region_test = np.where(_data.X[_test, 7] < 30, "under 30", "30 and over")

from sklearn.datasets import load_digits
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

_digits, _labels = load_digits(return_X_y=True)
_k = make_pipeline(StandardScaler(), LogisticRegression()).fit(_digits[::2], _labels[::2])
logits_cal = _k.decision_function(_digits[1::4])
labels_cal = _labels[1::4]
logits_test = _k.decision_function(_digits[3::4])

for _folder, _frame in (
    ("calibration", pd.DataFrame({"score": scores_cal, "y": y_cal})),
    ("scores", pd.DataFrame({"score": scores_test, "id": _test})),
):
    os.makedirs(_folder)
    _frame.to_parquet(f"{_folder}/part-0.parquet")
"""


def _guide_pages():
    return [pytest.param(page, id=page.name) for page in GUIDE if page_blocks(page)]


def test_pages_with_code_are_found():
    names = {p.id for p in _guide_pages()}
    assert {"calibration.md", "multiclass.md", "using.md", "sql_onnx_spark.md"} <= names
    assert set(FRESH_PROCESS) <= names
    assert page_blocks(ROOT / "README.md")


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    import matplotlib

    matplotlib.use("Agg")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("page", [p for p in _guide_pages() if p.id not in FRESH_PROCESS])
def test_guide_page_runs_in_order_in_a_fresh_namespace(page, in_tmp):
    failure = run_page(page.name, page_blocks(page))
    assert failure is None, failure


@pytest.mark.parametrize("name", sorted(FRESH_PROCESS))
def test_page_runs_in_a_fresh_process(name, in_tmp):
    if "spark" in name:
        pytest.importorskip("pyspark")
        if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
            pytest.skip("the Spark example needs a Java runtime")
    # as in a shell where the environment is not activated: the page must say which Python
    # its Spark workers run, not find it on PATH
    env = {k: v for k, v in os.environ.items() if k not in ("PYSPARK_PYTHON", "VIRTUAL_ENV")}
    env.pop("PYSPARK_DRIVER_PYTHON", None)
    bin_dir = str(Path(sys.executable).parent)
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if p != bin_dir)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env["SPARK_LOCAL_IP"] = "127.0.0.1"  # the loopback only, as the Spark tests
    page = ROOT / "docs" / "user_guide" / name
    run = subprocess.run(
        [sys.executable, "-m", "tests.docs._pages", str(page)],
        cwd=in_tmp,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert run.returncode == 0, run.stdout + "\n" + run.stderr[-2000:]


def test_readme_runs_in_order_after_its_prelude(in_tmp):
    blocks = [(True, README_PRELUDE), *page_blocks(ROOT / "README.md")]
    failure = run_page("README.md", blocks)
    assert failure is None, failure


def test_the_runner_catches_what_breaks_pasted_code():
    # a name used before it is defined, as from_venn_abers.md once used P_cal
    failure = run_page("page", [(True, "y = P_cal.sum()"), (True, "P_cal = 1.0")])
    assert failure is not None and "P_cal" in failure and "before" in failure
    # also in a block shown, not run (another package's code)
    shown = "from other import Calibrator\nP = Calibrator().fit(P_cal, y).predict(P_test)"
    failure = run_page("page", [(True, "y = 1"), (False, shown), (True, "P_cal = P_test = 1")])
    assert failure is not None and "['P_cal', 'P_test']" in failure
    # one name for binary, then multiclass labels
    binary = (True, "import numpy as np\ny_cal = np.array([0, 1, 1, 0])")
    failure = run_page("page", [binary, (True, "y_cal = np.array([0, 1, 2, 2])")])
    assert failure is not None and "`y_cal`" in failure and "block 2" in failure
    # or a matrix of another width, within one block
    wider = "import numpy as np\nX = np.ones((3, 2))\nX = np.ones((3, 4))"
    failure = run_page("page", [(True, wider)])
    assert failure is not None and "line 3" in failure
    # rebinding to data of the same kind, and names that hold no data, are fine
    same = "import numpy as np\ny_cal = np.array([1, 0, 0, 1])\ncal = 1\ncal = 'x'"
    assert run_page("page", [binary, (True, same)]) is None
