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


def bad_input_table_tests(calls, cases):
    """The two tests of a bad-input table: every good call of ``calls`` (name -> (call,
    ...)) works, and every case ``(name, kwargs, param)`` gives a one-line error naming
    ``param``. Assign them to module-level ``test_`` names."""

    @pytest.mark.parametrize("name", sorted(calls))
    def test_the_good_call_works(name):
        calls[name][0]()

    @pytest.mark.filterwarnings("ignore::RuntimeWarning")
    @pytest.mark.parametrize(("name", "kwargs", "param"), list(cases))
    def test_bad_input_gives_a_one_line_error_naming_the_parameter(name, kwargs, param):
        assert_one_line_error_naming(lambda: calls[name][0](**kwargs), param)

    return test_the_good_call_works, test_bad_input_gives_a_one_line_error_naming_the_parameter
