"""The files a command writes into an ``--out-dir``: checked before any work is done."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from venncal.cli._io import InputError, appeared_meanwhile, check_not_an_input, check_output_free

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from matplotlib.figure import Figure

__all__ = [
    "check_picture_file",
    "plan_out_dir",
    "plan_overwrites",
    "write_figure",
    "describe_write_error",
]


def check_picture_file(path: str | os.PathLike[str], option: str) -> None:
    """Refuse, before any work, a picture file whose suffix names no format matplotlib writes
    (no suffix: PNG)."""
    suffix = Path(path).suffix.lstrip(".").lower()
    if not suffix:
        return
    from matplotlib.backend_bases import FigureCanvasBase

    formats = FigureCanvasBase.get_supported_filetypes()
    if suffix not in formats:
        raise InputError(
            f"{option} {str(path)!r}: {suffix!r} is not a picture format venncal can write; "
            f"end the name in one of {', '.join('.' + f for f in sorted(formats))}."
        )


def plan_out_dir(
    out_dir: str | os.PathLike[str],
    file_names: Mapping[str, str],
    inputs: Iterable[str | os.PathLike[str]],
    force: bool,
) -> dict[str, Path]:
    """Return ``{key: path}`` of the outputs in ``out_dir``, refusing unsafe ones up front.

    An ``--out-dir`` that is a file, an output that is one of ``inputs`` (links included, even
    with ``--force``), a symbolic link, or an existing output without ``--force`` each raise
    :class:`InputError` with one line.
    """
    out_dir = Path(out_dir)
    if out_dir.exists() and not out_dir.is_dir():
        raise InputError(f"--out-dir {str(out_dir)!r} is a file; give a folder.")
    paths = {key: out_dir / name for key, name in file_names.items()}
    for path in paths.values():
        check_not_an_input(path, inputs, "output")
        if path.is_symlink():
            raise InputError(
                f"output {str(path)!r} is a symbolic link; venncal does not write through "
                "links: remove it or choose another --out-dir."
            )
        check_output_free(path, force, "output", need_folder=False)
    return paths


def plan_overwrites(paths: Mapping[str, str | os.PathLike[str]], force: bool) -> dict[str, bool]:
    """``{key: whether the file may be replaced}``, decided once, when the command starts.

    Only a file that exists now, with ``--force``: one that appears while the command runs is
    never replaced (the final move refuses it).
    """
    return {key: bool(force) and os.path.lexists(path) for key, path in paths.items()}


def write_figure(
    fig: Figure, path: str | os.PathLike[str], overwrite: bool, **savefig_kwargs: Any
) -> None:
    """Save a figure atomically; a file that appeared at ``path`` meanwhile is kept (one line)."""
    from venncal._files import save_figure

    try:
        save_figure(fig, path, overwrite=overwrite, **savefig_kwargs)
    except FileExistsError:
        raise appeared_meanwhile(path, "output") from None


def describe_write_error(exc: OSError) -> InputError:
    """A one-line :class:`InputError` for an ``OSError`` met while writing into --out-dir."""
    where = f" {exc.filename!r}" if exc.filename else ""
    return InputError(f"cannot write to --out-dir{where}: {exc.strerror or exc}.")
