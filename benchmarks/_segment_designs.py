"""The datasets with segment features of ``bench_multicalibration.py`` (not part of the package).

A design is a bundled dataset, its segment columns (categorical and numerical), a base model
blind to them (LogisticRegression on the other features) and a split by seed into rows that
train the base model, rows that calibrate and rows that test. ``Design.split(seed)`` returns
``(p_cal, y_cal, seg_cal, p_test, y_test, seg_test)``.

- adult: adult.data shuffled by the seed, 60% trains, 40% calibrates; adult.test tests (the
  design of the Done-when figures). ``strong=True``: HistGradientBoosting on all features.
- adult-pooled: adult.data and adult.test pooled and shuffled by the seed, 40% / 27% / 33%
  (about the sizes of the adult design, but a fresh test set for every seed).
- australian, german, diabetes, kc1, ttt: the rows shuffled by the seed, 40% / 30% / 30%.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from venncal.datasets import load_adult, load_dataset


def decoded_frame(ds, groups=None):
    """A dataset's features as a frame, the one-hot columns ``k=v`` decoded back to one column
    ``k`` each; ``groups`` (name -> list of column indices) decodes anonymous one-hot blocks to
    levels ``"1"``, ``"2"``, ... in column order."""
    names = list(ds.feature_names)
    out, onehot, used = {}, {}, set()
    for k, idx in (groups or {}).items():
        out[k] = np.array([str(i + 1) for i in range(len(idx))])[ds.X[:, idx].argmax(axis=1)]
        used.update(idx)
    for j, c in enumerate(names):
        if j in used:
            continue
        if "=" in c:
            k, v = c.split("=", 1)
            onehot.setdefault(k, []).append((j, v))
        else:
            out[c.replace("-", "_")] = ds.X[:, j]
    for k, cols in onehot.items():
        idx = [j for j, _ in cols]
        if len(cols) == 1:  # a two-level feature is one column
            other = "Female" if k == "sex" else "not " + cols[0][1]
            values = np.where(ds.X[:, idx[0]] == 1, cols[0][1], other)
        else:
            values = np.array([v for _, v in cols], dtype=object)[ds.X[:, idx].argmax(axis=1)]
        out[k.replace("-", "_")] = values
    return pd.DataFrame(out), ds.y.astype(int)


def _base_matrix(frame, columns, transform):
    """The base model's inputs: numerical columns (log1p when ``transform``), categorical
    ones one-hot."""
    parts = []
    for c in columns:
        if not pd.api.types.is_numeric_dtype(frame[c]):
            parts.append(pd.get_dummies(frame[c], prefix=c, dtype=float))
        else:
            x = frame[c].astype(float)
            parts.append((np.log1p(x.clip(lower=0)) if transform else x).rename(c))
    return pd.concat(parts, axis=1)


@dataclass(frozen=True)
class Design:
    """One dataset's benchmark: segment columns, base-model features, split and thresholds."""

    name: str
    title: str
    categorical: list[str]
    numerical: list[str]
    base: list[str]
    group: str  #: the column (numerical: in tertiles of the calibration rows) of grouped V-A
    min_rows: int  #: the per-segment checks use segments with at least this many test rows
    fractions: tuple[float, float] = (0.4, 0.3)  #: train, calibrate (the rest tests)
    log1p: bool = True  #: the base model sees log1p of the numerical features
    groups: dict[str, list[int]] = field(default_factory=dict)  #: anonymous one-hot blocks

    @property
    def segment_columns(self):
        return self.categorical + self.numerical

    def frame(self):
        if self.name.startswith("adult"):
            tr, ytr = decoded_frame(load_adult(subset="train"))
            te, yte = decoded_frame(load_adult(subset="test"))
            return pd.concat([tr, te], ignore_index=True), np.concatenate([ytr, yte]), len(tr)
        frame, y = decoded_frame(load_dataset(self.name), self.groups)
        return frame, y, None

    def split(self, seed, *, strong=False):
        frame, y, n_train_file = self.frame()
        if self.name == "adult":  # adult.data shuffled: 60% train, 40% calibrate; adult.test
            perm = np.random.default_rng(seed).permutation(n_train_file)
            k = int(0.6 * n_train_file)
            fit, cal = perm[:k], perm[k:]
            test = np.arange(n_train_file, len(frame))
        else:
            perm = np.random.default_rng(seed).permutation(len(frame))
            a = int(self.fractions[0] * len(frame))
            b = a + int(self.fractions[1] * len(frame))
            fit, cal, test = perm[:a], perm[a:b], perm[b:]
        if strong:
            ds = load_adult(subset="train"), load_adult(subset="test")
            X = np.vstack([ds[0].X, ds[1].X])
            model = HistGradientBoostingClassifier(random_state=seed).fit(X[fit], y[fit])
            p = model.predict_proba(X)[:, 1]
        else:
            X = _base_matrix(frame, self.base, self.log1p)
            if self.name.startswith("adult"):  # the adult design's model, as first published
                model = LogisticRegression(max_iter=1000)
            else:
                model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))
            model.fit(X.iloc[fit], y[fit])
            p = model.predict_proba(X)[:, 1]
        seg = frame[self.segment_columns].copy()
        for c in self.categorical:  # binary 0/1 columns are categories too
            seg[c] = seg[c].astype(str)
        return (
            p[cal],
            y[cal],
            seg.iloc[cal].reset_index(drop=True),
            p[test],
            y[test],
            seg.iloc[test].reset_index(drop=True),
        )


_ADULT = {
    "categorical": ["sex", "race", "marital_status", "relationship", "workclass"],
    "numerical": ["age", "hours_per_week"],
    "base": ["education_num", "capital_gain", "capital_loss", "hours_per_week"],
    "group": "relationship",
    "min_rows": 200,
}
_GERMAN_BLOCKS = {  # the one-hot blocks of the anonymised file (each row has one 1 per block)
    "g1": [0, 1, 2, 3],
    "g2": [4, 5, 6],
    "g3": [8, 9, 10, 11],
    "g4": [13, 14, 15],
    "g5": [16, 17, 18],
    "g6": [20, 21, 22, 23],
}

DESIGNS = {
    "adult": Design("adult", "Adult (census income > 50K)", **_ADULT),
    "adult-pooled": Design(
        "adult-pooled", "Adult, both files pooled", fractions=(0.4, 0.27), **_ADULT
    ),
    "australian": Design(
        "australian",
        "Australian credit approval (Statlog; anonymised attributes)",
        categorical=["A1", "A4", "A8", "A9", "A11", "A12"],
        numerical=["A2"],
        base=["A3", "A7", "A10", "A13", "A14"],
        group="A9",
        min_rows=50,
    ),
    "lofstrom_ce/german": Design(
        "lofstrom_ce/german",
        "German credit (preprocessed copy; anonymised one-hot blocks g1-g6, X13 = age)",
        categorical=["g1", "g2", "g3", "g4"],
        numerical=["X13"],
        base=["X8", "X20", "X25", "X26", "X27", "g5", "g6"],
        group="g1",
        min_rows=50,
        groups=_GERMAN_BLOCKS,
    ),
    "diabetes": Design(
        "diabetes",
        "Pima Indians diabetes",
        categorical=[],
        numerical=["preg", "age", "mass"],
        base=["plas", "pres", "skin", "insu", "pedi"],
        group="age",
        min_rows=50,
        log1p=False,
    ),
    "lofstrom_ce/kc1": Design(
        "lofstrom_ce/kc1",
        "KC1 software defects (NASA; X1-X4: lines of code and McCabe's three complexities)",
        categorical=[],
        numerical=["X1", "X2", "X3", "X4"],
        base=[f"X{j}" for j in range(5, 22)],
        group="X1",
        min_rows=50,
    ),
    "lofstrom_ce/ttt": Design(
        "lofstrom_ce/ttt",
        "Tic-tac-toe endgame (corners and centre as segments; squares s1-s9)",
        categorical=["s1", "s3", "s5", "s7", "s9"],
        numerical=[],
        base=["s2", "s4", "s6", "s8"],
        group="s5",
        min_rows=50,
        groups={f"s{i + 1}": [3 * i, 3 * i + 1, 3 * i + 2] for i in range(9)},
    ),
}
