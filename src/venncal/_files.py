"""Safe file writing for everything venncal writes (tables, pictures, reports, manifests).

Every file goes through :func:`atomic_open`: the content is written to a temporary file in the
destination's folder, flushed and synced to disk, and only then moved over the destination with
:func:`os.replace`. A reader (or a crash, or ``kill -9``) therefore sees either the old file or
the complete new one, never a half-written file. An existing symbolic link at the destination is
replaced by the new file; its target is never written through.

The folder written by ``venncal reproduce`` holds a manifest, :data:`MANIFEST`, listing the files
venncal wrote there, so that ``--force`` and ``--resume`` touch only venncal's own files.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import stat
import tempfile
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping

    import pandas as pd
    from matplotlib.figure import Figure

__all__ = [
    "MANIFEST",
    "TMP_PREFIX",
    "make_temporary",
    "make_temporary_folder",
    "TMP_FOLDER_FILE",
    "remove_leftovers",
    "atomic_open",
    "write_bytes",
    "write_text",
    "write_csv",
    "write_parquet",
    "save_figure",
    "read_manifest",
    "write_manifest",
]

#: Prefix of the temporary files; a leftover one (after a crash) is venncal's and can go.
TMP_PREFIX = ".venncal-tmp-"

#: What follows the prefix in a temporary file's name: the writing process and its machine
_TMP_OWNER = re.compile(r"^p([0-9]+)h([0-9a-f]{8})-")

#: Names of the files venncal writes into a folder made by :func:`make_temporary_folder`
TMP_FOLDER_FILE = re.compile(r"^table-[0-9]+\.bin$")

#: Name of the manifest of a folder written by ``venncal reproduce``.
MANIFEST = ".venncal-manifest.json"


def _umask() -> int:
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)  # pragma: no cover - platforms without /proc
    os.umask(mask)  # pragma: no cover
    return mask  # pragma: no cover


def _fsync_folder(folder: str | os.PathLike[str]) -> None:
    """Make a rename durable (POSIX); silently skipped where folders cannot be opened."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:  # pragma: no cover - e.g. Windows
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover - some file systems refuse fsync on folders
        pass
    finally:
        os.close(fd)


def _host_tag() -> str:
    import hashlib
    import socket

    return hashlib.sha256(socket.gethostname().encode("utf-8", "replace")).hexdigest()[:8]


def _process_gone(pid: int) -> bool:
    """Whether no process ``pid`` runs on this machine (a process of another user runs)."""
    if pid <= 0 or pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:  # e.g. PermissionError: it runs, as another user
        return False
    return False


def remove_leftovers(folder: str | os.PathLike[str]) -> int:
    """Remove the temporary files and folders that venncal processes of this machine and this
    user left in ``folder`` when they were killed (their process no longer runs); return how
    many.

    Only regular files named by :func:`make_temporary` and folders named by
    :func:`make_temporary_folder` are candidates: the name carries the writing process and a
    tag of its machine, so a file of a process that still runs, of another machine sharing the
    folder, of another user, or of any other program is never touched. Of a leftover folder
    only the regular files named as venncal names them (:data:`TMP_FOLDER_FILE`) go, then the
    folder if that left it empty.
    """
    removed = 0
    host = None
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return 0
    for entry in entries:
        if not entry.name.startswith(TMP_PREFIX):
            continue
        owner = _TMP_OWNER.match(entry.name[len(TMP_PREFIX) :])
        if owner is None:
            continue
        host = _host_tag() if host is None else host
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if (
            owner.group(2) != host
            or not (stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode))
            or (hasattr(os, "getuid") and st.st_uid != os.getuid())
            or not _process_gone(int(owner.group(1)))
        ):
            continue
        with contextlib.suppress(OSError):
            if stat.S_ISDIR(st.st_mode):
                _remove_folder(entry.path)
            else:
                os.unlink(entry.path)
            removed += 1
    return removed


def _remove_folder(path: str) -> None:
    """Remove venncal's files from a leftover temporary folder, then the folder (OSError if
    anything else is in it)."""
    for inner in os.scandir(path):
        if TMP_FOLDER_FILE.match(inner.name) and inner.is_file(follow_symlinks=False):
            os.unlink(inner.path)
    os.rmdir(path)


def make_temporary_folder(folder: str | os.PathLike[str], name: str) -> str:
    """Create a temporary folder for ``name`` in ``folder``; return its path.

    Named as :func:`make_temporary` names files (the process and its machine), so that a later
    run removes it (:func:`remove_leftovers`, called here) if this process is killed before it
    could; the files in it must be named as :data:`TMP_FOLDER_FILE` says.
    """
    remove_leftovers(folder)
    return tempfile.mkdtemp(prefix=f"{TMP_PREFIX}p{os.getpid()}h{_host_tag()}-{name}.", dir=folder)


def make_temporary(folder: str | os.PathLike[str], name: str) -> tuple[int, str]:
    """Create a temporary file for ``name`` in ``folder``; return ``(fd, path)``.

    Its name starts with :data:`TMP_PREFIX` and names this process and machine, so that a later
    run removes it (:func:`remove_leftovers`, called here) if this process is killed before it
    could; leftovers of earlier runs in ``folder`` go first.
    """
    remove_leftovers(folder)
    # the name is a reminder only: shortened, so a long one still fits the system's limit
    prefix = f"{TMP_PREFIX}p{os.getpid()}h{_host_tag()}-{name[:120]}."
    return tempfile.mkstemp(prefix=prefix, dir=folder)


def move_into_place(
    tmp: str | os.PathLike[str], path: str | os.PathLike[str], *, overwrite: bool = True
) -> None:
    """Move the finished temporary file ``tmp`` to ``path``.

    With ``overwrite=False`` the move fails (FileExistsError) when ``path`` exists, whoever
    created it and when: the file is hard-linked into place, which the system refuses for an
    existing name, so a file that appeared after the caller checked is never replaced. On file
    systems without hard links the check and the move are separate steps.
    """
    if overwrite:
        os.replace(tmp, path)
        return
    try:
        os.link(tmp, path)
    except FileExistsError:
        raise FileExistsError(f"{os.fspath(path)!r} exists") from None
    except OSError:  # file systems without hard links
        if os.path.lexists(path):
            raise FileExistsError(f"{os.fspath(path)!r} exists") from None
        os.replace(tmp, path)
        return
    os.unlink(tmp)


@contextlib.contextmanager
def atomic_open(
    path: str | os.PathLike[str],
    mode: str = "w",
    *,
    encoding: str = "utf-8",
    newline: str | None = None,
    overwrite: bool = True,
) -> Iterator[IO[Any]]:
    """Open a temporary file that replaces ``path`` only when the block ends without error.

    Parameters
    ----------
    path : str or path-like
        The destination. Its folder must exist.
    mode : {"w", "wb"}, default="w"
        Text or binary.
    encoding, newline
        As for :func:`open` (text mode only).
    overwrite : bool, default=True
        False: raise FileExistsError, leaving the destination alone, if it exists when the
        file is moved into place (see :func:`move_into_place`).

    Yields
    ------
    file object
        Write the whole content to it. If the block raises, the destination is left as it was
        and the temporary file is removed.
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"'mode' must be 'w' or 'wb', got {mode!r}.")
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    try:
        st = os.stat(path, follow_symlinks=False)
        perms = st.st_mode & 0o7777 if not os.path.islink(path) else None
    except FileNotFoundError:
        perms = None
    if perms is None:
        perms = 0o666 & ~_umask()
    fd, tmp = make_temporary(folder, os.path.basename(path))
    try:
        kwargs: dict[str, Any] = {} if "b" in mode else {"encoding": encoding, "newline": newline}
        with os.fdopen(fd, mode, **kwargs) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, perms)
        move_into_place(tmp, path, overwrite=overwrite)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_folder(folder)


def write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` (bytes) to ``path`` atomically."""
    with atomic_open(path, "wb") as fh:
        fh.write(data)


def write_text(path: str | os.PathLike[str], text: str, *, encoding: str = "utf-8") -> None:
    """Write ``text`` to ``path`` atomically (newlines written as ``\\n``)."""
    with atomic_open(path, "w", encoding=encoding, newline="") as fh:
        fh.write(text)


def write_csv(
    frame: pd.DataFrame,
    path: str | os.PathLike[str],
    *,
    overwrite: bool = True,
    **to_csv_kwargs: Any,
) -> None:
    """Write a DataFrame as CSV atomically (``to_csv_kwargs`` go to :meth:`DataFrame.to_csv`;
    ``overwrite`` as in :func:`atomic_open`)."""
    with atomic_open(path, "w", encoding="utf-8", newline="", overwrite=overwrite) as fh:
        frame.to_csv(fh, **to_csv_kwargs)


def write_parquet(
    frame: pd.DataFrame,
    path: str | os.PathLike[str],
    *,
    overwrite: bool = True,
    **to_parquet_kwargs: Any,
) -> None:
    """Write a DataFrame as Parquet atomically (``overwrite`` as in :func:`atomic_open`)."""
    with atomic_open(path, "wb", overwrite=overwrite) as fh:
        frame.to_parquet(fh, **to_parquet_kwargs)


def save_figure(
    fig: Figure, path: str | os.PathLike[str], *, overwrite: bool = True, **savefig_kwargs: Any
) -> None:
    """Save a matplotlib figure atomically; the format follows the suffix (e.g. ``.png``;
    ``overwrite`` as in :func:`atomic_open`)."""
    fmt = savefig_kwargs.pop("format", None) or Path(path).suffix.lstrip(".").lower() or "png"
    with atomic_open(path, "wb", overwrite=overwrite) as fh:
        fig.savefig(fh, format=fmt, **savefig_kwargs)


# ----------------------------------------------------------------------------- manifest
_PLAIN_NAME = re.compile(r"^[^/\\\x00]+$")


def read_manifest(folder: str | os.PathLike[str]) -> dict[str, Any] | None:
    """Return the manifest of ``folder`` as a dict, or None if it has none.

    Raises
    ------
    ValueError
        If the manifest is not a regular file or not a manifest venncal wrote.
    """
    path = os.path.join(os.fspath(folder), MANIFEST)
    try:
        st = os.stat(path, follow_symlinks=False)
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(st.st_mode):
        raise ValueError(f"{path!r} is not a regular file; venncal did not write it.")
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ValueError(f"{path!r} is not a venncal manifest ({type(exc).__name__}).") from None
    files = data.get("files") if isinstance(data, dict) else None
    if (
        not isinstance(data, dict)
        or data.get("written_by") != "venncal"
        or not isinstance(files, list)
        or not all(
            isinstance(f, str) and _PLAIN_NAME.match(f) and f not in (".", "..") for f in files
        )
    ):
        raise ValueError(f"{path!r} is not a venncal manifest.")
    return data


def write_manifest(folder: str | os.PathLike[str], manifest: Mapping[str, Any]) -> None:
    """Write ``manifest`` (a dict with a ``files`` list of names in ``folder``) atomically."""
    data = dict(manifest)
    data["written_by"] = "venncal"
    data["files"] = sorted(set(data.get("files", [])))
    write_text(os.path.join(os.fspath(folder), MANIFEST), json.dumps(data, indent=1) + "\n")
