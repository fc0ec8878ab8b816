"""Loading a model and predicting without scikit-learn: the saved-model predictor and the
stand-in ``venncal.load`` returns in a process that has not imported scikit-learn."""

import copy
import pickle
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest
from sklearn.base import clone

import venncal
from tests.persistence._cases import (
    CALIBRATORS,
    MULTICLASS,
    assert_same,
    data,
    fitted,
    fitted_multiclass,
    multiclass_data,
    predictions,
)
from venncal import (
    ACPCalibrator,
    HistogramCalibrator,
    MulticlassVennAbersCalibrator,
    PlattCalibrator,
    VennAbersCalibrator,
)
from venncal.persistence import read_model_state
from venncal.persistence._model_file import _build_calibrator
from venncal.persistence._predictor import PREDICTORS, LoadedCalibrator, saved_predictor
from venncal.persistence._registry import model_class

LIGHT = [name for name, cal in CALIBRATORS.items() if type(cal).__name__ in PREDICTORS]
#: every K-class case: each of their classes has a predictor
LIGHT_MULTICLASS = list(MULTICLASS)


def _fitted(name, **kwargs):
    """A fitted calibrator of a binary or a K-class case, and test scores."""
    if name in MULTICLASS:
        return fitted_multiclass(name, **kwargs)
    return fitted(name, **kwargs)


def test_every_class_has_a_case():
    covered = {type(c).__name__ for c in CALIBRATORS.values()}
    covered |= {type(c).__name__ for c, _ in MULTICLASS.values()}
    assert set(PREDICTORS) <= covered


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


@pytest.mark.parametrize("name", LIGHT + LIGHT_MULTICLASS)
@pytest.mark.parametrize("weighted", [False, True])
def test_stand_in_predicts_bit_for_bit_and_becomes_the_estimator(name, weighted, tmp_path):
    cal, t = _fitted(name, weighted=weighted, labels="str" if weighted else "int")
    loaded = _stand_in(venncal.save(cal, tmp_path / "m.json"))
    assert type(loaded) is LoadedCalibrator
    got = predictions(cal, t, on=loaded)  # every prediction method, ACP's interval= too
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
        b.predict_interval(s, groups=np.zeros(60))  # the predictor raises as the estimator
    assert type(b) is LoadedCalibrator
    assert b.predict_proba(s, sample_weight=None).shape == (60, 2)
    with pytest.raises(TypeError, match="sample_weight"):  # a keyword it does not take
        b.predict_proba(s, sample_weight=np.ones(60))  # the estimator answers, and raises
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


def _same_error(call_estimator, call_stand_in):
    """Both calls raise the same one-line error (or, if the estimator's does not raise, give
    the same answer)."""
    try:
        want = call_estimator()
    except (ValueError, TypeError) as exc:
        with pytest.raises(type(exc)) as got:
            call_stand_in()
        assert str(got.value) == str(exc)
    else:
        assert_same(call_stand_in(), want, "accepted")


@pytest.mark.parametrize(
    "name", ["temperature-k", "matrix-svs-probabilities", "dirichlet", "mcva-top-label"]
)
def test_k_class_stand_in_checks_test_scores_like_the_estimator(name, tmp_path):
    cal, T = fitted_multiclass(name)
    loaded = _stand_in(venncal.save(cal, tmp_path / "m.json"))
    bad = [T[:, :2], T[:, 0], np.where(T > 0.5, np.nan, T), "x", [[1.5, -0.5, 0.0]]]
    for scores in bad:
        for method in ("predict_proba", "predict"):
            _same_error(
                lambda m=method, s=scores: getattr(cal, m)(s),
                lambda m=method, s=scores: getattr(loaded, m)(s),
            )
    assert type(loaded) is LoadedCalibrator


def test_acp_stand_in_checks_given_intervals_like_the_estimator(tmp_path):
    cal, t = fitted("acp")
    loaded = _stand_in(venncal.save(cal, tmp_path / "acp.json"))
    for iv in ([[0.1, 0.2]], np.column_stack([t + 0.2, t - 0.2]), np.full((t.size, 2), np.nan)):
        _same_error(
            lambda iv=iv: cal.predict_proba(t, interval=iv),
            lambda iv=iv: loaded.predict_proba(t, interval=iv),
        )
    assert type(loaded) is LoadedCalibrator


@pytest.mark.parametrize("name", ["platt", "venn-abers-decimals", "acp", "beta-logit"])
def test_stand_in_orders_the_columns_by_classes_for_any_positive_label(name, tmp_path):
    # scores of P(class 0): pos_label=0 puts the positive class first in classes_
    s, y, _, t = data(2)
    cal = clone(CALIBRATORS[name]).fit(-s, y, pos_label=0)
    loaded = _stand_in(venncal.save(cal, tmp_path / "m.json"))
    assert_same(predictions(cal, -t, on=loaded), predictions(cal, -t), "pos_label=0")
    assert type(loaded) is LoadedCalibrator


_FRESH = textwrap.dedent(
    """
    import sys, numpy as np, venncal
    loaded = venncal.load({path!r})
    t = np.load({scores!r})
    out = {{"proba": loaded.predict_proba(t), "predict": loaded.predict(t)}}
    for key, method in {methods!r}:
        out[key] = getattr(loaded, method)(t)
    if {given!r}:
        out["proba_given_interval"] = loaded.predict_proba(t, interval=np.load({given!r}))
    np.savez({out!r}, **out)
    print("sklearn" in sys.modules, type(loaded).__name__)
    """
)


@pytest.mark.parametrize("name", LIGHT + LIGHT_MULTICLASS)
def test_load_and_predict_in_a_fresh_process_do_not_import_sklearn(name, tmp_path):
    cal, t = _fitted(name, weighted=True)
    path = venncal.save(cal, tmp_path / "m.json")
    np.save(tmp_path / "t.npy", t)
    methods = [("interval", "predict_interval")] if hasattr(cal, "predict_interval") else []
    given = None
    if isinstance(cal, ACPCalibrator):  # as predictions() calls them
        methods.append(("score_interval", "score_interval"))
        given = str(tmp_path / "iv.npy")
        np.save(given, np.column_stack([t - 0.3, t + 0.2]))
    script = _FRESH.format(
        path=str(path),
        scores=str(tmp_path / "t.npy"),
        methods=methods,
        given=given,
        out=str(tmp_path / "o"),
    )
    run = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.split() == ["False", "LoadedCalibrator"]
    got = dict(np.load(tmp_path / "o.npz"))
    want = predictions(cal, t)
    assert got.keys() == want.keys()
    for key in got:
        assert_same(got[key], want[key], key)


def test_models_the_predictor_does_not_cover_load_as_the_estimator(tmp_path):
    rng = np.random.default_rng(0)
    p = rng.random(200)
    monitor = venncal.CalibrationMonitor().update(p, rng.random(200) < p)
    path = venncal.save(monitor, tmp_path / "monitor.json")
    assert saved_predictor(read_model_state(path)) is None
    script = f"import sys, venncal; m = venncal.load({str(path)!r}); print(type(m).__name__)"
    run = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert run.stdout.split() == ["CalibrationMonitor"], run.stderr[-2000:]


@pytest.mark.parametrize("fallback", ["error", "pooled"])
def test_venn_abers_stand_in_predicts_within_groups(fallback, tmp_path):
    s, y, w, t = data(4, n=400, weighted=True)
    g = np.where(np.arange(400) % 3 == 0, "north", "south")
    names = ["north", "south"]
    if fallback == "pooled":  # a group of one class: the pooled predictor, from fit on
        g[:4], y[:4] = "tiny", 1
        names.append("tiny")
    cal = VennAbersCalibrator(decimals=1, group_fallback=fallback, merge="square")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the group pooled at fit is named in a warning
        cal.fit(s, y, sample_weight=w, groups=g)
    assert cal.pooled_groups_ == names[2:]
    path = venncal.save(cal, tmp_path / "groups.json")
    loaded = _stand_in(path)
    gt = np.array(names)[np.arange(t.shape[0]) % len(names)]
    methods = ("predict_proba", "predict", "predict_interval")
    got = {m: getattr(loaded, m)(t, groups=gt) for m in methods}
    assert_same(got, {m: getattr(cal, m)(t, groups=gt) for m in methods}, "within groups")
    unseen = np.where(gt == "north", "east", gt)
    for groups in (None, unseen, gt[:5]):  # errors, or the pooled predictor with a warning
        with warnings.catch_warnings(record=True) as want_warned:
            warnings.simplefilter("always")
            _same_error(
                lambda g=groups: cal.predict_proba(t, groups=g),
                lambda g=groups: loaded.predict_proba(t, groups=g),
            )
        assert [str(x.message) for x in want_warned][::2] == [str(x.message) for x in want_warned][
            1::2
        ]
    with pytest.raises(ValueError, match="fitted within groups"):  # as the command line calls
        saved_predictor(read_model_state(path)).predict_p0_p1(t)
    assert type(loaded) is LoadedCalibrator
    script = textwrap.dedent(
        f"""
        import sys, numpy as np, venncal
        m = venncal.load({str(path)!r})
        print(m.predict_interval({t.tolist()!r}, groups={gt.tolist()!r}).tobytes().hex())
        print("sklearn" in sys.modules, type(m).__name__)
        """
    )
    run = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    out = run.stdout.split()
    assert out[1:] == ["False", "LoadedCalibrator"], run.stderr[-2000:]
    assert out[0] == cal.predict_interval(t, groups=gt).tobytes().hex()


_GROUP_STRATEGIES = [
    {"strategy": "ovr", "pooled": False},
    {"strategy": "pairwise"},
    {"strategy": "top-label", "merge": "log"},
]


@pytest.mark.parametrize("params", _GROUP_STRATEGIES, ids=["ovr", "pairwise", "top-label"])
def test_multiclass_stand_in_predicts_within_groups_without_sklearn(params, tmp_path):
    S, y, w, T = multiclass_data(0, n=400, labels="str", weighted=True)
    g = np.where(np.arange(400) % 3 == 0, "north", "south")
    cal = MulticlassVennAbersCalibrator(**params).fit(S, y, sample_weight=w, groups=g)
    gt = np.where(np.arange(T.shape[0]) % 2 == 0, "north", "south")
    path = venncal.save(cal, tmp_path / "groups.json")
    loaded = _stand_in(path)
    got = {
        m: getattr(loaded, m)(T, groups=gt)
        for m in ("predict_proba", "predict", "predict_interval")
    }
    want = {m: getattr(cal, m)(T, groups=gt) for m in got}
    assert_same(got, want, "within groups")
    for groups in (None, np.where(gt == "north", "east", gt), gt[:5]):  # the estimator's errors
        _same_error(
            lambda g=groups: cal.predict_proba(T, groups=g),
            lambda g=groups: loaded.predict_proba(T, groups=g),
        )
    assert type(loaded) is LoadedCalibrator
    np.save(tmp_path / "T.npy", T)
    np.save(tmp_path / "g.npy", gt)
    script = textwrap.dedent(
        f"""
        import sys, numpy as np, venncal
        m = venncal.load({str(path)!r})
        T, g = np.load({str(tmp_path / "T.npy")!r}), np.load({str(tmp_path / "g.npy")!r})
        np.savez({str(tmp_path / "o")!r}, proba=m.predict_proba(T, groups=g),
                 interval=m.predict_interval(T, groups=g))
        print("sklearn" in sys.modules, type(m).__name__)
        """
    )
    run = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert run.stdout.split() == ["False", "LoadedCalibrator"], run.stderr[-2000:]
    got = dict(np.load(tmp_path / "o.npz"))
    assert_same(got["proba"], want["predict_proba"], "proba")
    assert_same(got["interval"], want["predict_interval"], "interval")


def test_multiclass_stand_in_fitted_without_groups_refuses_them_like_the_estimator(tmp_path):
    cal, T = fitted_multiclass("mcva")
    loaded = _stand_in(venncal.save(cal, tmp_path / "m.json"))
    groups = np.zeros(T.shape[0], dtype=int)
    _same_error(
        lambda: cal.predict_proba(T, groups=groups), lambda: loaded.predict_proba(T, groups=groups)
    )
    assert type(loaded) is LoadedCalibrator


def test_export_of_a_stand_in_is_that_of_the_estimator(tmp_path):
    from venncal.export import to_sql

    cal, _ = fitted("temperature-bias")
    loaded = _stand_in(venncal.save(cal, tmp_path / "t.json"))
    assert to_sql(loaded, table="t", score_column="s") == to_sql(cal, table="t", score_column="s")
    for est in (fitted_multiclass("matrix-sms")[0], fitted("acp")[0]):
        loaded = _stand_in(venncal.save(est, tmp_path / "k.json", overwrite=True))
        with pytest.raises(ValueError) as want:
            to_sql(est, table="t", score_column="s")
        with pytest.raises(ValueError) as got:
            to_sql(loaded, table="t", score_column="s")
        assert str(got.value) == str(want.value)


@pytest.mark.parametrize(
    "name", ["platt", "isotonic-decimals", "beta-logit", "acp", "temperature-bias"]
)
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
