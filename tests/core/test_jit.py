"""The numba wrapper: kernels compile, and import works where numba cannot cache."""

import os
import shutil
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import venncal
from venncal.core import _jit

_SCRIPT = textwrap.dedent(
    """
    import numpy as np
    import venncal
    assert venncal.__file__.startswith({root!r}), venncal.__file__
    from venncal.core.isotonic import _pava
    from venncal.core.bayesian_binning import fit_bayesian_binning
    import venncal.core._ivap_kernels
    mean, weight, end = _pava(np.array([1.0, 0.0, 1.0]), np.ones(3))
    assert list(mean) == [0.5, 1.0], mean
    fit = fit_bayesian_binning(np.arange(6.0), [0, 0, 1, 0, 1, 1], method="selection")
    assert np.all((fit.values > 0) & (fit.values < 1))
    print("ok")
    """
)

# A cache locator that never finds a place to write: what numba meets on a read-only
# installation with an unwritable HOME and no NUMBA_CACHE_DIR (as root, file permissions
# alone cannot produce it).
_NO_LOCATOR = textwrap.dedent(
    """
    class NoLocator:
        @classmethod
        def from_function(cls, py_func, py_file):
            return None
    """
)


def _make_read_only(root):
    for path in [root, *root.rglob("*")]:
        mode = path.stat().st_mode
        path.chmod(mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))


def _make_writable(root):
    for path in [root, *root.rglob("*")]:
        path.chmod(path.stat().st_mode | stat.S_IWUSR)


@pytest.mark.skipif(not _jit.HAVE_NUMBA, reason="numba not installed")
def test_import_and_run_from_a_read_only_install_without_a_cache(tmp_path):
    site = tmp_path / "site"
    shutil.copytree(
        Path(venncal.__file__).parent,
        site / "venncal",
        ignore=shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc"),
    )
    (site / "_venncal_test_locator.py").write_text(_NO_LOCATOR)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_", "PYTHON"))}
    env.update(
        HOME=str(tmp_path / "no-home"),
        PYTHONPATH=str(site),
        PYTHONDONTWRITEBYTECODE="1",
        NUMBA_CACHE_LOCATOR_CLASSES="_venncal_test_locator.NoLocator",
    )
    _make_read_only(site)
    try:
        out = subprocess.run(
            [sys.executable, "-c", _SCRIPT.format(root=str(site))],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
    finally:
        _make_writable(site)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "ok"


@pytest.mark.skipif(not _jit.HAVE_NUMBA, reason="numba not installed")
def test_options_reach_numba_and_cache_cannot_be_chosen():
    def add(a, b):
        return a + b

    kernel = _jit.jit(add, fastmath=True)
    assert kernel(2.0, 3.0) == 5.0 and kernel.py_func is add
    assert kernel.targetoptions.get("fastmath") and kernel.targetoptions.get("nogil")
    assert _jit.jit(nogil=False)(add).py_func is add
    with pytest.raises(TypeError, match="cache"):
        _jit.jit(add, cache=False)


def test_compiled_and_python_kernels_agree():
    from venncal.core.isotonic import _pava

    rng = np.random.default_rng(0)
    y, w = rng.random(50), rng.random(50) + 0.1
    original = getattr(_pava, "py_func", _pava)
    for a, b in zip(_pava(y, w), original(y, w)):
        np.testing.assert_array_equal(a, b)


@_jit.jit
def _scaled(x, k):
    return x * (k + 1) if k >= 0 else -x


@_jit.jit
def _sum_of_scaled(x):
    return _scaled(x, 0) + _scaled(x, 1) + _scaled(x, -1) + _scaled(x, 2)


@pytest.mark.skipif(not _jit.HAVE_NUMBA, reason="numba not installed")
def test_a_kernel_called_with_constants_compiles_once_per_argument_type():
    """Constants a caller passes do not each compile a version of the callee (numba would type
    them as literals: four versions of ``_scaled`` here)."""
    assert _sum_of_scaled(2.0) == _sum_of_scaled.py_func(2.0) == 2.0 + 4.0 - 2.0 + 6.0
    assert len(_scaled.signatures) == 1
    assert "Literal" not in str(_scaled.signatures[0])
