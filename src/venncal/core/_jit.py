"""The optional compiler behind venncal's hot loops.

Kernels are decorated with :func:`jit`. Nothing is compiled, and numba is not even imported,
until a kernel first runs compiled: ``import venncal.core`` costs no numba import (about 0.3 s)
and no compilation. With numba installed a kernel is compiled on its first compiled call and
cached on disk when numba can find a writable cache folder (next to the source, else the
user-wide cache folder, else ``NUMBA_CACHE_DIR``); on a read-only installation without any of
these it is compiled without the disk cache (once per process) instead of failing. venncal
never sets ``NUMBA_CACHE_DIR`` or any other numba setting itself.

Callers with small inputs can run a kernel as plain Python through :meth:`Kernel.for_size`,
so that a first small fit pays neither the numba import nor a compilation (and many small fits
end up compiled once their plain-Python work exceeds what the import costs); only kernels whose
compiled arithmetic is exactly the Python one (no ``fastmath``) are called that way. Without
numba every kernel runs as plain Python with identical results. A kernel keeps its Python
original as ``kernel.py_func``, which the tests compare against.
"""

from __future__ import annotations

import functools
import importlib.util
import threading
import types

__all__ = ["jit", "Kernel", "HAVE_NUMBA", "SMALL_INPUT", "PYTHON_BUDGET"]

HAVE_NUMBA = importlib.util.find_spec("numba") is not None

#: Inputs below this many elements run as plain Python in :meth:`Kernel.for_size` while the
#: kernel is not compiled yet (a few milliseconds, against ~0.3 s of numba import and cache
#: load on the first compiled call of a process).
SMALL_INPUT = 2048

#: Elements of small inputs a kernel processes as plain Python before it is compiled anyway:
#: many small calls (a fit per group or per fold) then pay the numba import once instead of
#: running slowly for ever; at a few microseconds per element this budget costs about what
#: the import and the cache load save.
PYTHON_BUDGET = 65536

_LOCK = threading.RLock()


@functools.lru_cache(maxsize=1)
def _njit():
    """numba.njit, imported on first need; None when numba is missing or does not import."""
    if not HAVE_NUMBA:
        return None
    try:
        from numba import njit
    except ImportError:  # pragma: no cover - numba present but unusable
        return None
    return njit


def _with_globals(func, replace):
    """A copy of ``func`` whose global kernels are replaced by ``replace(kernel)``."""
    names = func.__code__.co_names
    g = func.__globals__
    if not any(isinstance(g.get(name), Kernel) for name in names):
        return func
    new_globals = dict(g)
    for name in names:
        value = g.get(name)
        if isinstance(value, Kernel):
            new_globals[name] = replace(value)
    copy = types.FunctionType(
        func.__code__, new_globals, func.__name__, func.__defaults__, func.__closure__
    )
    copy.__qualname__ = func.__qualname__
    copy.__module__ = func.__module__
    copy.__doc__ = func.__doc__
    copy.__kwdefaults__ = func.__kwdefaults__
    return copy


def _compile(func, options):
    """Return ``func`` compiled with ``options``, cached on disk when numba can cache it."""
    njit = _njit()
    try:
        return njit(cache=True, **options)(func)
    except (RuntimeError, OSError):
        # numba finds no writable cache folder (read-only install, unwritable HOME and
        # NUMBA_CACHE_DIR): compile in memory only
        return njit(cache=False, **options)(func)


class Kernel:
    """A function compiled by numba on its first compiled call.

    Calling the kernel runs the compiled version (plain Python without numba). Kernels that
    call other kernels are compiled against the compiled versions of those.

    Attributes
    ----------
    py_func : callable
        The Python original.
    """

    def __init__(self, func, options):
        self.py_func = func
        self._options = options
        self._compiled = None
        self._python = None
        self._quiet = None
        self._python_work = 0
        functools.update_wrapper(self, func)

    @property
    def compiled(self):
        """The numba dispatcher (compiling on first access), or None without numba."""
        if self._compiled is None and _njit() is not None:
            with _LOCK:
                if self._compiled is None:
                    func = _with_globals(self.py_func, lambda k: k.compiled)
                    self._compiled = _compile(func, self._options)
        return self._compiled

    @property
    def python(self):
        """The Python version, calling the Python versions of the kernels it uses.

        numpy's warnings on scalar overflow or invalid operations are silenced in it, as the
        compiled kernel raises none.
        """
        if self._python is None:
            func = _with_globals(self.py_func, lambda k: k._quiet_python)

            @functools.wraps(self.py_func)
            def python(*args, **kwargs):
                import numpy as np

                with np.errstate(all="ignore"):
                    return func(*args, **kwargs)

            self._quiet = func
            self._python = python
        return self._python

    @property
    def _quiet_python(self):
        """The Python version without the warnings context (for calls from other kernels)."""
        self.python  # noqa: B018 - builds it
        return self._quiet

    def for_size(self, n):
        """The compiled kernel, or its Python version for an input of fewer than
        :data:`SMALL_INPUT` elements while the kernel is not compiled yet and its small
        inputs so far total at most :data:`PYTHON_BUDGET` elements."""
        if self._compiled is None and (
            (n < SMALL_INPUT and self._python_work < PYTHON_BUDGET) or _njit() is None
        ):
            self._python_work += n  # a count for this choice only: a lost update is harmless
            return self.python
        return self.compiled

    def __call__(self, *args, **kwargs):
        compiled = self.compiled
        return (self.python if compiled is None else compiled)(*args, **kwargs)

    def __getattr__(self, name):  # numba attributes (targetoptions, signatures, ...)
        if name.startswith("_"):
            raise AttributeError(name)
        compiled = self.compiled
        if compiled is None:
            raise AttributeError(name)
        return getattr(compiled, name)

    def __reduce__(self):
        return (_lookup, (self.py_func.__module__, self.py_func.__qualname__))

    def __repr__(self):
        return f"<venncal kernel {self.py_func.__module__}.{self.py_func.__qualname__}>"


def _lookup(module, qualname):
    import importlib

    obj = importlib.import_module(module)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


def jit(func=None, **options):
    """Compile ``func`` with numba in nopython mode when numba is available.

    Used bare (``@jit``) or with numba options (``@jit(fastmath=...)``). Compilation waits
    for the first compiled call; the kernel is cached on disk when numba can write a cache,
    and compiled in memory otherwise.

    Parameters
    ----------
    func : callable, default=None
        A function written in the subset of Python that numba compiles. None returns a
        decorator that takes it.
    **options
        Options for ``numba.njit`` (``cache`` excepted); ``nogil=True`` unless given.

    Returns
    -------
    Kernel

    Examples
    --------
    A compiled kernel and its Python original give the same answer:

    >>> import numpy as np
    >>> from venncal.core.isotonic import _pava
    >>> y, w = np.array([1.0, 0.0, 1.0]), np.ones(3)
    >>> all(np.array_equal(a, b) for a, b in zip(_pava(y, w), _pava.py_func(y, w)))
    True
    """
    if "cache" in options:
        raise TypeError("jit() chooses 'cache' itself; do not pass it.")
    options.setdefault("nogil", True)

    def decorate(f):
        return Kernel(f, options)

    return decorate if func is None else decorate(func)
