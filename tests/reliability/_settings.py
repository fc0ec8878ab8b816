"""Hypothesis profiles of the reliability battery.

Two profiles are registered: ``"ci"`` (the default: 100 examples per property, fewer for the
properties repeated over every calibrator setting or fitting whole classifiers, see
:func:`fewer`) and ``"thorough"`` (3,000 examples for every property). Choose one with the
``HYPOTHESIS_PROFILE`` environment variable::

    HYPOTHESIS_PROFILE=thorough pytest -q tests/reliability

Both are derandomized (the same examples on every run, so a CI failure reproduces) and have no
deadline. The profile is applied to the battery's tests only, through :data:`PROPERTY` and
:func:`fewer`, so loading this module changes nothing for the rest of the test suite.
"""

import os

from hypothesis import HealthCheck, settings

_COMMON = {
    "derandomize": True,
    "deadline": None,
    "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large],
    "print_blob": True,
    "database": None,
}
settings.register_profile("ci", max_examples=100, **_COMMON)
settings.register_profile("thorough", max_examples=3000, **_COMMON)

PROFILE_NAME = os.environ.get("HYPOTHESIS_PROFILE", "ci")
if PROFILE_NAME not in ("ci", "thorough"):
    PROFILE_NAME = "ci"

#: The settings of every property of the battery.
PROPERTY = settings.get_profile(PROFILE_NAME)


def fewer(divisor):
    """The battery's settings, with ``max_examples`` divided by ``divisor`` under ``"ci"``.

    Properties repeated over many calibrator settings, or that fit whole classifiers, run fewer
    examples in CI so that the battery stays within about a minute of CPU; ``"thorough"`` runs
    all 3,000 for every property.
    """
    if PROFILE_NAME == "thorough":
        return PROPERTY
    return settings(PROPERTY, max_examples=max(10, PROPERTY.max_examples // divisor))
