"""The reliability battery: hypothesis properties over every calibrator, metric and estimator.

The hypothesis profile is chosen with the ``HYPOTHESIS_PROFILE`` environment variable: ``ci``
(default, 100 examples per property) or ``thorough`` (3,000). See ``_settings.py``.
"""

from tests.reliability._settings import PROFILE_NAME, PROPERTY


def pytest_report_header(config):
    return f"reliability battery: hypothesis profile {PROFILE_NAME!r} ({PROPERTY.max_examples} examples)"
