"""Regression on the command line: a regressor's predictions and real labels.

``venncal fit --task regression`` (or ``--method venn-abers-distribution``) reads a column of
predictions and a column of real labels and fits a :class:`~venncal.VennAbersDistribution`;
``venncal apply`` of such a model writes, for every row, values of its predictive
distribution (the merged distribution of :meth:`~venncal.VennAbersDistribution.predict_quantiles`):

* ``median``: the median, a point prediction;
* ``lower``, ``upper``: the ends of the central interval of ``--confidence`` (0.9 by default),
  as :meth:`~venncal.VennAbersDistribution.predict_interval` gives them (``--band``: with
  ``kind="band"``);
* ``q_<level>`` for each level of ``--quantiles`` (e.g. ``q_0.05``), the quantile at it.

All of them come from one pass over the distribution per chunk of rows. The fit reads every
row into memory (the distribution keeps its calibration rows: about 40 bytes per row), in this
process only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from venncal.cli._io import InputError, get_column, scores_column, weight_column

if TYPE_CHECKING:
    import os
    from collections.abc import Sequence

    import pandas as pd

    from venncal._typing import FloatArray

__all__ = [
    "REGRESSION_METHODS",
    "DistributionColumns",
    "SavedDistribution",
    "is_distribution",
    "parse_levels",
    "read_regression_calibration",
]

#: command-line name -> (public name in venncal, fixed parameters, what it is)
REGRESSION_METHODS: dict[str, tuple[str, dict[str, Any], str]] = {
    "venn-abers-distribution": (
        "VennAbersDistribution",
        {},
        "regression (--task regression): Venn-Abers predictive distributions of a regressor's "
        "predictions, with real labels",
    ),
}


def read_regression_calibration(
    path: str | os.PathLike[str],
    score: str,
    label: str,
    weight: str | None = None,
    what: str = "CAL_FILE",
    sep: str | None = None,
) -> tuple[FloatArray, FloatArray, FloatArray | None]:
    """Predictions, real labels and weights (or None) of a calibration table, checked: a
    label that is missing, not a number, NaN or infinite is one line naming its row."""
    from venncal.cli._columns import read_columns

    columns = list(dict.fromkeys([score, label] + ([weight] if weight else [])))
    numbers = [(score, "--score"), (label, "--label")] + ([(weight, "--weight")] if weight else [])
    frame = read_columns(path, columns, what, numbers, sep)
    s = scores_column(frame, score, path)
    y = _real_labels(frame, label, path)
    w = weight_column(frame, weight, path)
    return s, y, w


def _real_labels(frame: pd.DataFrame, name: str, path: str | os.PathLike[str]) -> FloatArray:
    """The real labels of a regression: finite numbers, one per row, or one line naming the
    first row that is not."""
    import pandas as pd

    col = get_column(frame, name, path, "--label")
    numbers = pd.to_numeric(col, errors="coerce")
    text = numbers.isna().to_numpy() & col.notna().to_numpy()
    if text.any() or col.dtype.kind == "b":
        row = int(np.flatnonzero(text)[0]) if text.any() else 0
        raise InputError(
            f"{str(path)!r}: column {name!r} (--label) must hold real numbers (the labels of a "
            f"regression); row {row} holds {str(col.iloc[row])!r}."
        )
    values: FloatArray = numbers.to_numpy(dtype=np.float64, na_value=np.nan)
    bad = ~np.isfinite(values)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        what = "is missing or NaN" if np.isnan(values[row]) else "is infinite"
        raise InputError(
            f"{str(path)!r}: column {name!r} (--label) {what} at row {row}; every row needs a "
            "finite real label."
        )
    return values


def parse_levels(text: str, option: str = "--quantiles") -> list[float]:
    """The comma-separated probability levels of ``text``, each strictly inside (0, 1).

    Examples
    --------
    >>> parse_levels("0.05, 0.5,0.95")
    [0.05, 0.5, 0.95]
    """
    levels = []
    for item in text.split(","):
        try:
            level = float(item)
        except ValueError:
            raise InputError(
                f"{option} {text!r}: {item.strip()!r} is not a number; give levels between 0 "
                "and 1, comma-separated (e.g. 0.05,0.5,0.95)."
            ) from None
        if not 0 < level < 1:
            raise InputError(
                f"{option} {text!r}: {item.strip()!r} is not strictly between 0 and 1."
            )
        levels.append(level)
    return levels


class SavedDistribution:
    """The predictive distribution of a model file, predicted from its tables alone.

    ``venncal apply`` predicts with it without importing scikit-learn (which
    :class:`~venncal.VennAbersDistribution` needs, and which takes longer to import than the
    quantiles of 10^6 rows take to compute): the quantiles come from
    :func:`venncal.core.venn_abers_distribution.merged_quantiles`, the function behind
    ``VennAbersDistribution.predict_quantiles``, so they are the same numbers.

    Parameters
    ----------
    state : ModelState
        A checked model file of a VennAbersDistribution (``read_model_state``).
    """

    model_name = "VennAbersDistribution"

    def __init__(self, state: Any) -> None:
        self.tables_ = state.fitted["tables_"]
        self.groups_ = state.fitted.get("groups_")
        self.group_tables_ = state.fitted.get("group_tables_")
        self.pooled_groups_ = state.fitted.get("pooled_groups_")
        self.merge = state.params.get("merge", "mean")
        self.group_fallback = state.params.get("group_fallback", "error")

    def _by_part(self, scores: FloatArray, groups: Any, compute: Any, width: int) -> FloatArray:
        """``compute(tables, scores of the rows)`` for each part of the rows (one per group
        when fitted within groups, as ``VennAbersDistribution`` parts them), put together."""
        from venncal.core.groups import group_parts

        parts = group_parts(
            scores.shape[0],
            groups,
            fitted_groups=self.groups_,
            pooled_groups=self.pooled_groups_,
            fallback=self.group_fallback,
            owner=self.model_name,
        )
        if len(parts) == 1 and parts[0][1] is None:
            out: FloatArray = compute(self.tables_, scores)
            return out
        own = self.group_tables_ or []
        out = np.empty((scores.shape[0], width))
        for k, rows in parts:
            out[rows] = compute(self.tables_ if k is None else own[k], scores[rows])
        return out

    def predict_quantiles(
        self, scores: FloatArray, q: Sequence[float], groups: Any = None
    ) -> FloatArray:
        """Quantiles of the merged distributions of clean scores (each row's group's
        distribution when fitted within groups: ``groups`` then holds them)."""
        from venncal.core.venn_abers_distribution import merged_quantiles

        levels = np.asarray(q, dtype=np.float64)
        return self._by_part(
            scores,
            groups,
            lambda tables, s: merged_quantiles(tables, s, levels, self.merge),
            levels.shape[0],
        )

    def band_interval(self, scores: FloatArray, tail: float, groups: Any = None) -> FloatArray:
        """The band's interval leaving ``tail`` on each side (``predict_interval(kind="band")``)
        of clean scores, within groups as :meth:`predict_quantiles`."""
        from venncal.core.venn_abers_distribution import band_interval

        return self._by_part(scores, groups, lambda t, s: band_interval(t, s, tail), 2)


def is_distribution(model: object) -> bool:
    """Whether a loaded model is a regressor's predictive distribution."""
    return hasattr(model, "predict_quantiles") and not hasattr(model, "predict_proba")


def _level_name(level: float) -> str:
    # the shortest text that reads back as the level: q_0.05, q_0.30000000000000004, q_1e-320
    # (six significant digits would name a subnormal level by a rounded value: q_9.99989e-321)
    return f"q_{level!r}"


class DistributionColumns:
    """A predictive distribution and the columns ``venncal apply`` writes of it.

    :func:`venncal.cli._stream.apply_stream` calls :meth:`distribution_columns` on each chunk
    of clean predictions, as it calls a calibrator for its probabilities.

    Parameters
    ----------
    distribution : VennAbersDistribution or SavedDistribution
        Fitted without groups, or within groups with ``group_column``.
    confidence : float
        The probability inside the interval [lower, upper], in (0, 1).
    quantiles : sequence of float
        More levels, each written as a column ``q_<level>``.
    band : bool, default=False
        ``lower`` and ``upper`` from the band (``predict_interval(kind="band")``) instead of
        the merged distribution's quantiles.
    group_column : str, default=None
        For a distribution fitted within groups: the input column of each row's group, which
        :func:`venncal.cli._stream.apply_stream` reads besides the predictions
        (:attr:`input_columns`) and passes to :meth:`chunk_columns`.

    Examples
    --------
    >>> import numpy as np
    >>> from venncal import VennAbersDistribution
    >>> rng = np.random.default_rng(0)
    >>> s = rng.normal(size=500)
    >>> dist = VennAbersDistribution().fit(s, s + rng.normal(size=500))
    >>> columns = DistributionColumns(dist, confidence=0.8, quantiles=[0.25])
    >>> columns.column_names("cal_")
    ['cal_median', 'cal_lower', 'cal_upper', 'cal_q_0.25']
    >>> out = columns.distribution_columns(s[:3], "")
    >>> bool((out["lower"] == dist.predict_interval(s[:3], confidence=0.8)[:, 0]).all())
    True
    """

    model_name = "VennAbersDistribution"

    def __init__(
        self,
        distribution: Any,
        confidence: float,
        quantiles: Sequence[float],
        *,
        band: bool = False,
        group_column: str | None = None,
    ) -> None:
        self.distribution = distribution
        self.group_column = group_column
        self.input_columns = [] if group_column is None else [group_column]
        self.confidence = confidence
        self.quantiles = list(quantiles)
        self.band = band
        c = confidence
        self._levels = [0.5, (1 - c) / 2, (1 + c) / 2, *self.quantiles]
        self._names = ["median", "lower", "upper", *map(_level_name, self.quantiles)]
        if len(set(self._names)) != len(self._names):
            raise InputError("--quantiles names a level twice.")

    def column_names(self, prefix: str = "") -> list[str]:
        """The names of the new columns."""
        return [prefix + name for name in self._names]

    def distribution_columns(
        self, scores: FloatArray, prefix: str = "", groups: Any = None
    ) -> dict[str, FloatArray]:
        """The new columns for clean predictions, from one call of ``predict_quantiles``
        (``groups``: each row's group, for a distribution fitted within groups)."""
        tail = (1 - self.confidence) / 2
        if groups is None:
            q = self.distribution.predict_quantiles(scores, self._levels)
            if self.band:  # lower and upper from the pair itself (predict_interval(kind="band"))
                from venncal.core.venn_abers_distribution import band_interval

                q[:, 1:3] = band_interval(self.distribution.tables_, scores, tail)
        else:
            q = self.distribution.predict_quantiles(scores, self._levels, groups)
            if self.band:
                q[:, 1:3] = self.distribution.band_interval(scores, tail, groups)
        return {
            name: np.ascontiguousarray(q[:, j]) for j, name in enumerate(self.column_names(prefix))
        }

    def chunk_columns(
        self,
        scores: FloatArray,
        chunk: Any,
        path: str | os.PathLike[str],
        offset: int,
        prefix: str = "",
    ) -> dict[str, FloatArray]:
        """The new columns for clean predictions and the group column of their chunk (a
        distribution fitted within groups)."""
        from venncal.cli._groups import check_seen, group_values

        assert self.group_column is not None  # read only when input_columns names it
        g = group_values(chunk, self.group_column, path, offset)
        check_seen(self.distribution, g, self.group_column, path, offset)
        return self.distribution_columns(scores, prefix, g)
