"""Shared parameter descriptions put into docstrings (used by core, metrics and plotting)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any, TypeVar

    F = TypeVar("F", bound=Callable[..., Any])


def fill_docstring(func: F, docs: Mapping[str, str]) -> F:
    """Put the descriptions of ``docs`` (name to text) into the docstring of ``func``.

    A docstring line holding ``{name}`` or ``{name, other, ...}`` alone is replaced by those
    descriptions in that order, at that line's indentation (blank lines of a description stay
    blank); ``func`` is returned, so that a decorator can be made of it. Other lines (and lines
    naming anything not in ``docs``) are left as they are.

    Examples
    --------
    >>> def f(x):
    ...     '''Twice x.
    ...
    ...     {x}
    ...     '''
    >>> print(fill_docstring(f, {"x": "x : float\\n    A number."}).__doc__.strip())
    Twice x.
    <BLANKLINE>
        x : float
            A number.
    """
    if func.__doc__ is None:  # docstrings stripped (python -OO)
        return func
    lines: list[str] = []
    for line in func.__doc__.split("\n"):
        key = line.strip()
        names = [n.strip() for n in key[1:-1].split(",")]
        if key[:1] == "{" and key[-1:] == "}" and all(n in docs for n in names):
            indent = line[: len(line) - len(line.lstrip())]
            for n in names:
                lines.extend(indent + part if part else "" for part in docs[n].split("\n"))
        else:
            lines.append(line)
    func.__doc__ = "\n".join(lines)
    return func
