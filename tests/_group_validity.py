"""Validity within groups in simulation: the observed frequency of the label in each group
against the mean Venn interval there, over many calibration and test sets."""

import numpy as np


def add_group_rows(stats, intervals, y, groups):
    """Append to ``stats[method][name]`` one ``(y, p0, p1)`` row per test object of group
    ``name`` (``"all"``: every test object), from ``intervals[method]``, for every method."""
    for method, iv in intervals.items():
        for name, runs in stats[method].items():
            rows = np.ones(y.shape[0], dtype=bool) if name == "all" else groups == name
            if rows.any():
                runs.append(np.column_stack([y[rows], iv[rows]]))


def group_summary(runs):
    """The frequency of the label over the rows of ``runs``, the mean p0 and p1, and the
    standard error of the frequency."""
    y, p0, p1 = np.vstack(runs).T
    return y.mean(), p0.mean(), p1.mean(), np.sqrt(y.mean() * (1 - y.mean()) / y.size)


def assert_valid(runs, what):
    """The frequency lies in the mean interval, give or take three standard errors."""
    f, lo, hi, se = group_summary(runs)
    assert lo - 3 * se <= f <= hi + 3 * se, (what, f, lo, hi, se)
