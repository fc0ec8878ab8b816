"""Bad inputs shared by the tests of the one-column score calibrators."""

import numpy as np
import pytest


def bad_fit_inputs(pair, triple):
    """The ``(scores, y, match)`` that every score calibrator's ``fit`` refuses with a
    ValueError matching ``match``, built from two and three scores it takes."""
    a, b = pair
    return [
        ([a, np.nan, b], [0, 1, 1], "NaN"),
        ([a, np.inf, b], [0, 1, 1], "infinite"),
        (list(triple), [1, 1, 1], "one class"),
        (list(triple), [0, 1, 2], "binary"),
        ([a, b], [0, 1, 1], "Inconsistent lengths"),
        ([], [], "empty"),
        ([[a, b], [b, a]], [0, 1], "one column"),
    ]


def bad_parameter_test(cls, cases, scores=(0.0, 1.0), y=(0, 1)):
    """The test that, for each ``(params, match)`` of ``cases``, ``cls(**params).fit(scores,
    y)`` (as lists) raises a ValueError matching ``match``. Assign it to a module-level
    ``test_`` name."""

    @pytest.mark.parametrize("params, match", cases)
    def test_bad_parameters(params, match):
        with pytest.raises(ValueError, match=match):
            cls(**params).fit(list(scores), list(y))

    return test_bad_parameters
