"""The decision of an abstention rule in SQL and ONNX: the accept column equals rule.accept."""

import copy
import sqlite3

import numpy as np
import pandas as pd
import pytest

import venncal
from venncal.export import to_onnx, to_sql

duckdb = pytest.importorskip("duckdb")


def _fitted():
    rng = np.random.default_rng(0)
    s = rng.normal(size=6000)
    y = (rng.random(6000) < 1 / (1 + np.exp(-3 * s))).astype(int)
    va = venncal.VennAbersCalibrator().fit(s[:2000], y[:2000])
    platt = venncal.PlattCalibrator().fit(s[:2000], y[:2000])
    rules = {
        "venn-abers": (va, venncal.AbstentionRule().fit(va.predict_proba(s[2000:4000])[:, 1],
                                                         y[2000:4000])),
        "platt": (platt, venncal.AbstentionRule().fit(platt.predict_proba(s[2000:4000])[:, 1],
                                                      y[2000:4000])),
        "lower": (va, venncal.AbstentionRule(confidence="lower").fit(
            va.predict_interval(s[2000:4000]), y[2000:4000])),
    }  # fmt: skip
    return rules, s[4000:]


RULES, TEST = _fitted()


def _want(cal, rule, t):
    scores = cal.predict_interval(t) if rule.confidence == "lower" else cal.predict_proba(t)[:, 1]
    return rule.accept(scores).astype(float)


def _on_the_threshold(cal, rule, t):
    """A copy of the rule whose threshold is the confidence of one test row exactly."""
    edited = copy.deepcopy(rule)
    p = cal.predict_proba(t)[:, 1]
    edited.threshold_ = float(np.maximum(p, 1 - p)[7])
    return edited


@pytest.mark.parametrize("case", sorted(RULES))
def test_sql_accept_is_rule_accept(case):
    cal, rule = RULES[case]
    rules = [rule] if case == "lower" else [rule, _on_the_threshold(cal, rule, TEST)]
    frame = pd.DataFrame({"score": np.r_[TEST, np.nan]})
    con = duckdb.connect()
    con.register("scores", frame)
    lite = sqlite3.connect(":memory:")
    frame.to_sql("scores", lite, index=False)
    for r in rules:
        want = _want(cal, r, TEST)
        got = con.execute(to_sql(cal, table="scores", score_column="score", abstain=r)).df()
        np.testing.assert_array_equal(got["accept"].to_numpy(dtype=float)[:-1], want)
        assert pd.isna(got["accept"].iloc[-1])
        query = to_sql(cal, table="scores", score_column="score", dialect="sqlite", abstain=r,
                       prefix="c_")  # fmt: skip
        cursor = lite.execute(query)
        names = [d[0] for d in cursor.description]
        rows = np.array([row[names.index("c_accept")] for row in cursor], dtype=float)
        np.testing.assert_array_equal(rows[:-1], want)
        assert np.isnan(rows[-1])


@pytest.mark.parametrize("case", sorted(RULES))
def test_onnx_accept_is_rule_accept(case):
    ort = pytest.importorskip("onnxruntime")
    cal, rule = RULES[case]
    model = to_onnx(cal, abstain=rule)
    names = [o.name for o in model.graph.output]
    assert names[-1] == "accept"
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    out = sess.run(None, {"score": np.r_[TEST, np.nan]})[-1]
    np.testing.assert_array_equal(out[:-1], _want(cal, rule, TEST))
    assert np.isnan(out[-1])


def test_a_saved_rule_exports_the_same(tmp_path):
    cal, rule = RULES["platt"]
    back = venncal.load(venncal.save(rule, tmp_path / "rule.json"))
    kwargs = {"table": "scores", "score_column": "score"}
    assert to_sql(cal, **kwargs, abstain=back) == to_sql(cal, **kwargs, abstain=rule)


def test_refusals_are_one_line():
    va, rule = RULES["venn-abers"]
    platt, _ = RULES["platt"]
    _, lower = RULES["lower"]
    rng = np.random.default_rng(1)
    p = rng.random(3000)
    y = (rng.random(3000) < p).astype(int)
    grouped = venncal.AbstentionRule(target_error=0.1).fit(p, y, groups=np.arange(3000) % 2)
    P = rng.dirichlet(np.ones(3) * 0.2, 3000)
    yk = np.array([rng.choice(3, p=row) for row in P])
    kclass = venncal.AbstentionRule(target_error=0.1).fit(P, yk)
    for bad, kind, said in [
        (lower, ValueError, "gives no interval"),
        (grouped, ValueError, "within groups"),
        (kclass, ValueError, "binary AbstentionRule"),
        (venncal.AbstentionRule(), ValueError, "not fitted"),
        (va, TypeError, "AbstentionRule"),
    ]:
        cal = platt if bad is lower else va
        for export, kwargs in (
            (to_sql, {"table": "t", "score_column": "s"}),
            (to_onnx, {}),
        ):
            with pytest.raises(kind, match=said) as excinfo:
                export(cal, abstain=bad, **kwargs)
            assert "\n" not in str(excinfo.value)


@pytest.mark.parametrize("labels", [np.array(["a", "o'b"]), np.array([3, 7])])
def test_sql_accept_within_groups(labels):
    cal, _ = RULES["platt"]
    rng = np.random.default_rng(4)
    s = rng.normal(size=4000)
    y = (rng.random(4000) < 1 / (1 + np.exp(-3 * s))).astype(int)
    g = labels[(s > 0.3).astype(int)]  # groups of different difficulty
    p = cal.predict_proba(s)[:, 1]
    for fallback in ("error", "pooled"):
        rule = venncal.AbstentionRule(group_fallback=fallback).fit(p, y, groups=g)
        assert rule.group_thresholds_[0] != rule.group_thresholds_[1]
        unseen = "zz" if labels.dtype.kind == "U" else 99
        groups = list(labels[(TEST[:-1] > 0.3).astype(int)]) + [unseen]
        frame = pd.DataFrame({"score": TEST, "g": [v.item() for v in np.asarray(groups)]})
        con = duckdb.connect()
        con.register("scores", frame)
        lite = sqlite3.connect(":memory:")
        frame.to_sql("scores", lite, index=False)
        query = {"table": "scores", "score_column": "score", "abstain": rule, "group_column": "g"}
        got = con.execute(to_sql(cal, **query)).df()["accept"].to_numpy(dtype=float)
        cursor = lite.execute(to_sql(cal, dialect="sqlite", **query))
        rows = np.array([row[-1] for row in cursor], dtype=float)
        want = rule.accept(cal.predict_proba(TEST[:-1])[:, 1], groups=frame["g"][:-1])
        for values in (got, rows):
            np.testing.assert_array_equal(values[:-1], want.astype(float))
        q = cal.predict_proba(TEST[-1:])[:, 1]
        last = float(np.maximum(q, 1 - q)[0] >= rule.threshold_)
        for values in (got, rows):
            if fallback == "error":
                assert np.isnan(values[-1])
            else:
                assert values[-1] == last
    with pytest.raises(ValueError, match="goes with a rule fitted within groups"):
        to_sql(cal, table="t", score_column="s", abstain=RULES["platt"][1], group_column="g")
    with pytest.raises(ValueError, match="goes with abstain="):
        to_sql(cal, table="t", score_column="s", group_column="g")
