"""One BLAS thread for blocks of many small matrix problems, from any number of threads.

Pairwise coupling solves one K x K system per object: one BLAS thread each is much faster
than threads per system. BLAS thread counts belong to the process, so the limit is shared:
the first caller to enter sets it, the last to leave restores what was there before. Nested
``threadpool_limits`` contexts entered from several threads would instead restore one
another's limit of one, leaving the process's BLAS at one thread for good.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = ["single_blas_thread"]

# process-wide by nature: the BLAS libraries' thread counts are process state
_LOCK = threading.Lock()
_STATE: dict[str, Any] = {"users": 0, "limiter": None}


@contextmanager
def single_blas_thread() -> Iterator[None]:
    """Run the block with one BLAS thread; the counts before come back when the last block
    running in any thread ends.

    Examples
    --------
    >>> import numpy as np
    >>> with single_blas_thread():
    ...     x = np.linalg.solve(np.eye(2), np.ones(2))
    >>> x
    array([1., 1.])
    """
    from threadpoolctl import threadpool_limits

    with _LOCK:
        if _STATE["users"] == 0:
            _STATE["limiter"] = threadpool_limits(1, user_api="blas")
        _STATE["users"] += 1
    try:
        yield
    finally:
        with _LOCK:
            _STATE["users"] -= 1
            if _STATE["users"] == 0:
                limiter, _STATE["limiter"] = _STATE["limiter"], None
                limiter.restore_original_limits()
