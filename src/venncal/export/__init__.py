"""Run a fitted score calibrator where the scores live: as one SQL query or an ONNX graph.

:func:`to_sql` writes one query that selects every column of a table plus the calibrated
probability ``p`` (and ``p0``, ``p1`` for Venn-Abers); :func:`to_onnx` builds an ONNX model
with input ``score`` and outputs ``p`` (and ``p0``, ``p1``). K-class calibrators (temperature
scaling of a score matrix, matrix scaling, Dirichlet calibration) read K score columns and
give K probabilities (``p_0, ...`` in SQL; input ``scores`` (N, K), output ``p`` (N, K) in
ONNX); one-vs-rest multiclass Venn-Abers adds each class's interval (``p0_k``, ``p1_k``;
``p0``, ``p1``). Both compute what the
calibrator's ``predict_proba`` computes, from the same fitted tables and coefficients: step
maps bit for bit, parametric maps within about 1e-15. See the user guide page "Running
calibrators in SQL, ONNX and Spark" for what each engine needs.

With ``abstain=rule`` (a fitted binary :class:`~venncal.AbstentionRule` for the calibrator's
probabilities) both add the rule's decision, a column or output ``accept``.

The exports need neither scikit-learn nor onnx to import; :func:`to_onnx` imports ``onnx``
when called (``pip install "venncal[export]"``).

Examples
--------
>>> from venncal.calibration import VennAbersCalibrator
>>> from venncal.export import to_sql
>>> cal = VennAbersCalibrator().fit([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1])
>>> query = to_sql(cal, table="scores", score_column="s")
>>> query.splitlines()[-1][:38]
'SELECT t.*, p, p0, p1 FROM scores AS t'
"""

from venncal.export._onnx import to_onnx
from venncal.export._plan import EXPORTABLE
from venncal.export._sql import DIALECTS, to_sql
from venncal.export._sqlite_math import register_sqlite_math

__all__ = ["to_sql", "to_onnx", "register_sqlite_math", "DIALECTS", "EXPORTABLE"]
