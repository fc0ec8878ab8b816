"""Fit and apply calibrators on Spark DataFrames (scores of production models at scale).

:func:`fit` fits a calibrator on the columns of a Spark DataFrame (for example
``spark.read.parquet`` of a table of scores), and :func:`apply` adds the calibrated
probabilities to one, Arrow batch by Arrow batch. They mirror :mod:`venncal.dask`.

The count-based calibrators (Venn-Abers, isotonic, histogram and Bayesian binning) depend on
the calibration data only through the weight of negatives and positives at each distinct
score, so :func:`fit` computes those by one Spark ``groupBy`` and fits the small table on the
driver: the result is the in-memory fit, bit for bit. Platt scaling is fitted by Newton steps
whose gradient and Hessian are sums over the partitions. :func:`apply` broadcasts the fitted
calibrator and runs its own prediction code on each batch.

PySpark is an optional dependency (``pip install "venncal[spark]"``, and a Java runtime 17 or
later); it is imported when a function runs, so ``import venncal.spark`` works without it.
"""

from venncal.spark._apply import apply
from venncal.spark._fit import fit

__all__ = ["fit", "apply"]
