"""The checks of the Tasche study hold on good results and fail on bad ones."""

import numpy as np
import pandas as pd
import pytest

from venncal.experiments.studies.tasche_2022 import calibration_test, check_claims

# per estimate: Brier, grouping loss, isotonic calibration loss, its mean if calibrated
GOOD = {
    "true posterior": (0.152, 0.0, 0.0007, 0.0007),
    "partial posterior (x1 only)": (0.199, 0.0466, 0.0008, 0.0008),
    "naive Bayes score": (0.160, 0.00323, 0.0047, 0.0007),
    "naive Bayes, recalibrated": (0.156, 0.00323, 0.0007, 0.0007),
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
                    "grouping_loss": grouping * (1 + 0.01 * rng.normal()),
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
    assert len(checks) == 10 and all(checks.values()), checks
    assert all(k.startswith(("[identity", "[sample]", "[model]")) for k in checks)


def test_curve_area_not_half_the_brier_score_fails():
    raw = _raw()
    raw.loc[3, "curve_area"] += 1e-3
    assert not _only(check_claims(raw), "[identity")


# an estimate, the values changed from GOOD (brier, grouping, iso, null) and the start of the one
# check that the result must then fail
FAILURES = [
    ("true posterior", {"brier": 0.2}, "[sample] the true posterior"),
    ("partial posterior (x1 only)", {"iso": 0.002}, "[sample] the partial posterior is calibrated"),
    ("naive Bayes, recalibrated", {"iso": 0.002},
     "[sample] the recalibrated naive-Bayes score is calibrated"),
    ("naive Bayes score", {"iso": 0.0007}, "[sample] the naive-Bayes score is miscalibrated"),
    ("partial posterior (x1 only)", {"grouping": 0.0},
     "[model] the partial posterior has grouping loss"),
    ("naive Bayes score", {"grouping": 0.0}, "[model] the naive-Bayes score has grouping loss"),
    ("naive Bayes, recalibrated", {"grouping": 0.0},
     "[model] the recalibrated naive-Bayes score has grouping loss"),
    ("naive Bayes, recalibrated", {"brier": 0.170}, "[sample] recalibrating"),
]  # fmt: skip


@pytest.mark.parametrize("name, changes, check", FAILURES)
def test_a_result_against_the_claim_fails_its_check(name, changes, check):
    values = dict(zip(("brier", "grouping", "iso", "null"), GOOD[name]), **changes)
    assert not _only(check_claims(_raw(**{name: tuple(values.values())})), check)


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


def test_grouping_loss_of_the_wrong_size_is_contradicted():
    from venncal.experiments.claims import full_state

    size = "[model] the size of the grouping loss"
    assert full_state(_only(check_claims(_raw()), size)) is True
    for factor in (0.5, 1.2):
        raw = _raw()
        raw["grouping_loss"] *= factor
        assert full_state(_only(check_claims(raw), size)) is False, factor


def test_exact_grouping_loss_matches_a_large_sample():
    # the quadrature against the definition E[(eta - c(p))^2] on 400,000 drawn objects
    from venncal.datasets import BivariateNormalModel
    from venncal.experiments.studies.tasche_2022 import exact_grouping_loss

    model = BivariateNormalModel()
    X, _ = model.sample(400_000, random_state=3)
    eta = model.posterior(X)
    exact = exact_grouping_loss()
    for name, method in (
        ("partial posterior (x1 only)", "partial_posterior"),
        ("naive Bayes score", "naive_bayes_recalibrated"),
    ):
        d2 = (eta - getattr(model, method)(X)) ** 2
        se = d2.std() / np.sqrt(d2.size)
        assert abs(d2.mean() - exact[name]) < 4 * se, name
