"""Names for the array types in venncal's annotations.

Only the type checker reads these: modules import them under ``typing.TYPE_CHECKING`` (with
``from __future__ import annotations``), so importing venncal does not import
:mod:`numpy.typing`.

``ArrayLike`` is what a public function accepts (lists, pandas columns, arrays);
``FloatArray``, ``IntArray`` and ``BoolArray`` are what it returns or keeps, with the dtype it
really has (``IntArray`` is numpy's index type, ``np.intp``; a count array of ``np.int64`` is
written ``npt.NDArray[np.int64]``).
"""

from __future__ import annotations

from typing import Any, TypeAlias

import numpy as np
import numpy.typing as npt

__all__ = ["AnyArray", "ArrayLike", "BoolArray", "FloatArray", "IntArray", "SeedLike"]

ArrayLike: TypeAlias = npt.ArrayLike
FloatArray: TypeAlias = npt.NDArray[np.float64]
IntArray: TypeAlias = npt.NDArray[np.intp]
BoolArray: TypeAlias = npt.NDArray[np.bool_]
AnyArray: TypeAlias = npt.NDArray[Any]
# what ``check_random_state`` (numpy Generators) accepts as a ``random_state``
SeedLike: TypeAlias = (
    int | np.random.Generator | np.random.BitGenerator | np.random.SeedSequence | None
)
