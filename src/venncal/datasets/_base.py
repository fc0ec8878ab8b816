"""The :class:`Dataset` result and the encoding shared by every bundled loader.

Encoding rules (the same for every file, so that results are comparable across datasets):

* A numeric feature is kept as float64. Its missing values are replaced by the median of the
  observed values of that feature in the whole file.
* A nominal feature with two values becomes one 0/1 column, named ``"<feature>=<value>"``, that is
  1 for the second value in the declared order (ARFF) or the sorted order (CSV and UCI files).
* A nominal feature with more than two values becomes one 0/1 indicator column per value (all
  values are kept; none is dropped as a reference), named ``"<feature>=<value>"``.
* A missing nominal value is replaced by the most frequent value of that feature in the whole file
  (the first in declared order on a tie) before encoding.
* With ``missing="drop"`` the rows with any missing feature are removed instead.

Imputing on the whole file uses every row, test rows included. It is what Weka's
``ReplaceMissingValues`` filter does when applied before cross-validation, which is how the
papers' benchmark files are usually prepared; pass ``missing="drop"`` to avoid it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib import resources
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from importlib.abc import Traversable

    import numpy.typing as npt

    from venncal._typing import BoolArray, FloatArray

__all__ = ["Dataset"]

MISSING_OPTIONS = ("impute", "drop")


@dataclass(frozen=True, eq=False)
class Dataset:
    """A bundled or simulated binary classification dataset.

    Attributes
    ----------
    X : ndarray of shape (n, d), dtype float64
        Numeric features: nominal features one-hot encoded, no missing values.
    y : ndarray of shape (n,), dtype int8
        Labels in {0, 1}; 1 is the positive class of ``meta["positive_label"]``.
    feature_names : tuple of str of length d
        Column names of ``X``.
    meta : dict
        Provenance and description: ``name``, ``title``, ``n``, ``d``, ``class_counts``
        (``{0: n0, 1: n1}``), ``positive_label``, ``negative_label``, ``source``, ``licence``,
        ``citation``, ``papers`` and ``notes``; simulated data also hold ``model``, an object
        with the true posterior probability as a method.

    Examples
    --------
    >>> from venncal.datasets import load_dataset
    >>> ds = load_dataset("diabetes")
    >>> ds.X.shape, ds.meta["class_counts"]
    ((768, 8), {0: 500, 1: 268})
    >>> ds.to_frame().columns[[0, -1]].tolist()
    ['preg', 'y']
    """

    X: FloatArray
    y: npt.NDArray[np.int8]
    feature_names: tuple[str, ...]
    meta: dict[str, Any] = field(default_factory=dict)

    def to_frame(self, target: str = "y") -> pd.DataFrame:
        """Return the data as a pandas DataFrame: the features and a label column.

        Parameters
        ----------
        target : str, default="y"
            Name of the label column.

        Returns
        -------
        pandas.DataFrame of shape (n, d + 1)
        """
        frame = pd.DataFrame(self.X, columns=list(self.feature_names))
        frame[target] = self.y
        return frame

    def __repr__(self) -> str:
        name = self.meta.get("name", "?")
        return f"Dataset(name={name!r}, n={self.X.shape[0]}, d={self.X.shape[1]})"


def data_path(relative: str) -> Traversable:
    """Return a traversable resource for a file under ``venncal/datasets/data``."""
    ref = resources.files("venncal.datasets").joinpath("data")
    for part in relative.split("/"):
        ref = ref.joinpath(part)
    return ref


def read_text(relative: str) -> str:
    """Read a bundled data file as text."""
    return data_path(relative).read_text(encoding="utf-8")


def check_missing(missing: object, owner: str) -> None:
    if missing not in MISSING_OPTIONS:
        raise ValueError(
            f"The 'missing' parameter of {owner} must be one of {{'impute', 'drop'}}. "
            f"Got {missing!r} instead."
        )


def encode_frame(
    frame: pd.DataFrame, nominal: Mapping[str, Sequence[str]], *, missing: str = "impute"
) -> tuple[FloatArray, tuple[str, ...], BoolArray]:
    """Encode a frame of raw features as described in the module docstring.

    Parameters
    ----------
    frame : pandas.DataFrame
        Raw features; numeric columns hold floats (NaN when missing) and nominal columns hold
        strings (None or NaN when missing).
    nominal : dict
        Nominal column name -> its values in declared order; columns not listed are numeric.
    missing : {"impute", "drop"}

    Returns
    -------
    X : ndarray of shape (n', d)
    names : tuple of str
    keep : ndarray of bool, shape (n,)
        The rows kept (all of them unless ``missing="drop"``).
    """
    n = len(frame)
    isna = frame.isna().to_numpy()
    keep = ~isna.any(axis=1) if missing == "drop" else np.ones(n, dtype=bool)
    blocks, names = [], []
    for col in frame.columns:
        values = frame[col][keep]
        if col in nominal:
            levels = list(nominal[col])
            observed = values.dropna()
            if len(observed) < len(values):
                counts = observed.value_counts()
                mode = max(levels, key=lambda v: (counts.get(v, 0), -levels.index(v)))
                values = values.fillna(mode)
            unknown = set(values.unique()) - set(levels)
            if unknown:
                raise ValueError(f"column {col!r} holds undeclared values {sorted(unknown)!r}")
            arr = values.to_numpy()
            if len(levels) == 2:
                blocks.append((arr == levels[1]).astype(np.float64)[:, None])
                names.append(f"{col}={levels[1]}")
            else:
                blocks.append(np.column_stack([(arr == v) for v in levels]).astype(np.float64))
                names.extend(f"{col}={v}" for v in levels)
        else:
            arr = pd.to_numeric(values, errors="raise").to_numpy(dtype=np.float64)
            nan = np.isnan(arr)
            if nan.any():
                full = pd.to_numeric(frame[col], errors="raise").to_numpy(dtype=np.float64)
                arr = np.where(nan, np.nanmedian(full), arr)
            blocks.append(arr[:, None])
            names.append(str(col))
    X = np.hstack(blocks) if blocks else np.empty((int(keep.sum()), 0))
    return np.ascontiguousarray(X, dtype=np.float64), tuple(names), keep
