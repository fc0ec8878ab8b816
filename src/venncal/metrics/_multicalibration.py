"""The multicalibration error (MCE): the worst cumulative calibration error over segments."""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from venncal._params import check_positive_int
from venncal.metrics._common import fill_doc, prepare

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    import pandas as pd

    from venncal._typing import ArrayLike, BoolArray, FloatArray, IntArray

__all__ = [
    "MulticalibrationResult",
    "multicalibration_error",
    "ecce_pvalue",
    "segment_masks",
]

#: a segment's error is measured in rows of this many segments at a time (memory: rows x n)
_CHUNK = 64

#: a categorical column's values beyond the most frequent ones are merged into this value
OTHER = "__OTHER"
#: the value of a missing categorical entry
MISSING = "__NA"


@dataclass(frozen=True)
class MulticalibrationResult:
    """The multicalibration error of predictions and the error of each segment.

    Attributes
    ----------
    mce : float
        The multicalibration error on the probability scale: ``mce_sigma`` times the standard
        deviation of the global ECCE under perfect calibration; ``inf`` when ``mce_sigma`` is
        (a segment whose probabilities are all 0 or 1 is wrong somewhere).
    mce_sigma : float
        The largest ECCE over the segments, each divided by its standard deviation under
        perfect calibration (values above about 5 flag miscalibration).
    p_value : float
        The p-value of ``mce_sigma`` for one segment (not adjusted for the many segments).
    mde : float
        The minimum detectable error: 5 standard deviations of the global ECCE.
    global_ecce : float
        The ECCE of all rows (the first segment).
    n_segments : int
        Number of segments measured.
    segments : pandas.DataFrame
        One row per segment, the worst first (by ``ecce_sigma``): ``segment`` (its
        description, ``"all"`` for the global one), ``depth`` (number of features that define
        it), ``n`` (rows), ``mean_y``, ``mean_p``, ``ecce``, ``ecce_sigma``, ``p_value`` and
        ``z`` = ``sum w (y - p) / sqrt(sum w^2 p (1 - p))``, the standardised total error (unit
        weights: ``sum(y - p) / sqrt(sum p (1 - p))``; where every probability of the segment
        is 0 or 1, 0 without error and an infinity of its sign with one).
    """

    mce: float
    mce_sigma: float
    p_value: float
    mde: float
    global_ecce: float
    n_segments: int
    segments: pd.DataFrame = field(repr=False)


def _standardised(error: FloatArray, variance: FloatArray) -> FloatArray:
    """``error / sqrt(variance)``; where the variance is 0 (every probability 0 or 1), 0 for no
    error and an infinity of its sign otherwise, as ``ecce_sigma`` (never 0 / 0)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        z = error / np.sqrt(variance)
    out: FloatArray = np.where(variance > 0, z, np.where(error == 0, 0.0, np.sign(error) * np.inf))
    return out


def ecce_pvalue(sigma: ArrayLike) -> FloatArray:
    """P-value of an ECCE in standard deviations: the chance that the range (maximum minus
    minimum) of a standard Brownian motion on [0, 1] is at least ``sigma``.

    The distribution of the range is Feller's (1951): ``P(R <= x) = sum_{k >= 0} (8 / x^2 +
    2 / (pi^2 (k + 1/2)^2)) exp(-2 pi^2 (k + 1/2)^2 / x^2)``; the series converges fast for
    every x below about 40, and the p-value is 0 above.

    Parameters
    ----------
    sigma : array-like
        Non-negative statistics.

    Returns
    -------
    ndarray of float64, the shape of ``sigma``

    Examples
    --------
    >>> [round(float(v), 4) for v in ecce_pvalue([0.0, 1.0, 2.0, 3.0])]
    [1.0, 0.9366, 0.1815, 0.0108]
    """
    x = _statistics(sigma)
    flat = x.ravel()
    out = np.ones_like(flat)
    live = (flat > 1e-20) & np.isfinite(flat) & (flat < 40.0)
    out[flat >= 40.0] = 0.0
    if live.any():
        xs = flat[live][:, None]
        half = np.arange(80)[None, :] + 0.5  # the last term is below exp(-80) for x < 40
        terms = (8.0 / xs**2 + 2.0 / (math.pi**2 * half**2)) * np.exp(
            -2.0 * math.pi**2 * half**2 / xs**2
        )
        out[live] = np.clip(1.0 - terms.sum(axis=1), 0.0, 1.0)
    return out.reshape(x.shape)


def _statistics(sigma: ArrayLike) -> FloatArray:
    """``sigma`` as float64, refused in one line unless every entry is a number >= 0 (+inf
    allowed: a segment whose errors are not random)."""
    given = np.asarray(sigma)
    if given.dtype.kind not in "biuf" and given.size:  # None, text, objects, complex
        raise TypeError(
            f"ecce_pvalue: 'sigma' must be real numbers; got {type(sigma).__name__} of "
            f"{given.dtype}."
        )
    x = given.astype(np.float64)
    if np.isnan(x).any() or (x < 0).any():
        raise ValueError("ecce_pvalue: 'sigma' must hold numbers >= 0 (no NaN).")
    return x


def as_segment_frame(segments: object) -> pd.DataFrame:
    import pandas as pd

    if isinstance(segments, pd.DataFrame):
        return segments
    if isinstance(segments, dict):
        return pd.DataFrame(segments)
    raise TypeError(
        "'segments' must be a pandas DataFrame (or a dict of columns) of segment features; "
        f"got {type(segments).__name__}."
    )


def split_columns(
    frame: pd.DataFrame,
    categorical: Sequence[str] | None,
    numerical: Sequence[str] | None,
    *,
    owner: str,
) -> tuple[list[str], list[str]]:
    """The categorical and the numerical segment columns, checked against ``frame``.

    Both None: every column, numerical when its dtype is numeric (not boolean), categorical
    otherwise. One given: only those columns are used.
    """
    from pandas.api.types import is_bool_dtype, is_numeric_dtype

    if categorical is None and numerical is None:
        cols = [str(c) for c in frame.columns]
        num = [c for c in cols if is_numeric_dtype(frame[c]) and not is_bool_dtype(frame[c])]
        cat = [c for c in cols if c not in num]
    else:
        cat = [categorical] if isinstance(categorical, str) else list(categorical or [])
        num = [numerical] if isinstance(numerical, str) else list(numerical or [])
    both = set(cat) & set(num)
    if both:
        raise ValueError(f"{owner}: columns {sorted(both)!r} are both categorical and numerical.")
    for option, names in (("categorical", cat), ("numerical", num)):
        missing = [c for c in names if c not in frame.columns]
        if missing:
            raise ValueError(
                f"{owner}: '{option}' names columns {missing!r} that are not in 'segments' "
                f"(it has {[str(c) for c in frame.columns]!r})."
            )
    bad = [c for c in num if not is_numeric_dtype(frame[c])]
    if bad:
        raise TypeError(f"{owner}: 'numerical' segment columns {bad!r} are not numeric.")
    if not cat + num:
        raise ValueError(f"{owner}: no segment columns given.")
    return cat, num


def _value_key(value: object) -> tuple[int, float, str]:
    """A sort key of segment values of any type: numbers in numerical order, then text."""
    if isinstance(value, (bool, np.bool_)):
        return (1, 0.0, str(value))
    try:
        return (0, float(value), "")  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return (1, 0.0, str(value))


def _categorical_levels(col: pd.Series, max_values: int) -> list[tuple[Any, str, BoolArray]]:
    """(value, label, mask) of each level: the ``max_values - 1`` most frequent values kept
    (ties in frequency by value), the rest merged; missing entries are a value of their own.
    Levels come in order of value, the merged level last: nothing depends on the row order."""
    from pandas.api.types import is_numeric_dtype

    values = col.fillna(MISSING) if col.isna().any() else col
    counts = values.value_counts(sort=False)
    other: object = None
    if counts.shape[0] > max_values:
        ranked = sorted(
            zip(counts.index, counts.to_numpy()), key=lambda vc: (-vc[1], _value_key(vc[0]))
        )
        merged = [v for v, _ in ranked[max_values - 1 :]]
        other = OTHER
        if is_numeric_dtype(values):
            other = np.nanmin(values.to_numpy(dtype=np.float64)) - 1
        values = values.where(~values.isin(merged), other)
    kept = sorted((v for v in values.unique() if other is None or v != other), key=_value_key)
    levels = []
    for v in kept + ([] if other is None else [other]):
        label = f"{col.name}=other" if other is not None and v == other else f"{col.name}={v}"
        levels.append((v, label, (values == v).to_numpy()))
    return levels


def _numerical_levels(col: pd.Series, max_values: int) -> list[tuple[Any, str, BoolArray]]:
    """(value, label, mask) of each level: the values themselves when there are at most
    ``max_values`` distinct ones, else ``max_values`` quantile bins (duplicate edges dropped);
    missing entries are a level of their own."""
    import pandas as pd

    x = col.astype(np.float64)
    if x.nunique() <= max_values:
        codes = x
        labels = {v: f"{col.name}={v:g}" for v in x.dropna().unique()}
    else:
        edges = x.quantile(np.linspace(0.0, 1.0, max_values + 1)).to_numpy()
        codes = pd.cut(x, bins=edges, labels=False, include_lowest=True, duplicates="drop")
        kept = np.unique(edges)
        labels = {
            k: f"{col.name} in [{kept[int(k)]:g}, {kept[int(k) + 1]:g}]"
            for k in range(len(kept) - 1)
        }
    levels = []
    found = codes.unique()
    for v in sorted(v for v in found if not pd.isna(v)) + [v for v in found if pd.isna(v)][:1]:
        if pd.isna(v):
            levels.append((np.nan, f"{col.name}=missing", codes.isna().to_numpy()))
        else:
            levels.append((v, labels[v], (codes == v).to_numpy()))
    return levels


def segment_masks(
    frame: pd.DataFrame,
    categorical: Sequence[str],
    numerical: Sequence[str],
    *,
    max_depth: int,
    max_values: int,
    min_samples: int,
    max_segments: int | None,
) -> Iterator[tuple[str, int, BoolArray]]:
    """Yield ``(description, depth, mask)`` of each segment with at least ``min_samples``
    rows: all rows first, then every intersection of one level of each of 1, 2, ...,
    ``max_depth`` distinct features (categorical columns first, in the order given; levels in
    order of value, the merged level last), stopping after ``max_segments``."""
    n = frame.shape[0]
    features = [_categorical_levels(frame[c], max_values) for c in categorical]
    features += [_numerical_levels(frame[c], max_values) for c in numerical]
    count = 0
    for depth in range(0, min(max_depth, len(features)) + 1):
        for subset in itertools.combinations(features, depth):
            for combo in itertools.product(*subset):
                mask = np.ones(n, dtype=bool)
                for _, _, m in combo:
                    mask &= m
                if int(mask.sum()) < min_samples:
                    continue
                yield (" & ".join(lab for _, lab, _ in combo) or "all"), depth, mask
                count += 1
                if max_segments is not None and count >= max_segments:
                    return


def _segment_statistics(
    y: FloatArray, p: FloatArray, w: FloatArray, masks: BoolArray, ends: IntArray | None
) -> tuple[FloatArray, FloatArray]:
    """ECCE and its standard deviation under perfect calibration of each row of ``masks``
    (rows already in the order of ``p``)."""
    sw = masks * w  # (k, n)
    total = sw.sum(axis=1)
    safe = np.where(total > 0, total, 1.0)
    # ``ends``: the walk read where the probability changes (the last row of each run of
    # ties); None: after every row, tied rows in the order of the sort
    walk = np.cumsum(sw * (y - p), axis=1)
    walk = (walk if ends is None else walk[:, ends]) / safe[:, None]
    ecce = np.maximum(walk.max(axis=1), 0.0) - np.minimum(walk.min(axis=1), 0.0)
    std = np.sqrt((sw * w * (p * (1.0 - p))).sum(axis=1)) / safe
    return np.where(total > 0, ecce, 0.0), np.where(total > 0, std, 0.0)


@fill_doc
def multicalibration_error(
    y_true: ArrayLike,
    y_proba: ArrayLike,
    *,
    segments: Any,
    categorical: Sequence[str] | None = None,
    numerical: Sequence[str] | None = None,
    sample_weight: ArrayLike | None = None,
    max_depth: int = 3,
    max_values: int = 3,
    min_samples: int = 10,
    max_segments: int | None = 1000,
    ties: str = "group",
    pos_label: object = None,
) -> MulticalibrationResult:
    """Multicalibration error (MCE): the worst calibration error over many segments.

    Each segment is a set of rows sharing one value of each of up to ``max_depth`` segment
    features (``sex=Female & age in [17, 28]``). Within a segment, rows are taken in order of
    ``y_proba``, and the ECCE is the range (maximum minus minimum, zero included) of the
    running sum of ``w (y - p)`` divided by the segment's total weight: the Kuiper-type
    statistic of Arrieta-Ibarra et al. (2022), free of bins. Under perfect calibration its
    standard deviation is ``sqrt(sum w^2 p (1 - p)) / sum w``; the ECCE over that standard
    deviation is ``ecce_sigma``. The MCE in sigmas is the largest ``ecce_sigma`` over the
    segments, on the probability scale it is that times the standard deviation of the
    global ECCE (Guy et al. 2025; the metric of the MCGrad paper).

    Parameters
    ----------
    {y_true, y_proba}
    segments : pandas.DataFrame or dict of array-like
        Segment features, one row per prediction.
    categorical, numerical : list of str, default=None
        Names of the categorical and of the numerical segment columns. Both None: every
        column of ``segments``, numerical when its dtype is numeric.
    {sample_weight}
    max_depth : int, default=3
        Largest number of features intersected in one segment (0: all rows only).
    max_values : int, default=3
        Levels per feature. A categorical column keeps its ``max_values - 1`` most frequent
        values and merges the others into one level ``other``; a numerical column with more
        than ``max_values`` distinct values is cut at its quantiles into ``max_values`` bins.
        Missing entries are one more level.
    min_samples : int, default=10
        Segments with fewer rows are skipped.
    max_segments : int or None, default=1000
        Measure only the first segments (all rows, then one feature, then pairs, ...).
    ties : {"group", "rows"}, default="group"
        Rows with tied probabilities: one step of the running sum, read after the last of
        them (``"group"``: the result does not depend on the order of the rows), or one step
        each, in the order of numpy's default sort of the given rows (``"rows"``: mcgrad's
        walk, whose figure can change when tied rows are reordered).
    {pos_label}

    Returns
    -------
    MulticalibrationResult
        ``mce``, ``mce_sigma``, ``p_value``, ``mde`` and the per-segment table ``segments``,
        the worst segments first.

    Notes
    -----
    The segments, their order, the ``max_segments`` cut and the statistics follow
    ``mcgrad.metrics.MulticalibrationError`` (with ``precision_dtype="float64"``; mcgrad
    computes in float32 by default, which moves the figures by about 1e-6). On tied
    probabilities (the output of a forest, of isotonic regression or of Venn-Abers) the
    default ``ties="group"`` and mcgrad differ, by up to 0.35 in sigmas on the bundled
    datasets: mcgrad walks tied rows one by one in the order of its sort, which
    ``ties="rows"`` reproduces.

    References
    ----------
    Arrieta-Ibarra, Gujral, Tannen, Tygert & Xu, "Metrics of calibration for probabilistic
    predictions", JMLR 23 (2022). Guy, Haimovich, Linder, Okati, Perini, Tax & Tygert,
    "Measuring multi-calibration", arXiv:2506.11251 (2025). Tax et al., "MCGrad:
    Multicalibration at web scale", arXiv:2509.19884 (2025).

    Examples
    --------
    A model right on average but wrong for each of two groups:

    >>> import pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> group = rng.integers(0, 2, 4000)
    >>> y = rng.random(4000) < np.where(group == 1, 0.6, 0.2)
    >>> res = multicalibration_error(y, np.full(4000, 0.4), segments=pd.DataFrame({"g": group}))
    >>> bool(res.mce_sigma > 5), res.segments["segment"].iloc[0] in ("g=0", "g=1")
    (True, True)

    Calibrated within each group:

    >>> p = np.where(group == 1, 0.6, 0.2)
    >>> bool(multicalibration_error(y, p, segments={"g": group}).mce_sigma < 3)
    True
    """
    import pandas as pd

    owner = "multicalibration_error"
    y, p, w = prepare(y_true, y_proba, sample_weight, pos_label=pos_label)
    # every statistic is invariant to the scale of the weights; scaled to a largest weight of
    # 1, their squares neither overflow (1e308) nor vanish (subnormal weights)
    w = w / w.max()
    frame = as_segment_frame(segments)
    if frame.shape[0] != y.shape[0]:
        raise ValueError(
            f"{owner}: 'segments' has {frame.shape[0]} rows for {y.shape[0]} predictions; "
            "they must match."
        )
    cat, num = split_columns(frame, categorical, numerical, owner=owner)
    max_depth = check_positive_int(max_depth, name="max_depth", owner=owner, minimum=0)
    max_values = check_positive_int(max_values, name="max_values", owner=owner, minimum=2)
    min_samples = check_positive_int(min_samples, name="min_samples", owner=owner)
    if max_segments is not None:
        max_segments = check_positive_int(max_segments, name="max_segments", owner=owner)

    if ties not in ("group", "rows"):
        raise ValueError(f"{owner}: 'ties' must be 'group' or 'rows'; got {ties!r}.")
    order = np.argsort(p)  # numpy's default sort, as mcgrad's (ties: see Notes)
    y, p, w = y[order], p[order], w[order]
    frame = frame.iloc[order].reset_index(drop=True)
    ends = np.flatnonzero(np.append(p[1:] != p[:-1], True)) if ties == "group" else None
    names: list[str] = []
    depths: list[int] = []
    ecce: list[FloatArray] = []
    std: list[FloatArray] = []
    sums: list[FloatArray] = []
    chunk: list[BoolArray] = []

    def flush() -> None:
        masks = np.stack(chunk)
        e, s = _segment_statistics(y, p, w, masks, ends)
        sw = masks * w
        sums.append(
            np.column_stack([sw.sum(1), sw @ y, sw @ p, (sw * w) @ (p * (1 - p)), masks.sum(1)])
        )
        ecce.append(e)
        std.append(s)
        chunk.clear()

    for name, depth, mask in segment_masks(
        frame,
        cat,
        num,
        max_depth=max_depth,
        max_values=max_values,
        min_samples=min_samples,
        max_segments=max_segments,
    ):
        names.append(name)
        depths.append(depth)
        chunk.append(mask)
        if len(chunk) == _CHUNK:
            flush()
    if chunk:
        flush()
    if not names:
        raise ValueError(f"{owner}: fewer than min_samples={min_samples} rows; nothing to measure.")
    e_all, s_all, tot = np.concatenate(ecce), np.concatenate(std), np.concatenate(sums)
    with np.errstate(divide="ignore", invalid="ignore"):
        sig = np.where(s_all > 0, e_all / np.where(s_all > 0, s_all, 1.0), 0.0)
        sig = np.where((s_all == 0) & (e_all != 0), np.inf, sig)
        z = _standardised(tot[:, 1] - tot[:, 2], tot[:, 3])
    pv = ecce_pvalue(sig)
    report = pd.DataFrame(
        {
            "segment": names,
            "depth": depths,
            "n": tot[:, 4].astype(np.int64),
            "mean_y": tot[:, 1] / tot[:, 0],
            "mean_p": tot[:, 2] / tot[:, 0],
            "ecce": e_all,
            "ecce_sigma": sig,
            "p_value": pv,
            "z": z,
        }
    )
    report = report.sort_values("ecce_sigma", ascending=False, kind="stable").reset_index(drop=True)
    worst = float(sig.max())
    global_std = float(s_all[0])  # the first segment is all rows
    return MulticalibrationResult(
        # an error where every prediction is 0 or 1 is infinitely many sigmas (0 * inf is NaN)
        mce=worst * global_std if worst < np.inf else np.inf,
        mce_sigma=worst,
        p_value=float(pv.min()),
        mde=5.0 * global_std,
        global_ecce=float(e_all[0]),
        n_segments=len(names),
        segments=report,
    )
