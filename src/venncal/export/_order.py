"""The order in which numpy adds the entries of a row, for exports whose sums must be numpy's
to the last bit: a row of probabilities is refused when its sum misses one by more than a
tolerance, and a sum an ulp away from numpy's would refuse a row the library accepts (or
accept one it refuses)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["numpy_sum", "plus"]


def numpy_sum(terms: list[str], add: Callable[[str, str], str]) -> str:
    """The sum of ``terms`` in the order numpy adds a row of a C-ordered matrix
    (``sum(axis=1)``): one by one below 8 terms, else 8 running sums combined in pairs, then
    the rest one by one; halves (multiples of 8) beyond 128 terms. ``add(a, b)`` is ``a + b``.

    Examples
    --------
    >>> numpy_sum(["a", "b", "c"], lambda a, b: f"({a} + {b})")
    '((a + b) + c)'
    """
    n = len(terms)
    if n < 8:
        out = terms[0]
        for t in terms[1:]:
            out = add(out, t)
        return out
    if n <= 128:
        r = list(terms[:8])
        i = 8
        while i < n - n % 8:
            r = [add(r[j], terms[i + j]) for j in range(8)]
            i += 8
        out = add(add(add(r[0], r[1]), add(r[2], r[3])), add(add(r[4], r[5]), add(r[6], r[7])))
        for t in terms[i:]:
            out = add(out, t)
        return out
    n2 = n // 2
    n2 -= n2 % 8
    return add(numpy_sum(terms[:n2], add), numpy_sum(terms[n2:], add))


def plus(a: str, b: str) -> str:
    """``(a + b)`` in SQL."""
    return f"({a} + {b})"
