"""How many rows a simulated data set may have: what fits in this machine's memory."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import numpy as np

from venncal._validation import check_positive_int, check_random_state

if TYPE_CHECKING:
    import numpy.typing as npt

    from venncal._typing import SeedLike

__all__ = ["check_n_samples", "draw_labels"]

#: bytes a simulated row takes at most while it is drawn (features, label, probability and
#: the temporaries of the draw)
ROW_BYTES = 64


def _memory_bytes():
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, OSError, ValueError):  # not POSIX: no bound known
        return None


def _size(n):
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if n < 1024 or unit == "PiB":
            return f"{n:.3g} {unit}"
        n /= 1024
    return f"{n:.3g} PiB"  # pragma: no cover


def check_n_samples(n_samples: object, *, owner: str, memory: int | None = None) -> int:
    """Return ``n_samples`` (a positive integer) if its rows fit in memory, else raise one line.

    Examples
    --------
    >>> check_n_samples(1000, owner="make_xor")
    1000
    >>> check_n_samples(10**12, owner="make_xor", memory=2**34)
    Traceback (most recent call last):
    ...
    ValueError: 'n_samples' of make_xor is 1000000000000: its rows would take about 58.2 TiB, more than the 16 GiB of memory of this machine; draw fewer rows.
    """
    n = check_positive_int(n_samples, name="n_samples", owner=owner)
    memory = _memory_bytes() if memory is None else memory
    if memory is not None and n * ROW_BYTES > memory:
        raise ValueError(
            f"'n_samples' of {owner} is {n}: its rows would take about {_size(n * ROW_BYTES)}, "
            f"more than the {_size(memory)} of memory of this machine; draw fewer rows."
        )
    return n


def draw_labels(
    n_samples: object, random_state: SeedLike, *, owner: str, prior: float = 0.5
) -> tuple[int, np.random.Generator, npt.NDArray[np.int8]]:
    """The start of a simulated draw by ``owner``: the checked ``n_samples``, the generator of
    ``random_state`` and ``n_samples`` labels, each 1 with probability ``prior``.

    Examples
    --------
    >>> n, rng, y = draw_labels(5, 0, owner="make_xor")
    >>> n, y.dtype, set(y.tolist()) <= {0, 1}
    (5, dtype('int8'), True)
    """
    n = check_n_samples(n_samples, owner=owner)
    rng = check_random_state(random_state, owner=owner)
    return n, rng, (rng.random(n) < prior).astype(np.int8)
