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
from typing import TYPE_CHECKING, Any, Generic, ParamSpec, TypeVar, cast, overload

if TYPE_CHECKING:
    from collections.abc import Callable

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

P = ParamSpec("P")
R = TypeVar("R")


@functools.lru_cache(maxsize=1)
def _njit() -> Callable[..., Any] | None:
    """numba.njit, imported on first need; None when numba is missing or does not import."""
    if not HAVE_NUMBA:
        return None
    try:
        from numba import njit
    except ImportError:  # pragma: no cover - numba present but unusable
        return None
    found: Callable[..., Any] = njit
    return found


def _with_globals(
    func: Callable[P, R], replace: Callable[[Kernel[..., Any]], Callable[..., Any] | None]
) -> Callable[P, R]:
    """A copy of ``func`` whose global kernels are replaced by ``replace(kernel)``."""
    plain = cast("types.FunctionType", func)  # a kernel's original is a plain Python function
    names = plain.__code__.co_names
    g = plain.__globals__
    if not any(isinstance(g.get(name), Kernel) for name in names):
        return func
    new_globals = dict(g)
    for name in names:
        value = g.get(name)
        if isinstance(value, Kernel):
            new_globals[name] = replace(value)
    copy = types.FunctionType(
        plain.__code__, new_globals, plain.__name__, plain.__defaults__, plain.__closure__
    )
    copy.__qualname__ = plain.__qualname__
    copy.__module__ = plain.__module__
    copy.__doc__ = plain.__doc__
    copy.__kwdefaults__ = plain.__kwdefaults__
    return copy


def _compile(func: Callable[P, R], options: dict[str, object]) -> Callable[P, R]:
    """Return ``func`` compiled with ``options``, cached on disk when numba can cache it."""
    njit = _njit()
    assert njit is not None  # only called when numba imports
    compiled: Callable[P, R]
    try:
        compiled = njit(cache=True, **options)(func)
    except (RuntimeError, OSError):
        # numba finds no writable cache folder (read-only install, unwritable HOME and
        # NUMBA_CACHE_DIR): compile in memory only
        compiled = njit(cache=False, **options)(func)
    _one_version_per_type(compiled)
    return compiled


def _one_version_per_type(dispatcher: Any) -> None:
    """Make calls to ``dispatcher`` from other kernels compile one version of it per argument
    type, not one per constant argument.

    numba types a constant passed by a caller (``path_bridge(px, py, 1, arr, 0, ...)``) as a
    literal, and would compile the callee, and everything it calls, once for every combination
    of constants its callers pass: the leave-one-out Venn-Abers kernel compiled 15 versions of
    its bridge search and took 23 s to compile, against 12 s with one version per type. The
    kernels branch on such arguments at run time, so the versions computed the same values.
    """
    from numba.core import types

    typed = dispatcher.get_call_template
    unliteral: Callable[[Any], Any] = types.unliteral  # numba's typing is not annotated

    def get_call_template(args: Any, kws: Any) -> Any:
        args = tuple(unliteral(a) for a in args)
        kws = {key: unliteral(value) for key, value in kws.items()}
        return typed(args, kws)

    dispatcher.get_call_template = get_call_template


class Kernel(Generic[P, R]):
    """A function compiled by numba on its first compiled call.

    Calling the kernel runs the compiled version (plain Python without numba). Kernels that
    call other kernels are compiled against the compiled versions of those.

    Attributes
    ----------
    py_func : callable
        The Python original.
    """

    def __init__(self, func: Callable[P, R], options: dict[str, object]) -> None:
        self.py_func: Callable[P, R] = func
        self._options = options
        self._compiled: Callable[P, R] | None = None
        self._python: Callable[P, R] | None = None
        self._quiet: Callable[P, R] | None = None
        self._python_work = 0
        functools.update_wrapper(self, func)

    @property
    def compiled(self) -> Callable[P, R] | None:
        """The numba dispatcher (compiling on first access), or None without numba."""
        if self._compiled is None and _njit() is not None:
            with _LOCK:
                if self._compiled is None:
                    func = _with_globals(self.py_func, lambda k: k.compiled)
                    self._compiled = _compile(func, self._options)
        return self._compiled

    @property
    def python(self) -> Callable[P, R]:
        """The Python version, calling the Python versions of the kernels it uses.

        numpy's warnings on scalar overflow or invalid operations are silenced in it, as the
        compiled kernel raises none.
        """
        if self._python is None:
            func = _with_globals(self.py_func, lambda k: k._quiet_python)

            @functools.wraps(self.py_func)
            def python(*args: P.args, **kwargs: P.kwargs) -> R:
                import numpy as np

                with np.errstate(all="ignore"):
                    return func(*args, **kwargs)

            self._quiet = func
            self._python = python
        return self._python

    @property
    def _quiet_python(self) -> Callable[P, R]:
        """The Python version without the warnings context (for calls from other kernels)."""
        self.python  # noqa: B018 - builds it
        assert self._quiet is not None  # set with the Python version
        return self._quiet

    def for_size(self, n: int) -> Callable[P, R]:
        """The compiled kernel, or its Python version for an input of fewer than
        :data:`SMALL_INPUT` elements while the kernel is not compiled yet and its small
        inputs so far total at most :data:`PYTHON_BUDGET` elements."""
        if self._compiled is None and (
            (n < SMALL_INPUT and self._python_work < PYTHON_BUDGET) or _njit() is None
        ):
            self._python_work += n  # a count for this choice only: a lost update is harmless
            return self.python
        compiled = self.compiled  # never None here: numba imports
        return self.python if compiled is None else compiled

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R:
        compiled = self.compiled
        return (self.python if compiled is None else compiled)(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:  # numba attributes (targetoptions, signatures, ...)
        if name.startswith("_"):
            raise AttributeError(name)
        compiled = self.compiled
        if compiled is None:
            raise AttributeError(name)
        return getattr(compiled, name)

    def __reduce__(self) -> tuple[Callable[[str, str], object], tuple[str, str]]:
        return (_lookup, (self.py_func.__module__, self.py_func.__qualname__))

    def __repr__(self) -> str:
        return f"<venncal kernel {self.py_func.__module__}.{self.py_func.__qualname__}>"


def _lookup(module: str, qualname: str) -> object:
    import importlib

    obj: object = importlib.import_module(module)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


@overload
def jit(func: Callable[P, R], **options: object) -> Kernel[P, R]: ...


@overload
def jit(func: None = None, **options: object) -> Callable[[Callable[P, R]], Kernel[P, R]]: ...


def jit(
    func: Callable[P, R] | None = None, **options: object
) -> Kernel[P, R] | Callable[[Callable[P, R]], Kernel[P, R]]:
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

    def decorate(f: Callable[P, R]) -> Kernel[P, R]:
        return Kernel(f, options)

    return decorate if func is None else decorate(func)
