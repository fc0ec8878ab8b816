"""Tasche's Figure 1 and Remark 5.4 in the Tasche study: cost-weighted Bayes-loss curves.

Figure 1 (Example 3.12) draws the cost-weighted Bayes loss ``L*_c`` (eq. 6b; the Brier curve of
a calibrated classifier, Definition 5.1) of bivariate normal classes with independent components
(correlation 0), given both components, given one of them, and given none (the prior). The
paper's copy prints no parameters: we use the study's model (:func:`venncal.datasets.
make_bivariate_normal`) with ``rho = 0``. The curves are computed three ways:

* in closed form (:func:`venncal.diagnostics.bivariate_normal_bayes_loss_curves`, from the
  Bayes classifier's threshold ``eta > c``);
* from Remark 5.4: ``L*_c`` in terms of the power function of the Neyman-Pearson test, the
  smallest ``c (1 - prior) alpha + (1 - c) prior (1 - beta(alpha))`` over the test's sizes
  ``alpha``, with ``beta(alpha) = Phi(D - z_{1-alpha})`` the power at size ``alpha`` for
  Gaussian classes at Mahalanobis separation ``D`` (minimised on a grid of sizes);
* from a sample: :func:`venncal.diagnostics.cost_weighted_bayes_loss` of the true posteriors of
  a drawn sample (``n_samples`` objects).

Proposition 5.5 (bounds on the refinement loss) is not computed: its formula did not survive
in the available text of the paper.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from venncal.experiments.claims import Check

if TYPE_CHECKING:
    from collections.abc import Mapping

    import pandas as pd
    from matplotlib.figure import Figure

    from venncal._typing import ArrayLike

__all__ = ["figure1_curves", "figure1_checks", "figure1_plot", "figure1_table"]

#: where the closed form and the Neyman-Pearson representation must agree (the grid of sizes)
NP_TOLERANCE = 1e-4
#: how many standard errors of the sample curve a gap to the closed form may reach
SAMPLE_Z = 4.0


def _np_curve(costs, separation, prior, n_alpha=20001):
    """Remark 5.4: min over sizes of the Neyman-Pearson test of the cost-weighted loss."""
    from scipy.stats import norm

    alpha = np.concatenate(([0.0], np.logspace(-12, 0, n_alpha)))
    power = norm.cdf(separation - norm.isf(alpha))  # beta(alpha); beta(0) = 0, beta(1) = 1
    c = np.asarray(costs, float)[:, None]
    loss = c * (1 - prior) * alpha[None, :] + (1 - c) * prior * (1 - power[None, :])
    return loss.min(axis=1)


def figure1_curves(n_samples: int, seed: int, costs: ArrayLike | None = None) -> dict[str, Any]:
    """The curves of Figure 1: closed form, Neyman-Pearson representation and sample.

    Returns
    -------
    dict
        ``costs``; ``closed``, ``np`` and ``sample`` (each a dict ``"both"``, ``"first"``,
        ``"second"`` -> curve, ``"prior"`` for ``closed`` only); ``sample_se`` (standard
        errors of the sample curves); ``separations`` and ``refinement`` (closed form).
    """
    from venncal.datasets import make_bivariate_normal
    from venncal.diagnostics import bivariate_normal_bayes_loss_curves, cost_weighted_bayes_loss

    c = np.linspace(0.0, 1.0, 201) if costs is None else np.asarray(costs, float)
    ds = make_bivariate_normal(n_samples, rho=0.0, random_state=seed)
    model = ds.meta["model"]
    curves = bivariate_normal_bayes_loss_curves(
        c, mean0=model.mean0, mean1=model.mean1, std=model.std, rho=0.0, prior=model.prior
    )
    closed = {k: getattr(curves, k) for k in ("both", "first", "second", "prior")}
    npr = {k: _np_curve(c, curves.separations[k], model.prior) for k in ("both", "first", "second")}
    etas = {
        "both": model.posterior(ds.X),
        "first": model.partial_posterior(ds.X, component=0),
        "second": model.partial_posterior(ds.X, component=1),
    }
    sample, se = {}, {}
    for k, eta in etas.items():
        sample[k] = cost_weighted_bayes_loss(eta, c)
        se[k] = np.array(
            [np.std(np.minimum(ci * (1 - eta), (1 - ci) * eta), ddof=1) for ci in c]
        ) / np.sqrt(eta.size)
    return {
        "costs": c,
        "closed": closed,
        "np": npr,
        "sample": sample,
        "sample_se": se,
        "separations": dict(curves.separations),
        "refinement": dict(curves.refinement_losses),
        "n_samples": int(n_samples),
    }


def figure1_checks(cv: Mapping[str, Any]) -> dict[str, Check | bool]:
    """Checks of Figure 1 and Remark 5.4 on the curves of :func:`figure1_curves`.

    The identity (Remark 5.4) and the sample check (whose rule holds its noise: gaps within
    :data:`SAMPLE_Z` standard errors at every cost) are judged alike in quick and full mode.
    """
    checks: dict[str, Check | bool] = {}
    gap = max(float(np.max(np.abs(cv["np"][k] - cv["closed"][k]))) for k in cv["np"])
    checks[
        "[identity, Remark 5.4] each Bayes-loss curve equals its Neyman-Pearson representation "
        f"(smallest c(1-prior)alpha + (1-c)prior(1-power(alpha)) over sizes alpha; largest gap "
        f"{gap:.1e}, tolerance {NP_TOLERANCE:.0e})"
    ] = Check(holds=bool(gap <= NP_TOLERANCE), exact=True)
    z = 0.0
    for k, s in cv["sample"].items():
        se = np.maximum(cv["sample_se"][k], 1e-12)
        inner = (cv["costs"] > 0) & (cv["costs"] < 1)
        z = max(z, float(np.max(np.abs(s - cv["closed"][k])[inner] / se[inner])))
    checks[
        f"[sample, Figure 1] the Bayes-loss curves of the true posteriors of "
        f"{cv['n_samples']:,} drawn objects match the closed forms (largest gap {z:.1f} "
        f"standard errors, at most {SAMPLE_Z:g})"
    ] = Check(holds=bool(z <= SAMPLE_Z), exact=True)
    closed = cv["closed"]
    better, worse = (
        ("first", "second") if cv["separations"]["first"] >= cv["separations"]["second"] else
        ("second", "first")
    )  # fmt: skip
    dominates = bool(np.all(closed[better] <= closed[worse] + 1e-15))
    gl = cv["refinement"][better] - cv["refinement"]["both"]
    informative = float(np.max(closed["prior"] - closed[worse]))
    checks[
        f"[model, Example 3.12] the {better} component's curve lies below the {worse}'s at "
        f"every cost (inequality (11)), yet the {better} component is not sufficient: its "
        f"posterior has grouping loss {gl:.4f} (> 0.001) because the {worse} component is "
        f"informative (its curve is up to {informative:.4f} below the prior's)"
    ] = Check(holds=dominates and gl > 1e-3 and informative > 1e-3, exact=True)
    return checks


def figure1_plot(cv: Mapping[str, Any]) -> Figure:
    """Figure 1: the Bayes-loss curves, closed form as lines and the sample as points."""
    from matplotlib.figure import Figure

    c = cv["costs"]
    fig = Figure(figsize=(7, 4.5))
    ax = fig.subplots()
    styles = {
        "both": ("k", "--", "both components (true posterior)"),
        "first": ("tab:blue", ":", "first component only"),
        "second": ("tab:orange", "-.", "second component only"),
        "prior": ("0.4", "-", "no information (prior)"),
    }
    for k, (color, ls, label) in styles.items():
        ax.plot(c, cv["closed"][k], color=color, ls=ls, lw=1.5, label=label)
        if k in cv["sample"]:
            step = max(1, c.size // 25)
            ax.plot(c[::step], cv["sample"][k][::step], "o", color=color, ms=3, mfc="none")
    ax.set_xlabel("cost c")
    ax.set_ylabel("cost-weighted Bayes loss L*_c")
    ax.set_title(
        "Bayes-loss curves, independent components (Tasche, Figure 1); "
        f"points: sample of {cv['n_samples']:,}",
        fontsize=9,
    )
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def figure1_table(cv: Mapping[str, Any]) -> pd.DataFrame:
    """Separation and refinement loss (twice the area under the curve) of each information."""
    import pandas as pd

    c = cv["costs"]
    rows = {}
    names = {"both": "both components", "first": "first only", "second": "second only"}
    for k, label in names.items():
        rows[label] = {
            "separation D": cv["separations"][k],
            "refinement loss (closed form)": cv["refinement"][k],
            "2 x area, sample": 2 * float(np.trapezoid(cv["sample"][k], c)),
        }
    rows["none (prior)"] = {
        "separation D": 0.0,
        "refinement loss (closed form)": cv["refinement"]["prior"],
        "2 x area, sample": float("nan"),
    }
    return pd.DataFrame.from_dict(rows, orient="index")
