"""What a comparison reads: the scores and labels as the calibrators read them, the names of
the candidates with their configuration, and one warning per cause."""

from __future__ import annotations

import inspect
import re
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from venncal._validation import (
    _as_array,
    _label_array,
    check_binary_labels,
    check_consistent_length,
    check_scores,
    plain_label,
)

if TYPE_CHECKING:
    from collections.abc import Iterable

    from venncal._typing import AnyArray, ArrayLike, FloatArray, IntArray

__all__ = ["ComparisonData", "check_data", "configured_name", "fit_arguments", "warn_once_each"]

_OWNER = "compare_calibrators"


@dataclass(frozen=True)
class ComparisonData:
    """Clean input of a comparison.

    ``scores`` (n,) or (n, K); ``labels`` the user's labels, cleaned; ``codes`` 0/1 with the
    positive class 1 (binary) or the index of each row's class in ``classes`` (K classes);
    ``positive`` the positive label (None for K classes); ``probabilities`` whether the
    scores read as probabilities.
    """

    scores: FloatArray
    labels: AnyArray
    codes: IntArray
    classes: AnyArray
    positive: Any
    probabilities: bool

    @property
    def multiclass(self) -> bool:
        return self.scores.ndim == 2


_scalar = plain_label


def _n_classes(y: ArrayLike) -> int:
    try:
        return int(np.unique(_label_array(y, "y")).size)
    except (TypeError, ValueError):
        return -1  # the full check reports it


def check_data(scores: ArrayLike, y: ArrayLike, pos_label: object = None) -> ComparisonData:
    """The scores and labels of a comparison, read as the calibrators read them.

    One score per row (shape (n,) or (n, 1)) is binary, as for every binary calibrator; a
    matrix of K >= 3 columns is a K-class comparison. Two columns with two classes (the two
    columns of a binary ``predict_proba``) are refused, as every binary calibrator refuses
    them, with the fix in the message: pass the positive class's column.

    Examples
    --------
    >>> d = check_data([0.2, 0.9, 0.4], ["spam", "ham", "spam"], pos_label="spam")
    >>> d.codes.tolist(), d.positive
    ([1, 0, 1], 'spam')
    >>> check_data([[0.8, 0.2], [0.1, 0.9]], [0, 1])
    Traceback (most recent call last):
    ...
    ValueError: 'scores' of compare_calibrators has two columns and 'y' two classes: pass one score per row, the positive class's column (e.g. predict_proba(X)[:, 1]), as for every binary calibrator.
    """
    arr = _as_array(scores, "scores")
    if arr.ndim == 2 and arr.shape[1] == 2 and _n_classes(y) == 2:
        raise ValueError(
            f"'scores' of {_OWNER} has two columns and 'y' two classes: pass one score per row, "
            "the positive class's column (e.g. predict_proba(X)[:, 1]), as for every binary "
            "calibrator."
        )
    if arr.ndim == 2 and arr.shape[1] > 1:
        from venncal.calibration.multiclass import (
            check_classes_match_columns,
            check_score_matrix,
            encode_class_labels,
            resolve_score_type,
        )

        if pos_label is not None:
            raise ValueError(
                f"'pos_label' of {_OWNER} applies to binary scores (one column); got a "
                f"{arr.shape[1]}-column score matrix."
            )
        S = check_score_matrix(scores, owner=_OWNER)
        classes, codes, _ = encode_class_labels(S, y, None, owner=_OWNER)
        check_classes_match_columns(S, classes, owner=_OWNER, name_features=False)
        kind = resolve_score_type(S, "auto", owner=_OWNER)
        return ComparisonData(
            S, classes[codes], codes.astype(np.int64), classes, None, kind == "probabilities"
        )
    s = check_scores(scores, name="scores")
    y01, classes = check_binary_labels(y, name="y")
    check_consistent_length(scores=s, y=y01)
    if pos_label is None:
        pos = 1
    else:
        hits = [k for k in (0, 1) if classes[k] == pos_label]
        if len(hits) != 1:
            raise ValueError(
                f"'pos_label' of {_OWNER} must be one of the labels {classes.tolist()!r}; "
                f"got {pos_label!r}."
            )
        pos = hits[0]
    codes = (y01 if pos == 1 else 1 - y01).astype(np.int64)
    probabilities = bool(s.min() >= 0.0 and s.max() <= 1.0)
    return ComparisonData(s, classes[y01], codes, classes, _scalar(classes[pos]), probabilities)


def fit_arguments(est: Any, data: ComparisonData) -> tuple[AnyArray, dict[str, Any]]:
    """The labels and keyword arguments a candidate's ``fit`` takes for this comparison.

    K classes: the user's labels. Binary: the user's labels and ``pos_label`` when ``fit``
    takes it (every venncal calibrator does), so the fitted calibrator knows the user's
    classes; otherwise the 0/1 codes, with the positive class 1.
    """
    if data.multiclass:
        return data.labels, {}
    try:
        takes = "pos_label" in inspect.signature(est.fit).parameters
    except (TypeError, ValueError):
        takes = False
    if takes:
        return data.labels, {"pos_label": data.positive}
    return data.codes, {}


def positive_column(model: Any, data: ComparisonData) -> int:
    """The column of ``model.predict_proba`` that holds the positive class."""
    classes = getattr(model, "classes_", None)
    if classes is None:
        return 1
    hits = [k for k, c in enumerate(np.asarray(classes)) if c == data.positive]
    return hits[0] if len(hits) == 1 else 1


def configured_name(name: str, est: Any) -> str:
    """``name`` and the parameters of ``est`` that differ from its class's defaults.

    A name without parentheses is the class as it comes, e.g. ``VennAbersCalibrator()``.

    Examples
    --------
    >>> from venncal import VennAbersCalibrator
    >>> configured_name("venn-abers", VennAbersCalibrator(merge="mean"))
    "venn-abers (merge='mean')"
    >>> configured_name("venn-abers", VennAbersCalibrator())
    'venn-abers'
    """
    if est is None or not hasattr(est, "get_params"):
        return name
    try:
        defaults = {
            k: p.default
            for k, p in inspect.signature(type(est).__init__).parameters.items()
            if p.default is not inspect.Parameter.empty
        }
        params = est.get_params(deep=False)
    except (TypeError, ValueError):
        return name
    changed = []
    for key, value in params.items():
        if key in defaults and _same(value, defaults[key]):
            continue
        changed.append(f"{key}={value!r}")
    return f"{name} ({', '.join(changed)})" if changed else name


def _same(a: object, b: object) -> bool:
    try:
        return bool(a is b or (type(a) is type(b) and a == b))
    except (TypeError, ValueError):  # arrays and the like
        return False


#: numbers in a warning's text (an AUC, a count): warnings that differ only there share a cause
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def warn_once_each(caught: Iterable[warnings.WarningMessage], *, stacklevel: int) -> None:
    """Warn once per cause among the recorded warnings.

    A comparison fits every candidate once per fold and once on all rows, so one cause (the
    scores ranking the positive class below the other, say) would raise dozens of warnings
    that differ only in their numbers (the AUC of each fold). Warnings of one category whose
    texts agree but for their numbers share a cause: the first of each is issued again, with
    the number of times it came when above one.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     for auc in (0.31, 0.29, 0.30):
    ...         warnings.warn(f"AUC {auc} below 0.5", UserWarning)
    >>> with warnings.catch_warnings(record=True) as again:
    ...     warnings.simplefilter("always")
    ...     warn_once_each(caught, stacklevel=1)
    >>> [str(w.message) for w in again]
    ['AUC 0.31 below 0.5 (raised 3 times in the comparison; shown once)']
    """
    seen: dict[tuple[Any, str], list[warnings.WarningMessage]] = {}
    for w in caught:
        seen.setdefault((w.category, _NUMBER.sub("#", str(w.message))), []).append(w)
    for group in seen.values():
        text = str(group[0].message)
        if len(group) > 1:
            text += f" (raised {len(group)} times in the comparison; shown once)"
        warnings.warn(text, group[0].category, stacklevel=stacklevel + 1)
