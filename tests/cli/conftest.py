"""Fixtures of the command-line tests."""

import pytest

from venncal.experiments import studies


@pytest.fixture
def tiny(monkeypatch):
    """Make quick mode of the Tasche study tiny, so the command runs in about a second."""
    module = studies.get_study("tasche-2022")
    original = module.default_config

    def small(mode="quick"):
        cfg = original(mode)
        cfg.update(n_samples=400, n_repeats=2)
        return cfg

    monkeypatch.setattr(module, "default_config", small)
