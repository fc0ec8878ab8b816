"""The optional compiler behind venncal's hot loops.

Kernels are decorated with :func:`jit`. With numba installed they are compiled on first use
(and cached on disk); without it they run as plain Python with identical results. A compiled
kernel keeps its Python original as ``kernel.py_func``, which the tests compare against.
"""

from __future__ import annotations

__all__ = ["jit", "HAVE_NUMBA"]

try:  # pragma: no cover - which branch runs depends on the environment
    from numba import njit as _njit

    HAVE_NUMBA = True
except ImportError:  # pragma: no cover
    _njit = None
    HAVE_NUMBA = False


def jit(func):
    """Compile ``func`` with numba in nopython mode when numba is available.

    Parameters
    ----------
    func : callable
        A function written in the subset of Python that numba compiles.

    Returns
    -------
    callable
        The compiled kernel, or ``func`` itself when numba is missing.

    Examples
    --------
    A compiled kernel and its Python original give the same answer:

    >>> import numpy as np
    >>> from venncal.core.isotonic import _pava
    >>> y, w = np.array([1.0, 0.0, 1.0]), np.ones(3)
    >>> original = getattr(_pava, "py_func", _pava)
    >>> all(np.array_equal(a, b) for a, b in zip(_pava(y, w), original(y, w)))
    True
    """
    if _njit is None:  # pragma: no cover
        return func
    return _njit(cache=True, nogil=True)(func)
