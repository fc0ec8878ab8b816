"""Calibrators that depend on their calibration data only through counts.

Venn-Abers, isotonic regression, histogram binning and Bayesian binning see the calibration set
only through the weight of negatives and of positives at each distinct score (a
:class:`~venncal.core.counts.CountTable`). :class:`CountCalibratorMixin` gives them, on top of
``fit``:

* ``fit_aggregate(scores, y, counts)``: a fit from aggregated rows (one row per distinct score
  and label, with the number of examples it stands for), equal bit for bit to ``fit`` on the
  expanded rows;
* ``partial_fit(scores, y, sample_weight=None)``: adds calibration data to a fitted calibrator,
  equal to refitting on the union; the calibrator keeps the table (``aggregate_``), so memory
  grows with the number of distinct scores, not of examples;
* ``decimals``: optional rounding of every score, at fit and at prediction alike, to bound the
  number of distinct scores.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from venncal._validation import (
    _label_array,
    check_binary_labels,
    check_consistent_length,
    check_sample_weight,
    check_scores,
    check_weighted_classes,
    rescale_sample_weight,
)
from venncal.calibration._base import _scalar, positive_index, warn_if_reversed
from venncal.calibration._docs import fill_calibration_doc
from venncal.core.counts import (
    check_decimals,
    count_table,
    merge_count_tables,
    round_scores,
)

if TYPE_CHECKING:
    import numpy.typing as npt
    from typing_extensions import Self

    from venncal._typing import ArrayLike, FloatArray
    from venncal.calibration._base import BaseScoreCalibrator
    from venncal.core.counts import CountTable
    from venncal.core.venn_abers import IVAPTables

    # the mixin is used on top of BaseScoreCalibrator only (its ``super()`` is that class)
    _CountHost = BaseScoreCalibrator
else:
    _CountHost = object

__all__ = ["CountCalibratorMixin"]


class CountCalibratorMixin(_CountHost):
    """Fits from aggregates, ``partial_fit`` and score rounding for count-based calibrators.

    A subclass implements ``_fit_table(table)``, the fit on a
    :class:`~venncal.core.counts.CountTable`, and may override ``_fit_rows(s, y01, w, table)``
    (by default the table fit) when the rows allow a more exact route.
    """

    decimals: int | None
    decimals_: int | None
    aggregate_: CountTable
    _table_rows: tuple[FloatArray, npt.NDArray[np.int8], FloatArray | None]
    groups_: list[Any] | None
    group_tables_: list[IVAPTables] | None
    pooled_groups_: list[Any] | None

    if TYPE_CHECKING:  # implemented by every subclass

        def _fit_table(self, table: CountTable) -> None: ...

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # a line {aggregate_, decimals_} of the subclass's docstring describes the attributes
        # that this mixin gives it
        fill_calibration_doc(cls)

    def _owner(self) -> str:
        return type(self).__name__

    #: the fitted attributes of a fit within groups (None after a fit of all the data)
    _group_attributes: tuple[str, ...] = ()

    def _forget_groups(self) -> None:
        """A fit from a table is a fit of all the data together (not within groups): the
        attributes of groups are None, as ``fit`` without groups records them."""
        for name in self._group_attributes:
            setattr(self, name, None)

    def _fit(self, s: FloatArray, y01: npt.NDArray[np.int8], w: FloatArray | None) -> None:
        decimals = check_decimals(self.decimals, owner=self._owner())
        s = round_scores(s, decimals)
        self.decimals_ = decimals
        self.__dict__.pop("aggregate_", None)
        self.__dict__.pop("_table_rows", None)
        if self._fit_without_table(s, y01, w):
            # the table (a sort of the scores) is built only if asked for: partial_fit, a
            # model file with its data; the rows are copied, as the caller may change its own
            self._table_rows = (s.copy(), y01.copy(), None if w is None else w.copy())
            return
        table = count_table(s, y01, w)
        self._fit_rows(s, y01, w, table)
        self.aggregate_ = table

    def _fit_rows(
        self,
        s: FloatArray,
        y01: npt.NDArray[np.int8],
        w: FloatArray | None,
        table: CountTable,
    ) -> None:
        self._fit_table(table)

    def _fit_without_table(
        self, s: FloatArray, y01: npt.NDArray[np.int8], w: FloatArray | None
    ) -> bool:
        """Fit on the rows without their table when that gives the same calibrator, faster.

        Returns True if it did; by default it does not (the fit goes through the table).
        """
        return False

    def __getattr__(self, name: str) -> CountTable:
        # called only for a missing attribute: the table of a fit that skipped it is built on
        # first use, once
        if name == "aggregate_" and "_table_rows" in self.__dict__:
            table = count_table(*self.__dict__.pop("_table_rows"))
            self.aggregate_ = table
            return table
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def _check_predict_input(self, scores: ArrayLike) -> FloatArray:
        s = super()._check_predict_input(scores)
        return round_scores(s, getattr(self, "decimals_", None))

    def fit_aggregate(
        self, scores: ArrayLike, y: ArrayLike, counts: ArrayLike, *, pos_label: object = None
    ) -> Self:
        """Fit on aggregated calibration data: each row stands for ``counts`` examples.

        Rows from a ``GROUP BY score, label`` (one per distinct score and label, with the
        number of examples) give the calibrator that ``fit`` gives on the expanded rows, bit
        for bit, whatever the order or the split of the rows, as long as the counts are whole
        numbers totalling less than 2^53. ``counts`` are numbers of examples, as a whole-number
        ``sample_weight`` is (a weight of k counts as k copies of the row).

        Parameters
        ----------
        scores : array-like of shape (n,) or (n, 1)
            Calibration scores; a score may appear on several rows.
        y : array-like of shape (n,)
            Labels; any two values.
        counts : array-like of shape (n,)
            Non-negative number of examples behind each row (fractions are allowed and are
            counted as such).
        pos_label : int, float, bool or str, default=None
            The label the scores point to, as in ``fit``.

        Returns
        -------
        self : object
            The fitted calibrator.
        """
        s, y01, classes, _ = self._check_fit_input(scores, y, None, pos_label)
        c = check_sample_weight(counts, s.shape[0], name="counts")
        if c is None:
            raise TypeError("'counts' must be array-like, got None.")
        check_weighted_classes(y01, rescale_sample_weight(c), name="counts")
        decimals = check_decimals(self.decimals, owner=self._owner())
        s_rounded = round_scores(s, decimals)
        table = count_table(s_rounded, y01, c, counts=True)
        self._forget_groups()
        self.decimals_ = decimals
        # the rows, not only their table: a calibrator with a more exact route from rows
        # (Venn-Abers) then gives ``fit`` with these counts as ``sample_weight``, bit for bit
        self._fit_rows(s_rounded, y01, c, table)
        self.__dict__.pop("_table_rows", None)
        self.aggregate_ = table
        self.classes_ = classes
        pos = positive_index(classes, pos_label, owner=self._owner())
        warn_if_reversed(s, y01, c, classes[pos], classes[1 - pos], stacklevel=2)
        self.pos_label_ = _scalar(classes[pos])
        self.n_features_in_ = 1
        return self

    def partial_fit(
        self,
        scores: ArrayLike,
        y: ArrayLike,
        sample_weight: ArrayLike | None = None,
        *,
        classes: ArrayLike | None = None,
    ) -> Self:
        """Add calibration data to the calibrator, as if refitted on all of it.

        On a calibrator not fitted yet, this is ``fit``. Otherwise the new rows are pooled
        with the table of the earlier data (``aggregate_``) and the calibrator is fitted on the
        union; the result equals ``fit`` on the union of all the data (bit for bit for unit or
        whole-number weights, to the rounding of the weight sums otherwise). The labels must
        be among ``classes_``; a batch may hold one class only. Scores are rounded as at the
        first fit (``decimals_``). A calibrator loaded from a model file saved without
        ``with_data=True`` holds no ``aggregate_`` and refuses (a ValueError) rather than drop
        the earlier data.

        Parameters
        ----------
        scores : array-like of shape (n,) or (n, 1)
        y : array-like of shape (n,)
        sample_weight : array-like of shape (n,), default=None
        classes : array-like of shape (2,), default=None
            The two labels, as in scikit-learn's ``partial_fit``; once fitted, they must be
            ``classes_``.

        Returns
        -------
        self : object
        """
        if getattr(self, "groups_", None) is not None:  # a Venn-Abers calibrator's groups
            raise ValueError(
                f"{self._owner()}: partial_fit adds data to the pooled predictor only; "
                "this one was fitted within groups: refit it with fit(..., groups=...)."
            )
        fitted = hasattr(self, "aggregate_")
        if not fitted and hasattr(self, "classes_"):
            # fitted, but without the table of its data (a model file saved without
            # with_data=True): a refit on the new rows alone would drop the earlier data
            raise ValueError(
                f"{self._owner()}.partial_fit adds data to the calibration data of the earlier "
                "fit, which this calibrator does not hold (a model file saved without "
                "with_data=True); refit it on all the data, or save it with with_data=True."
            )
        if not fitted:
            self.fit(scores, y, sample_weight)
        if classes is not None:
            given = np.unique(_label_array(classes, "classes"))
            if not np.array_equal(given, self.classes_):
                raise ValueError(
                    f"'classes' must be the labels {list(self.classes_.tolist())!r} of "
                    f"{self._owner()}.partial_fit; got {list(given.tolist())!r}."
                )
        return self._add(scores, y, sample_weight) if fitted else self

    def _add(self, scores: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None) -> Self:
        s = check_scores(scores, name="scores")
        y01, _ = check_binary_labels(y, name="y", classes=self.classes_)
        if self._positive_column() == 0:  # fitted with the smaller label as positive
            y01 = (1 - y01).astype(y01.dtype)
        check_consistent_length(scores=s, y=y01)
        w = check_sample_weight(sample_weight, s.shape[0])
        new = count_table(round_scores(s, self.decimals_), y01, w)
        table = merge_count_tables(self.aggregate_, new)
        self._fit_table(table)
        self.aggregate_ = table
        return self

    def _fit_table_checked(
        self,
        table: CountTable,
        classes: ArrayLike,
        rows: tuple[FloatArray, npt.NDArray[np.int8], FloatArray] | None = None,
    ) -> Self:
        """Fit on a table built elsewhere (e.g. by a distributed aggregation).

        ``rows``, if given, are rows ``(scores, y01, weights)`` with this table, on which
        ``_fit_rows`` gives the calibrator of the original rows (for Venn-Abers: rows whose
        weights at a score add up, in increasing order, as the original rows' do).
        """
        if not (table.n0 > 0).any() or not (table.n1 > 0).any():
            raise ValueError(
                "'sample_weight' is zero on every example of one class; calibration needs "
                "both classes with positive weight."
            )
        self.decimals_ = check_decimals(self.decimals, owner=self._owner())
        self._forget_groups()
        if rows is None:
            self._fit_table(table)
        else:
            self._fit_rows(*rows, table)
        self.__dict__.pop("_table_rows", None)
        self.aggregate_ = table
        self.classes_ = np.asarray(classes)
        self.pos_label_ = _scalar(self.classes_[1])  # as ``fit`` records it
        self.n_features_in_ = 1
        return self
