"""``venncal apply --abstain-at``: fit an abstention rule on labelled rows, for an ``accept``
column."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click
import numpy as np

from venncal.cli._io import InputError

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from click.decorators import FC


__all__ = ["abstain_options", "abstention_threshold"]


def abstain_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """The options of abstention: ``--abstain-at``, ``--abstain-data``, ``--delta``,
    ``--label`` and ``--positive``."""
    options: list[Callable[[FC], FC]] = [
        click.option(
            "--abstain-at",
            "abstain_at",
            type=click.FloatRange(0, 1, min_open=True, max_open=True),
            default=None,
            help="Add a column 'accept': true where the calibrated probability is confident "
            "enough that the error among accepted rows is at most this (with probability "
            "1 - delta; fitted on --abstain-data).",
        ),
        click.option(
            "--abstain-data",
            "abstain_data",
            type=click.Path(dir_okay=False),
            default=None,
            help="With --abstain-at: labelled rows (score and label columns) not used to fit "
            "MODEL, to fit the threshold on.",
        ),
        click.option(
            "--delta",
            type=click.FloatRange(0, 1, min_open=True, max_open=True),
            default=0.1,
            show_default=True,
            help="With --abstain-at: the probability allowed that the guarantee fails.",
        ),
        click.option(
            "--label",
            "abstain_label",
            default=None,
            help="With --abstain-at: the label column of --abstain-data [default: the column "
            "MODEL was fitted on].",
        ),
        click.option(
            "--positive",
            "abstain_positive",
            default=None,
            help="With --abstain-at: the positive label [default: MODEL's, else the larger label].",
        ),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def abstention_threshold(
    calibrator: Any,
    metadata: Mapping[str, Any],
    *,
    target: float,
    delta: float,
    data: str | None,
    score: str,
    label: str | None,
    positive: str | None,
    sep: str | None,
) -> tuple[float, Any]:
    """Fit :class:`~venncal.AbstentionRule` on the calibrated probabilities of ``data``;
    return its threshold and the rule. Every failure is one line (exit code 2)."""
    from venncal.calibration.abstention import AbstentionRule
    from venncal.cli._fitting import read_calibration
    from venncal.cli._io import check_table_file
    from venncal.cli._stream import calibrated_columns

    if data is None:
        raise InputError(
            "--abstain-at needs --abstain-data: labelled rows, not used to fit MODEL, to fit "
            "the threshold on."
        )
    check_table_file(data, "--abstain-data")
    label = label or metadata.get("label")
    if not isinstance(label, str):
        raise InputError("MODEL does not name its label column; pass --label.")
    positive = positive if positive is not None else metadata.get("positive")
    s, y, _ = read_calibration(
        data, score, label, positive=positive, what="--abstain-data", sep=sep
    )
    with np.errstate(all="ignore"):
        p = calibrated_columns(calibrator, s)["p"]
    try:
        rule = AbstentionRule(target_error=target, delta=delta).fit(p, y)
    except ValueError as exc:
        raise InputError(f"--abstain-at {target:g}: {str(exc).splitlines()[0]}") from None
    return rule.threshold_, rule
