"""The score-level layers import without scikit-learn, scipy.stats or numba.

Each check runs in a fresh interpreter and looks at ``sys.modules`` after the imports and after
a first small fit, prediction and metric: the rank tests (``venncal.metrics.ranking``) are the
only part that loads scipy.stats, numba is imported by the first kernel call on a large input,
and scikit-learn only by the estimator layers.
"""

import subprocess
import sys
import textwrap

import pytest

_HEAVY = ("sklearn", "scipy.stats", "numba", "pandas", "matplotlib")

_SCRIPT = textwrap.dedent(
    """
    import importlib, pkgutil, sys
    import numpy as np
    import venncal.core, venncal.metrics
    for pkg in (venncal.core, venncal.metrics):
        for info in pkgutil.iter_modules(pkg.__path__):
            if info.name != "ranking":
                importlib.import_module(pkg.__name__ + "." + info.name)
    from venncal.core.venn_abers import ivap_fit
    from venncal.core.isotonic import fit_isotonic
    from venncal import metrics
    rng = np.random.default_rng(0)
    s = rng.random(500)
    y = (rng.random(500) < s).astype(int)
    p0, p1 = ivap_fit(s, y).predict(s)
    fit_isotonic(s, y).predict(s)
    metrics.log_loss(y, (p0 + p1) / 2)
    metrics.ece(y, p1)
    print(" ".join(m for m in {heavy!r} if m in sys.modules))
    """
)


def _loaded(script):
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout.split()


def test_core_and_metrics_use_neither_sklearn_nor_scipy_stats_nor_numba():
    assert _loaded(_SCRIPT.format(heavy=_HEAVY)) == []


def test_ranking_is_loaded_on_first_use():
    script = (
        "import sys\nfrom venncal import metrics\nassert 'scipy.stats' not in sys.modules\n"
        "r = metrics.ranking.average_ranks\nprint('scipy.stats' in sys.modules)"
    )
    assert _loaded(script) == ["True"]


@pytest.mark.parametrize("seed", range(8))
def test_python_and_compiled_kernels_give_identical_fits(seed, monkeypatch):
    # small inputs run the kernels as plain Python until they are compiled: same tables
    import numpy as np

    from venncal.core import _jit
    from venncal.core.isotonic import fit_isotonic
    from venncal.core.venn_abers import ivap_fit

    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 1500))
    s = np.round(rng.random(n), int(rng.integers(1, 4)))
    y = (rng.random(n) < s).astype(int)
    w = None if seed % 2 else rng.random(n) + 0.01
    t = rng.random(200)
    fits = []
    for small in (10**9, 0):  # Python kernels, then compiled ones
        monkeypatch.setattr(_jit, "SMALL_INPUT", small)
        monkeypatch.setattr(_jit.Kernel, "for_size", _for_size_forced(small))
        fits.append((ivap_fit(s, y, sample_weight=w).predict(t), fit_isotonic(s, y, w).predict(t)))
    (a0, a1), ia = fits[0]
    (b0, b1), ib = fits[1]
    np.testing.assert_array_equal(a0, b0)
    np.testing.assert_array_equal(a1, b1)
    np.testing.assert_array_equal(ia, ib)


def _for_size_forced(small):
    def for_size(self, n):
        return self.python if small else self.compiled

    return for_size


def test_many_small_fits_end_up_compiled_with_the_same_values():
    # each fit is small, so the first ones run as plain Python; once their work passes the
    # budget the kernels compile (numba is imported) and the values stay the same
    script = textwrap.dedent(
        """
        import sys
        import numpy as np
        from venncal.core import _jit
        from venncal.core.venn_abers import ivap_fit
        rng = np.random.default_rng(0)
        s = rng.random(1000)
        y = (rng.random(1000) < s).astype(int)
        first = ivap_fit(s, y).predict(s)
        before = "numba" in sys.modules
        for _ in range(_jit.PYTHON_BUDGET // 1000 + 2):
            last = ivap_fit(s, y).predict(s)
        same = all(np.array_equal(a, b) for a, b in zip(first, last))
        print(before, "numba" in sys.modules, same)
        """
    )
    assert _loaded(script) == ["False", str(_jit_available()), "True"]


def _jit_available():
    from venncal.core import _jit

    return _jit.HAVE_NUMBA
