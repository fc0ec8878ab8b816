"""Fit and apply calibrators on Dask DataFrames (data larger than memory, or on a cluster).

:func:`fit` fits a calibrator on the columns of a Dask DataFrame (for example
``dask.dataframe.read_parquet`` of a folder), and :func:`apply` adds the calibrated
probabilities to one, partition by partition. Both run on whatever Dask scheduler is active
(a ``distributed.Client``, or Dask's local threads).

The count-based calibrators (Venn-Abers, isotonic, histogram and Bayesian binning) depend on
the calibration data only through the weight of negatives and positives at each distinct
score, so :func:`fit` computes those by one distributed ``groupby`` and fits the small table
locally: the result is the in-memory fit, exactly. Platt scaling is fitted by Newton steps
whose gradient and Hessian are sums over the partitions.

Dask is an optional dependency (``pip install "venncal[dask]"``); it is imported when a
function runs, so ``import venncal.dask`` works without it.
"""

from venncal.dask._fit import apply, fit

__all__ = ["fit", "apply"]
