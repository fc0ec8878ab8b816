"""Progress bars of the command line, on standard error (``--progress/--no-progress``)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from collections.abc import Iterable
    from types import TracebackType

    from tqdm.auto import tqdm
    from typing_extensions import Self

__all__ = ["progress_bar", "Steps"]


def progress_bar(
    total: int | None, progress: bool | None, *, unit: str = "row", desc: str | None = None
) -> tqdm:
    """A tqdm bar on standard error: ``progress`` None shows it only on a terminal.

    ``total`` may be None (a count without an end, e.g. the rows of a CSV file).
    """
    from tqdm.auto import tqdm

    # tqdm's disable=None means: off unless standard error is a terminal
    disable = None if progress is None else not progress
    return tqdm(
        total=total,
        disable=disable,
        file=sys.stderr,
        unit=unit,
        unit_scale=unit == "row",
        desc=desc,
        dynamic_ncols=True,
    )


class Steps:
    """A bar over the named steps of a command that works on whole columns in memory.

    Examples
    --------
    >>> with Steps(["reading", "metrics"], progress=False) as steps:
    ...     steps.start("reading")
    ...     steps.start("metrics")
    """

    def __init__(self, names: Iterable[str], progress: bool | None) -> None:
        self.names = list(names)
        self.progress = progress
        self._bar: Any = None  # the tqdm bar, from __enter__ on
        self._started = 0

    def __enter__(self) -> Self:
        self._bar = progress_bar(len(self.names), self.progress, unit="step")
        return self

    def start(self, name: str) -> None:
        """Mark the previous step done and show ``name`` as the one under way."""
        if self._started:
            self._bar.update(1)
        self._started += 1
        self._bar.set_description(name)

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> Literal[False]:
        if exc_type is None and self._started:
            self._bar.update(self._bar.total - self._bar.n)
        self._bar.close()
        return False
