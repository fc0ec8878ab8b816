"""Multiclass calibration: venncal's Venn-Abers against scikit-learn and venn-abers 1.5.4.

Run: ``python benchmarks/bench_multiclass.py [--quality] [--speed] [--seeds 5] [--write]``.

Quality: a model is fitted on one part of the data, then frozen and calibrated on a second
part; log loss, Brier score (sum over classes) and top-label ECE (15 equal-width bins) are
measured on the third, held-out part, averaged over ``--seeds`` random splits. Problems:

* ``digits``: scikit-learn's 8x8 digits (1,797 images, 10 classes), logistic regression on
  standardised pixels; splits 50% / 25% / 25%.
* ``generated``: ``make_classification`` with 10 classes (20 features, 10 informative, two
  clusters per class, 20,000 rows); logistic regression fitted on 1,000 rows, calibrated on
  2,000, tested on 17,000. The same problem with a random forest (5,000 training rows).

Speed: fit plus prediction of 2,000 test rows from K = 100 and K = 1000 score columns on
5 * 10^4 calibration rows (logits drawn at random, labels drawn from their softmax). All
contenders run in this process on the same arrays, in interleaved rounds; medians.
``--write`` records both tables in BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from _timing import interleaved_times, machine_note, write_section
from sklearn.calibration import CalibratedClassifierCV
from sklearn.datasets import load_digits, make_classification
from sklearn.ensemble import RandomForestClassifier
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from venncal.calibration import MulticlassVennAbersCalibrator, VennAbersCalibrator
from venncal.metrics import multiclass_brier_score, multiclass_log_loss, top_label_ece

VENNCAL = {
    "venncal default (pooled pairwise, wu2, mean merge)": {},
    "venncal pooled pairwise, log merge": {"merge": "log"},
    "venncal pooled one-vs-rest": {"strategy": "ovr"},
    "venncal one-vs-rest per class": {"strategy": "ovr", "pooled": False},
    "venncal pairwise per pair, wu2": {"strategy": "pairwise", "pooled": False},
    "venncal pairwise per pair, price": {
        "strategy": "pairwise",
        "pooled": False,
        "coupling": "price",
    },
}


def problem(name, seed):
    """(fitted model, X_cal, y_cal, X_test, y_test)."""
    if name == "digits / logistic regression":
        X, y = load_digits(return_X_y=True)
        Xtr, Xr, ytr, yr = train_test_split(X, y, train_size=0.5, random_state=seed, stratify=y)
        Xc, Xte, yc, yte = train_test_split(Xr, yr, train_size=0.5, random_state=seed, stratify=yr)
        model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=5000))
    else:
        X, y = make_classification(
            n_samples=20000,
            n_features=20,
            n_informative=10,
            n_redundant=2,
            n_classes=10,
            n_clusters_per_class=2,
            random_state=seed,
        )
        forest = "forest" in name
        Xtr, Xr, ytr, yr = train_test_split(
            X, y, train_size=5000 if forest else 1000, random_state=seed, stratify=y
        )
        Xc, Xte, yc, yte = train_test_split(Xr, yr, train_size=2000, random_state=seed, stratify=yr)
        model = (
            RandomForestClassifier(n_estimators=200, min_samples_leaf=2, random_state=seed)
            if forest
            else LogisticRegression(max_iter=5000)
        )
    return model.fit(Xtr, ytr), Xc, yc, Xte, yte


def _scores(model, X):
    if hasattr(model, "decision_function"):
        return model.decision_function(X)
    return model.predict_proba(X)


def contenders(model, Xc, yc, Xte):
    """name -> function returning (n_test, K) probabilities (fit and predict inside)."""
    out = {"raw model": lambda: model.predict_proba(Xte)}
    Sc, St = _scores(model, Xc), _scores(model, Xte)
    for name, kw in VENNCAL.items():
        out[name] = lambda kw=kw: MulticlassVennAbersCalibrator(**kw).fit(Sc, yc).predict_proba(St)
    for method in ("temperature", "sigmoid", "isotonic"):
        out[f"scikit-learn {method}"] = lambda m=method: (
            CalibratedClassifierCV(FrozenEstimator(model), method=m).fit(Xc, yc).predict_proba(Xte)
        )
    try:
        from venn_abers.venn_abers import predict_proba_prefitted_va
    except ImportError:  # the bench extra is not installed
        return out
    Pc, Pt = model.predict_proba(Xc), model.predict_proba(Xte)
    out["venn-abers one-vs-one"] = lambda: predict_proba_prefitted_va(Pc, yc, Pt)[0]
    out["venn-abers one-vs-rest"] = lambda: predict_proba_prefitted_va(
        Pc, yc, Pt, va_tpe="one_vs_rest"
    )[0]
    return out


PROBLEMS = (
    "digits / logistic regression",
    "generated / logistic regression",
    "generated / random forest",
)


def run_quality(seeds):
    rows = {}
    for pname in PROBLEMS:
        for seed in range(seeds):
            model, Xc, yc, Xte, yte = problem(pname, seed)
            labels = np.arange(10)
            for cname, fn in contenders(model, Xc, yc, Xte).items():
                start = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    P = np.asarray(fn(), dtype=np.float64)
                elapsed = time.perf_counter() - start
                P = P / P.sum(axis=1, keepdims=True)
                rows.setdefault((pname, cname), []).append(
                    (
                        multiclass_log_loss(yte, P, labels=labels),
                        multiclass_brier_score(yte, P, labels=labels),
                        top_label_ece(yte, P, n_bins=15, labels=labels),
                        float((P.argmax(axis=1) == yte).mean()),
                        elapsed,
                    )
                )
            print(f"{pname}, seed {seed} done", flush=True)
    lines = [
        "| problem | method | log loss | Brier | top-label ECE | accuracy | time (s) |",
        "|---|---|---|---|---|---|---|",
    ]
    for (pname, cname), vals in rows.items():
        v = np.array(vals)
        mean = v.mean(axis=0)
        raw = np.array(rows[(pname, "raw model")])[:, 0]
        beats = int((v[:, 0] <= raw).sum())
        lines.append(
            f"| {pname} | {cname} | {mean[0]:.4f} ({beats}/{len(v)}) | {mean[1]:.4f} | "
            f"{mean[2]:.4f} | {mean[3]:.3f} | {np.median(v[:, 4]):.3f} |"
        )
    table = "\n".join(lines)
    print(table)
    return table


def make_scores(K, n, m, seed=0):
    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(n + m, K)) * 2.0
    P = np.exp(Z - Z.max(axis=1, keepdims=True))
    P /= P.sum(axis=1, keepdims=True)
    y = (rng.random((n + m, 1)) > P.cumsum(axis=1)).sum(axis=1).clip(0, K - 1)
    y[:K] = np.arange(K)
    return Z[:n], y[:n], Z[n:], P[:n], P[n:]


def _k_binary(Z, y, Zt):
    """K separate binary VennAbersCalibrator fits through the public binary API."""
    K = Z.shape[1]
    T = Z - np.log(np.exp(Z).sum(axis=1, keepdims=True))
    Tt = Zt - np.log(np.exp(Zt).sum(axis=1, keepdims=True))
    out = np.empty((Zt.shape[0], K))
    for k in range(K):
        out[:, k] = VennAbersCalibrator().fit(T[:, k], y == k).predict_proba(Tt[:, k])[:, 1]
    return out


def _speed_tasks(Z, y, Zt, K):
    tasks = {
        "venncal one-vs-rest per class": lambda: (
            MulticlassVennAbersCalibrator(strategy="ovr", pooled=False).fit(Z, y).predict_proba(Zt)
        ),
        "venncal pooled one-vs-rest": lambda: (
            MulticlassVennAbersCalibrator(strategy="ovr").fit(Z, y).predict_proba(Zt)
        ),
        "K binary VennAbersCalibrator fits": lambda: _k_binary(Z, y, Zt),
    }
    if K <= 100:
        tasks["venncal default (pooled pairwise)"] = lambda: (
            MulticlassVennAbersCalibrator().fit(Z, y).predict_proba(Zt)
        )
        tasks["venncal pairwise per pair"] = lambda: (
            MulticlassVennAbersCalibrator(strategy="pairwise", pooled=False)
            .fit(Z, y)
            .predict_proba(Zt)
        )
    return tasks


def run_speed(rounds, rival_classes):
    from venn_abers.venn_abers import predict_proba_prefitted_va

    n, m = 50000, 2000
    lines = [
        f"| K | method | fit + predict {m} rows (s) | per class (ms) |",
        "|---|---|---|---|",
    ]
    for K in (100, 1000):
        Z, y, Zt, P, Pt = make_scores(K, n, m)
        tasks = _speed_tasks(Z, y, Zt, K)
        MulticlassVennAbersCalibrator(strategy="ovr").fit(
            Z[:500, :5][y[:500] < 5], y[:500][y[:500] < 5]
        )
        times = interleaved_times(tasks, rounds)
        # venn-abers: one round on all n rows, with k columns (k - 1 classes and the rest
        # merged into one), so that each of its k binary fits sees 5 * 10^4 rows; per class
        k = rival_classes
        yk = np.minimum(y, k - 1)
        Pk = np.column_stack([P[:, : k - 1], P[:, k - 1 :].sum(axis=1)])
        Ptk = np.column_stack([Pt[:, : k - 1], Pt[:, k - 1 :].sum(axis=1)])
        start = time.perf_counter()
        predict_proba_prefitted_va(Pk, yk, Ptk, va_tpe="one_vs_rest")
        va_per_class = (time.perf_counter() - start) / k
        for name, ts in times.items():
            med = float(np.median(ts))
            lines.append(f"| {K} | {name} | {med:.2f} | {1000 * med / K:.2f} |")
        lines.append(
            f"| {K} | venn-abers one-vs-rest (one round with {k} columns on the same rows, "
            f"per class; K columns would take K times as long) | "
            f"{K * va_per_class:.0f} (estimate) | {1000 * va_per_class:.1f} |"
        )
        print("\n".join(lines[-len(times) - 1 :]), flush=True)
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quality", action="store_true")
    parser.add_argument("--speed", action="store_true")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--rival-classes", type=int, default=10)
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    if not (args.quality or args.speed):
        args.quality = args.speed = True
    parts = [f"Measured {machine_note()}; `python benchmarks/bench_multiclass.py`."]
    if args.quality:
        parts.append(
            "**Quality** (held-out data; mean over "
            f"{args.seeds} random splits; in brackets, the splits on which the log loss is "
            "at most the raw model's; time is the median of fit plus prediction):\n\n"
            + run_quality(args.seeds)
        )
    if args.speed:
        parts.append(
            "**Speed** (5 * 10^4 calibration rows, 2,000 test rows, median of "
            f"{args.rounds} interleaved rounds):\n\n" + run_speed(args.rounds, args.rival_classes)
        )
    if args.write:
        write_section("Multiclass Venn-Abers", "\n\n".join(parts))


if __name__ == "__main__":
    main()
