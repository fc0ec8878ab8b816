"""Helpers shared by the benchmark scripts (not part of the package): timing, pages, rivals."""

from __future__ import annotations

import importlib.util
import platform
import sys
import time
from datetime import date
from functools import partial

import numpy as np


def median_time(func, *, repeat=5, min_time=0.0, clock=time.perf_counter):
    """Median time of ``func()`` over ``repeat`` runs (seconds).

    Each run calls ``func`` as many times as needed to last ``min_time`` and reports the mean
    per call, so very fast calls are not dominated by the clock's resolution. ``clock`` is wall
    time by default; ``time.process_time`` gives this process's CPU time.
    """
    times = []
    for _ in range(repeat):
        calls = 0
        start = clock()
        while True:
            func()
            calls += 1
            elapsed = clock() - start
            if elapsed >= min_time:
                break
        times.append(elapsed / calls)
    return float(np.median(times))


def interleaved_times(funcs, rounds, *, clock=time.perf_counter):
    """Times of each of ``funcs`` (name -> callable without arguments) over ``rounds``
    interleaved rounds, one call of each per round in order, so that a change in the load of
    the machine hits them alike: name -> list of seconds by ``clock``."""
    times = {name: [] for name in funcs}
    for _ in range(rounds):
        for name, func in funcs.items():
            start = clock()
            func()
            times[name].append(clock() - start)
    return times


def machine_note():
    """One line describing the machine and the date."""
    import os

    return (
        f"{date.today().isoformat()}, {platform.processor() or platform.machine()}, "
        f"{os.cpu_count()} cores, Python {platform.python_version()}, numpy {np.__version__}"
    )


def write_section(title, body):
    """Record a benchmark: its page ``docs/benchmarks/<slug>.md`` gets ``body``, and its row in
    the summary of BENCHMARKS.md the new date (see ``_pages.py``)."""
    import _pages

    return _pages.record(title, body)


def command_line(script, argv):
    """The command that ran ``benchmarks/<script>`` with ``argv`` (the process's when None)."""
    return f"python benchmarks/{script} " + " ".join(sys.argv[1:] if argv is None else argv)


def save_cells(results, path):
    """Write the cells of a run to the CSV file ``path`` (nothing when None)."""
    if path:
        results.to_csv(path, index=False)


def report(title, body, *, write):
    """Print a section's ``body`` and, with ``write``, record it as the page of ``title``."""
    print(body)
    if write:
        write_section(title, body)


def probmetrics_calibrators(names):
    """Factories of probmetrics' calibrators, ``ours -> get_calibrator(theirs)`` for each item
    of ``names`` (our name -> probmetrics' name); none when the package is not installed."""
    try:
        from probmetrics import calibrators as pm
    except ImportError:
        return {}
    return {ours: partial(pm.get_calibrator, theirs) for ours, theirs in names.items()}


def load_module(name, path):
    """Import the Python file ``path`` as a module called ``name`` (e.g. an older version of a
    module, to time against)."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # so that numba's cached kernels can find their module
    spec.loader.exec_module(module)
    return module
