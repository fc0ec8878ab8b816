"""SIGTERM during a long command removes the partial output, as an interrupt does."""

import os
import signal
import subprocess
import sys
import time

import numpy as np
import pandas as pd
import pytest

from venncal._files import TMP_PREFIX


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_sigterm_leaves_no_partial_output(tmp_path):
    rng = np.random.default_rng(0)
    s = rng.random(400)
    pd.DataFrame({"score": s, "y": (rng.random(400) < s).astype(int)}).to_csv(
        tmp_path / "cal.csv", index=False
    )
    big = pd.DataFrame({"score": rng.random(1_500_000)})
    big.to_csv(tmp_path / "big.csv", index=False)
    fit = [sys.executable, "-m", "venncal", "fit", "cal.csv", "--score", "score", "--label",
           "y", "-o", "m.json"]  # fmt: skip
    subprocess.run(fit, cwd=tmp_path, check=True, capture_output=True)
    proc = subprocess.Popen(
        [sys.executable, "-m", "venncal", "apply", "m.json", "big.csv", "-o", "out.csv"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while not any(p.startswith(TMP_PREFIX) for p in os.listdir(tmp_path)):
        if proc.poll() is not None or time.monotonic() > deadline:
            pytest.skip("the command finished before it could be interrupted")
        time.sleep(0.005)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    if proc.returncode == 0:
        pytest.skip("the command finished before the signal arrived")
    assert proc.returncode == 128 + signal.SIGTERM, err
    assert err.strip().splitlines()[-1].startswith("Error: terminated"), err
    assert not (tmp_path / "out.csv").exists()
    assert [p for p in os.listdir(tmp_path) if p.startswith(TMP_PREFIX)] == []
