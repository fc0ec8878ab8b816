"""Every ```python block of README.md and of docs/user_guide/*.md runs.

Each page's blocks run in order, in one namespace (a block may use what an earlier block of the
same page defined), in a fresh temporary folder as the working directory, so no file is shared
between pages or with the repository. Where a page shows how to use *your* data
(``scores_cal``, ``X_train``, ...), the test defines small synthetic stand-ins first: the
PRELUDES below, one per page, each defining only the names that page uses and leaves undefined.
"""

import re
import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs" / "user_guide").glob("*.md"))]
BLOCK = re.compile(r"^```python[^\n]*\n(.*?)^```", re.S | re.M)

# synthetic stand-ins for the user's data, shared by the preludes: a binary problem whose
# score is informative, with two groups, and three-class logits
_BINARY = """
import numpy as np

rng = np.random.default_rng(0)
def _binary(n):
    s = rng.normal(size=n)
    return s, (rng.random(n) < 1 / (1 + np.exp(-2 * s))).astype(int)
scores_cal, y_cal = _binary(400)
scores_test, y_test = _binary(50)
proba_cal, proba_test = 1 / (1 + np.exp(-scores_cal)), 1 / (1 + np.exp(-scores_test))
"""
_GROUPS = """
region_cal = hospital_cal = np.where(rng.random(400) < 0.5, "north", "south")
region_test = hospital_test = np.where(rng.random(50) < 0.5, "north", "south")
"""
_LOGITS = """
labels_cal, labels_test = rng.integers(0, 3, 400), rng.integers(0, 3, 50)
logits_cal = rng.normal(size=(400, 3)) + 2 * np.eye(3)[labels_cal]
logits_test = rng.normal(size=(50, 3)) + 2 * np.eye(3)[labels_test]
"""
_FEATURES = """
from sklearn.linear_model import LogisticRegression

def _objects(n):
    X = rng.normal(size=(n, 4))
    return X, (X[:, 0] + 0.5 * rng.normal(size=n) > 0).astype(int)
X_train, y_train = _objects(300)
X_cal, y_cal = _objects(400)  # as many rows as scores_cal
X_test, y_test = _objects(50)
X, y = X_train, y_train
hospital = np.where(X_train[:, 1] > 0, "north", "south")
hospital_test = np.where(X_test[:, 1] > 0, "north", "south")
model = LogisticRegression().fit(X_train, y_train)
"""
# Parquet folders read by the Dask examples: calibration/ (score, y) and scores/ (score, id)
_PARQUET = """
import os
import pandas as pd

for folder in ("calibration", "scores"):
    os.makedirs(folder)
    for part in range(2):
        s, lab = _binary(500)
        frame = pd.DataFrame({"score": s, "y": lab, "id": np.arange(500) + 500 * part})
        frame.to_parquet(f"{folder}/part-{part}.parquet")
"""
# a small local Spark session, which the Spark examples' getOrCreate() then returns (the page
# is skipped without PySpark or a Java runtime)
_SPARK = """
import os
import shutil

import pytest

pytest.importorskip("pyspark")
if shutil.which("java") is None:
    pytest.skip("the Spark example needs a Java runtime")
from pyspark.sql import SparkSession

if SparkSession.getActiveSession() is not None:
    # started by earlier tests: Spark reads relative paths from the folder it started in
    pytest.skip("a Spark session started in another folder is running")
os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
(SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
 .config("spark.driver.host", "127.0.0.1").config("spark.sql.shuffle.partitions", "3")
 .getOrCreate())
"""

PRELUDES = {
    "README.md": _BINARY + _GROUPS + _LOGITS + _PARQUET,
    "calibration.md": _BINARY
    + "logits_cal = np.column_stack([-scores_cal, scores_cal]) / 2\n"
    + "logits_test = np.column_stack([-scores_test, scores_test]) / 2\n",
    "multiclass.md": _BINARY
    + _GROUPS
    + _LOGITS
    + _FEATURES
    + "proba_cal = np.exp(logits_cal) / np.exp(logits_cal).sum(1, keepdims=True)\n"
    + "proba_test = np.exp(logits_test) / np.exp(logits_test).sum(1, keepdims=True)\n",
    "production.md": _BINARY
    + _FEATURES
    + _PARQUET
    + "cal_scores, cal_labels = scores_cal, y_cal[: len(scores_cal)]\n",
    "sql_onnx_spark.md": _BINARY + _PARQUET + _SPARK,
    "shift.md": _BINARY
    + """
p_prod = 1 / (1 + np.exp(-(rng.normal(size=500) - 2)))   # production probabilities
s_cal, pi, q = scores_cal, y_cal.mean(), 0.3             # source and target positive rates
n_source, n_target = 300, 200
X_domain = rng.normal(size=(n_source + n_target, 3)) + np.r_[[0.0] * n_source, [0.5] * n_target][:, None]
is_target = np.r_[[0] * n_source, [1] * n_target]
X_cal = rng.normal(size=(400, 3))
def labelled_batches():
    for _ in range(5):
        s, lab = _binary(100)
        yield 1 / (1 + np.exp(-2 * s)), lab
s_hist, y_hist = _binary(6000)
""",
    "using.md": _BINARY
    + _FEATURES
    + "cal_scores, cal_labels, test_scores = scores_cal, (scores_cal > 0).astype(int), scores_test\n"
    + "cal_logits = np.column_stack([-scores_cal, scores_cal])\n"
    + "test_logits = np.column_stack([-scores_test, scores_test])\n",
    "venn_abers.md": _BINARY,
    "venn_predictors.md": _BINARY + _FEATURES,
}


def _pages():
    out = []
    for page in PAGES:
        blocks = BLOCK.findall(page.read_text(encoding="utf-8"))
        if blocks:
            out.append(pytest.param(page, blocks, id=page.name))
    return out


def test_pages_with_code_are_found():
    names = {p.id for p in _pages()}
    assert {"README.md", "full_venn_abers.md", "production.md"} <= names
    # no prelude is left for a page that has lost its code blocks
    assert set(PRELUDES) <= names


@pytest.mark.parametrize("page,blocks", _pages())
def test_code_blocks_run_in_order(page, blocks, tmp_path, monkeypatch):
    import matplotlib

    matplotlib.use("Agg")
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "__docs__"}
    exec(compile(PRELUDES.get(page.name, ""), f"prelude of {page.name}", "exec"), namespace)
    try:
        for i, code in enumerate(blocks):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    exec(compile(code, f"{page.name}, block {i + 1}", "exec"), namespace)
                except Exception as exc:
                    pytest.fail(f"{page.name}, block {i + 1}: {type(exc).__name__}: {exc}")
    finally:
        client = namespace.get("client")
        if client is not None and hasattr(client, "close"):
            client.close()
