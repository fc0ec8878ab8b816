"""Model files of AbstentionRule: the same answers after loading, edited bounds refused."""

import json

import numpy as np

import venncal
from tests.persistence._files import refused_on_load, rewrite
from venncal import AbstentionRule


def _rule(groups=False):
    rng = np.random.default_rng(0)
    p = rng.random(3000) ** 0.2
    p = np.where(rng.random(3000) < 0.5, p, 1 - p)
    y = (rng.random(3000) < p).astype(int)
    g = np.where(np.arange(3000) % 2 == 0, "a", "b") if groups else None
    return AbstentionRule(target_error=0.1).fit(p, y, groups=g), p, g


def test_a_saved_rule_answers_the_same(tmp_path):
    for groups in (False, True):
        rule, p, g = _rule(groups)
        back = venncal.load(venncal.save(rule, tmp_path / "rule.json", overwrite=True))
        assert type(back) is AbstentionRule and back.get_params() == rule.get_params()
        assert back.threshold_ == rule.threshold_ and back.error_bound_ == rule.error_bound_
        np.testing.assert_array_equal(back.accept(p, groups=g), rule.accept(p, groups=g))
        np.testing.assert_array_equal(back.predict(p), rule.predict(p))


def _edited(tmp_path, rule, edit):
    path = venncal.save(rule, tmp_path / "rule.json", overwrite=True)
    doc = json.loads(path.read_text())
    edit(doc)
    rewrite(path, doc)
    return path


def test_a_bound_above_the_target_is_refused(tmp_path):
    rule, _, _ = _rule()

    def raise_bound(doc):
        doc["fitted"]["error_bound_"] = 0.2

    refused_on_load(_edited(tmp_path, rule, raise_bound), "error bound above target_error")

    def raise_target_bound(doc):  # a bound within a lowered target is refused as well
        doc["params"]["target_error"] = rule.error_bound_ / 2

    refused_on_load(_edited(tmp_path, rule, raise_target_bound), "above target_error")


def test_a_threshold_outside_0_1_and_missing_group_thresholds_are_refused(tmp_path):
    rule, _, _ = _rule()

    def threshold(doc):
        doc["fitted"]["threshold_"] = 1.5

    refused_on_load(_edited(tmp_path, rule, threshold), "threshold_")
    grouped, _, _ = _rule(groups=True)

    def drop(doc):
        doc["fitted"]["group_thresholds_"] = None

    refused_on_load(_edited(tmp_path, grouped, drop), "all be None or all set")
