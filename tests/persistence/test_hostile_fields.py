"""Every numeric field of every savable class, edited to hostile values (checksum recomputed):
the file is refused with one ModelFileError line, or loads into a state whose predictions are
finite and valid, without a warning and without allocating more than the file suggests.

The edits: numbers set to 1e308, -1e308, NaN and infinities (the codec's tags), integers past
a float and past int64, negative counts; array elements set to the same; arrays one element
shorter, one longer and empty (their shapes kept consistent, so the codec passes them on).
"""

import copy
import json
import tracemalloc
import warnings

import numpy as np
import pytest

import venncal
from tests.persistence._invariants import check_loaded, wide_ok
from tests.persistence._savable import BUILTIN, fitted_instances
from venncal.persistence import ModelFileError, checksum

_NUMBERS = [
    1e308,
    -1e308,
    {"float": "nan"},
    {"float": "inf"},
    {"float": "-inf"},
    10**400,
    -(10**401),
    2**63,
    2**31,
    -1,
    0,
]
_FLOAT_ELEMENTS = [1e308, -1e308, "nan", "inf", 5e-324, -1.0]
_INT_ELEMENTS = [10**400, 2**63, 2**31, -1]
_BASE_BYTES = 32 * 2**20
_PER_FILE_BYTE = 64


def _sites(node, path=()):
    """(path, kind) of every place a hostile edit applies in a JSON tree."""
    if isinstance(node, dict):
        if set(node) == {"array"} and isinstance(node["array"], dict):
            body = node["array"]
            kind = str(body.get("dtype", "?"))[1:2]
            if kind in "biuf" and body.get("data"):
                yield (*path, "array"), "array-" + ("f" if kind == "f" else "i")
            for i in range(len(body.get("shape", []))):
                yield (*path, "array", "shape", i), "number"
            return
        for k, v in node.items():
            yield from _sites(v, (*path, k))
    elif isinstance(node, list):
        if node and all(type(v) in (int, float) for v in node):
            yield path, "list"
        for i, v in enumerate(node):
            yield from _sites(v, (*path, i))
    elif type(node) in (int, float):
        yield path, "number"


def _get(doc, path):
    for key in path:
        doc = doc[key]
    return doc


def _set(doc, path, value):
    _get(doc, path[:-1])[path[-1]] = value


def _array_edits(body, values):
    """Copies of an array's body with hostile elements and other lengths."""
    for v in values:
        for at in (0,) if v != "nan" else (0, -1):
            out = copy.deepcopy(body)
            out["data"][at] = v
            yield f"[{at}] = {v!r}"[:40], out
    shape = body["shape"]
    row = int(np.prod(shape[1:])) if len(shape) > 1 else 1
    if shape:
        for change in (-1, 1, None):
            out = copy.deepcopy(body)
            if change is None:
                out["shape"][0], out["data"] = 0, []
            elif change < 0:
                out["shape"][0] -= 1
                out["data"] = out["data"][: len(out["data"]) - row]
            else:
                out["shape"][0] += 1
                out["data"] = out["data"] + out["data"][-row:]
            yield f"length {change}", out


def _edits(doc):
    for part in ("params", "fitted"):
        for path, kind in _sites(doc[part], (part,)):
            if kind == "number":
                old = _get(doc, path)
                for v in _NUMBERS:
                    if v != old:
                        yield f"{path} = {v!r}"[:120], path, v
            elif kind == "list":
                old = _get(doc, path)
                for new in (old[:-1], [*old, old[-1]], [], [*old[:-1], 1e308], [-1e308, *old[1:]]):
                    yield f"{path} length {len(new)}", path, new
            else:
                body = _get(doc, path)
                values = _FLOAT_ELEMENTS if kind == "array-f" else _INT_ELEMENTS
                for what, new in _array_edits(body, values):
                    yield f"{path} {what}", path, new


def _write(path, doc):
    content = {k: v for k, v in doc.items() if k != "sha256"}
    content["sha256"] = checksum(content)
    path.write_text(json.dumps(content))


def _attempt(path, traced):
    """None if the edited file is refused in one line or loads into a valid state, else why;
    ``traced``: also bound the memory it takes (slower)."""
    size = path.stat().st_size
    if traced:
        tracemalloc.start()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            try:
                cal = venncal.load(path)
            except ModelFileError as exc:
                return "a refusal of more than one line" if "\n" in str(exc) else None
            check_loaded(cal, wide=False)
        peak = tracemalloc.get_traced_memory()[1] if traced else 0
        if peak > _BASE_BYTES + _PER_FILE_BYTE * size:
            return f"{peak} bytes for a file of {size}"
    except Exception as exc:  # noqa: BLE001 - every failure is collected and reported
        return f"{type(exc).__name__}: {str(exc)[:200]}"
    finally:
        tracemalloc.stop()
    return None


@pytest.mark.parametrize("name", BUILTIN)
def test_hostile_numbers_in_every_field_are_refused_or_harmless(name, tmp_path):
    failures, n = [], 0
    for i, est in enumerate(fitted_instances(name)[:2]):
        original = venncal.save(est, tmp_path / f"{i}.json", with_data=True)
        doc = json.loads(original.read_text())
        assert wide_ok(venncal.load(original)) in (True, False)
        path = tmp_path / "edited.json"
        for what, where, value in _edits(doc):
            edited = copy.deepcopy(doc)
            _set(edited, where, value)
            _write(path, edited)
            n += 1
            why = _attempt(path, type(value) is int and value > 2**20)
            if why is not None:
                failures.append(f"{type(est).__name__} #{i} {what}: {why}")
    assert n > 0
    assert not failures, f"{len(failures)} of {n} edits:\n" + "\n".join(failures[:12])
