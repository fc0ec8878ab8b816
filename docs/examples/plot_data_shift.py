"""
When the data shift: a new class balance, and a monitor that notices
=====================================================================

A model is calibrated where both classes are equally common. In deployment only 15% of the
rows are positive. Left: from the unlabelled deployment rows alone, the EM of Saerens et al.
(2002) estimates the new class balance, and Bayes' rule moves the probabilities to it; the
reliability curve of the adapted probabilities lies on the diagonal, that of the original ones
far above it. Right: a :class:`~venncal.CalibrationMonitor` watches a stream of probabilities
and labels; the positive rate rises by 0.15 at row 1,500 and the test martingale crosses
``1 / alpha`` a few hundred rows later. While the probabilities are calibrated it reaches that
level with probability at most ``alpha``, however long the stream.
"""

import matplotlib.pyplot as plt
import numpy as np
from scipy.special import expit

from venncal import CalibrationMonitor, adjust_for_prior, estimate_target_prior
from venncal.plotting import ReliabilityDisplay

rng = np.random.default_rng(0)

# deployment rows: x | y ~ N(+-1, 1), 15% positives; the model's probabilities are calibrated
# for a balance of 50%
y = (rng.random(20_000) < 0.15).astype(int)
p = expit(2 * rng.normal(loc=np.where(y == 1, 1.0, -1.0)))
estimate = estimate_target_prior(p, source_prior=0.5, n_boot=100, random_state=0)
adapted = adjust_for_prior(p, 0.5, estimate)
low, high = estimate.interval
print(f"estimated positive rate {float(estimate):.3f} (95% interval {low:.3f} to {high:.3f})")

# a stream of 3,000 rows whose positive rate rises by 0.15 at row 1,500
q = rng.uniform(0.05, 0.75, 3_000)
labels = rng.random(3_000) < q + np.where(np.arange(3_000) >= 1_500, 0.15, 0.0)
monitor = CalibrationMonitor(alpha=0.05)
for start in range(0, 3_000, 250):  # labels arrive in batches
    monitor.update(q[start : start + 250], labels[start : start + 250])
print(f"alarm at row {monitor.alarm_index_}")

fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.5))
ReliabilityDisplay.from_predictions(y, p, n_bins=10, name="calibrated for 50%", ax=left)
ReliabilityDisplay.from_predictions(
    y, adapted, n_bins=10, name=f"adapted to {float(estimate):.2f}", ax=left
)
left.set_title("Label shift: 50% -> 15% positives")
right.plot(monitor.martingale_ / np.log(10), lw=1, label="log10 test martingale")
right.axhline(np.log10(1 / 0.05), color="C3", ls="--", label="alarm level 1/alpha")
right.axvline(1_500, color="0.5", lw=0.8, label="the change")
right.axvline(monitor.alarm_index_, color="C3", lw=0.8, label="the alarm")
right.set_xlabel("row")
right.set_title("Monitoring calibration")
right.legend(loc="upper left")
fig.tight_layout()
plt.show()
