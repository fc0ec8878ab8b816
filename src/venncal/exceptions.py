"""Warnings and exceptions raised by venncal.

Examples
--------
>>> import warnings
>>> from venncal.exceptions import VenncalWarning
>>> issubclass(VenncalWarning, UserWarning)
True
"""

__all__ = ["VenncalWarning"]


class VenncalWarning(UserWarning):
    """Warning emitted by venncal for a questionable but usable input or result."""
