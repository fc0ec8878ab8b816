"""One atomic writer (venncal._files) for everything venncal writes, model files included.

A write that fails or is killed leaves the destination as it was, and the shared cleanup
(remove_leftovers) recognises the temporary file of every writer. venncal.save once had its own
writer, whose leftovers (``.venncal-tmp-<name>.<hex>``) the cleanup never recognised.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import venncal
from venncal._files import TMP_PREFIX, remove_leftovers

_WRITERS = {
    "save": "venncal.save(venncal.PlattCalibrator().fit(s, y), path, overwrite=True)",
    "write_csv": "write_csv(pd.DataFrame({'s': s}), path)",
    "write_text": "write_text(path, 'new')",
}


def _fitted():
    rng = np.random.default_rng(0)
    s = rng.normal(size=60)
    return venncal.PlattCalibrator().fit(s, (s + rng.normal(size=60) > 0).astype(int))


def test_a_failed_save_leaves_the_model_file_and_no_leftover(tmp_path, monkeypatch):
    path = tmp_path / "m.json"
    path.write_text("old")

    def fail(fd):
        raise OSError("disk full")

    monkeypatch.setattr(os, "fsync", fail)
    with pytest.raises(OSError, match="disk full"):
        venncal.save(_fitted(), path, overwrite=True)
    assert path.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.json"]


@pytest.mark.parametrize("writer", sorted(_WRITERS))
def test_a_killed_writer_leaves_the_target_and_a_leftover_the_cleanup_removes(tmp_path, writer):
    """A process killed before its file is moved into place (here: exiting from inside fsync)
    leaves the old destination and a temporary file that remove_leftovers recognises."""
    path = tmp_path / ("m.json" if writer == "save" else "t.csv")
    path.write_text("old")
    code = textwrap.dedent(
        f"""
        import os, sys
        import numpy as np, pandas as pd
        import venncal
        from venncal._files import write_csv, write_text
        path = sys.argv[1]
        s = np.linspace(-2, 2, 40); y = (s > 0).astype(int)
        os.fsync = lambda fd: os._exit(9)
        {_WRITERS[writer]}
        """
    )
    run = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True)
    assert run.returncode == 9, run.stderr
    assert path.read_text() == "old"
    left = [p.name for p in tmp_path.iterdir() if p.name != path.name]
    assert len(left) == 1 and left[0].startswith(TMP_PREFIX), left
    assert remove_leftovers(tmp_path) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name]
