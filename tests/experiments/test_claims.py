"""Verdicts of checked claims: strict in full mode, judged with the standard error in quick mode."""

import numpy as np
import pandas as pd
import pytest

from venncal.experiments.claims import (
    Check,
    as_check,
    full_state,
    quick_state,
    summary_counts,
    verdict,
)
from venncal.experiments.report import StudyResult, is_alarm, write_report


@pytest.mark.parametrize("holds", [True, False])
@pytest.mark.parametrize("margin, se", [(0.3, 0.01), (-0.3, 0.01), (0.01, 0.3), (np.nan, np.nan)])
def test_full_mode_has_three_verdicts(holds, margin, se):
    c = Check(holds=holds, margin=margin, se=se, df=2)
    if holds:
        expected = "passed"
    elif np.isnan(se) or margin < -4.31 * se:  # no noise known, or past t(2) standard errors
        expected = "contradicted"
    else:
        expected = "not shown"
    assert verdict(c, "full") == expected
    assert verdict(c, "custom") == verdict(c, "full")
    assert bool(c) is holds
    assert full_state(c) is {"passed": True, "contradicted": False, "not shown": None}[expected]


def test_quick_never_opposes_full_when_the_margin_is_the_same():
    # the same margin and standard error: quick mode needs at least as many standard errors
    rng = np.random.default_rng(1)
    for _ in range(2000):
        se = rng.uniform(0.001, 0.1)
        c = Check(
            holds=bool(rng.random() < 0.5),
            margin=rng.uniform(-10, 10) * se,
            se=se,
            df=int(rng.integers(1, 30)),
            quick_k=rng.choice([np.nan, 3.0, 10.0]),
        )
        q, f = quick_state(c), full_state(c)
        assert q is None or f is None or q == f or (q and not f and not c.holds) is False


def test_agreement_block_decides_its_own_verdicts():
    assert full_state(Check(holds=False, refuted=True)) is False
    assert full_state(Check(holds=False, refuted=False)) is None
    # quick mode never judges a block of cells (its tolerance needs the full run's spread)
    assert quick_state(Check(holds=True, refuted=False)) is None


def test_a_calibrated_multiplier_raises_the_quick_bar():
    c = Check(holds=True, margin=5.0, se=1.0, df=2)
    assert quick_state(c) is True
    assert quick_state(Check(holds=True, margin=5.0, se=1.0, df=2, quick_k=6.0)) is None
    assert quick_state(Check(holds=False, margin=-7.0, se=1.0, df=2, quick_k=6.0)) is False


def test_quick_mode_never_fails_on_noise():
    rng = np.random.default_rng(0)
    for _ in range(500):
        se = rng.uniform(0.001, 0.1)
        df = int(rng.integers(1, 30))
        margin = rng.uniform(-2, 2) * se  # within two standard errors
        v = verdict(Check(holds=margin > 0, margin=margin, se=se, df=df), "quick")
        assert v == "inconclusive at this size"


def test_quick_mode_multiplier_is_students_t_and_at_least_two():
    from scipy.stats import t

    for df, k in ((2, t.ppf(0.975, 2)), (4, t.ppf(0.975, 4)), (19, t.ppf(0.975, 19)), (1e9, 2.0)):
        k = max(k, 2.0)
        assert quick_state(Check(holds=True, margin=1.0001 * k, se=1.0, df=df)) is True
        assert quick_state(Check(holds=True, margin=0.9999 * k, se=1.0, df=df)) is None
        assert quick_state(Check(holds=False, margin=-1.0001 * k, se=1.0, df=df)) is False
    # three draws need 4.3 standard errors, twenty about 2.1
    assert quick_state(Check(holds=True, margin=3.0, se=1.0, df=2)) is None
    assert quick_state(Check(holds=True, margin=3.0, se=1.0, df=19)) is True


def test_no_standard_error_is_inconclusive_unless_exact():
    for se in (np.nan, np.inf):
        assert verdict(Check(holds=False, margin=-1.0, se=se), "quick").startswith("inconclusive")
    assert verdict(Check(holds=False, exact=True), "quick") == "contradicted"
    assert verdict(Check(holds=True, exact=True), "quick") == "confirmed"
    assert verdict(True, "quick") == "inconclusive at this size"  # a bare truth value
    assert as_check(False) == Check(holds=False)
    assert verdict(False, "full") == "contradicted"  # a bare rule that fails has no noise


def test_a_claim_the_paper_table_contradicts_passes_when_ours_agrees():
    agrees = Check(holds=False, margin=-0.05, se=0.005, df=19, kind="contradicted")
    differs = Check(holds=True, margin=0.05, se=0.005, df=19, kind="contradicted")
    assert bool(agrees) and not bool(differs)
    assert verdict(agrees, "full").endswith("ours agrees")
    assert verdict(differs, "full").endswith("(not refuted here)") and is_alarm(
        verdict(differs, "full")
    )
    assert verdict(agrees, "quick").endswith("ours agrees")


def test_design_checks_are_labelled_as_such():
    c = Check(holds=False, margin=-1, se=0.1, df=19, kind="design")
    assert verdict(c, "full") == "design NOT met" and verdict(c, "quick") == "design NOT met"
    with pytest.raises(ValueError, match="'kind' parameter of Check"):
        Check(holds=True, kind="other")


def test_summary_counts_add_up():
    checks = {str(i): Check(holds=i % 3 == 0, margin=i - 5.0, se=1.0, df=19) for i in range(10)}
    for mode in ("quick", "full"):
        counts = summary_counts(checks, mode)
        assert sum(counts.values()) == 10


def test_report_states_the_quick_verdicts(tmp_path):
    checks = {
        "within noise": Check(holds=False, margin=-0.01, se=0.02, df=2),
        "clear": Check(holds=True, margin=0.5, se=0.01, df=2),
    }
    result = StudyResult("s", "T", "quick", tables={"t": pd.DataFrame({"a": [1]})}, checks=checks)
    paths = write_report(result, tmp_path)
    md = paths["markdown"].read_text()
    assert "- within noise: **inconclusive at this size**" in md
    assert "- clear: **confirmed**" in md and "Quick mode (1 inconclusive" in md
    html = paths["html"].read_text()
    assert "class='fail'" not in html
    result.mode = "full"
    md = write_report(result, tmp_path)["markdown"].read_text()
    assert "- within noise: **not shown**" in md and "- clear: **passed**" in md
