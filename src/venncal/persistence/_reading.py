"""Reading a model file's bytes and JSON within bounds.

A model file is read only if it is a regular file no larger than a cap (``MAX_BYTES`` by
default): a FIFO, a device such as ``/dev/zero``, a socket or a folder is refused before it is
opened for reading, and the file is opened without blocking, so nothing waits for a writer or
reads without end. Its JSON may nest at most ``MAX_DEPTH`` levels (venncal writes about ten)
and hold finite numbers only (``1e999`` is not a float).
"""

from __future__ import annotations

import io
import os
import stat
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = [
    "MAX_BYTES",
    "MAX_DEPTH",
    "VALUE_CHECK_BYTES",
    "ReadError",
    "check_max_bytes",
    "read_bytes",
    "json_depth",
]

#: the largest model file read by default (256 MiB); ``load(path, max_bytes=...)`` raises it
MAX_BYTES = 256 * 2**20
#: the largest model file read by default whose bytes are not as venncal wrote them (32 MiB): its
#: checksum covers its values, checked only once the whole file is parsed
VALUE_CHECK_BYTES = 32 * 2**20
#: the deepest nesting of JSON arrays and objects a model file may have
MAX_DEPTH = 64

_KINDS: tuple[tuple[Callable[[int], bool], str], ...] = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


class ReadError(ValueError):
    """A file that is not read as a model file (one-line reason, without the file's name)."""


def check_max_bytes(max_bytes: object) -> int:
    """Return ``max_bytes`` (a positive integer) or raise one line."""
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes < 1:
        raise TypeError(
            f"'max_bytes' of venncal.load must be a positive integer (bytes), got {max_bytes!r}."
        )
    return max_bytes


def _kind(mode: int) -> str | None:
    for test, name in _KINDS:
        if test(mode):
            return name
    return None if stat.S_ISREG(mode) else "not a regular file"


def _check_size(size: int, max_bytes: int) -> None:
    if size > max_bytes:
        raise ReadError(
            f"holds {size} bytes, more than the {max_bytes} a model file may have "
            "(pass max_bytes= to read a larger one)"
        )


def read_bytes(
    path: str | bytes | os.PathLike[str] | os.PathLike[bytes],
    max_bytes: int = MAX_BYTES,
    *,
    large: int | None = None,
    check_tail: Callable[[bytes, int], None] | None = None,
) -> bytearray:
    """The bytes of the regular file ``path``, at most ``max_bytes`` of them.

    A file of more than ``large`` bytes has its last 256 bytes (and its size) passed to
    ``check_tail`` first, which may refuse it before the rest is read.

    Raises
    ------
    ReadError
        If ``path`` is not a regular file, or holds more than ``max_bytes`` bytes.
    OSError
        If it cannot be opened or read.

    Examples
    --------
    >>> read_bytes("/dev/null")
    Traceback (most recent call last):
    ...
    venncal.persistence._reading.ReadError: is a character device; a model file must be a regular file
    """
    kind = _kind(os.stat(path).st_mode)
    if kind is not None:
        raise ReadError(f"is {kind}; a model file must be a regular file")
    # O_NONBLOCK: a FIFO put in its place since the check is not waited for
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    try:
        info = os.fstat(fd)
        kind = _kind(info.st_mode)
        if kind is not None:
            raise ReadError(f"is {kind}; a model file must be a regular file")
        _check_size(info.st_size, max_bytes)
        if check_tail is not None and large is not None and info.st_size > large:
            os.lseek(fd, max(0, info.st_size - 256), os.SEEK_SET)
            check_tail(os.read(fd, 256), info.st_size)
            os.lseek(fd, 0, os.SEEK_SET)
        # read into one buffer of the size the file has (one byte more, to see it grow): the
        # bytes are held once, not once in pieces and again joined
        buf = bytearray(info.st_size + 1)
        view = memoryview(buf)
        reader = io.FileIO(fd, closefd=False)
        total = 0
        while True:
            if total == len(buf):  # the file grew while it was read: room for more, to the cap
                _check_size(total, max_bytes)
                view.release()
                buf.extend(bytes(min(len(buf), max_bytes + 1 - total)))
                view = memoryview(buf)
            count = reader.readinto(view[total:])
            if not count:
                break
            total += count
        view.release()
        _check_size(total, max_bytes)
        del buf[total:]
        return buf
    finally:
        os.close(fd)


_NODES = (dict, list)


def json_depth(doc: object, limit: int = MAX_DEPTH) -> bool:
    """Return True if the parsed JSON ``doc`` nests at most ``limit`` arrays and objects.

    Examples
    --------
    >>> json_depth({"a": [1, [2]]}, limit=3), json_depth([[[[]]]], limit=3)
    (True, False)
    """
    if not isinstance(doc, (dict, list)):
        return True
    stack: list[tuple[dict[Any, Any] | list[Any], int]] = [(doc, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return False
        items = node.values() if isinstance(node, dict) else node
        # the containers first, in one comprehension: a list of millions of numbers is
        # passed over without a generator step per number
        inner = [v for v in items if isinstance(v, _NODES)]
        stack.extend((v, depth + 1) for v in inner)
    return True
