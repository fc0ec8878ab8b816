"""Loading a model and predicting without scikit-learn: the saved-model predictor and the
stand-in ``venncal.load`` returns in a process that has not imported scikit-learn."""

import copy
import pickle
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from sklearn.base import clone

import venncal
from tests.persistence._cases import CALIBRATORS, assert_same, fitted, predictions
from venncal import HistogramCalibrator, PlattCalibrator, VennAbersCalibrator
from venncal.persistence import read_model_state
from venncal.persistence._model_file import _build_calibrator
from venncal.persistence._predictor import PREDICTORS, LoadedCalibrator, saved_predictor
from venncal.persistence._registry import model_class

LIGHT = [name for name, cal in CALIBRATORS.items() if type(cal).__name__ in PREDICTORS]


def _stand_in(path):
    """What venncal.load returns in a process without scikit-learn, built in this one."""
    state = read_model_state(path)
    predictor = saved_predictor(state)
    assert predictor is not None
    return LoadedCalibrator(
        predictor,
        lambda: _build_calibrator(state, repr(str(path))),
        lambda: model_class(state.class_name).cls,
    )


def test_every_predictor_knows_its_class_parameters_and_fitted_state():
    for name, cls in PREDICTORS.items():
        spec = model_class(name)
        assert cls.params == set(spec.cls().get_params()), name
        assert set(cls.fitted) <= set(spec.fitted), name


@pytest.mark.parametrize("name", LIGHT)
@pytest.mark.parametrize("weighted", [False, True])
def test_stand_in_predicts_bit_for_bit_and_becomes_the_estimator(name, weighted, tmp_path):
    cal, t = fitted(name, weighted=weighted)
    loaded = _stand_in(venncal.save(cal, tmp_path / "m.json"))
    assert type(loaded) is LoadedCalibrator
    got = {"proba": loaded.predict_proba(t), "predict": loaded.predict(t)}
    if isinstance(cal, VennAbersCalibrator):
        got["interval"] = loaded.predict_interval(t)
    assert type(loaded) is LoadedCalibrator  # predicting did not build the estimator
    assert_same(got, predictions(cal, t), "predictions")
    assert isinstance(loaded, type(cal))  # the class only, still the stand-in
    assert type(loaded) is LoadedCalibrator
    assert loaded.get_params() == cal.get_params()  # anything else: it becomes the estimator
    assert type(loaded) is type(cal)
    assert_same(predictions(loaded, t), predictions(cal, t), "after")


def test_stand_in_refits_pickles_and_clones_as_the_estimator(tmp_path):
    s = np.linspace(-2, 2, 60)
    y = (np.sin(7 * s) > 0).astype(int)
    path = venncal.save(VennAbersCalibrator().fit(s, y), tmp_path / "va.json")
    a = _stand_in(path)
    proba, interval = a.predict_proba, a.predict_interval  # kept from before the refit
    y2 = (s > 0).astype(int)
    y2[::7] = 1 - y2[::7]
    assert a.fit(s, y2) is a and type(a) is VennAbersCalibrator
    refit = VennAbersCalibrator().fit(s, y2)
    np.testing.assert_array_equal(proba(s), refit.predict_proba(s))
    np.testing.assert_array_equal(interval(s), refit.predict_interval(s))
    for make in (
        lambda m: pickle.loads(pickle.dumps(m)),
        copy.deepcopy,
        clone,
        lambda m: (setattr(m, "merge", "square"), m)[1],
    ):
        m = make(_stand_in(path))
        assert type(m) is VennAbersCalibrator
    assert repr(_stand_in(path)) == "VennAbersCalibrator()"
    assert not isinstance(_stand_in(path), PlattCalibrator)
    b = _stand_in(path)
    assert b.predict_proba(s, groups=None).shape == (60, 2)  # groups=None: still the stand-in
    assert type(b) is LoadedCalibrator
    with pytest.raises(ValueError, match="fitted without groups"):
        b.predict_interval(s, groups=np.zeros(60))  # the estimator answers, and raises
    assert type(b) is VennAbersCalibrator


def test_stand_in_checks_test_scores_like_the_estimator(tmp_path):
    cal = HistogramCalibrator(decimals=1).fit([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1])
    loaded = _stand_in(venncal.save(cal, tmp_path / "h.json"))
    for bad in ([np.nan], [[0.1, 0.2]], "x"):
        with pytest.raises((ValueError, TypeError)) as want:
            cal.predict_proba(bad)
        with pytest.raises(type(want.value)) as got:
            loaded.predict_proba(bad)
        assert str(got.value) == str(want.value)


_FRESH = textwrap.dedent(
    """
    import sys, numpy as np, venncal
    loaded = venncal.load({path!r})
    t = np.load({scores!r})
    out = {{"proba": loaded.predict_proba(t), "predict": loaded.predict(t)}}
    if {interval!r}:
        out["interval"] = loaded.predict_interval(t)
    np.savez({out!r}, **out)
    print("sklearn" in sys.modules, type(loaded).__name__)
    """
)


@pytest.mark.parametrize("name", LIGHT)
def test_load_and_predict_in_a_fresh_process_do_not_import_sklearn(name, tmp_path):
    cal, t = fitted(name)
    path = venncal.save(cal, tmp_path / "m.json")
    np.save(tmp_path / "t.npy", t)
    interval = isinstance(cal, VennAbersCalibrator)
    script = _FRESH.format(
        path=str(path), scores=str(tmp_path / "t.npy"), interval=interval, out=str(tmp_path / "o")
    )
    run = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.split() == ["False", "LoadedCalibrator"]
    got = dict(np.load(tmp_path / "o.npz"))
    want = predictions(cal, t)
    for key in got:
        assert_same(got[key], want[key], key)


def test_models_the_predictor_does_not_cover_load_as_the_estimator(tmp_path):
    s = np.linspace(-2, 2, 60)
    y = (np.sin(7 * s) > 0).astype(int)
    g = np.arange(60) % 2
    path = venncal.save(VennAbersCalibrator().fit(s, y, groups=g), tmp_path / "groups.json")
    assert saved_predictor(read_model_state(path)) is None
    script = f"import sys, venncal; m = venncal.load({str(path)!r}); print(type(m).__name__)"
    run = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert run.stdout.split() == ["VennAbersCalibrator"], run.stderr[-2000:]


@pytest.mark.parametrize("name", ["platt", "isotonic-decimals", "beta-logit"])
def test_command_line_apply_uses_the_same_predictor_without_sklearn(name, tmp_path):
    import pandas as pd

    cal, t = fitted(name)
    path = venncal.save(cal, tmp_path / "m.json")
    pd.DataFrame({"score": t}).to_parquet(tmp_path / "t.parquet")
    script = textwrap.dedent(
        f"""
        import sys
        from venncal.cli import main
        main(["apply", {str(path)!r}, {str(tmp_path / "t.parquet")!r}, "--score", "score",
              "-o", {str(tmp_path / "o.parquet")!r}], standalone_mode=False)
        print("sklearn" in sys.modules)
        """
    )
    run = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.split()[-1] == "False"
    got = pd.read_parquet(tmp_path / "o.parquet")["p"].to_numpy()
    assert_same(got, np.ascontiguousarray(cal.predict_proba(t)[:, 1]), "p")
