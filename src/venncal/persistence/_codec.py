"""Values of a calibrator as plain JSON (numbers, strings, lists, objects) and back.

Every JSON object in the encoding is tagged by its single key, so decoding is a lookup, never an
evaluation: ``{"array": {...}}`` a numpy array, ``{"float": "inf"}`` a float JSON cannot
write, ``{"scalar": {...}}`` a numpy scalar, ``{"tuple": [...]}``, ``{"dict": {...}}``, and
``{"dataclass": {"type": ..., "fields": {...}}}`` one of the fitted-state types that the
registry allows. Finite floats are written with :func:`repr`, which reads back to the same
float bit for bit.
"""

from __future__ import annotations

import dataclasses
import math
from typing import TYPE_CHECKING, Any, cast

import numpy as np

if TYPE_CHECKING:
    from collections.abc import Collection

    from venncal._typing import AnyArray

__all__ = ["encode", "decode", "DecodeError"]

# numpy dtypes a model file may hold: booleans, integers, floats, text (and object arrays of
# those); anything else (complex, long double, dates, records) is refused both ways
_KINDS = {"b", "i", "u", "f", "U", "O"}
_ITEMSIZES = {"b": {1}, "i": {1, 2, 4, 8}, "u": {1, 2, 4, 8}, "f": {2, 4, 8}}
_NONFINITE = {"inf": math.inf, "-inf": -math.inf, "nan": math.nan}
_TAGS = ("array", "float", "scalar", "tuple", "dict", "dataclass")


class DecodeError(ValueError):
    """A value of a model file that is not in the encoding (raised with a one-line reason)."""


def _float_text(x: float) -> str:
    return "nan" if x != x else ("inf" if x > 0 else "-inf")


def _check_dtype(dtype: np.dtype[Any], where: str) -> None:
    if dtype.kind not in _KINDS or (
        dtype.kind in _ITEMSIZES and dtype.itemsize not in _ITEMSIZES[dtype.kind]
    ):
        raise TypeError(f"{where} has the numpy dtype {dtype}, which a model file cannot hold.")


def _encode_array(arr: AnyArray, where: str, types: Collection[type]) -> dict[str, Any]:
    _check_dtype(arr.dtype, where)
    if arr.dtype.kind == "O":
        data = [encode(v, where, types) for v in arr.ravel().tolist()]
    else:
        data = arr.ravel().tolist()
        if arr.dtype.kind == "f" and not np.isfinite(arr).all():
            data = [v if math.isfinite(v) else _float_text(v) for v in data]
    return {"array": {"dtype": arr.dtype.str, "shape": list(arr.shape), "data": data}}


def encode(value: object, where: str = "value", types: Collection[type] = ()) -> Any:
    """Encode ``value`` as JSON-ready Python objects; ``types`` are the allowed dataclasses.

    Raises
    ------
    TypeError
        For a value with no encoding (a one-line message naming ``where``).
    """
    if value is None or isinstance(value, (bool, str)) and not isinstance(value, np.generic):
        return value
    if type(value) is int:
        return value
    if type(value) is float:
        return value if math.isfinite(value) else {"float": _float_text(value)}
    if isinstance(value, np.generic):
        _check_dtype(value.dtype, where)
        return {"scalar": {"dtype": value.dtype.str, "value": encode(value.item(), where)}}
    if isinstance(value, np.ndarray):
        return _encode_array(value, where, types)
    if isinstance(value, list):
        return [encode(v, where, types) for v in value]
    if isinstance(value, tuple):
        return {"tuple": [encode(v, where, types) for v in value]}
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            raise TypeError(f"{where} is a dict with keys that are not strings.")
        return {"dict": {k: encode(v, f"{where}[{k!r}]", types) for k, v in value.items()}}
    if dataclasses.is_dataclass(value) and type(value) in types:
        fields = {
            f.name: encode(getattr(value, f.name), f"{where}.{f.name}", types)
            for f in dataclasses.fields(value)
        }
        return {"dataclass": {"type": type(value).__name__, "fields": fields}}
    raise TypeError(
        f"{where} is a {type(value).__name__}, which a model file cannot hold "
        "(numbers, strings, numpy arrays and registered fitted-state types only)."
    )


#: the most dimensions of an array in a model file (venncal writes at most 2)
_MAX_NDIM = 8
#: a string dtype may declare this many characters more than its longest string needs
_MIN_STRING_ROOM = 256


def _expect(cond: object, message: str) -> None:
    if not cond:
        raise DecodeError(message)


def _decode_dtype(text: Any, where: str) -> np.dtype[Any]:
    _expect(isinstance(text, str) and len(text) <= 8, f"{where} has a bad dtype {text!r}")
    try:
        dtype: np.dtype[Any] = np.dtype(text)
    except TypeError:
        raise DecodeError(f"{where} has an unknown dtype {text!r}") from None
    try:
        _check_dtype(dtype, where)
    except TypeError:
        raise DecodeError(
            f"{where} has the dtype {text!r}, which a model file cannot hold"
        ) from None
    return dtype


def _decode_elements(data: list[Any], dtype: np.dtype[Any], where: str) -> list[Any]:
    kind = dtype.kind
    if kind == "f":
        out = []
        for v in data:
            if type(v) in (float, int):
                out.append(v)
            else:
                _expect(
                    isinstance(v, str) and v in _NONFINITE, f"{where} holds {v!r}, not a number"
                )
                out.append(_NONFINITE[v])
        return out
    if kind == "O":
        out = [decode(v, where) for v in data]
        _expect(
            all(v is None or isinstance(v, (bool, int, float, str)) for v in out),
            f"{where}: an object array may hold numbers and strings only",
        )
        return out
    allowed = {"b": (bool,), "i": (int,), "u": (int,), "U": (str,)}[kind]
    _expect(all(type(v) in allowed for v in data), f"{where} holds values not of dtype {dtype}")
    return data


def _decode_array(body: Any, where: str) -> AnyArray:
    _expect(
        isinstance(body, dict) and set(body) == {"dtype", "shape", "data"},
        f"{where}: an array needs exactly 'dtype', 'shape' and 'data'",
    )
    dtype = _decode_dtype(body["dtype"], where)
    shape, data = body["shape"], body["data"]
    _expect(
        isinstance(shape, list)
        and len(shape) <= _MAX_NDIM
        and all(type(n) is int and n >= 0 for n in shape),
        f"{where}: the shape of an array must be a list of at most {_MAX_NDIM} non-negative "
        "integers",
    )
    _expect(isinstance(data, list), f"{where}: the data of an array must be a list")
    _expect(len(data) == math.prod(shape), f"{where}: {len(data)} values for the shape {shape}")
    values = _decode_elements(data, dtype, where)
    if dtype.kind == "U":  # the memory is what the strings need, not what the file declares
        longest = max((len(v) for v in values), default=0)
        _expect(
            dtype.itemsize // 4 <= max(longest, _MIN_STRING_ROOM),
            f"{where}: the dtype {dtype.str!r} is far wider than its strings",
        )
    try:
        arr = np.array(values, dtype=dtype) if values else np.empty(0, dtype=dtype)
        out: AnyArray = arr.reshape(shape)
        return out
    except (OverflowError, ValueError):
        raise DecodeError(f"{where} holds values out of the range of {dtype}") from None


def _decode_scalar(body: Any, where: str) -> np.generic:
    _expect(
        isinstance(body, dict) and set(body) == {"dtype", "value"},
        f"{where}: a scalar needs exactly 'dtype' and 'value'",
    )
    dtype = _decode_dtype(body["dtype"], where)
    _expect(dtype.kind != "O", f"{where}: a scalar cannot have the object dtype")
    arr = _decode_array({"dtype": body["dtype"], "shape": [], "data": [body["value"]]}, where)
    return cast("np.generic", arr[()])  # numpy's stubs: an ndarray; a 0-d array gives its scalar


def _decode_dataclass(body: Any, where: str, types: Collection[type]) -> object:
    _expect(
        isinstance(body, dict) and set(body) == {"type", "fields"},
        f"{where}: a fitted-state object needs exactly 'type' and 'fields'",
    )
    by_name = {t.__name__: t for t in types}
    name, fields = body["type"], body["fields"]
    _expect(isinstance(name, str) and name in by_name, f"{where} has an unknown type {name!r}")
    _expect(isinstance(fields, dict), f"{where}: 'fields' must be an object")
    cls = by_name[name]
    known = {f.name: f for f in dataclasses.fields(cls) if f.init}
    unknown = sorted(set(fields) - set(known))
    _expect(not unknown, f"{where}: {name} has no field {unknown[0] if unknown else ''!r} here")
    missing = [
        n
        for n, f in known.items()
        if n not in fields
        and f.default is dataclasses.MISSING
        and f.default_factory is dataclasses.MISSING
    ]
    _expect(not missing, f"{where}: {name} misses the field {missing[0] if missing else ''!r}")
    values = {k: decode(v, f"{where}.{k}", types) for k, v in fields.items()}
    try:
        return cls(**values)
    except (TypeError, ValueError) as exc:
        raise DecodeError(f"{where}: {name} refused its fields ({exc})") from None


def decode(obj: Any, where: str = "value", types: Collection[type] = ()) -> Any:
    """Decode what :func:`encode` wrote; ``types`` are the dataclasses that may appear.

    Raises
    ------
    DecodeError
        For anything :func:`encode` does not write.
    """
    if obj is None or type(obj) in (bool, str, int, float):
        return obj
    if type(obj) is list:
        return [decode(v, where, types) for v in obj]
    _expect(
        type(obj) is dict and len(obj) == 1 and next(iter(obj)) in _TAGS,
        f"{where}: an object must have one key among {', '.join(_TAGS)}",
    )
    ((tag, body),) = obj.items()
    if tag == "float":
        _expect(
            isinstance(body, str) and body in _NONFINITE,
            f"{where}: {{'float': {body!r}}} is not inf, -inf or nan",
        )
        return _NONFINITE[body]
    if tag == "array":
        return _decode_array(body, where)
    if tag == "scalar":
        return _decode_scalar(body, where)
    if tag == "tuple":
        _expect(type(body) is list, f"{where}: a tuple must be a list")
        return tuple(decode(v, where, types) for v in body)
    if tag == "dict":
        _expect(type(body) is dict, f"{where}: a dict must be an object")
        return {k: decode(v, f"{where}[{k!r}]", types) for k, v in body.items()}
    return _decode_dataclass(body, where, types)
