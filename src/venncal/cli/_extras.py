"""Optional dependencies of the command line, checked before any work starts.

A command that needs an optional part (Parquet files, the Dask backend) calls
:func:`require_extra` right after reading its options, so a missing package is one line that
names the extra to install, with exit code 2, before anything is fitted or written.
"""

from __future__ import annotations

import importlib.util
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from collections.abc import Iterable

__all__ = ["MissingExtraError", "require_extra", "has_module"]


class MissingExtraError(click.ClickException):
    """An optional dependency is not installed; exit code 2 (like a usage error)."""

    exit_code = 2

    def __init__(self, message: object) -> None:
        super().__init__(" ".join(str(message).split()))


def has_module(name: str) -> bool:
    """Return whether the top-level module ``name`` can be imported, without importing it."""
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def require_extra(module: str | Iterable[str], extra: str, what: str) -> None:
    """Exit with code 2 and one line unless ``module`` (or one of several) is installed.

    Parameters
    ----------
    module : str or tuple of str
        Top-level module name, or alternatives any one of which will do.
    extra : str
        The venncal extra that installs it, e.g. ``"parquet"``.
    what : str
        What needs it, e.g. ``"writing Parquet (--out 'x.parquet')"``.

    Raises
    ------
    MissingExtraError
        When none of the modules can be found.
    """
    names = (module,) if isinstance(module, str) else tuple(module)
    if any(has_module(name) for name in names):
        return
    raise MissingExtraError(
        f'{what} needs {names[0]}, which is not installed; pip install "venncal[{extra}]".'
    )
