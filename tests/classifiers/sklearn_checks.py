"""scikit-learn's estimator checks for the wrapper classifiers: every configuration, and the
checks each is declared to fail, with the reason and what the failure looks like.

``CONFIGURATIONS`` holds one estimator per public configuration of the wrappers (each method,
taxonomy, strategy), ``SLOW_CONFIGURATIONS`` those that refit the estimator for every test
object. ``declared_failures(estimator)`` gives the checks a configuration is declared to fail
with their reason; tests/classifiers/test_sklearn_checks_classifiers.py runs every check in
strict xfail mode (a declared check that passes fails the run), and
tests/classifiers/test_declared_check_failures.py runs each declared check and matches its
failure against ``declared_signs(estimator)`` (type and message of the error, the failing line
of the check), and, where the cause can be taken away, shows that the check then passes.

Where a check cannot pass, what it would have tested is tested in venncal's own tests:
weight k equals k copies with a frozen estimator, which calibrates on every row
(tests/reliability/test_weight_copies.py), and batch invariance of the calibration itself
(tests/classifiers/test_multiclass.py).
"""

import numpy as np
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import GaussianNB

from venncal import MulticlassVennAbersClassifier, VennAbersClassifier, VennClassifier


class LabelAndConfidence:
    """A callable taxonomy: the predicted label, split at a confidence of 3/4.

    A class with a fixed ``repr`` rather than a function, whose ``repr`` holds its address:
    the test names come from the estimator's ``repr`` and must be the same in every process
    (pytest-xdist's workers collect the tests separately).
    """

    def __call__(self, scores):
        s = np.asarray(scores)
        P = np.column_stack([1.0 - s, s]) if s.ndim == 1 else s
        return 2 * np.argmax(P, axis=1) + (P.max(axis=1) > 0.75)

    def __repr__(self):
        return "label_and_confidence"


label_and_confidence = LabelAndConfidence()


#: the checks that pass weights in some form: failed by a method that refuses weights
_REFUSED_WEIGHT_CHECKS = (
    "check_sample_weights_pandas_series",
    "check_sample_weights_not_an_array",
    "check_sample_weights_list",
    "check_sample_weights_shape",
    "check_sample_weights_not_overwritten",
)


def _forest():
    return RandomForestClassifier(n_estimators=10, random_state=0)


CONFIGURATIONS = [
    VennAbersClassifier(LogisticRegression()),
    VennAbersClassifier(LogisticRegression(), method="cross", n_splits=3),
    VennAbersClassifier(LogisticRegression(), method="simplified", merge="square"),
    # full: GaussianNB has an exact fast path, so the checks need no refit per test object
    VennAbersClassifier(GaussianNB(), method="full"),
    VennAbersClassifier(_forest(), method="oob", random_state=0),
    VennClassifier(LogisticRegression(), random_state=0),
    VennClassifier(LogisticRegression(), taxonomy="bins", random_state=0),
    # binary-only: its tags say so, and a multiclass y gets scikit-learn's expected error
    VennClassifier(LogisticRegression(), taxonomy="isotonic", random_state=0),
    VennClassifier(GaussianNB(), taxonomy=label_and_confidence, random_state=0),
    VennClassifier(_forest(), method="oob", random_state=0),
    VennClassifier(_forest(), method="oob", taxonomy="isotonic", random_state=0),
    MulticlassVennAbersClassifier(LogisticRegression(), random_state=0),
    MulticlassVennAbersClassifier(GaussianNB(), strategy="ovr", random_state=0),
    MulticlassVennAbersClassifier(GaussianNB(), strategy="ovr", pooled=False, random_state=0),
    MulticlassVennAbersClassifier(GaussianNB(), method="cross", n_splits=3, random_state=0),
    MulticlassVennAbersClassifier(_forest(), method="oob", random_state=0),
]
#: the transductive Venn predictor refits the estimator for every test object and label
SLOW_CONFIGURATIONS = [
    VennClassifier(GaussianNB(), method="full", taxonomy="bins", n_bins=3),
]

# ------------------------------------------------------------------------------- reasons

_ULP = (
    "the wrapped LogisticRegression's decision_function differs by one ulp between a batch and "
    "a single row (BLAS gemv against dot); the check predicts on training points, whose scores "
    "tie with calibration scores, where the Venn-Abers step function jumps by design"
)
_SPLIT = (
    "repeated rows change the random {} ({} draws rows, not weight), so the weighted and the "
    "repeated fits calibrate on different examples; weight k is k copies with a frozen "
    "estimator, which calibrates on every row"
)
_REFIT = (
    "LogisticRegression's weighted fit equals its fit on the repeated rows only to its "
    "solver's tolerance, and the Venn-Abers step function, which reads the order and the ties "
    "of the scores, changes with them; with the estimator frozen the check passes"
)
_BOOTSTRAP = (
    "repeated rows change the ensemble's bootstrap samples, hence the out-of-bag scores the "
    "calibration reads"
)
_ZERO_CLASS = (
    "the check's weights are zero on two of the three examples of class 0, and {} leaves the "
    "one of positive weight out of a calibration set, which then has no weight in class 0: "
    "each class's Venn-Abers predictor needs examples of it, so this is refused in one line"
)
_FULL_WEIGHTS = (
    "method='full' refuses sample_weight: the test object joins the training set with weight "
    "one, so weights would break the exchangeability that makes the predictor valid"
)
_EQ5 = (
    "predict is the label of largest lower probability (Johansson et al. 2018, eq. 5), while "
    "predict_proba normalises the upper probabilities; they can rank two labels differently"
)

_WEIGHT_CHECKS = (
    "check_sample_weight_equivalence_on_dense_data",
    "check_sample_weight_equivalence_on_sparse_data",
)
_NOT_EQUIVALENT = (
    r"AssertionError: .*Comparing the output of {}\.predict_proba revealed that fitting with "
    r"`sample_weight` is not equivalent to fitting with removed or repeated data points"
)
_ZERO_CLASS_SIGN = (
    r"ValueError: 'sample_weight' of MulticlassVennAbersClassifier is zero on every example "
    r"of class index 0; give it positive weight\."
)
_FULL_WEIGHTS_SIGN = r"ValueError: method='full' of VennClassifier does not take sample_weight"


def _accepts_sparse(estimator):
    return not isinstance(estimator.estimator, GaussianNB)


def _weight_checks(estimator):
    return _WEIGHT_CHECKS if _accepts_sparse(estimator) else _WEIGHT_CHECKS[:1]


def _declarations(estimator):
    """``{check: (reason, sign)}`` of one configuration."""
    name = type(estimator).__name__
    method = estimator.method
    if isinstance(estimator, VennAbersClassifier):
        out = {}
        if method == "full":
            sign = _FULL_WEIGHTS_SIGN.replace("VennClassifier", name)
            return {
                check: (_FULL_WEIGHTS, sign)
                for check in (*_REFUSED_WEIGHT_CHECKS, *_weight_checks(estimator))
            }
        if method in ("cross", "simplified"):
            # the inductive method calibrates on a held-out fifth of the training points, and
            # the check's points that land there happen to have batch-invariant scores
            sign = (
                r"AssertionError: .*\w+ of VennAbersClassifier is not invariant when applied to "
                r"a subset"
            )
            out["check_methods_subset_invariance"] = (_ULP, sign)
        reason = {
            "inductive": _SPLIT.format("calibration split", "it"),
            "cross": _SPLIT.format("cross-validation folds", "they"),
            "oob": _BOOTSTRAP,
            "simplified": _REFIT,
        }[method]
        # on the dense data of the check the simplified method's two fits happen to agree
        checks = _WEIGHT_CHECKS[1:] if method == "simplified" else _weight_checks(estimator)
        out.update({check: (reason, _NOT_EQUIVALENT.format(name)) for check in checks})
        return out
    if isinstance(estimator, VennClassifier):
        if method == "full":
            out = {
                check: (_FULL_WEIGHTS, _FULL_WEIGHTS_SIGN)
                for check in (
                    *_REFUSED_WEIGHT_CHECKS,
                    "check_classifiers_one_label_sample_weights",
                    *_weight_checks(estimator),
                )
            }
            # the check expects a ValueError naming the one class left, and gets this one
            out["check_classifiers_one_label_sample_weights"] = (
                _FULL_WEIGHTS,
                r"should have 'class'.*" + _FULL_WEIGHTS_SIGN[len("ValueError: ") :],
            )
            out["check_classifiers_train"] = (
                _EQ5,
                r"AssertionError: .*\| +assert_array_equal\(np\.argmax\(y_prob, axis=1\), y_pred\)",
            )
            return out
        reason = _BOOTSTRAP if method == "oob" else _SPLIT.format("calibration split", "it")
        return {
            check: (reason, _NOT_EQUIVALENT.format(name)) for check in _weight_checks(estimator)
        }
    # MulticlassVennAbersClassifier
    where = {
        "inductive": "the random calibration split",
        "cross": "a random cross-validation fold",
        "oob": "the out-of-bag draw of z_r (left out for a test object)",
    }[method]
    return {
        check: (_ZERO_CLASS.format(where), _ZERO_CLASS_SIGN) for check in _weight_checks(estimator)
    }


def declared_failures(estimator):
    """The checks ``estimator`` (one of the configurations) is declared to fail: ``{check:
    reason}``."""
    return {check: reason for check, (reason, _) in _declarations(estimator).items()}


def declared_signs(estimator):
    """The failure signature (a regular expression) of each declared check of ``estimator``."""
    return {check: sign for check, (_, sign) in _declarations(estimator).items()}
