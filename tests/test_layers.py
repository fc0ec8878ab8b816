"""The layers: the core and the metrics import neither scikit-learn nor matplotlib."""

import subprocess
import sys

from tests._blocked_imports import BLOCK
from tests._blocked_imports import run_blocked as _run


def test_core_imports_without_sklearn_pandas_matplotlib():
    result = _run("venncal.core", ["sklearn", "matplotlib", "pandas"])
    assert result.returncode == 0, result.stderr


def test_blocking_works():
    """The blocker itself must be able to fail: importing the estimators needs sklearn."""
    result = _run("venncal.calibration.venn_abers", ["sklearn"])
    assert result.returncode != 0 and "blocked sklearn" in result.stderr


def test_estimators_import_without_dask():
    """Dask is an optional extra: only venncal.dask uses it, and only when called."""
    result = _run("venncal.calibration", ["dask", "distributed"])
    assert result.returncode == 0, result.stderr
    result = _run("venncal.dask", ["dask", "distributed"])
    assert result.returncode == 0, result.stderr


def test_export_imports_without_onnx_duckdb_sklearn():
    """venncal.export needs onnx only inside to_onnx, and neither duckdb nor scikit-learn."""
    result = _run("venncal.export", ["onnx", "onnxruntime", "duckdb", "sklearn"])
    assert result.returncode == 0, result.stderr


def test_to_onnx_without_onnx_names_the_extra():
    code = BLOCK.format(module="venncal.export", blocked={"onnx"}) + (
        "from venncal.core.platt import PlattSigmoid\n"
        "from venncal.persistence._predictor import PREDICTORS\n"
        "cal = PREDICTORS['PlattCalibrator']({}, {'classes_': [0, 1],"
        " 'sigmoid_': PlattSigmoid(-1.0, 0.5, 1, True)})\n"
        "try:\n    venncal.export.to_onnx(cal)\n"
        "except ImportError as exc:\n    print(exc)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert 'pip install "venncal[export]"' in result.stdout


def test_import_venncal_does_not_import_onnx_or_duckdb():
    code = (
        "import sys, venncal, venncal.export\n"
        "print(sorted(m for m in ('onnx', 'onnxruntime', 'duckdb') if m in sys.modules))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_venncal_spark_imports_without_pyspark():
    """PySpark is an optional extra: ``import venncal.spark`` works without it, and a call says
    which extra to install."""
    result = _run("venncal", ["pyspark", "py4j"])
    assert result.returncode == 0, result.stderr
    result = _run("venncal.spark", ["pyspark", "py4j"])
    assert result.returncode == 0, result.stderr
    code = BLOCK.format(module="venncal.spark", blocked={"pyspark", "py4j"}) + (
        "venncal.spark.fit(None, None, score='s', label='y')\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode != 0 and 'pip install "venncal[spark]"' in result.stderr


def test_import_venncal_imports_no_pyspark():
    code = (
        "import sys, venncal, venncal.spark; print(sorted(m for m in sys.modules if 'spark' in m))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "pyspark" not in result.stdout
