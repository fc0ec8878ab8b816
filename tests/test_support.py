"""What runs where: every public estimator walked through every surface it declares.

``venncal._support.SUPPORT`` declares, per public class and task, which surfaces support it
and why the others refuse it. Here every row meets every surface (Spark in
``tests/spark/test_support_spark.py``): a supported one must give the in-memory numbers, a
refused one a one-line error. A public estimator without a row fails, and so does a
declaration the behaviour does not bear out, either way.
"""

import inspect

import pytest
from sklearn.base import BaseEstimator

import venncal
from tests import _support_walk as walk
from venncal._support import SUPPORT, SURFACES, support, support_rows

ROWS = sorted(SUPPORT)


def _public_estimators():
    return {
        name
        for name in venncal.__all__
        if inspect.isclass(getattr(venncal, name, None))
        and issubclass(getattr(venncal, name), BaseEstimator)
    }


def test_every_public_estimator_has_a_row_and_every_row_a_public_estimator():
    declared = {name for name, _ in SUPPORT}
    assert declared == _public_estimators()


def test_every_row_names_every_surface_and_a_known_task():
    for (name, task), entries in SUPPORT.items():
        assert task in ("binary", "multiclass", "regression"), (name, task)
        assert set(entries) == set(SURFACES), name
        for surface, entry in entries.items():
            ok = (
                entry is True
                or (isinstance(entry, str) and entry)
                or (surface == "cli" and isinstance(entry, tuple) and entry)
            )
            assert ok, (name, task, surface, entry)


def test_rows_are_listed_by_task_then_name_and_copied():
    rows = support_rows()
    assert [(t, n) for n, t, _ in rows] == sorted((t, n) for n, t in SUPPORT)
    support("VennAbersCalibrator", "binary")["sql"] = "changed"
    assert SUPPORT[("VennAbersCalibrator", "binary")]["sql"] is True


@pytest.mark.parametrize(("name", "task"), ROWS)
def test_model_file(name, task, tmp_path):
    walk.check_file(name, task, SUPPORT[(name, task)]["file"], tmp_path)


@pytest.mark.parametrize(("name", "task"), ROWS)
def test_command_line(name, task, tmp_path):
    walk.check_cli(name, task, SUPPORT[(name, task)]["cli"], tmp_path)


@pytest.mark.parametrize("surface", ["sql", "onnx"])
@pytest.mark.parametrize(("name", "task"), ROWS)
def test_export(surface, name, task, tmp_path):
    pytest.importorskip("onnxruntime" if surface == "onnx" else "duckdb")
    walk.check_export(surface, name, task, SUPPORT[(name, task)][surface], tmp_path)


@pytest.mark.parametrize(("name", "task"), ROWS)
def test_dask(name, task):
    dd = pytest.importorskip("dask.dataframe")
    import venncal.dask

    entry = SUPPORT[(name, task)]["dask"]
    walk.check_engine(venncal.dask, name, task, entry, lambda f: dd.from_pandas(f, npartitions=2))


@pytest.mark.parametrize(("name", "task"), ROWS)
def test_chooser(name, task):
    walk.check_chooser(name, task, SUPPORT[(name, task)]["chooser"])


def test_the_walk_fails_on_a_false_declaration(tmp_path):
    # the walk must be able to fail: declare a refusal where the surface supports the class,
    # and support where it refuses
    with pytest.raises((AssertionError, pytest.fail.Exception)):
        walk.check_file("PlattCalibrator", "binary", "refused", tmp_path)
    with pytest.raises(AssertionError):
        walk.check_chooser("DirichletCalibrator", "multiclass", True)
    with pytest.raises((AssertionError, ValueError, TypeError)):
        walk.check_export("sql", "ACPCalibrator", "binary", True, tmp_path)
