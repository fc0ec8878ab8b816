"""Saving and loading fitted calibrators as versioned, checksummed JSON model files."""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from venncal._files import atomic_open
from venncal.core._docs import fill_docstring
from venncal.persistence._checks import FittedStateError, check_fitted_state
from venncal.persistence._codec import DecodeError, decode, encode
from venncal.persistence._reading import (
    MAX_BYTES,
    MAX_DEPTH,
    VALUE_CHECK_BYTES,
    ReadError,
    check_max_bytes,
    json_depth,
    read_bytes,
)
from venncal.persistence._registry import model_class, model_types, registered_names

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from typing import TypeVar

    from venncal.persistence._registry import ModelClass

    F = TypeVar("F", bound=Callable[..., Any])

__all__ = [
    "save",
    "load",
    "read_model_file",
    "ModelFile",
    "ModelState",
    "read_model_state",
    "ModelFileError",
    "FORMAT",
    "FORMAT_VERSION",
    "checksum",
]

#: the value of the ``"format"`` key of every model file
FORMAT = "venncal-model"
#: the model-file format this version writes; it reads every version up to this one (format 2
#: added the checksum of the file's bytes, ``"bytes_sha256"``)
FORMAT_VERSION = 2
_KEYS = {"format", "format_version", "venncal_version", "class", "params", "fitted", "sha256"}
#: the optional keys, by the first format that has them
_OPTIONAL_KEYS = {"metadata": 1, "bytes_sha256": 2}
#: how a file venncal wrote ends: the checksum of the values, then that of the bytes before it
_TRAILER = re.compile(rb',\n "sha256": "[0-9a-f]{64}",\n( "bytes_sha256": "([0-9a-f]{64})"\n}\n)\Z')
#: the keys no checksum of the values covers
_CHECKSUMS = ("sha256", "bytes_sha256")
_ATTRIBUTE = re.compile(r"^[A-Za-z][A-Za-z0-9_]*_$")
#: the parameters and errors of the readers of a model file, as their docstrings say them
_READ_DOCS = {
    "read_parameters": (
        "Parameters\n----------\npath : str or path-like\nmax_bytes : int, optional\n"
        "    As :func:`load`."
    ),
    "read_raises": "Raises\n------\nModelFileError\n    As :func:`load`.",
}


def _fill_read_doc(func: F) -> F:
    return fill_docstring(func, _READ_DOCS)


@dataclass(frozen=True)
class ModelFile:
    """What a model file holds.

    Attributes
    ----------
    calibrator : fitted score calibrator
    metadata : dict
        Notes saved with the calibrator (``save(..., metadata=...)``), e.g. the score column
        the command line fitted it on; empty if there are none.
    venncal_version : str
        The venncal version that wrote the file.
    format_version : int
        Its model-file format.
    """

    calibrator: Any
    metadata: dict[str, Any]
    venncal_version: str
    format_version: int


@dataclass(frozen=True)
class ModelState:
    """The decoded content of a model file, before a calibrator is built from it.

    Attributes
    ----------
    class_name : str
    params : dict
        The calibrator's parameters.
    fitted : dict
        Its fitted attributes (numpy arrays and the fitted-state objects of ``venncal.core``).
    metadata : dict
    venncal_version : str
    format_version : int
    """

    class_name: str
    params: dict[str, Any]
    fitted: dict[str, Any]
    metadata: dict[str, Any]
    venncal_version: str
    format_version: int


class ModelFileError(ValueError):
    """A file that is not a model file this venncal can load (malformed, changed, newer)."""

    def __init__(self, message: object) -> None:
        super().__init__(" ".join(str(message).split()))


def _canonical(content: dict[str, Any]) -> bytes:
    return json.dumps(
        content, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    ).encode("utf-8")


def checksum(content: dict[str, Any]) -> str:
    """SHA-256 (hex) of the canonical JSON of a model file's content without its checksum.

    The canonical JSON sorts keys and has no spaces, so the checksum does not depend on the
    layout of the file, only on its values.
    """
    return hashlib.sha256(_canonical(content)).hexdigest()


def _layout(value: object, indent: int = 0) -> str:
    """Objects one key a line; lists (and so the data of arrays) on one line."""
    if isinstance(value, dict) and value:
        pad = " " * (indent + 1)
        items = [f"{pad}{json.dumps(k)}: {_layout(v, indent + 1)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"
    return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(", ", ": "))


def _wrapper_message(obj: object) -> str:
    name = type(obj).__name__
    return (
        f"venncal.save saves score calibrators only ({', '.join(registered_names())}); {name} "
        "wraps a scikit-learn estimator, which a model file cannot hold: save the estimator "
        "with your own choice (e.g. skops or joblib) and a score calibrator fitted on its "
        "scores with venncal.save."
    )


def _check_metadata(metadata: object) -> dict[str, Any]:
    if metadata is None:
        return {}
    if not isinstance(metadata, dict) or not all(
        isinstance(k, str) and (v is None or type(v) in (str, int, float, bool))
        for k, v in metadata.items()
    ):
        raise TypeError("'metadata' must be a dict of strings to strings, numbers or None.")
    for v in metadata.values():
        if type(v) is float and not math.isfinite(v):
            raise ValueError("'metadata' values must be finite numbers.")
    return dict(metadata)


def _document(
    calibrator: Any, with_data: bool = False, metadata: dict[str, Any] | None = None
) -> dict[str, Any]:
    cls = type(calibrator)
    spec = model_class(cls.__name__)
    if spec is None or spec.cls is not cls:
        if hasattr(calibrator, "estimator") and hasattr(calibrator, "get_params"):
            raise TypeError(_wrapper_message(calibrator))
        raise TypeError(
            f"venncal.save saves score calibrators ({', '.join(registered_names())}); got "
            f"{type(calibrator).__name__} (register its class with "
            "venncal.persistence.register_model_class)."
        )
    missing = [a for a in spec.fitted if not hasattr(calibrator, a)]
    if missing:
        from sklearn.exceptions import NotFittedError

        raise NotFittedError(
            f"This {type(calibrator).__name__} is not fitted (no {missing[0]}); call fit "
            "before venncal.save."
        )
    name = type(calibrator).__name__
    params = {
        k: encode(v, f"parameter {k!r} of {name}", spec.types)
        for k, v in sorted(calibrator.get_params(deep=False).items())
    }
    left_out = () if with_data else spec.data
    # the data are asked for by name too: a calibrator may build them on first use only
    kept = [a for a in spec.data if a not in left_out and hasattr(calibrator, a)]
    names = list(spec.fitted) + sorted(
        a
        for a in {*vars(calibrator), *kept}
        if _ATTRIBUTE.match(a) and a not in spec.fitted and a not in left_out
    )
    fitted = {a: encode(getattr(calibrator, a), f"{name}.{a}", spec.types) for a in names}
    from venncal import __version__

    content = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "venncal_version": __version__,
        "class": name,
        "params": params,
        "fitted": fitted,
    }
    if metadata:
        content["metadata"] = metadata
    return content


def _file_text(content: dict[str, Any]) -> str:
    """The text of a model file: the content laid out, then the SHA-256 of the canonical
    content (``"sha256"``, checked after the file is parsed; a file laid out anew keeps it)
    and that of every byte before it (``"bytes_sha256"``, checked before)."""
    body = _layout({**content, "sha256": checksum(content)})  # "{\n" + the members + "\n}"
    head = body[: -len("\n}")] + ",\n"
    digest = hashlib.sha256(head.encode("utf-8")).hexdigest()
    return f'{head} "bytes_sha256": "{digest}"\n}}\n'


def save(
    calibrator: Any,
    path: str | os.PathLike[str],
    *,
    overwrite: bool = False,
    with_data: bool = False,
    metadata: dict[str, Any] | None = None,
) -> Path:
    """Save a fitted score calibrator as a JSON model file.

    The file holds only numbers and strings: the model-file format and its version, the venncal
    version that wrote it, the class name, the parameters (``get_params()``), the fitted tables
    and two SHA-256 checksums at its end: of the values (checked once the file is parsed; a
    file laid out anew keeps it) and of every byte before the last one (checked before the file
    is parsed, so that a damaged file is refused at the speed of the disk). Floats are written
    so that they read back bit for bit: :func:`load` gives a calibrator that predicts exactly what this one predicts, in any
    process. The file is written to a temporary file in the same folder and moved into place,
    so a reader (or a crash) sees no file or the complete one.

    Parameters
    ----------
    calibrator : fitted score calibrator
        A :class:`~venncal.VennAbersCalibrator`, :class:`~venncal.IsotonicCalibrator`,
        :class:`~venncal.PlattCalibrator`, :class:`~venncal.HistogramCalibrator`,
        :class:`~venncal.BayesianBinningCalibrator` or :class:`~venncal.ACPCalibrator` (or a
        class registered with :func:`venncal.persistence.register_model_class`); a
        regressor's :class:`~venncal.VennAbersDistribution` (within groups too) is saved the
        same way.
    path : str or path-like
        The model file to write, ending in ``.json`` (e.g. ``"model.json"``), as for
        ``venncal fit --out``. Its folder must exist.
    overwrite : bool, default=False
        Replace an existing file; without it an existing file is an error (checked when the
        new file is moved into place, so two writers cannot both succeed).
    with_data : bool, default=False
        Also save the calibration data a calibrator keeps for ``partial_fit`` (its counts per
        distinct score, ``aggregate_``), so that the loaded calibrator can be updated. Without
        it the file holds what prediction needs only: for Venn-Abers, the compressed step
        tables (a few thousand breakpoints for 10^6 calibration scores).
    metadata : dict, default=None
        Notes to keep with the calibrator (strings to strings or numbers), e.g. the name of
        the score column; :func:`read_model_file` gives them back.

    Returns
    -------
    path : pathlib.Path

    Raises
    ------
    TypeError
        For anything else. The wrapper classifiers (:class:`~venncal.VennAbersClassifier` and
        the others) hold a scikit-learn estimator, which cannot be JSON: save the estimator with
        your own choice (e.g. skops or joblib) and, with ``venncal.save``, a score calibrator
        fitted on the estimator's scores for the calibration set.
    sklearn.exceptions.NotFittedError
        If the calibrator is not fitted.
    FileExistsError
        If ``path`` exists and ``overwrite`` is False.
    ValueError
        If ``path`` does not end in ``.json`` (a model file is JSON, never a pickle).

    Examples
    --------
    >>> import os, tempfile
    >>> import venncal
    >>> cal = venncal.VennAbersCalibrator().fit([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1])
    >>> path = os.path.join(tempfile.mkdtemp(), "model.json")
    >>> _ = venncal.save(cal, path)
    >>> loaded = venncal.load(path)
    >>> bool((loaded.predict_interval([0.5]) == cal.predict_interval([0.5])).all())
    True
    """
    for name, flag in (("overwrite", overwrite), ("with_data", with_data)):
        if not isinstance(flag, bool):
            raise TypeError(f"'{name}' must be True or False, got {flag!r}.")
    metadata = _check_metadata(metadata)
    text = _file_text(_document(calibrator, with_data, metadata))
    path = Path(os.fspath(path))
    if path.is_dir():
        raise IsADirectoryError(f"'path' {str(path)!r} is a folder; give a file name.")
    if path.suffix.lower() != ".json":  # as `venncal fit --out` requires
        raise ValueError(f"'path' {str(path)!r} must end in .json (a venncal model file).")
    if not overwrite and os.path.lexists(path):
        raise FileExistsError(f"{str(path)!r} exists; pass overwrite=True to replace it.")
    try:  # the writer of every file venncal writes: its leftovers have one name, one cleanup
        with atomic_open(path, "w", encoding="utf-8", newline="\n", overwrite=overwrite) as fh:
            fh.write(text)
    except FileExistsError:
        raise FileExistsError(f"{str(path)!r} exists; pass overwrite=True to replace it.") from None
    return path


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [k for k, _ in pairs]
    if len(set(keys)) != len(keys):
        repeated = next(k for k in keys if keys.count(k) > 1)
        raise DecodeError(f"the key {repeated!r} appears twice in one object")
    return dict(pairs)


def _no_constants(name: str) -> NoReturn:
    raise DecodeError(f"{name} is not JSON")


def _parse(raw: bytes | bytearray, where: str) -> Any:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ModelFileError(
            f"{where} is not a venncal model file: byte {exc.start} is not UTF-8."
        ) from None
    try:
        doc = json.loads(
            text,
            object_pairs_hook=_no_duplicates,
            parse_constant=_no_constants,
        )
    except json.JSONDecodeError as exc:
        raise ModelFileError(
            f"{where} is not a venncal model file: malformed JSON at line {exc.lineno} column "
            f"{exc.colno} ({exc.msg}; truncated or edited?)."
        ) from None
    except (DecodeError, ReadError) as exc:
        raise ModelFileError(f"{where} is not a venncal model file: {exc}.") from None
    except RecursionError:
        raise ModelFileError(f"{where} is not a venncal model file: nested too deeply.") from None
    except ValueError as exc:  # e.g. an integer of more digits than Python converts
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ModelFileError(f"{where} is not a venncal model file: {first}.") from None
    if not json_depth(doc, MAX_DEPTH):
        raise ModelFileError(
            f"{where} is not a venncal model file: its JSON nests more than {MAX_DEPTH} levels."
        )
    return doc


def _content_digest(doc: object, where: str, keep: tuple[str, ...] = ()) -> str | None:
    """The checksum of a parsed file's values, the checksums left out but for ``keep`` (None
    if it is not an object). Numbers beyond the range of a float, read as infinities, are
    refused here: the canonical JSON has no infinity. One pass over the values, in C, where a
    check of every number as it is read (a Python call per number) took as long again as the
    parsing."""
    if not isinstance(doc, dict):
        return None
    try:
        return checksum({k: v for k, v in doc.items() if k not in _CHECKSUMS or k in keep})
    except ValueError:
        bad = next(_infinite_numbers(doc), "a number")
        raise ModelFileError(
            f"{where} is not a venncal model file: {bad} is out of the range of a float."
        ) from None


def _values_signed(doc: object, where: str, verified: bool = False) -> bool:
    """Whether the ``"sha256"`` of a parsed file is the checksum of its values: of every key
    but the two checksums, as venncal signs, or but ``"sha256"`` only, as a file re-signed by
    :func:`checksum` after an edit may be (the checksum of its bytes then left in, stale).
    A file whose bytes are as venncal wrote them (``verified``) is tried the first way first,
    any other the second: the one that matches is computed first."""
    if not isinstance(doc, dict):
        return False
    stored = doc.get("sha256")
    if not isinstance(stored, str):
        return False
    ways: list[tuple[str, ...]] = [()]
    if "bytes_sha256" in doc:
        ways.insert(0 if not verified else 1, ("bytes_sha256",))
    return any(stored == _content_digest(doc, where, keep) for keep in ways)


def _check_trailer(tail: bytes, size: int, where: str, value_limit: int) -> None:
    """Refuse a file of ``size`` bytes, more than ``value_limit``, whose last bytes are not the
    checksums venncal writes, before the rest of it is read."""
    if _TRAILER.search(tail) is None:
        raise ModelFileError(_no_trailer_message(where, size, value_limit))


def _no_trailer_message(where: str, size: int, value_limit: int) -> str:
    return (
        f"{where} holds {size} bytes and does not end with the checksum of its bytes that "
        "venncal writes (written by an earlier venncal, laid out anew, or not a model file): "
        f"such a file is checked value by value once parsed, up to {value_limit} bytes; pass "
        "max_bytes= to check a larger one."
    )


def _check_bytes(raw: bytes | bytearray, where: str, value_limit: int) -> bool:
    """Refuse, before it is parsed, a file larger than ``value_limit`` that is not byte for
    byte as venncal wrote it: its checksum of the values would need it parsed whole (seconds
    and a few times its size in memory for a file near the cap), that of its bytes is read
    at the speed of the disk. A smaller file goes on to the check of its values, which
    accepts a file laid out anew. Returns whether the bytes are as venncal wrote them."""
    found = _TRAILER.search(raw, max(0, len(raw) - 256))
    if found is not None:
        head = memoryview(raw)[: found.start(1)]
        if hashlib.sha256(head).hexdigest() == found.group(2).decode("ascii"):
            return True
    if len(raw) <= value_limit:
        return False
    if found is not None:
        raise ModelFileError(
            f"{where}: the checksum of its bytes does not match; the file was changed after "
            "venncal wrote it (or damaged)."
        )
    raise ModelFileError(_no_trailer_message(where, len(raw), value_limit))


def _infinite_numbers(doc: object) -> Iterator[str]:
    """Where the infinite numbers of a parsed document are, as ``the number at <path>``."""
    stack: list[tuple[object, str]] = [(doc, "")]
    while stack:
        node, path = stack.pop()
        if isinstance(node, float) and not math.isfinite(node):
            yield f"the number at {path or 'the top'}"
        elif isinstance(node, dict):
            stack.extend((v, f"{path}.{k}" if path else str(k)) for k, v in node.items())
        elif isinstance(node, list):
            stack.extend((v, f"{path}[{i}]") for i, v in enumerate(node))


def _check_header(doc: object, where: str, verified: bool = False) -> None:
    signed = _values_signed(
        doc, where, verified
    )  # first: a number out of range is named, whatever else
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ModelFileError(f'{where} is not a venncal model file (no "format": "{FORMAT}").')
    version = doc.get("format_version")
    if type(version) is not int or version < 1:
        raise ModelFileError(f"{where}: 'format_version' must be a positive integer.")
    if version > FORMAT_VERSION:
        raise ModelFileError(
            f"{where} was written by venncal {doc.get('venncal_version')!s} in model-file format "
            f"{version}; this venncal reads formats up to {FORMAT_VERSION}: upgrade venncal."
        )
    optional = {k for k, first in _OPTIONAL_KEYS.items() if first <= version}
    if not _KEYS <= set(doc) <= _KEYS | optional:
        odd = sorted((set(doc) - optional) ^ _KEYS)[0]
        raise ModelFileError(
            f"{where} is not a venncal model file: key {odd!r} is missing or unknown."
        )
    if not signed:
        raise ModelFileError(
            f"{where}: the checksum does not match the content; the file was changed after "
            "venncal wrote it (or damaged)."
        )


def load(path: str | os.PathLike[str], *, max_bytes: int | None = None) -> Any:
    """Load a calibrator saved by :func:`save`.

    Loading reads JSON and builds the calibrator from its registered class, parameters and
    fitted tables; nothing in the file is executed or imported.

    Parameters
    ----------
    path : str or path-like
        A model file: a regular file (a FIFO, a device or a folder is refused at once,
        without waiting or reading).
    max_bytes : int, optional
        The largest file read; a larger file is refused before it is read. By default 256 MiB
        for a file as venncal wrote it, whose checksum of its bytes is checked before it is
        parsed (a model of a million distinct calibration scores takes some tens of MiB), and
        32 MiB for any other file (written by an earlier venncal, or laid out anew), whose
        checksum of its values can only be checked once it is parsed (about 40 ms a MiB). A
        given ``max_bytes`` is the limit for both.

    Returns
    -------
    calibrator : fitted score calibrator
        Predicts exactly (bit for bit) what the saved calibrator predicted.

    Raises
    ------
    ModelFileError
        (a ``ValueError``) with one line, if the file is not a regular file, is larger than
        ``max_bytes``, is not valid JSON (or nests deeper than 64 levels, or holds a number
        out of the range of a float), is truncated, has been changed since it was written
        (checksum), holds a value that breaks the invariants of the fit that made it (an
        edited file with a recomputed checksum), names a class this venncal does not know,
        or was written in a newer model-file format.
    OSError
        If the file cannot be read.

    Examples
    --------
    >>> import os, tempfile
    >>> import venncal
    >>> cal = venncal.PlattCalibrator().fit([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1])
    >>> path = venncal.save(cal, os.path.join(tempfile.mkdtemp(), "platt.json"))
    >>> venncal.load(path).get_params() == cal.get_params()
    True

    Notes
    -----
    In a process that has not imported scikit-learn, a calibrator whose prediction needs only
    ``venncal.core`` (every built-in calibrator: Venn-Abers, within groups too, isotonic,
    Platt, histogram, Bayesian binning, ACP, beta, scaling-binning, quadratic, temperature,
    matrix scaling, Dirichlet, multiclass Venn-Abers) comes back as a stand-in that predicts
    (``predict_proba``, ``predict``, ``predict_interval``, ACP's ``score_interval``) without
    importing it, and becomes the estimator itself on first use of anything else (see
    ``venncal.persistence._predictor``).
    """
    if "sklearn" in sys.modules:  # nothing to save: the estimator itself
        return read_model_file(path, max_bytes=max_bytes).calibrator
    from venncal.persistence._predictor import LoadedCalibrator, saved_predictor

    state = read_model_state(path, max_bytes=max_bytes)
    where = repr(os.fspath(path))
    predictor = saved_predictor(state)
    if predictor is None:
        return _build_calibrator(state, where)
    return LoadedCalibrator(
        predictor,
        lambda: _build_calibrator(state, where),
        lambda: _model_class(state.class_name, where).cls,
    )


@_fill_read_doc
def read_model_file(path: str | os.PathLike[str], *, max_bytes: int | None = None) -> ModelFile:
    """Load a model file: the calibrator, its metadata and the versions that wrote it.

    {read_parameters}

    Returns
    -------
    ModelFile

    {read_raises}

    Examples
    --------
    >>> import os, tempfile
    >>> import venncal
    >>> from venncal.persistence import read_model_file
    >>> cal = venncal.IsotonicCalibrator().fit([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1])
    >>> path = venncal.save(cal, os.path.join(tempfile.mkdtemp(), "m.json"),
    ...                     metadata={"score": "margin"})
    >>> read_model_file(path).metadata
    {'score': 'margin'}
    """
    state = read_model_state(path, max_bytes=max_bytes)
    calibrator = _build_calibrator(state, repr(os.fspath(path)))
    return ModelFile(calibrator, state.metadata, state.venncal_version, state.format_version)


def _model_class(name: str, where: str) -> ModelClass:
    """The registered class of a model file whose fitted-state types were found."""
    spec = model_class(name)
    if spec is None:  # a built-in class whose module cannot be imported
        raise ModelFileError(f"{where}: this venncal cannot import its class {name}.")
    return spec


def _build_calibrator(state: ModelState, where: str) -> Any:
    """The calibrator of a model file's decoded content (imports its class)."""
    name, kwargs = state.class_name, state.params
    spec = _model_class(name, where)
    try:
        calibrator = spec.cls(**kwargs)
    except TypeError:
        unknown = sorted(set(kwargs) - set(spec.cls().get_params()))
        raise ModelFileError(
            f"{where}: {name} of this venncal has no parameter "
            f"{unknown[0] if unknown else '?'!r}; upgrade venncal."
        ) from None
    missing = [a for a in spec.fitted if a not in state.fitted]
    if missing:
        raise ModelFileError(f"{where}: the fitted attribute {missing[0]!r} of {name} is missing.")
    for attr, value in state.fitted.items():
        setattr(calibrator, attr, value)
    return calibrator


@_fill_read_doc
def read_model_state(path: str | os.PathLike[str], *, max_bytes: int | None = None) -> ModelState:
    """Read and check a model file and decode its values, without building the calibrator.

    Only the fitted-state types of the named class are imported (for the built-in classes,
    from ``venncal.core``), not the calibrator class itself: what a program that only
    predicts needs. :func:`read_model_file` builds the calibrator from it.

    {read_parameters}

    Returns
    -------
    ModelState

    {read_raises}
    """
    where = repr(os.fspath(path))
    value_limit = VALUE_CHECK_BYTES if max_bytes is None else check_max_bytes(max_bytes)
    try:
        raw = read_bytes(
            path,
            MAX_BYTES if max_bytes is None else value_limit,
            large=value_limit,
            check_tail=lambda tail, size: _check_trailer(tail, size, where, value_limit),
        )
    except ReadError as exc:
        raise ModelFileError(f"{where} {exc}.") from None
    verified = _check_bytes(raw, where, value_limit)
    doc = _parse(raw, where)
    del raw  # the bytes are not needed again: their memory is free for the checksum's JSON
    _check_header(doc, where, verified)
    name = doc["class"]
    types = model_types(name) if isinstance(name, str) else None
    if types is None:
        raise ModelFileError(
            f"{where} holds a {name!r}, which this venncal cannot load (it knows "
            f"{', '.join(registered_names())})."
        )
    params, fitted = doc["params"], doc["fitted"]
    if not isinstance(params, dict) or not isinstance(fitted, dict):
        raise ModelFileError(f"{where}: 'params' and 'fitted' must be objects.")
    try:
        kwargs = {k: decode(v, f"parameter {k!r}", types) for k, v in params.items()}
        state = {k: decode(v, f"{name}.{k}", types) for k, v in fitted.items()}
    except DecodeError as exc:
        raise ModelFileError(f"{where}: {exc}.") from None
    for attr in state:
        if not _ATTRIBUTE.match(attr):
            raise ModelFileError(f"{where}: {attr!r} is not a fitted attribute name.")
    try:
        check_fitted_state(name, state, kwargs)
    except FittedStateError as exc:
        raise ModelFileError(f"{where}: {exc}; the file was edited or damaged.") from None
    try:
        metadata = _check_metadata(doc.get("metadata", {}))
    except (TypeError, ValueError):
        raise ModelFileError(f"{where}: 'metadata' must map names to strings or numbers.") from None
    return ModelState(
        name, kwargs, state, metadata, str(doc["venncal_version"]), doc["format_version"]
    )
