"""The calibration monitor per segment from its definition, row by row.

Every (segment column, level) gets its own ``CalibrationMonitor``, fed one row at a time with
the rows of that level alone. The ``k``-th level to appear in a column (of ``C`` columns) has
weight ``w = (1 / C) * 6 / (pi^2 k^2)``, given when the level is first seen; the segment alarms
at the first row where its log-martingale reaches ``log(1 / (alpha w))``. A missing value is
the level ``"(missing)"``; a binned column's level is its left-closed bin.
"""

import math

from venncal.shift import CalibrationMonitor


def _level(value, edges):
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "(missing)"
    if edges is None:
        return str(value)
    i = sum(1 for e in edges if value >= e)
    return i  # the index of the bin (compared with the library's labels by position)


def naive_segment_monitor(p, y, segments, alpha=0.05, bins=None, **params):
    """{(column, level): (log_martingale, log_threshold, alarm_row, n_rows, rank)}."""
    bins = bins or {}
    columns = list(segments)
    C = len(columns)
    monitors, ranks, thresholds, alarms, counts = {}, {}, {}, {}, {}
    seen = {c: 0 for c in columns}
    for t in range(len(p)):
        for c in columns:
            level = _level(segments[c][t], bins.get(c))
            key = (c, level)
            if key not in monitors:
                seen[c] += 1
                k = seen[c]
                w = (1 / C) * 6 / (math.pi**2 * k**2)
                monitors[key] = CalibrationMonitor(alpha=alpha, **params)
                ranks[key], thresholds[key], alarms[key], counts[key] = (
                    k,
                    math.log(1 / (alpha * w)),
                    None,
                    0,
                )
            mon = monitors[key]
            mon.update([p[t]], [y[t]])
            counts[key] += 1
            if alarms[key] is None and mon.log_martingale_ >= thresholds[key]:
                alarms[key] = t
    return {
        key: (mon.log_martingale_, thresholds[key], alarms[key], counts[key], ranks[key])
        for key, mon in monitors.items()
    }
