"""
From notebook to production: fit, save, apply at scale
======================================================

Fit a calibrator once, keep it as a model file (versioned JSON, checksummed, no pickle), load
it anywhere, and apply it to data of any size. With Dask, the count-based calibrators fit
*exactly* from one distributed aggregation: the model fitted on a Dask DataFrame is the model
fitted in memory, bit for bit.
"""

import tempfile
from pathlib import Path

import dask.dataframe as dd
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import venncal
import venncal.dask

rng = np.random.default_rng(0)
n = 200_000
score = np.round(rng.normal(size=n), 3)  # a classifier's scores, many ties
label = (rng.random(n) < 1 / (1 + np.exp(-(2 * score + 0.5 * score**3)))).astype(int)
frame = pd.DataFrame({"score": score, "label": label})

# %%
# Fit in memory, and on a Dask DataFrame of 8 partitions: the same model.

in_memory = venncal.VennAbersCalibrator().fit(frame["score"], frame["label"])
ddf = dd.from_pandas(frame, npartitions=8)
distributed = venncal.dask.fit(venncal.VennAbersCalibrator(), ddf, score="score", label="label")

test = np.linspace(-3, 3, 1001)
same = np.array_equal(in_memory.predict_interval(test), distributed.predict_interval(test))
print("Dask fit equals the in-memory fit, bit for bit:", same)

# %%
# Save the model file, load it back: the loaded calibrator predicts the same numbers.

folder = Path(tempfile.mkdtemp())
path = folder / "model.json"
venncal.save(distributed, path)
loaded = venncal.load(path)
print(f"model file: {path.stat().st_size / 1024:.1f} KiB")
print(
    "loaded predicts identically:",
    np.array_equal(loaded.predict_interval(test), distributed.predict_interval(test)),
)

# %%
# Apply it lazily, partition by partition, to new data (``to_parquet`` would write it out).

new = dd.from_pandas(pd.DataFrame({"score": rng.normal(size=50_000)}), npartitions=4)
calibrated = venncal.dask.apply(loaded, new, score="score").compute()
print(calibrated.head())

fig, ax = plt.subplots(figsize=(6.5, 4.5))
p0, p1 = loaded.predict_interval(test).T
ax.fill_between(test, p0, p1, alpha=0.4, label="[p0, p1]")
ax.plot(test, loaded.predict_proba(test)[:, 1], lw=1, label="p (log merge)")
ax.set_xlabel("score")
ax.set_ylabel("probability of the positive class")
ax.set_title("The saved and loaded Venn-Abers calibrator")
ax.legend()
fig.tight_layout()
