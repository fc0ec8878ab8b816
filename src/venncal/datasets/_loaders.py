"""Loaders of the bundled benchmark datasets (nothing is downloaded).

Every loader returns a :class:`~venncal.datasets.Dataset` with numeric ``X`` (encoded as described
in ``venncal.datasets._base``), labels ``y`` in {0, 1} and metadata. The provenance, licence and
checks of each file are in ``venncal/datasets/data/SOURCES.md``.
"""

from __future__ import annotations

import functools
import inspect
import io
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from scipy.io import arff

from venncal.datasets._base import Dataset, check_missing, data_path, encode_frame, read_text
from venncal.datasets._registry import CE_PREFIX, CE_SETS, INFO, collection_of

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import ParamSpec

    P = ParamSpec("P")

__all__ = [
    "load_dataset",
    "list_datasets",
    "load_australian",
    "load_breast_cancer",
    "load_breast_w",
    "load_diabetes",
    "load_echocardiogram",
    "load_hepatitis",
    "load_ionosphere",
    "load_labor",
    "load_liver",
    "load_vote",
    "load_adult",
    "load_spect",
    "load_lofstrom",
]


# ----------------------------------------------------------------------------- raw readers
def _read_arff(relative):
    """Return (frame of raw features, raw labels, nominal levels) of a Weka ARFF file."""
    with data_path(relative).open("r", encoding="utf-8") as fh:
        data, meta = arff.loadarff(fh)
    names = list(meta.names())
    class_col = names[-1]
    frame, nominal = {}, {}
    for col in names:
        kind, levels = meta[col]
        raw = data[col]
        if kind == "nominal":
            vals = [v.decode() if isinstance(v, bytes) else str(v) for v in raw]
            vals = [None if v == "?" else v for v in vals]
            frame[col] = pd.Series(vals, dtype=object)
            nominal[col] = [str(v) for v in levels]
        else:
            frame[col] = pd.Series(np.asarray(raw, dtype=np.float64))
    frame = pd.DataFrame(frame)
    labels = frame.pop(class_col).to_numpy()
    del nominal[class_col]
    return frame, labels, nominal


def _nominal_levels(frame, columns):
    return {c: sorted(frame[c].dropna().unique().tolist(), key=_natural_key) for c in columns}


def _natural_key(v):
    try:
        return (0, float(v), "")
    except (TypeError, ValueError):
        return (1, 0.0, str(v))


# ----------------------------------------------------------------------------- assembling
def _finish(name, frame, labels, nominal, missing, *, notes="", extra=None):
    info = INFO[name]
    labels = np.asarray([str(v) for v in labels], dtype=object)
    bad = ~np.isin(labels, [info["positive"], info["negative"]])
    if bad.any():  # pragma: no cover - the bundled files are checked by the tests
        raise ValueError(f"{name}: unexpected labels {sorted(set(labels[bad]))!r}")
    X, names, keep = encode_frame(frame, nominal, missing=missing)
    y = (labels[keep] == info["positive"]).astype(np.int8)
    meta = {
        "name": name,
        "title": info["title"],
        "collection": collection_of(name),
        "n": int(X.shape[0]),
        "d": int(X.shape[1]),
        "class_counts": {0: int((y == 0).sum()), 1: int((y == 1).sum())},
        "positive_label": info["positive"],
        "negative_label": info["negative"],
        "positive_label_reason": info["why"],
        "source": f"venncal/datasets/data/{info['file']} (see data/SOURCES.md)",
        "licence": info["licence"],
        "citation": info["citation"],
        "papers": list(info["papers"]),
        "missing": missing,
        "n_missing_cells": int(frame.isna().to_numpy().sum()),
        "notes": notes,
    }
    if extra:
        meta.update({k: (v[keep] if isinstance(v, np.ndarray) else v) for k, v in extra.items()})
    X.setflags(write=False)
    y.setflags(write=False)
    return Dataset(X=X, y=y, feature_names=names, meta=meta)


def _copy(ds):
    """Give each caller its own writable arrays and metadata (the cached one stays intact)."""
    meta = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in ds.meta.items()}
    meta["class_counts"] = dict(ds.meta["class_counts"])
    meta["papers"] = list(ds.meta["papers"])
    return Dataset(X=ds.X.copy(), y=ds.y.copy(), feature_names=ds.feature_names, meta=meta)


def _cached(func: Callable[P, Dataset]) -> Callable[P, Dataset]:
    cached = functools.lru_cache(maxsize=None)(func)
    signature = inspect.signature(func)

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> Dataset:
        # options are checked before the cache sees them: an unhashable option would otherwise
        # fail inside the cache with an error that names no parameter
        bound = signature.bind(*args, **kwargs)
        for name, value in bound.arguments.items():
            if not isinstance(value, str):
                raise TypeError(
                    f"The '{name}' parameter of {func.__name__} must be a string. "
                    f"Got {value!r} instead."
                )
        # every option is a string (checked above), so hashable
        return _copy(cached(*args, **kwargs))  # type: ignore[arg-type]

    # the cache of a loader can be cleared as that of an lru_cache function
    wrapper.cache_clear = cached.cache_clear  # type: ignore[attr-defined]
    return wrapper


def _weka_loader(name, missing, notes=""):
    check_missing(missing, f"load_dataset('{name}')")
    frame, labels, nominal = _read_arff(INFO[name]["file"])
    return _finish(name, frame, labels, nominal, missing, notes=notes)


# ----------------------------------------------------------------------------- Vovk & Petej
@_cached
def load_breast_cancer(*, missing: str = "impute") -> Dataset:
    """Load Breast Cancer (Ljubljana): 286 patients, recurrence-events = 1.

    Nine nominal features (age and size ranges, node caps, ...) are one-hot encoded. This is
    the "Breast" dataset of Vovk & Petej (2014) if they used Weka's ``breast-cancer``; see also
    :func:`load_breast_w`.

    Parameters
    ----------
    missing : {"impute", "drop"}, default="impute"
        Impute the 9 missing cells by the feature's most frequent value, or drop their rows.

    Returns
    -------
    Dataset

    Examples
    --------
    >>> ds = load_breast_cancer()
    >>> ds.X.shape, ds.meta["class_counts"]
    ((286, 48), {0: 201, 1: 85})
    """
    return _weka_loader("breast-cancer", missing)


@_cached
def load_breast_w(*, missing: str = "impute") -> Dataset:
    """Load Breast Cancer Wisconsin (original): 699 tumours, malignant = 1.

    Nine integer cytology features in 1..10; the 16 missing ``Bare_Nuclei`` values are imputed by
    the median (or their rows dropped with ``missing="drop"``).

    Examples
    --------
    >>> ds = load_breast_w()
    >>> ds.X.shape, ds.meta["class_counts"]
    ((699, 9), {0: 458, 1: 241})
    """
    return _weka_loader("breast-w", missing)


@_cached
def load_diabetes(*, missing: str = "impute") -> Dataset:
    """Load Pima Indians Diabetes: 768 women, tested_positive = 1.

    Zeros in the file (e.g. a blood pressure of 0) are kept as they are: the file marks nothing
    as missing, and the papers use it as distributed by Weka.

    Examples
    --------
    >>> ds = load_diabetes()
    >>> ds.X.shape, ds.meta["class_counts"]
    ((768, 8), {0: 500, 1: 268})
    """
    return _weka_loader("diabetes", missing)


@_cached
def load_hepatitis(*, missing: str = "impute") -> Dataset:
    """Load Hepatitis: 155 patients, DIE = 1.

    Weka's file calls raw ``SEX = 1`` "female" whereas UCI documents 1 as male; the column is
    kept as Weka labels it (``SEX=female``), which only renames the indicator.

    Examples
    --------
    >>> ds = load_hepatitis()
    >>> ds.X.shape, ds.meta["class_counts"]
    ((155, 19), {0: 123, 1: 32})
    """
    return _weka_loader(
        "hepatitis", missing, notes="Weka's SEX labels are swapped with respect to UCI."
    )


@_cached
def load_ionosphere(*, missing: str = "impute") -> Dataset:
    """Load Ionosphere: 351 radar returns, 'b' (bad) = 1.

    Examples
    --------
    >>> ds = load_ionosphere()
    >>> ds.X.shape, ds.meta["class_counts"]
    ((351, 34), {0: 225, 1: 126})
    """
    return _weka_loader("ionosphere", missing)


@_cached
def load_labor(*, missing: str = "impute") -> Dataset:
    """Load Labor Relations: 57 contracts, 'bad' = 1.

    Most cells are missing (326 of 912): numeric features are imputed by their median and nominal
    ones by their mode. ``missing="drop"`` would leave almost no rows.

    Examples
    --------
    >>> ds = load_labor()
    >>> ds.X.shape, ds.meta["class_counts"]
    ((57, 26), {0: 37, 1: 20})
    """
    return _weka_loader("labor", missing)


@_cached
def load_vote(*, missing: str = "impute") -> Dataset:
    """Load Congressional Voting Records: 435 representatives, republican = 1.

    Sixteen y/n votes, each one 0/1 column (1 = 'y'). The 392 '?' cells (did not vote) are
    imputed by the most frequent vote on that bill.

    Examples
    --------
    >>> ds = load_vote()
    >>> ds.X.shape, ds.meta["class_counts"]
    ((435, 16), {0: 267, 1: 168})
    """
    return _weka_loader("vote", missing)


@_cached
def load_australian(*, missing: str = "impute") -> Dataset:
    """Load Statlog Australian Credit: 690 applications, class 1 = 1.

    The attributes are anonymised as A1..A14. Following the Statlog documentation, A4, A5, A6
    and A12 are multi-valued nominal and one-hot encoded; the binary A1, A8, A9, A11 stay 0/1;
    the rest are numeric. The file has no missing values.

    Examples
    --------
    >>> ds = load_australian()
    >>> ds.X.shape, ds.meta["class_counts"]
    ((690, 38), {0: 383, 1: 307})
    """
    check_missing(missing, "load_australian")
    raw = pd.read_csv(io.StringIO(read_text(INFO["australian"]["file"])), sep=r"\s+", header=None)
    raw.columns = [f"A{i}" for i in range(1, 16)]
    labels = raw.pop("A15").astype(int).astype(str).to_numpy()
    nominal_cols = ["A4", "A5", "A6", "A12"]
    for c in nominal_cols:
        raw[c] = raw[c].astype(int).astype(str)
    return _finish("australian", raw, labels, _nominal_levels(raw, nominal_cols), missing)


@_cached
def load_liver(*, missing: str = "impute") -> Dataset:
    """Load Liver Disorders (BUPA): 345 men, selector = 2 is 1.

    Six features: five blood tests and the number of drinks per day. The last field,
    ``selector``, is used as the class, as Weka and most benchmark studies do.

    Examples
    --------
    >>> ds = load_liver()
    >>> ds.X.shape, ds.meta["class_counts"]
    ((345, 6), {0: 145, 1: 200})
    """
    check_missing(missing, "load_liver")
    raw = pd.read_csv(io.StringIO(read_text(INFO["liver"]["file"])), header=None)
    raw.columns = ["mcv", "alkphos", "sgpt", "sgot", "gammagt", "drinks", "selector"]
    labels = raw.pop("selector").astype(int).astype(str).to_numpy()
    return _finish("liver", raw, labels, {}, missing)


_ECHO_COLUMNS = [
    "survival", "still-alive", "age-at-heart-attack", "pericardial-effusion",
    "fractional-shortening", "epss", "lvdd", "wall-motion-score", "wall-motion-index", "mult",
    "name", "group", "alive-at-1",
]  # fmt: skip


@_cached
def load_echocardiogram(*, missing: str = "impute") -> Dataset:
    """Load Echocardiogram: 74 heart-attack patients with a known one-year outcome, alive = 1.

    The target is ``alive-at-1``. Of the 132 rows, only the 74 whose target is 0 or 1 are kept
    (57 have '?', and the garbage row 50 has the value 2). The features are the eight clinical
    measurements (age at heart attack, pericardial effusion, fractional shortening, EPSS, LVDD,
    wall-motion score and index, mult). ``survival`` and ``still-alive`` are dropped because the
    target is computed from them, ``name`` and ``group`` because they carry no information.

    Examples
    --------
    >>> ds = load_echocardiogram()
    >>> ds.X.shape, ds.meta["class_counts"]
    ((74, 8), {0: 50, 1: 24})
    """
    check_missing(missing, "load_echocardiogram")
    raw = pd.read_csv(
        io.StringIO(read_text(INFO["echocardiogram"]["file"])), header=None, na_values="?"
    )
    raw.columns = _ECHO_COLUMNS
    target = raw.pop("alive-at-1")
    rows = target.isin([0, 1]).to_numpy()
    raw = raw.loc[rows].drop(columns=["survival", "still-alive", "name", "group"])
    raw = raw.reset_index(drop=True).astype(np.float64)
    labels = target[rows].astype(int).astype(str).to_numpy()
    return _finish(
        "echocardiogram", raw, labels, {}, missing,
        notes="Rows without a 0/1 alive-at-1 value are dropped; 74 remain.",
    )  # fmt: skip


# ----------------------------------------------------------------------------- Naeini et al.
_ADULT_COLUMNS = [
    "age", "workclass", "fnlwgt", "education", "education-num", "marital-status", "occupation",
    "relationship", "race", "sex", "capital-gain", "capital-loss", "hours-per-week",
    "native-country", "income",
]  # fmt: skip
_ADULT_NOMINAL = [
    "workclass", "education", "marital-status", "occupation", "relationship", "race", "sex",
    "native-country",
]  # fmt: skip


def _subset_check(subset, owner):
    if subset not in ("all", "train", "test"):
        raise ValueError(
            f"The 'subset' parameter of {owner} must be one of {{'all', 'train', 'test'}}. "
            f"Got {subset!r} instead."
        )


@functools.lru_cache(maxsize=1)
def _adult_raw():
    parts = []
    for fname, skip, split in (("uci/adult.data", 0, "train"), ("uci/adult.test", 1, "test")):
        with data_path(fname).open("r", encoding="utf-8") as fh:
            df = pd.read_csv(
                fh, header=None, names=_ADULT_COLUMNS, sep=", ", engine="python",
                skiprows=skip, na_values="?", skipinitialspace=True,
            )  # fmt: skip
        df["income"] = df["income"].str.rstrip(".")
        df["split"] = split
        parts.append(df)
    return pd.concat(parts, ignore_index=True)


@_cached
def load_adult(*, subset: str = "all", missing: str = "impute") -> Dataset:
    """Load Adult (census income): 48842 people, income > 50K = 1.

    The 14 features: 6 numeric and 8 nominal (one-hot encoded, with the levels of both files so
    that the train and test encodings agree). Naeini et al. (2015) removed the rows with missing
    values: use ``missing="drop"`` (45222 rows remain) to follow them.

    Parameters
    ----------
    subset : {"all", "train", "test"}, default="all"
        The original ``adult.data`` (32561 rows), ``adult.test`` (16281 rows) or both;
        ``meta["split"]`` tells which file each row comes from.
    missing : {"impute", "drop"}, default="impute"

    Examples
    --------
    >>> ds = load_adult(missing="drop")
    >>> ds.X.shape, ds.meta["class_counts"]
    ((45222, 104), {0: 34014, 1: 11208})
    >>> load_adult(subset="test").meta["n"]
    16281
    """
    _subset_check(subset, "load_adult")
    check_missing(missing, "load_adult")
    raw = _adult_raw()
    nominal = _nominal_levels(raw, _ADULT_NOMINAL)
    if subset != "all":
        raw = raw[raw["split"] == subset]
    raw = raw.reset_index(drop=True)
    split = raw["split"].to_numpy(dtype=str)
    labels = raw["income"].to_numpy()
    frame = raw.drop(columns=["income", "split"])
    return _finish("adult", frame, labels, nominal, missing, extra={"split": split})


@_cached
def load_spect(*, subset: str = "all", missing: str = "impute") -> Dataset:
    """Load SPECT Heart: 267 patients with 22 binary image features, abnormal = 1.

    Parameters
    ----------
    subset : {"all", "train", "test"}, default="all"
        The original training file (80 rows, balanced), test file (187 rows, 172 abnormal) or
        both; ``meta["split"]`` tells which file each row comes from. Naeini et al. (2015) train
        and calibrate on the training file and test on the test file.
    missing : {"impute", "drop"}, default="impute"
        The files have no missing values.

    Examples
    --------
    >>> ds = load_spect(subset="train")
    >>> ds.X.shape, ds.meta["class_counts"]
    ((80, 22), {0: 40, 1: 40})
    """
    _subset_check(subset, "load_spect")
    check_missing(missing, "load_spect")
    parts = []
    for fname, split in (("uci/SPECT.train", "train"), ("uci/SPECT.test", "test")):
        if subset in ("all", split):
            df = pd.read_csv(io.StringIO(read_text(fname)), header=None)
            df["split"] = split
            parts.append(df)
    raw = pd.concat(parts, ignore_index=True)
    raw.columns = ["OVERALL_DIAGNOSIS"] + [f"F{i}" for i in range(1, 23)] + ["split"]
    split = raw.pop("split").to_numpy(dtype=str)
    labels = raw.pop("OVERALL_DIAGNOSIS").astype(int).astype(str).to_numpy()
    return _finish("spect", raw.astype(np.float64), labels, {}, missing, extra={"split": split})


# ----------------------------------------------------------------------------- Lofstrom et al.
@_cached
def load_lofstrom(name: str) -> Dataset:
    """Load one of the 25 two-class sets preprocessed by Lofstrom et al.

    These are the sets of the calibrated-explanations work of the same group as Johansson et
    al. (2018), who used 22 of this kind; the exact 22 are not known. The files were already
    cleaned by their authors (duplicates removed, categorical features one-hot encoded, missing
    values imputed), so they are read as they are.

    Parameters
    ----------
    name : str
        The file stem, e.g. ``"colic"``, with or without the ``"lofstrom_ce/"`` prefix.

    Examples
    --------
    >>> ds = load_lofstrom("haberman")
    >>> ds.meta["name"], ds.X.shape, ds.meta["class_counts"]
    ('lofstrom_ce/haberman', (283, 3), {0: 204, 1: 79})
    """
    if not isinstance(name, str):  # pragma: no cover - the cache wrapper checks first
        raise TypeError(
            f"The 'name' parameter of load_lofstrom must be a string. Got {name!r} instead."
        )
    stem = name[len(CE_PREFIX) :] if name.startswith(CE_PREFIX) else name
    if stem not in CE_SETS:
        raise ValueError(f"Unknown Lofstrom dataset {name!r}; choose one of {sorted(CE_SETS)}.")
    full = CE_PREFIX + stem
    raw = pd.read_csv(io.StringIO(read_text(INFO[full]["file"])), delimiter=";")
    labels = raw.pop("Y").astype(int).astype(str).to_numpy()
    return _finish(full, raw.astype(np.float64), labels, {}, "impute")


_NAMED = {
    "australian": load_australian,
    "breast-cancer": load_breast_cancer,
    "breast-w": load_breast_w,
    "diabetes": load_diabetes,
    "echocardiogram": load_echocardiogram,
    "hepatitis": load_hepatitis,
    "ionosphere": load_ionosphere,
    "labor": load_labor,
    "liver": load_liver,
    "vote": load_vote,
    "adult": load_adult,
    "spect": load_spect,
}


def load_dataset(name: str, **kwargs: str) -> Dataset:
    """Load a bundled dataset by name.

    Parameters
    ----------
    name : str
        A name from :func:`list_datasets`: ``"australian"``, ``"breast-cancer"``, ``"breast-w"``,
        ``"diabetes"``, ``"echocardiogram"``, ``"hepatitis"``, ``"ionosphere"``, ``"labor"``,
        ``"liver"``, ``"vote"``, ``"adult"``, ``"spect"`` or ``"lofstrom_ce/<stem>"``
        (case is ignored).
    **kwargs
        Passed to the named loader (e.g. ``missing="drop"``, ``subset="train"``).

    Returns
    -------
    Dataset

    Examples
    --------
    >>> ds = load_dataset("vote")
    >>> ds.meta["positive_label"], int(ds.y.sum())
    ('republican', 168)
    >>> load_dataset("lofstrom_ce/sonar").X.shape
    (208, 60)
    """
    if isinstance(name, str) and name not in INFO:
        folded = {k.lower(): k for k in INFO}
        name = folded.get(name.lower(), name)
    if not isinstance(name, str) or name not in INFO:
        known = ", ".join(sorted(k for k in INFO if not k.startswith(CE_PREFIX)))
        raise ValueError(
            f"Unknown dataset {name!r} (the 'name' parameter of load_dataset); "
            f"choose one of {known} or 'lofstrom_ce/<name>' "
            "(see venncal.datasets.list_datasets())."
        )
    if name.startswith(CE_PREFIX):
        if kwargs:
            raise TypeError(f"load_dataset({name!r}) takes no options, got {sorted(kwargs)}.")
        return load_lofstrom(name)
    return _NAMED[name](**kwargs)


def list_datasets(collection: str | None = None) -> pd.DataFrame:
    """Describe every bundled dataset.

    Parameters
    ----------
    collection : {"vovk_petej", "naeini", "lofstrom_ce"}, default=None
        Keep only one collection: the nine-plus UCI sets of Vovk & Petej (2014), Adult and SPECT
        of Naeini et al. (2015), or the 25 Lofstrom sets used for Johansson et al. (2018).

    Returns
    -------
    pandas.DataFrame
        One row per dataset with columns ``name``, ``title``, ``collection``, ``n``, ``d``,
        ``n_negative``, ``n_positive``, ``positive_label``, ``papers``, ``licence``, ``source``.

    Examples
    --------
    >>> table = list_datasets()
    >>> len(table), int((table["collection"] == "lofstrom_ce").sum())
    (37, 25)
    >>> list_datasets("naeini")["name"].tolist()
    ['adult', 'spect']
    """
    allowed = ("vovk_petej", "naeini", "lofstrom_ce")
    if collection is not None and collection not in allowed:
        raise ValueError(
            "The 'collection' parameter of list_datasets must be one of "
            f"{{'vovk_petej', 'naeini', 'lofstrom_ce'}} or None. Got {collection!r} instead."
        )
    rows = []
    for name in INFO:
        if collection is not None and collection_of(name) != collection:
            continue
        meta = load_dataset(name).meta
        rows.append(
            {
                "name": name,
                "title": meta["title"],
                "collection": meta["collection"],
                "n": meta["n"],
                "d": meta["d"],
                "n_negative": meta["class_counts"][0],
                "n_positive": meta["class_counts"][1],
                "positive_label": meta["positive_label"],
                "papers": "; ".join(meta["papers"]),
                "licence": meta["licence"],
                "source": meta["source"],
            }
        )
    return pd.DataFrame(rows)
