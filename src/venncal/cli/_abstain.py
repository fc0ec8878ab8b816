"""``venncal apply --abstain-at``: fit an abstention rule on labelled rows, for an ``accept``
column."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import click
import numpy as np

from venncal.cli._io import InputError
from venncal.cli._options import Probability

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from click.decorators import FC


__all__ = ["Decision", "abstain_options", "abstention", "abstention_threshold"]


@dataclass(frozen=True)
class Decision:
    """What ``venncal apply`` needs to add the column ``accept``: the rule's threshold,
    whether it reads the lower end of Venn-Abers intervals, and a line for the summary."""

    threshold: float
    lower: bool
    summary: str

    def stream_options(self) -> dict[str, Any]:
        """The keywords of :func:`venncal.cli._stream.apply_stream`."""
        return {"accept_threshold": self.threshold, "accept_lower": self.lower}


def abstain_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """The options of abstention: ``--abstain-at``, ``--abstain-data``, ``--delta``,
    ``--label`` and ``--positive``."""
    options: list[Callable[[FC], FC]] = [
        click.option(
            "--abstain-at",
            "abstain_at",
            type=Probability(),
            default=None,
            help="Add a column 'accept': true where the calibrated probability is confident "
            "enough that the error among accepted rows is at most this (with probability "
            "1 - delta; fitted on --abstain-data).",
        ),
        click.option(
            "--abstain-rule",
            "abstain_rule",
            type=click.Path(dir_okay=False),
            default=None,
            help="Add the column 'accept' of a binary AbstentionRule saved by venncal.save, "
            "fitted on this MODEL's probabilities (instead of --abstain-at).",
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
            type=Probability(),
            default=None,
            help="With --abstain-at: the probability allowed that the guarantee fails "
            "[default: 0.1].",
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
    group: str | None = None,
) -> tuple[float, Any]:
    """Fit :class:`~venncal.AbstentionRule` on the calibrated probabilities of ``data``;
    return its threshold and the rule. Every failure is one line (exit code 2).

    ``group``: for a model fitted within groups (a
    :class:`~venncal.cli._groups.GroupColumns`), the column of ``data`` holding each row's
    group; its probabilities are those of each row's group, and the one threshold is fitted
    on them all."""
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
    if group is not None:
        from venncal.cli._groups import check_seen, read_groups

        g = read_groups(data, group, s.shape[0], sep, what="--abstain-data")
        check_seen(calibrator.calibrator, g, group, data, 0)
        with np.errstate(all="ignore"):
            p = calibrator.grouped_columns(s, g)["p"]
    else:
        with np.errstate(all="ignore"):
            p = calibrated_columns(calibrator, s)["p"]
    try:
        rule = AbstentionRule(target_error=target, delta=delta).fit(p, y)
    except ValueError as exc:
        raise InputError(f"--abstain-at {target:g}: {str(exc).splitlines()[0]}") from None
    return rule.threshold_, rule


def abstention(
    calibrator: Any,
    metadata: Mapping[str, Any],
    *,
    at: float | None,
    rule_path: str | None,
    data: str | None,
    delta: float | None,
    score: str,
    label: str | None,
    positive: str | None,
    sep: str | None,
    backend: str,
    group: str | None = None,
) -> Decision | None:
    """The :class:`Decision` that ``--abstain-at`` or ``--abstain-rule`` asks for (None when
    neither is given); every refusal is one line (exit code 2)."""
    if at is None and (data or label or positive or delta is not None):
        raise InputError("--abstain-data, --delta, --label and --positive go with --abstain-at.")
    delta = 0.1 if delta is None else delta
    if at is None and rule_path is None:
        return None
    if at is not None and rule_path is not None:
        raise InputError("give --abstain-at or --abstain-rule, not both.")
    if backend != "local":
        option = "--abstain-at" if at is not None else "--abstain-rule"
        raise InputError(f"{option} runs with --backend local only.")
    if at is not None:
        threshold, _ = abstention_threshold(
            calibrator, metadata, target=at, delta=delta, data=data, score=score,
            label=label, positive=positive, sep=sep, group=group,
        )  # fmt: skip
        return Decision(
            threshold,
            False,
            f"accept: the probability of the predicted class at least {threshold:.6g} (error "
            f"among accepted rows at most {at:g} with probability {1 - delta:g}).",
        )
    assert rule_path is not None
    return _saved_rule(rule_path, calibrator)


def _saved_rule(path: str, calibrator: Any) -> Decision:
    """The decision of a binary rule saved in ``path``, for this calibrator's columns."""
    from venncal.cli._stream import new_column_names
    from venncal.persistence import ModelFileError, read_model_file

    try:
        rule = read_model_file(path).calibrator
    except ModelFileError as exc:
        raise InputError(f"--abstain-rule: {exc}") from None
    except OSError as exc:
        raise InputError(f"cannot read --abstain-rule {path!r}: {exc.strerror or exc}.") from None
    kind = type(rule).__name__
    if kind != "AbstentionRule":
        raise InputError(f"--abstain-rule {path!r} holds a {kind}, not an AbstentionRule.")
    if rule.n_features_in_ != 1 or rule.groups_ is not None:
        raise InputError(
            f"--abstain-rule {path!r} must be a binary rule fitted without groups (the "
            "command line adds the decision of one probability column)."
        )
    lower = rule.confidence == "lower"
    if lower and "p0" not in new_column_names(calibrator):
        raise InputError(
            f"--abstain-rule {path!r} reads Venn-Abers intervals (confidence='lower'); MODEL "
            "gives no interval."
        )
    what = "lower end of the interval" if lower else "probability"
    return Decision(
        rule.threshold_,
        lower,
        f"accept: the {what} of the predicted class at least {rule.threshold_:.6g} "
        f"(the rule in {path}: error among accepted rows at most {rule.target_error:g} with "
        f"probability {1 - rule.delta:g}).",
    )
