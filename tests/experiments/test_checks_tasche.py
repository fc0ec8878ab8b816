"""The checks of the Tasche study hold on good results and fail on bad ones."""

import numpy as np
import pandas as pd
import pytest

from venncal.experiments.studies.tasche_2022 import calibration_test, check_claims

# per estimate: Brier, grouping loss, isotonic calibration loss, its mean if calibrated
GOOD = {
    "true posterior": (0.152, 0.0, 0.0007, 0.0007),
    "partial posterior (x1 only)": (0.199, 0.046, 0.0008, 0.0008),
    "naive Bayes score": (0.160, 0.0033, 0.0047, 0.0007),
    "naive Bayes, recalibrated": (0.156, 0.0033, 0.0007, 0.0007),
}


def _raw(values=GOOD, k=5, seed=0, **changes):
    rng = np.random.default_rng(seed)
    rows = []
    for r in range(k):
        for name, (brier, grouping, iso, null) in values.items():
            brier, grouping, iso, null = changes.get(name, (brier, grouping, iso, null))
            rows.append(
                {
                    "repeat": r,
                    "n_resamples": 5,
                    "estimate": name,
                    "brier": brier + 1e-4 * rng.normal(),
                    "curve_area": (brier + 1e-4 * rng.normal()) / 2,
                    "grouping_loss": grouping * (1 + 0.05 * rng.normal()),
                    "calibration_loss_isotonic": iso + 2e-5 * rng.normal(),
                    "calibration_loss_isotonic_null_mean": null + 1e-5 * rng.normal(),
                    "calibration_loss_isotonic_null_sd": 3e-5,
                    "spiegelhalter_z": rng.normal() + (30.0 if iso > 2 * null else 0.0),
                }
            )
    raw = pd.DataFrame(rows)
    raw["curve_area"] = raw["brier"] / 2
    return raw


def _only(checks, start):
    (key,) = [k for k in checks if k.startswith(start)]
    return checks[key]


def test_all_claims_hold_on_good_results():
    checks = check_claims(_raw())
    assert len(checks) == 9 and all(checks.values()), checks
    assert all(k.startswith(("[identity", "[sample]", "[model]")) for k in checks)


def test_curve_area_not_half_the_brier_score_fails():
    raw = _raw()
    raw.loc[3, "curve_area"] += 1e-3
    assert not _only(check_claims(raw), "[identity")


def test_true_posterior_not_lowest_fails():
    raw = _raw(**{"true posterior": (0.2, 0.0, 0.0007, 0.0007)})
    assert not _only(check_claims(raw), "[sample] the true posterior")


@pytest.mark.parametrize(
    "name, said",
    [
        ("partial posterior (x1 only)", "the partial posterior is calibrated"),
        ("naive Bayes, recalibrated", "the recalibrated naive-Bayes score is calibrated"),
    ],
)
def test_miscalibrated_sample_fails_the_calibration_check(name, said):
    brier, grouping, _, null = GOOD[name]
    raw = _raw(**{name: (brier, grouping, 0.002, null)})
    assert not _only(check_claims(raw), f"[sample] {said}")


def test_calibrated_naive_bayes_score_fails_its_miscalibration_check():
    raw = _raw(**{"naive Bayes score": (0.160, 0.0033, 0.0007, 0.0007)})
    assert not _only(check_claims(raw), "[sample] the naive-Bayes score is miscalibrated")


@pytest.mark.parametrize(
    "name, said",
    [
        ("partial posterior (x1 only)", "the partial posterior"),
        ("naive Bayes score", "the naive-Bayes score"),
        ("naive Bayes, recalibrated", "the recalibrated naive-Bayes score"),
    ],
)
def test_no_grouping_loss_fails(name, said):
    brier, _, iso, null = GOOD[name]
    raw = _raw(**{name: (brier, 0.0, iso, null)})
    assert not _only(check_claims(raw), f"[model] {said} has grouping loss")


def test_recalibration_that_does_not_help_fails():
    raw = _raw(**{"naive Bayes, recalibrated": (0.170, 0.0033, 0.0007, 0.0007)})
    assert not _only(check_claims(raw), "[sample] recalibrating")


def test_calibration_test_is_standard_normal_under_calibration():
    # observed and resampled losses drawn from the same law: z is about N(0, 1)
    rng = np.random.default_rng(0)
    zs = []
    for _ in range(400):
        null = rng.normal(1.0, 0.1, size=(10, 6))
        raw = pd.DataFrame(
            {
                "estimate": "e",
                "n_resamples": 5,
                "calibration_loss_isotonic": null[:, 0],
                "calibration_loss_isotonic_null_mean": null[:, 1:].mean(axis=1),
                "calibration_loss_isotonic_null_sd": null[:, 1:].std(axis=1, ddof=1),
                "spiegelhalter_z": 0.0,
            }
        )
        zs.append(calibration_test(raw, "e")["z"])
    assert abs(np.mean(zs)) < 0.2 and 0.8 < np.std(zs) < 1.25
