"""Warnings and exceptions raised by venncal.

Examples
--------
>>> import warnings
>>> from venncal.exceptions import VenncalWarning
>>> issubclass(VenncalWarning, UserWarning)
True
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from types import FrameType

__all__ = ["VenncalWarning"]

_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


class VenncalWarning(UserWarning):
    """Warning emitted by venncal for a questionable but usable input or result."""


def user_stacklevel() -> int:
    """The ``stacklevel`` at which a warning raised by the caller points at the user's call.

    That is the first frame outside venncal, however many venncal functions lie between it
    and the caller (``predict_log_proba`` calls ``predict_proba``, which calls
    ``predict_venn``).
    """
    frame: FrameType | None = sys._getframe(1)  # the caller: stacklevel 1
    level = 1
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame = frame.f_back
        level += 1
    return level
