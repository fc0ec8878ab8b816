"""Assertions shared by the bad-input tables of several subpackages."""

import pytest


def assert_one_line_error_naming(call, param):
    """``call()`` raises a ValueError or TypeError of one line that names ``param``."""
    with pytest.raises((ValueError, TypeError)) as info:
        call()
    message = str(info.value)
    assert "\n" not in message, message
    assert param in message, f"{param!r} not named in: {message}"
    return message
