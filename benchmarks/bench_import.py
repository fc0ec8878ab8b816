"""Cold start: a fresh interpreter that imports the score-level core and the metrics, fits and
predicts once and computes one metric.

Each scenario runs as ``python -c SCRIPT`` in a new process; the figure is the wall time of the
whole process (interpreter start included) and its CPU time, medians over interleaved rounds,
for the working tree ('after') and, with ``--before COMMIT``, for that commit's ``src`` exported
with ``git archive`` ('before'). numba's disk caches are warmed first in both trees, as on an
installed package after its first run. ``python -c "import numpy"`` is the floor.

Scenarios:

* ``core+metrics, l=1000``: import venncal.core.venn_abers, venncal.core.isotonic and
  venncal.metrics; ``ivap_fit`` + ``predict`` and ``fit_isotonic`` + ``predict`` on 1,000
  scores; ``metrics.log_loss`` and ``metrics.ece``;
* the same at l = 100,000 (the compiled kernels run: numba is imported and its cache loaded);
* ``from venncal import VennAbersCalibrator`` and one fit (the estimator layer: scikit-learn);
* ``venncal.load`` of a saved Venn-Abers, Platt and isotonic model and one ``predict_proba``
  of 1,000 scores (plus ``predict_interval`` for Venn-Abers), and of a multiclass Venn-Abers
  model of 5 classes with ``predict_proba`` and ``predict_interval`` of 1,000 score rows.

Also prints ``python -X importtime`` of the first scenario's imports and the heavy modules it
loads. Writes the "## Cold start" section of BENCHMARKS.md.

Run: python benchmarks/bench_import.py [--quick] [--before COMMIT]
"""

import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _timing
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
QUICK = "--quick" in sys.argv
ROUNDS = 5 if QUICK else 15
HEAVY = ("sklearn", "scipy", "scipy.stats", "scipy.special", "numba", "pandas", "matplotlib")

CORE = """
import sys, numpy as np
import venncal.core.venn_abers, venncal.core.isotonic, venncal.metrics
from venncal.core.venn_abers import ivap_fit
from venncal.core.isotonic import fit_isotonic
from venncal import metrics
rng = np.random.default_rng(0)
s = rng.random({n}); y = (rng.random({n}) < s).astype(int)
p0, p1 = ivap_fit(s, y).predict(s)
fit_isotonic(s, y).predict(s)
metrics.log_loss(y, (p0 + p1) / 2); metrics.ece(y, p1)
print(" ".join(m for m in {heavy!r} if m in sys.modules))
"""
CALIBRATOR = """
import sys
from venncal import VennAbersCalibrator
VennAbersCalibrator().fit([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1]).predict_proba([0.5])
print(" ".join(m for m in {heavy!r} if m in sys.modules))
"""
LOAD = """
import sys, numpy as np, venncal
model = venncal.load({path!r})
t = np.linspace(0, 1, 1000)
model.predict_proba(t){extra}
print(" ".join(m for m in {heavy!r} if m in sys.modules))
"""
LOAD_K = """
import sys, numpy as np, venncal
model = venncal.load({path!r})
t = np.random.default_rng(1).normal(size=(1000, {K}))
model.predict_proba(t); model.predict_interval(t)
print(" ".join(m for m in {heavy!r} if m in sys.modules))
"""
SCENARIOS = [
    ("import numpy (floor)", "import numpy"),
    ("core+metrics, l=1000", CORE.format(n=1000, heavy=HEAVY)),
    ("core+metrics, l=100000", CORE.format(n=100000, heavy=HEAVY)),
    ("VennAbersCalibrator", CALIBRATOR.format(heavy=HEAVY)),
]


def run(script, src, extra=()):
    env = dict(os.environ, PYTHONPATH=str(src))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    out = subprocess.run(
        [sys.executable, *extra, "-c", script], env=env, capture_output=True, text=True
    )
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode != 0:
        raise RuntimeError(out.stderr[-2000:])
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, out


def importtime(src):
    script = "import venncal.core.venn_abers, venncal.core.isotonic, venncal.metrics"
    _, _, out = run(script, src, ("-X", "importtime"))
    rows = {}
    for line in out.stderr.splitlines():
        parts = line.split("|")
        if len(parts) == 3 and parts[1].strip().isdigit():
            rows[parts[2].rstrip()] = int(parts[1])
    top = {name.strip(): us for name, us in rows.items() if not name.startswith("  ")}
    return top


def load_scenarios(folder):
    """``venncal.load`` of a saved model and one prediction, for a few calibrators."""
    import venncal

    rng = np.random.default_rng(0)
    s = rng.random(1000)
    y = (rng.random(1000) < s).astype(int)
    out = []
    for cal, extra in (
        (venncal.VennAbersCalibrator(), "; model.predict_interval(t)"),
        (venncal.PlattCalibrator(), ""),
        (venncal.IsotonicCalibrator(), ""),
    ):
        name = type(cal).__name__
        path = venncal.save(cal.fit(s, y), Path(folder) / f"{name}.json")
        script = LOAD.format(path=str(path), extra=extra, heavy=HEAVY)
        out.append((f"load + predict, {name}", script))
    K = 5
    yk = rng.integers(0, K, size=2000)
    S = rng.normal(size=(2000, K)) + 1.5 * np.eye(K)[yk]
    cal = venncal.MulticlassVennAbersCalibrator().fit(S, yk)
    path = venncal.save(cal, Path(folder) / "MulticlassVennAbersCalibrator.json")
    script = LOAD_K.format(path=str(path), K=K, heavy=HEAVY)
    out.append((f"load + predict, MulticlassVennAbersCalibrator (K={K})", script))
    return out


def main():
    trees = {"after": ROOT / "src"}
    tmp = None
    models = tempfile.TemporaryDirectory()
    SCENARIOS.extend(load_scenarios(models.name))
    if "--before" in sys.argv:
        commit = sys.argv[sys.argv.index("--before") + 1]
        tmp = tempfile.TemporaryDirectory()
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", commit, "src"], capture_output=True, check=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", tmp.name], input=archive, check=True)
        trees = {"before": Path(tmp.name) / "src", **trees}
    for src in trees.values():  # warm numba's caches and the bytecode caches
        for _, script in SCENARIOS:
            run(script, src)
    times = {(tree, name): ([], []) for tree in trees for name, _ in SCENARIOS}
    loaded = {}
    for _ in range(ROUNDS):
        for name, script in SCENARIOS:
            for tree, src in trees.items():
                wall, cpu, out = run(script, src)
                times[tree, name][0].append(wall)
                times[tree, name][1].append(cpu)
                loaded[tree, name] = out.stdout.strip()
    rows = []
    for name, _ in SCENARIOS:
        for tree in trees:
            wall, cpu = (float(np.median(v)) for v in times[tree, name])
            rows.append((name, tree, wall, cpu, loaded[tree, name]))
            print(f"{name:24s} {tree:6s} wall {wall:.3f} s cpu {cpu:.3f} s  [{loaded[tree, name]}]")
    tops = {tree: importtime(src) for tree, src in trees.items()}
    for tree, top in tops.items():
        print(tree, sorted(top.items(), key=lambda kv: -kv[1])[:6])
    write(rows, tops, trees)
    if tmp is not None:
        tmp.cleanup()
    models.cleanup()


NOTES = (
    "Goal: the score-level core and the metrics usable in under 0.3 s from a cold start. "
    "The CPU time of the process is the figure to read on a busy machine (its wall time "
    "waits for the other jobs; on an idle one the two are close). What changed: "
    "`venncal.metrics` loads `ranking` (scipy.stats, most of a second) on first use, "
    "`venncal.core.acp` imports scipy.stats inside the one function that needs it, and "
    "`venncal.core._jit` imports numba and compiles a kernel on its first compiled call "
    "instead of at import. Isotonic and Venn-Abers fits on fewer than 2,048 scores run their "
    "kernels as plain Python until the kernel has been compiled in the process (a few "
    "milliseconds; identical values, tested against the compiled kernels), so a first small "
    "fit imports neither numba nor scipy. Once a kernel's plain-Python work passes 65,536 "
    "elements (about what the import and the cache load cost), it is compiled, so many small "
    "fits (one per group or per fold) do not run slowly for the life of the process: a "
    "Venn-Abers fit and prediction of 1,000 scores takes 4 ms as plain Python and 0.5 ms "
    "compiled. Larger inputs pay numba's import and cache load "
    "once per process, as before. numba caches next to the source, else in its user-wide "
    "cache folder, else in `NUMBA_CACHE_DIR`; where none is writable, kernels compile in "
    "memory. venncal sets no numba option or environment variable itself: redirecting "
    "`NUMBA_CACHE_DIR` from inside the library would change the process's numba settings "
    "for every other package. `tests/core/test_cold_import.py` checks in a fresh interpreter "
    "that importing every module of `venncal.core` and `venncal.metrics` (but "
    "`metrics.ranking`) and a first small fit, prediction and metric load none of "
    "scikit-learn, scipy.stats, numba, pandas or matplotlib. `from venncal import "
    "VennAbersCalibrator` still imports scikit-learn: the calibrators are scikit-learn "
    "estimators (the estimator layer). `venncal.load` of a model file followed by "
    "`predict_proba` (and `predict_interval` for Venn-Abers) does not import scikit-learn for "
    "the calibrators whose prediction needs only the core, which is every built-in "
    "calibrator, binary or K-class, within groups too (`venncal.persistence._predictor`: "
    "the loaded object predicts from the fitted core objects and becomes the estimator on "
    "first use of anything else; `tests/persistence/test_light_load.py` checks it in fresh "
    "interpreters); the command line's `venncal apply` uses the same predictor."
)


def write(rows, tops, trees):
    before = "before" in trees
    lines = [
        f"`python benchmarks/bench_import.py{' --before COMMIT' if before else ''}` "
        f"({_timing.machine_note()}; load average {os.getloadavg()[1]:.1f}, the two cores shared "
        f"with other jobs; medians of {ROUNDS} interleaved rounds). Each row is a fresh "
        "`python -c` process: wall time from start to exit (interpreter start included) and its "
        "CPU time; numba's disk cache is warm. 'loaded' lists the heavy modules in "
        "`sys.modules` at the end.",
        "",
        "| scenario | tree | wall, s | CPU, s | loaded |",
        "|---|---|---|---|---|",
    ]
    for name, tree, wall, cpu, loaded in rows:
        lines.append(f"| {name} | {tree} | {wall:.3f} | {cpu:.3f} | {loaded or '-'} |")
    lines += [
        "",
        "`python -X importtime` of the three imports (one run, cumulative wall time of the "
        "top-level modules, inflated by the load like the wall times above):",
        "",
    ]
    for tree, top in tops.items():
        worst = sorted(top.items(), key=lambda kv: -kv[1])[:5]
        lines.append(f"- {tree}: " + ", ".join(f"{n} {us / 1e3:.0f} ms" for n, us in worst))
    lines += ["", NOTES]
    _timing.write_section("Cold start", "\n".join(lines))


if __name__ == "__main__":
    main()
