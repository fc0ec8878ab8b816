"""A sweep of hostile edits over every field of every savable class (checksum recomputed): each
edited file is refused with one ModelFileError line, or loads into a model whose every
prediction, on ordinary inputs and on inputs at 0, 1, 1e-300, 1e308 and subnormal, is finite
and within its documented range, without a numpy warning, a hang or an allocation the file's
size does not explain.

Every field of params and fitted, recursively (arrays, their elements and shapes, lists,
tuples, dataclass fields, group keys), gets: extreme numbers (1e308, -1e308, 5e-324, 0, -1,
10**30), the wrong type (a float where an integer is, a string, a boolean, null), other lengths
(empty, one more, one less, 10**9 claimed in a shape), another dtype or number of dimensions,
values out of order or repeated, and probabilities outside [0, 1]. The fast run takes a sample
of the edits of each field, every field of every class at least twice;
``VENNCAL_SWEEP=all`` runs all of them. A sample of the edited files is also loaded in a process
that has not imported scikit-learn: its stand-in predicts what the estimator predicts.
"""

import copy
import functools
import json
import os
import pickle
import signal
import subprocess
import sys
import tempfile
import tracemalloc
import warnings

import numpy as np
import pytest

import venncal
from tests.persistence._cases import assert_same
from tests.persistence._invariants import segment_frame
from tests.persistence._savable import BUILTIN, binary_data, fitted_instances, multiclass_data
from venncal.persistence import ModelFileError, checksum, read_model_state
from venncal.persistence._predictor import PREDICTORS, saved_predictor
from venncal.persistence._registry import model_class

ALL = os.environ.get("VENNCAL_SWEEP") == "all"
#: edits per field in the fast run (every field gets at least this many)
PER_SITE = 2
#: memory a load and the predictions may take besides the file's own size
_BASE_BYTES = 32 * 2**20
_PER_FILE_BYTE = 64
#: seconds a load and its predictions may take
_SECONDS = 5.0

#: scores at the ends of [0, 1] and beyond them
_EDGES = [0.0, 1.0, 1e-300, 5e-324, 2.2250738585072014e-308, 1.0 - 2**-53, 1.0 - 1e-300]
_HUGE = [1e308, -1e308, -5e-324, 1e-300, 0.0]


# ---------------------------------------------------------------------------- the instances


def _extra(name):
    """Fits beyond those of ``_savable``: the K-class calibrators on 3 and 4 classes (matrix
    scaling of every structure), beta and quadratic maps of log-odds, multiclass Venn-Abers on
    4 classes (top-label, separate pairwise tables, within groups)."""
    cls = model_class(name).cls
    out = []
    if name in ("TemperatureCalibrator", "DirichletCalibrator", "MatrixScalingCalibrator"):
        for K in (3, 4):
            p, y = multiclass_data(seed=1, n=160, K=K)
            out.append(cls().fit(p, y))
    if name == "MatrixScalingCalibrator":
        p, y = multiclass_data(seed=2, n=160, K=3)
        out += [cls(structure=s).fit(np.log(p), y) for s in ("svs", "full", "vector")]
    if name in ("BetaCalibrator", "QuadraticCalibrator"):
        # log-odds halved, so that the slopes exceed 2: a score of -1e308 overflows them
        s, y = binary_data(seed=0)
        s = np.clip(s, 0.01, 0.99)
        out.append(cls(score_scale="logit").fit(np.log(s / (1 - s)) / 2, y))
    if name == "MulticlassVennAbersCalibrator":
        p, y = multiclass_data(seed=1, n=160, K=4)
        out += [cls(strategy="top-label").fit(p, y), cls(pooled=False).fit(p, y)]
        out.append(cls(strategy="ovr").fit(p, y, groups=np.arange(160) % 2))
    return out


@functools.cache
def instances(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return tuple(fitted_instances(name) + _extra(name))


# ------------------------------------------------------------------------------- the inputs


def _family(cal):
    if hasattr(cal, "predict_cdf"):
        return "distribution"
    if hasattr(cal, "accept"):
        return "abstention"
    if hasattr(cal, "levels_") and hasattr(cal, "report"):
        return "segment-monitor"
    if hasattr(cal, "update") and not hasattr(cal, "predict_proba"):
        return "monitor"
    if hasattr(cal, "coding_"):
        return "segments"
    return "multiclass" if getattr(cal, "n_features_in_", 1) > 1 else "binary"


def _binary_inputs():
    rng = np.random.default_rng(5)
    ordinary = np.r_[np.linspace(0, 1, 11), np.round(rng.random(12), 2)]
    return {"ordinary": ordinary, "edges": np.array(_EDGES), "huge": np.array(_HUGE)}


def _class_rows(K):
    """(ordinary, extreme) rows of K class probabilities: extremes at 0, 1, tiny and subnormal."""
    P = multiclass_data(seed=5, n=24, K=K)[0]
    rows = []
    for v in (1e-300, 5e-324, 0.0, 2.2250738585072014e-308):
        for k in range(K):
            r = np.full(K, v)
            r[k] = 1.0 - (K - 1) * v
            rows.append(r)
    return P, np.array(rows)


def inputs(cal):
    """name -> the inputs ``cal`` predicts on: ordinary ones, at the ends of [0, 1] (and beyond
    them, or logits, as the model takes them)."""
    fam = _family(cal)
    out = {}
    if fam in ("binary", "segments", "monitor", "segment-monitor"):
        for kind, s in _binary_inputs().items():
            out[kind] = s
    elif fam == "multiclass":
        K = cal.n_features_in_
        P, X = _class_rows(K)
        out["ordinary"], out["edges"] = P, X
        out["logits"] = np.log(np.clip(P, 1e-300, None))
        out["logits-extreme"] = np.array([[1e308] + [0.0] * (K - 1), [-1e308] * K, [5e-324] * K])
    elif fam == "abstention":
        k = cal.n_features_in_
        rng = np.random.default_rng(0)
        P = rng.dirichlet(np.ones(max(k, 2)), 20)
        ext = np.array(_EDGES)
        E = np.column_stack([1 - ext, ext]) if k <= 2 else _class_rows(k)[1]
        for kind, M in (("ordinary", P), ("edges", E)):
            s = M[:, 1] if k == 1 else M
            if cal.confidence == "lower":
                s = np.column_stack([s, s]) if k == 1 else np.stack([M, M], axis=2)
            out[kind] = s
    else:  # a predictive distribution: predictions of a real label
        rng = np.random.default_rng(3)
        out["ordinary"] = np.round(rng.normal(size=20), 1)
        out["edges"] = np.array(_EDGES)
        out["huge"] = np.array(_HUGE)
    return out


def _group_kwargs(cal, n):
    groups = getattr(cal, "groups_", None)
    if groups is None:
        return {}
    known = list(groups) + list(getattr(cal, "pooled_groups_", None) or [])
    if not known:
        return {}
    return {"groups": np.array([known[i % len(known)] for i in range(n)])}


def predict_all(cal, fam, x):
    """Every prediction ``cal`` (of the family ``fam``) offers on the input ``x``, as a dict of
    arrays; a model fitted within groups is asked about every group it knows."""
    n = x.shape[0]
    if fam in ("binary", "multiclass"):
        kw = _group_kwargs(cal, n)
        out = {"proba": cal.predict_proba(x, **kw), "predict": cal.predict(x, **kw)}
        if hasattr(cal, "predict_interval"):
            out["interval"] = cal.predict_interval(x, **kw)
        if hasattr(cal, "score_interval"):
            out["score_interval"] = cal.score_interval(x)
            iv = np.column_stack([x - 0.3, x + 0.2])
            out["proba_given"] = cal.predict_proba(x, interval=iv)
        return out
    if fam == "segments":
        seg = segment_frame(cal.coding_, n)
        return {
            "proba": cal.predict_proba(x, segments=seg),
            "predict": cal.predict(x, segments=seg),
            "interval": cal.predict_interval(x, segments=seg),
        }
    if fam == "abstention":
        groups = (
            None if cal.groups_ is None else [cal.groups_[i % len(cal.groups_)] for i in range(n)]
        )
        return {
            "accept": cal.accept(x, groups=groups),
            "predict": cal.predict(x),
            "confidence": cal.predict_confidence(x),
        }
    if fam == "segment-monitor":  # the stream goes on, in every known level and a new one
        p, y = np.clip(x, 0.0, 1.0), np.arange(n) % 2
        seg = {c: [(levels + ["new"])[i % (len(levels) + 1)] for i in range(n)]
               for c, levels in cal.levels_.items()}  # fmt: skip
        for c, edges in (cal.bins or {}).items():  # a binned column takes numbers
            seg[c] = np.resize(np.r_[np.nan, np.asarray(edges, dtype=float)], n)
        cal.update(p, y, segments=seg)
        report = cal.report()
        return {"report": report[["log_martingale", "threshold", "log_max"]].to_numpy()}
    if fam == "monitor":  # the stream goes on: row by row, then as a batch
        p, y = np.clip(x, 0.0, 1.0), np.arange(n) % 2
        path = cal.advance(p, y)
        cal.update(p[::-1], y)
        return {"path": path, "log_martingale": np.array([cal.log_martingale_])}
    kw = _group_kwargs(cal, n)
    t = np.r_[-1e308, np.linspace(-4, -1, 4), -5e-324, 0.0, 1e-300, np.linspace(1, 4, 4), 1e308]
    return {
        "cdf": cal.predict_cdf(x, t, **kw),
        "merged": cal.predict_merged_cdf(x, t, **kw),
        "quantiles": cal.predict_quantiles(x, [5e-324, 0.05, 0.5, 0.95, 1 - 2**-53], **kw),
        "interval": cal.predict_interval(x, **kw),
        "band": cal.predict_interval(x, kind="band", **kw),
        "mean": cal.predict_mean(x, **kw),
        "crps": cal.crps(x, x + 0.25, **kw),
        "pit": cal.predict_pit(x, x + 0.25, random_state=0, **kw),
    }


def _unit(a):
    return np.isfinite(a).all() and ((a >= 0) & (a <= 1)).all()


def check_outputs(cal, fam, out, n):
    """Why the predictions ``out`` of ``n`` inputs break their documented ranges, or None."""
    if fam in ("binary", "multiclass", "segments"):
        classes = cal.classes_
        proba = out["proba"]
        if proba.shape != (n, classes.shape[0]) or not _unit(proba):
            return "probabilities not finite in [0, 1]"
        if not np.allclose(proba.sum(axis=1), 1.0, rtol=0, atol=1e-9):
            return "probabilities that do not sum to one"
        if not np.isin(out["predict"], classes).all():
            return "predict gives an unknown class"
        if "interval" in out:
            iv = out["interval"]
            if not _unit(iv) or (iv[..., 0] > iv[..., 1]).any():
                return "an interval not finite in [0, 1], or p0 > p1"
        if "score_interval" in out:
            si = out["score_interval"]
            if np.isnan(si).any() or (si[:, 0] > si[:, 1]).any():
                return "a score interval with NaN or lower > upper"
            if not _unit(out["proba_given"]):
                return "probabilities given an interval not finite in [0, 1]"
        return None
    if fam == "abstention":
        if out["accept"].dtype != bool or out["accept"].shape != (n,):
            return "accept is not one boolean per row"
        if not np.isin(out["predict"], cal.classes_).all():
            return "predict gives an unknown class"
        if not _unit(out["confidence"]):
            return "confidences not finite in [0, 1]"
        return None
    if fam == "segment-monitor":
        if np.isnan(out["report"]).any():
            return "a NaN martingale"
        states = [st for sts in cal.states_.values() for st in sts]
        if cal.alarm_ != any(st.log_max >= st.log_threshold for st in states):
            return "alarm and peak differ"
        return None
    if fam == "monitor":
        state = cal.state_
        if out["path"].shape != (n,) or np.isnan(out["path"]).any():
            return "a path of the martingale that is not one number per row"
        if np.isnan(out["log_martingale"]).any() or np.isnan(state.log_wealth).any():
            return "a NaN martingale"
        if cal.alarm_ != (state.log_max >= state.log_threshold):
            return "alarm and peak differ"
        return None
    band, merged = out["cdf"], out["merged"]
    if not _unit(band) or (band[..., 0] > band[..., 1]).any():
        return "a CDF band not finite in [0, 1], or F0 > F1"
    if (np.diff(band, axis=1) < -1e-12).any() or (np.diff(merged, axis=1) < -1e-12).any():
        return "a CDF that decreases"
    if not _unit(merged):
        return "a merged CDF not finite in [0, 1]"
    q = out["quantiles"]
    if np.isnan(q).any() or (np.diff(q, axis=1) < 0).any():
        return "quantiles with NaN or out of order"
    for key in ("interval", "band"):
        iv = out[key]
        if np.isnan(iv).any() or (iv[:, 0] > iv[:, 1]).any():
            return f"a {key} interval with NaN or lower > upper"
    if not np.isfinite(out["mean"]).all() or not np.isfinite(out["crps"]).all():
        return "non-finite means or CRPS"
    if (out["crps"] < 0).any() or not _unit(out["pit"]):
        return "a negative CRPS or a PIT outside [0, 1]"
    return None


# -------------------------------------------------------------------------------- the edits


class _Hang(Exception):
    pass


def _alarm(signum, frame):
    raise _Hang(f"more than {_SECONDS} s")


def _sites(node, path):
    """(path, kind) of every place an edit applies in a JSON tree of the codec."""
    if isinstance(node, dict) and len(node) == 1:
        ((tag, body),) = node.items()
        if tag == "array":
            yield path, "array"
            return
        if tag == "float":
            yield path, "number"
            return
        if tag == "scalar":
            yield (*path, "scalar", "value"), "number"
            return
        if tag == "tuple":
            yield (*path, "tuple"), "seq"
            for i, v in enumerate(body):
                yield from _sites(v, (*path, "tuple", i))
            return
        if tag == "dict":
            for k, v in body.items():
                yield from _sites(v, (*path, "dict", k))
            return
        if tag == "dataclass":
            for k, v in body["fields"].items():
                yield from _sites(v, (*path, "dataclass", "fields", k))
            return
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _sites(v, (*path, k))
    elif isinstance(node, list):
        yield path, "seq"
        for i, v in enumerate(node):
            yield from _sites(v, (*path, i))
    elif isinstance(node, bool):
        yield path, "bool"
    elif isinstance(node, (int, float)):
        yield path, "number"
    elif isinstance(node, str):
        yield path, "string"
    else:
        yield path, "none"


_NUMBERS = [1e308, -1e308, 5e-324, 0, -1, 10**30, 2**63, 10**9, "x", True, None, 2.0, 0.5]


def _leaf_edits(old, kind):
    """(what, new value) of the edits of a number, boolean, string or null."""
    if kind == "number":
        values = list(_NUMBERS)
        if type(old) is int:
            values.append(old + 0.5)  # a float where an integer is
        elif type(old) is float:
            values += [-old, old * (1 + 2**-50) if old else 1e-9]
        return [(repr(v), v) for v in values if not (type(v) is type(old) and v == old)]
    if kind == "bool":
        return [(repr(v), v) for v in (not old, 0, 1, None, "true", 1.5)]
    if kind == "string":
        # "a" and "c": the names of other groups (of the fits within groups)
        values = ("", "x", "a", "c", None, 0, 1.0, True, old + old, old.upper())
        return [(repr(v), v) for v in values if v != old]
    return [(repr(v), v) for v in (0, -1, 1e308, "x", True, [], 10**30)]


def _seq_edits(old):
    """(what, new list) of the edits of a list or a tuple's items: lengths, order, repeats."""
    out = [("empty", []), ("reversed", old[::-1])]
    if old:
        out += [("one less", old[:-1]), ("one more", [*old, copy.deepcopy(old[-1])])]
        out += [("repeated", [copy.deepcopy(old[0])] * len(old))]
    return out


def _array_edits(body):
    """Copies of an array's body: other lengths, shapes, dtypes, order, elements."""
    shape, data, dtype = body["shape"], body["data"], body["dtype"]
    kind = dtype[1:2]
    out = []

    def new(**changes):
        b = copy.deepcopy(body)
        b.update(changes)
        return {"array": b}

    row = int(np.prod(shape[1:])) if len(shape) > 1 else 1
    if shape:
        n = shape[0]
        rows = [data[i * row : (i + 1) * row] for i in range(n)]
        out += [
            ("empty", new(shape=[0, *shape[1:]], data=[])),
            ("claims 10**9 rows", new(shape=[10**9, *shape[1:]])),
            ("claims 10**9 columns", new(shape=[*shape, 10**9])),
        ]
        if n:
            out += [
                ("one more row", new(shape=[n + 1, *shape[1:]], data=data + rows[-1])),
                ("one less row", new(shape=[n - 1, *shape[1:]], data=data[: (n - 1) * row])),
            ]
        if n > 1:
            out += [
                ("reversed", new(data=[v for r in rows[::-1] for v in r])),
                ("first row twice", new(data=rows[0] + rows[0] + data[2 * row :])),
            ]
        out += [
            (
                "2-D" if len(shape) == 1 else "1-D",
                new(shape=[1, *shape] if len(shape) == 1 else [len(data)]),
            )
        ]
    if kind == "f":
        whole = [int(v) if type(v) is float and abs(v) < 2**62 else 0 for v in data]
        out += [("as int64", new(dtype="<i8", data=whole))]
        out += [("as float32", new(dtype="<f4"))]
        elements = [1e308, -1e308, 5e-324, 0.0, -1.0, 2.0, 10**30, "inf", "nan", "x", None]
    elif kind in "iu":
        out += [("as float64", new(dtype="<f8", data=[float(v) for v in data]))]
        out += [("as bool", new(dtype="|b1", data=[bool(v) for v in data]))]
        elements = [10**30, 2**63, -1, 0, 10**9, 0.5, True, "x"]
    elif kind == "b":
        out += [("as int64", new(dtype="<i8", data=[int(v) for v in data]))]
        elements = [2, 0.5, None]
    elif kind == "U":
        out += [("as object", new(dtype="|O"))]
        elements = ["", "x", 1]
    else:
        elements = ["x", 1, 1.5, None, True, 1e308, [1]]
    if data:
        for at in sorted({0, len(data) - 1}):
            for v in elements:
                d = list(data)
                d[at] = v
                out.append((f"[{at}] = {v!r}", new(data=d)))
    return out


def _get(doc, path):
    for key in path:
        doc = doc[key]
    return doc


def _copies(doc):
    """key -> paths of the values a document holds more than once (a fitted copy of a table's
    field, e.g. Platt's ``a_`` and ``sigmoid_.a``): an edit of one changes them all."""
    seen = {}
    for part in ("params", "fitted"):
        for path, kind in _sites(doc[part], (part,)):
            old = _get(doc, path)
            if kind in ("array", "number", "string") and old not in (0, 1, "") or kind == "seq":
                seen.setdefault(json.dumps(old, sort_keys=True), []).append(path)
    return {k: tuple(v) for k, v in seen.items() if len(v) > 1}


def edits(doc):
    """(paths, what, new value) of every edit of the document: of one value, and of every
    copy of it together (a consistent edit that relations between copies do not see)."""
    copies = _copies(doc)
    for part in ("params", "fitted"):
        for path, kind in _sites(doc[part], (part,)):
            old = _get(doc, path)
            if kind == "array":
                todo = _array_edits(old["array"])
            elif kind == "seq":
                todo = _seq_edits(old)
            else:
                todo = _leaf_edits(old, kind)
            together = copies.get(json.dumps(old, sort_keys=True), ())
            for what, value in todo:
                yield (path,), what, value
                if together and together[0] == path:
                    yield together, f"{what} (and its copies)", value


def write(path, doc):
    """Write ``doc`` with a checksum of its values that matches it (a deliberate edit)."""
    content = {k: v for k, v in doc.items() if k not in ("sha256", "bytes_sha256")}
    content["sha256"] = checksum(content)
    path.write_text(json.dumps(content))


def _flat(value):
    if isinstance(value, dict):
        for v in value.values():
            yield from _flat(v)
    elif isinstance(value, list):
        for v in value:
            yield from _flat(v)
    else:
        yield value


def attempt(path, baseline, traced):
    """(why, predictions): why is None if ``path`` is refused in one line (predictions None)
    or predicts within the ranges on every input the original predicted on (their
    predictions), else the reason (an exception there, even a ValueError, is one)."""
    size = path.stat().st_size
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, _SECONDS)
    if traced:
        tracemalloc.start()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)
            try:
                cal = venncal.load(path)
            except ModelFileError as exc:
                return ("a refusal of more than one line" if "\n" in str(exc) else None), None
            fam = _family(cal)
            outs = {}
            for key, x in inputs(cal).items():
                if key not in baseline:  # inputs the original model refuses too
                    continue
                out = predict_all(cal, fam, x)
                why = check_outputs(cal, fam, out, x.shape[0])
                if why:
                    return f"{key} inputs: {why}", None
                outs[key] = out
        peak = tracemalloc.get_traced_memory()[1] if traced else 0
        if peak > _BASE_BYTES + _PER_FILE_BYTE * size:
            return f"{peak} bytes for a file of {size}", None
        return None, outs
    except Exception as exc:  # noqa: BLE001 - every failure is collected and reported
        return f"{type(exc).__name__}: {str(exc)[:160]}", None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
        tracemalloc.stop()


def _baseline(cal):
    """The inputs the fitted model predicts on (and its predictions, within their ranges)."""
    fam = _family(cal)
    out = {}
    for key, x in inputs(cal).items():
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error", RuntimeWarning)
                res = predict_all(copy.deepcopy(cal), fam, x)
        except ValueError:  # e.g. scores beyond [0, 1] for a calibrator of probabilities
            continue
        assert check_outputs(cal, fam, res, x.shape[0]) is None, (type(cal).__name__, key)
        out[key] = res
    assert "ordinary" in out and "edges" in out, type(cal).__name__
    return out


@functools.cache
def documents(name):
    """(model file document, inputs it predicts on) of each instance of ``name``."""
    out = []
    with tempfile.TemporaryDirectory() as folder:
        for i, est in enumerate(instances(name)):
            path = venncal.save(est, os.path.join(folder, f"{i}.json"), with_data=True)
            doc = json.loads(path.read_text())
            out.append((doc, _baseline(venncal.load(path))))
    return tuple(out)


def _field(path):
    """The field an edit changes, its indices in tuples and lists of tables left out."""
    parts = [p for p in path if p not in ("dataclass", "fields", "tuple", "dict")]
    return ".".join("*" if isinstance(p, int) else str(p) for p in parts)


def planned_edits(name, seed=0):
    """(instance, field, what, paths, value) of the edits of ``name``: all of them (ALL), or
    PER_SITE of every field (over the instances that have it)."""
    by_field = {}
    for i, (doc, _) in enumerate(documents(name)):
        for paths, what, value in edits(doc):
            field = " & ".join(_field(p) for p in paths)
            by_field.setdefault(field, []).append((i, what, paths, value))
    rng = np.random.default_rng([seed, len(name)])
    out = []
    for field, todo in by_field.items():
        if not ALL:
            picks = rng.choice(len(todo), size=min(PER_SITE, len(todo)), replace=False)
            todo = [todo[k] for k in sorted(picks)]
        out += [(i, field, what, paths, value) for i, what, paths, value in todo]
    return out


def edited_file(name, i, paths, value, folder, n):
    """The file of instance ``i`` of ``name`` with the values at ``paths`` replaced."""
    doc = json.loads(json.dumps(documents(name)[i][0]))  # a copy, faster than deepcopy
    for path in paths:
        _get(doc, path[:-1])[path[-1]] = copy.deepcopy(value)
    out = folder / f"{name}-{i}-{n}.json"
    write(out, doc)
    return out


@pytest.mark.parametrize("name", BUILTIN)
def test_every_field_edited_is_refused_or_predicts_within_range(name, tmp_path):
    failures, todo = [], planned_edits(name)
    for n, (i, field, what, paths, value) in enumerate(todo):
        edited = edited_file(name, i, paths, value, tmp_path, n)
        big = any(isinstance(v, int) and abs(v) >= 2**20 for v in _flat(value))
        why, _ = attempt(edited, documents(name)[i][1], big)
        if why is not None:
            failures.append(f"{name} #{i} {field} {what}: {why}")
        edited.unlink()
    assert todo
    assert not failures, f"{len(failures)} of {len(todo)} edits:\n" + "\n".join(failures[:15])


#: the edits that broke a load or a prediction before their fix, always run: id -> (class,
#: instance, the paths edited, their new value, a fragment of the refusal or None for a
#: model that loads and predicts within range), loaded without a numpy warning
_SIGMOID = ("fitted", "sigmoid_", "dataclass", "fields")
_MAP = ("fitted", "map_", "dataclass", "fields")
_TABLE = ("fitted", "tables_", "dataclass", "fields", "table", "dataclass", "fields")
_EDGES_0 = ("fitted", "coding_", "dataclass", "fields", "edges", "tuple", 0, "array", "dtype")
REGRESSIONS = {
    "platt-no-a-scaled": ("PlattCalibrator", 0, [(*_SIGMOID, "a_scaled")], None, "a_scaled"),
    "platt-no-b-scaled": ("PlattCalibrator", 0, [(*_SIGMOID, "b_scaled")], None, "b_scaled"),
    "scaling-binning-no-a-scaled": (
        "ScalingBinningCalibrator", 0, [(*_SIGMOID, "a_scaled")], None, "sigmoid_.a_scaled"
    ),
    "acp-no-a-scaled": ("ACPCalibrator", 0, [(*_SIGMOID, "a_scaled")], None, "sigmoid_.a_scaled"),
    "matrix-huge-int-temperature": (
        "MatrixScalingCalibrator", 0, [(*_MAP, "inverse_temperature")], 10**30, "inverse_temp"
    ),
    "matrix-subnormal-smoothing": (
        "MatrixScalingCalibrator", 0, [(*_MAP, "smoothing")], 5e-324, "map_.smoothing"
    ),
    "mcva-empty-groups": ("MulticlassVennAbersCalibrator", 0, [("fitted", "groups_")], [], "groups_"),
    "mcva-no-group-tables": (
        "MulticlassVennAbersCalibrator", 7, [("fitted", "group_tables_")], [], "group_tables_"
    ),
    "mcva-group-past-int64": (
        "MulticlassVennAbersCalibrator", 7, [("fitted", "groups_", 0)], 10**30, "groups_"
    ),
    "mcva-group-2-63": (
        "MulticlassVennAbersCalibrator", 7, [("fitted", "groups_", 1)], 2**63, "groups_"
    ),
    "mcva-price-subnormal-p0": (
        "MulticlassVennAbersCalibrator", 4, [(*_TABLE, "values0", "array", "data", 0)], 5e-324,
        None,
    ),
    "multicalibration-float32-edges": (
        "MulticalibrationCalibrator", 0, [_EDGES_0], "<f4", "coding_.edges[0]"
    ),
    "beta-huge-a": ("BetaCalibrator", 0, [(*_MAP, "a"), ("fitted", "a_")], 1e308, "m_ must"),
    "beta-huge-b": ("BetaCalibrator", 1, [(*_MAP, "b"), ("fitted", "b_")], 1e308, "m_ must"),
}  # fmt: skip


@pytest.mark.parametrize("case", list(REGRESSIONS))
def test_edits_that_broke_a_model_before(case, tmp_path):
    name, i, paths, value, fragment = REGRESSIONS[case]
    edited = edited_file(name, i, paths, value, tmp_path, 0)
    if fragment is None:
        why, outs = attempt(edited, documents(name)[i][1], False)
        assert why is None and outs, why
        return
    with warnings.catch_warnings(), pytest.raises(ModelFileError) as info:
        warnings.simplefilter("error", RuntimeWarning)
        venncal.load(edited)
    assert "\n" not in str(info.value) and fragment in str(info.value), str(info.value)


# ------------------------------------------------------------- the load without scikit-learn

#: the predictions of the stand-in a process without scikit-learn gets (run there too)
_LIGHT = """
def light_predictions(cal, methods, x, kw):
    out = {"proba": cal.predict_proba(x, **kw), "predict": cal.predict(x, **kw)}
    if "predict_interval" in methods:
        out["interval"] = cal.predict_interval(x, **kw)
    if "score_interval" in methods:
        out["score_interval"] = cal.score_interval(x)
        out["proba_given"] = cal.predict_proba(x, interval=np.column_stack([x - 0.3, x + 0.2]))
    return out
"""
_NAMESPACE = {"np": np}
exec(_LIGHT, _NAMESPACE)  # noqa: S102 - the code the child process runs, run here too
light_predictions = _NAMESPACE["light_predictions"]

_CHILD = """
import pickle, sys, warnings
import numpy as np
import venncal
from venncal.persistence import ModelFileError
{light}
jobs = pickle.load(open(sys.argv[1], "rb"))
results = []
for path, methods, runs in jobs:
    try:
        cal = venncal.load(path)
    except ModelFileError as exc:
        results.append(("refused", str(exc)))
        continue
    kind = type(cal).__name__
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = {{key: light_predictions(cal, methods, x, kw) for key, (x, kw) in runs.items()}}
    results.append((kind, out))
assert "sklearn" not in sys.modules, "a load imported scikit-learn"
pickle.dump(results, open(sys.argv[2], "wb"))
"""

#: edited files per class that load, and that are refused, checked without scikit-learn
_LIGHT_LOADED, _LIGHT_REFUSED = 6, 2


def _light_job(name, path):
    """(job for the child, what it must give) for the file at ``path``, or None for a file
    loaded as the estimator in any process."""
    try:
        cal = venncal.load(path)
    except ModelFileError as exc:
        return (str(path), (), {}), ("refused", str(exc))
    if saved_predictor(read_model_state(path)) is None:
        return None
    methods, runs, want = PREDICTORS[name].methods, {}, {}
    for key, x in inputs(cal).items():
        kw = _group_kwargs(cal, x.shape[0])
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                want[key] = light_predictions(cal, methods, x, kw)
        except ValueError:  # e.g. logits for a model of probabilities
            continue
        runs[key] = (x, kw)
    return (str(path), methods, runs), ("LoadedCalibrator", want)


def test_light_load_predicts_what_the_estimator_predicts(tmp_path):
    """The files of every class with a stand-in, and a sample of their edited files (some
    refused, some loaded), loaded in a process that has not imported scikit-learn: refused in
    the same words, or predicting bit for bit what the estimator predicts."""
    jobs, expected = [], []
    for name in sorted(set(BUILTIN) & set(PREDICTORS)):
        files = []
        for i, (doc, _) in enumerate(documents(name)):
            files.append(tmp_path / f"{name}-{i}-original.json")
            write(files[-1], doc)
        loaded = refused = 0
        todo = planned_edits(name, seed=1)
        for k in np.random.default_rng(len(name)).permutation(len(todo)):
            i, _, _, paths, value = todo[k]
            path = edited_file(name, i, paths, value, tmp_path, f"light{k}")
            try:
                venncal.load(path)
                loaded += 1
                keep = loaded <= _LIGHT_LOADED
            except ModelFileError:
                refused += 1
                keep = refused <= _LIGHT_REFUSED
            if keep:
                files.append(path)
            if loaded >= _LIGHT_LOADED and refused >= _LIGHT_REFUSED:
                break
        for path in files:
            made = _light_job(name, path)
            if made is not None:
                jobs.append(made[0])
                expected.append(made[1])
    job_file, out_file = tmp_path / "jobs.pkl", tmp_path / "out.pkl"
    job_file.write_bytes(pickle.dumps(jobs))
    code = _CHILD.format(light=_LIGHT)
    subprocess.run([sys.executable, "-c", code, job_file, out_file], check=True, timeout=300)
    results = pickle.loads(out_file.read_bytes())
    assert len(results) == len(jobs)
    for (path, _, _), (kind, want), (got_kind, got) in zip(jobs, expected, results):
        assert got_kind == kind, (path, got_kind, kind)
        if kind == "refused":
            assert got == want
            continue
        assert set(got) == set(want), path
        for key in want:
            for part in want[key]:
                assert_same(got[key][part], want[key][part], f"{path} {key} {part}")
    stand_ins = sum(kind == "LoadedCalibrator" for kind, _ in expected)
    assert stand_ins >= 2 * len(set(BUILTIN) & set(PREDICTORS)), stand_ins
