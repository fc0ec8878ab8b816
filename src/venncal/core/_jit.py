"""The optional compiler behind venncal's hot loops.

Kernels are decorated with :func:`jit`. With numba installed they are compiled on first use
and cached on disk when numba can find a writable cache folder; on a read-only installation
without a writable ``NUMBA_CACHE_DIR`` they are compiled without the disk cache (once per
process) instead of failing at import. Without numba they run as plain Python with identical
results. A compiled kernel keeps its Python original as ``kernel.py_func``, which the tests
compare against.
"""

from __future__ import annotations

__all__ = ["jit", "HAVE_NUMBA"]

try:  # pragma: no cover - which branch runs depends on the environment
    from numba import njit as _njit

    HAVE_NUMBA = True
except ImportError:  # pragma: no cover
    _njit = None
    HAVE_NUMBA = False


def _compile(func, options):
    """Return ``func`` compiled with ``options``, cached on disk when numba can cache it."""
    try:
        return _njit(cache=True, **options)(func)
    except (RuntimeError, OSError):
        # numba finds no writable cache folder (read-only install, unwritable HOME and
        # NUMBA_CACHE_DIR): compile in memory only
        return _njit(cache=False, **options)(func)


def jit(func=None, **options):
    """Compile ``func`` with numba in nopython mode when numba is available.

    Used bare (``@jit``) or with numba options (``@jit(fastmath=...)``). The kernel is cached
    on disk when numba can write a cache, and compiled in memory otherwise.

    Parameters
    ----------
    func : callable, default=None
        A function written in the subset of Python that numba compiles. None returns a
        decorator that takes it.
    **options
        Options for ``numba.njit`` (``cache`` excepted); ``nogil=True`` unless given.

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
    if "cache" in options:
        raise TypeError("jit() chooses 'cache' itself; do not pass it.")
    options.setdefault("nogil", True)

    def decorate(f):
        if _njit is None:  # pragma: no cover
            return f
        return _compile(f, options)

    return decorate if func is None else decorate(func)
