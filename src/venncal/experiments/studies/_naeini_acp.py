"""ACP at other confidence levels in the Naeini et al. study: which level gives the paper's row.

The paper says ACP "requires a 95% confidence interval (CI) around a particular prediction" and
"adjusts the CI and uses it to define a bin" (section 5). With the logistic model's 95% Wald
interval, adjusted into a bin of the same length centred on the prediction, ACP does not
reproduce the paper's ACP rows on the simulated data: its bins hold about half the calibration
scores, which averages positives and negatives lying on both sides along the score, so its
accuracy falls and its ECE reaches 0.18-0.20 (paper 0.056 and 0.098).

Narrower intervals reproduce the paper's rows on the designs fitted to the paper's other rows
(``venncal.datasets.make_offset_xor`` and ``make_eccentric_ring``: the logistic score ranks the
classes no better than chance, with positives at both ends of it). On 20 draws (symmetric
adjustment; AUC, accuracy, RMSE, ECE, ours against the paper's single run; the share of the
calibration scores inside a bin, XOR / circular, from 20 further draws):

=======  =========================  =========================  ===========  ===========
level    XOR                        circular                   RMS z        bin holds
=======  =========================  =========================  ===========  ===========
38%      0.945 0.896 0.247 0.032    0.854 0.779 0.392 0.061    0.99 / 0.99
50%      0.946 0.898 0.249 0.042    0.863 0.774 0.393 0.083    0.43 / 0.43  21% / 24%
60%      0.948 0.898 0.253 0.058    0.872 0.762 0.397 0.098    0.18 / 0.59
68%      0.948 0.900 0.262 0.078    0.880 0.751 0.402 0.115    0.30 / 0.70  30% / 34%
80%      0.949 0.893 0.287 0.118    0.888 0.724 0.411 0.148    0.49 / 0.91
95%      0.869 0.775 0.377 0.184    0.905 0.674 0.435 0.197    1.35 / 1.72  51% / 61%
paper    0.950 0.887 0.286 0.056    0.852 0.780 0.387 0.098
=======  =========================  =========================  ===========  ===========

(The RMS z is the root mean square, over the four metrics, of (ours - paper) in units of one
draw's standard deviation: the paper's numbers are one draw.) Levels from 50% to 68% (a bin of
about plus or minus 0.7 to 1 standard error of the linear predictor) put the paper's row within
one draw's spread on both panels; 95% does not (its ECE is 3-4 standard deviations away). The
reason is the width of the bins: at 95% a bin holds half the calibration scores or more, so it
mixes the positives of both ends of the score; at 50% it holds a fifth of them. The adjustment
does not matter: the raw Wald interval gives the same numbers within 0.01 at every level.

This is a property of those designs, not a diagnosis. On the study's present designs, chosen
from the paper's description and its LR row only (``venncal.experiments.studies._naeini_designs``), no level reproduces
the paper's rows, yet narrower is still closer: XOR AUC, accuracy, RMSE, ECE 0.780 0.711 0.425
0.059 at 50% and 0.654 0.629 0.468 0.094 at 95% (RMS z 1.96 and 2.96); circular 0.831 0.758
0.407 0.069 and 0.860 0.641 0.455 0.184 (1.31 and 2.47); 20 draws each. The symmetric
adjustment and the raw interval differ by at most 0.011 in any mean there too.

What made the original's bins narrower cannot be read from either paper (Jiang et al.'s methods
section could not be consulted; its abstract only says that the length of the CI affects the
results); a 95% interval computed from standard errors about three times smaller (for example
from a model refitted on about nine times more data) would give the same bins as a 50% one. The study therefore keeps 95%, the level the
paper states, as its ACP row, and adds the rows of ``acp_variants`` (default: 50%) beside it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Collection, Iterable, Mapping

__all__ = ["acp_variant_rows", "with_acp_variants", "variant_name", "acp_variants_note"]


def variant_name(confidence: float) -> str:
    """The method name of ACP at another level, e.g. ``"ACP (50%)"``.

    Examples
    --------
    >>> variant_name(0.5), variant_name(0.683)
    ('ACP (50%)', 'ACP (68.3%)')
    """
    pct = 100 * float(confidence)
    text = f"{pct:.0f}" if abs(pct - round(pct)) < 1e-9 else f"{pct:.1f}"
    return f"ACP ({text}%)"


def acp_variant_rows(cal, clf, X_train, X_test, s_test, y_test, cell, metrics):
    """Rows of the fitted ACP calibrator ``cal`` with the logistic model's intervals at each
    level of ``cell["acp_variants"]``; ``clf`` is the scaler + logistic-regression pipeline."""
    from venncal.calibration.acp import logistic_wald_interval

    scaler, lr = clf[0], clf[-1]
    rows = []
    for level in cell.get("acp_variants") or ():
        iv = logistic_wald_interval(
            lr, scaler.transform(X_train), scaler.transform(X_test), confidence=level
        )
        proba = cal.predict_proba(s_test, interval=iv)
        rows.append({"method": variant_name(level), **metrics(y_test, proba[:, 1])})
    return rows


def with_acp_variants(methods: Iterable[str], found: Collection[str]) -> list[str]:
    """``methods`` present in ``found``, with the ACP variants found placed after ``"ACP"``.

    Examples
    --------
    >>> with_acp_variants(("base", "ACP", "Hist"), {"Hist", "ACP (50%)", "ACP", "base"})
    ['base', 'ACP', 'ACP (50%)', 'Hist']
    """
    variants = sorted(m for m in found if str(m).startswith("ACP ("))
    out = []
    for m in methods:
        if m in found:
            out.append(m)
        if m == "ACP":
            out += variants
    return out


def acp_variants_note(config: Mapping[str, Any]) -> str:
    """The report's note on the ACP rows."""
    levels = config.get("acp_variants") or []
    if not levels:
        return (
            "ACP uses the logistic model's 95% Wald interval, the level the paper states; "
            "with it, ACP does not reproduce the paper's ACP rows on the simulated data (see "
            "`venncal.experiments.studies._naeini_acp`)."
        )
    names = ", ".join(f"`{variant_name(c)}`" for c in levels)
    return (
        "ACP is the paper's 95% Wald interval; "
        f"{names} use(s) the same calibrator with narrower intervals. At 95% ACP's bins hold "
        "half the calibration scores or more and its accuracy and ECE are far from the paper's "
        "ACP rows; narrower bins come closer on every design we tried, and on designs fitted "
        "to the paper's other rows a 50-68% interval puts the paper's row within one draw's "
        "spread on both panels; the adjustment (symmetric or raw interval) changes the means "
        "by at most 0.011. Why the original was narrower is not known (see "
        "`venncal.experiments.studies._naeini_acp` for the measurements)."
    )
