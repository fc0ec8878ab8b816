"""Verdicts of checked claims: strict in full mode, judged with the standard error in quick mode."""

import numpy as np
import pandas as pd
import pytest

from venncal.experiments.claims import Check, as_check, quick_state, summary_counts, verdict
from venncal.experiments.report import StudyResult, is_alarm, write_report


@pytest.mark.parametrize("holds", [True, False])
@pytest.mark.parametrize("margin, se", [(0.3, 0.01), (-0.3, 0.01), (0.01, 0.3), (np.nan, np.nan)])
def test_full_mode_is_the_strict_rule_whatever_the_noise(holds, margin, se):
    c = Check(holds=holds, margin=margin, se=se, df=2)
    assert verdict(c, "full") == ("passed" if holds else "FAILED")
    assert verdict(c, "custom") == verdict(c, "full")
    assert bool(c) is holds


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
    assert "- within noise: **FAILED**" in md and "- clear: **passed**" in md
