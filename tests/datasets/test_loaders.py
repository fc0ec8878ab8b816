"""Bundled datasets: shapes and class counts agree with SOURCES.md, clean arrays, determinism."""

import re
from importlib import resources

import numpy as np
import pandas as pd
import pytest

from venncal.datasets import (
    Dataset,
    list_datasets,
    load_adult,
    load_dataset,
    load_echocardiogram,
    load_labor,
    load_lofstrom,
    load_spect,
    load_vote,
)
from venncal.datasets._base import encode_frame

# name -> (n, negatives, positives), transcribed from SOURCES.md sections (a) and (b)
EXPECTED = {
    "australian": (690, 383, 307),
    "breast-cancer": (286, 201, 85),
    "breast-w": (699, 458, 241),
    "diabetes": (768, 500, 268),
    "echocardiogram": (74, 50, 24),
    "hepatitis": (155, 123, 32),
    "ionosphere": (351, 225, 126),
    "labor": (57, 37, 20),
    "liver": (345, 145, 200),
    "vote": (435, 267, 168),
    "adult": (32561 + 16281, 24720 + 12435, 7841 + 3846),
    "spect": (80 + 187, 40 + 15, 40 + 172),
}
# raw feature counts before one-hot encoding, from SOURCES.md (echocardiogram: 8 kept, see docs)
RAW_D = {"breast-w": 9, "diabetes": 8, "hepatitis": 19, "ionosphere": 34, "liver": 6,
         "vote": 16, "spect": 22, "echocardiogram": 8}  # fmt: skip


def _lofstrom_table():
    """Parse the table of section (c) of the bundled SOURCES.md: stem -> (n, d, n0, n1)."""
    text = resources.files("venncal.datasets").joinpath("data", "SOURCES.md").read_text("utf-8")
    section = text[text.index("## (c)") : text.index("## Notes")]
    rows = {}
    for m in re.finditer(r"^\| (\w+)\.csv \| (\d+) \| (\d+) \| (\d+) / (\d+) \|", section, re.M):
        rows[m.group(1)] = tuple(int(m.group(i)) for i in range(2, 6))
    return rows


LOFSTROM = _lofstrom_table()


def _check_clean(ds):
    assert isinstance(ds, Dataset)
    assert ds.X.dtype == np.float64 and ds.X.ndim == 2
    assert np.isfinite(ds.X).all()
    assert ds.y.shape == (ds.X.shape[0],)
    assert set(np.unique(ds.y)) == {0, 1}
    assert len(ds.feature_names) == ds.X.shape[1]
    assert len(set(ds.feature_names)) == len(ds.feature_names)
    meta = ds.meta
    assert meta["n"] == ds.X.shape[0] and meta["d"] == ds.X.shape[1]
    assert meta["class_counts"] == {0: int((ds.y == 0).sum()), 1: int((ds.y == 1).sum())}
    for key in ("name", "title", "positive_label", "source", "licence", "citation", "papers"):
        assert meta[key], key


def test_sources_table_parsed():
    assert len(LOFSTROM) == 25


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_uci_weka_counts_match_sources(name):
    ds = load_dataset(name)
    _check_clean(ds)
    n, n0, n1 = EXPECTED[name]
    assert ds.X.shape[0] == n
    assert ds.meta["class_counts"] == {0: n0, 1: n1}
    if name in RAW_D:
        assert ds.X.shape[1] == RAW_D[name]


@pytest.mark.parametrize("stem", sorted(LOFSTROM))
def test_lofstrom_counts_match_sources(stem):
    ds = load_dataset("lofstrom_ce/" + stem)
    _check_clean(ds)
    n, d, n0, n1 = LOFSTROM[stem]
    assert ds.X.shape == (n, d)
    assert ds.meta["class_counts"] == {0: n0, 1: n1}
    assert ds.meta["collection"] == "lofstrom_ce"


def test_lofstrom_prefix_optional_and_files_complete():
    assert load_lofstrom("sonar").meta["name"] == load_lofstrom("lofstrom_ce/sonar").meta["name"]
    data = resources.files("venncal.datasets").joinpath("data", "lofstrom_ce")
    stems = {p.name[:-4] for p in data.iterdir() if p.name.endswith(".csv")}
    assert stems == set(LOFSTROM)


def test_every_bundled_file_is_read_by_a_loader():
    data = resources.files("venncal.datasets").joinpath("data")
    files = {f"{d.name}/{p.name}" for d in data.iterdir() if d.is_dir() for p in d.iterdir()}
    used = set()
    for source in list_datasets()["source"]:
        used.update(re.findall(r"(?:weka|uci|lofstrom_ce)/[\w.\-]+", source))
    used |= {"uci/adult.data", "uci/adult.test", "uci/SPECT.train", "uci/SPECT.test"}
    assert files <= used


def test_loaders_are_deterministic_and_return_independent_copies():
    a, b = load_dataset("vote"), load_dataset("vote")
    np.testing.assert_array_equal(a.X, b.X)
    np.testing.assert_array_equal(a.y, b.y)
    a.X[0, 0] = 99.0
    a.meta["class_counts"][0] = -1
    c = load_dataset("vote")
    assert c.X[0, 0] != 99.0 and c.meta["class_counts"][0] == 267


def test_positive_labels_match_raw_files():
    # hepatitis: DIE is the minority (32); breast-w malignant 241; vote republican 168
    assert load_dataset("hepatitis").meta["positive_label"] == "DIE"
    assert int(load_dataset("breast-w").y.sum()) == 241
    assert int(load_vote().y.sum()) == 168
    ds = load_dataset("liver")
    with resources.files("venncal.datasets").joinpath("data", "uci", "bupa.data").open() as fh:
        raw = pd.read_csv(fh, header=None)
    np.testing.assert_array_equal(ds.y, (raw[6] == 2).to_numpy().astype(np.int8))
    np.testing.assert_array_equal(ds.X, raw.iloc[:, :6].to_numpy(dtype=float))


def test_vote_nominal_encoding_and_imputation():
    ds = load_vote()
    assert ds.feature_names[0] == "handicapped-infants=y"
    assert set(np.unique(ds.X)) == {0.0, 1.0}
    assert ds.meta["n_missing_cells"] == 392
    dropped = load_vote(missing="drop")
    assert dropped.X.shape[0] == 232  # the complete cases of UCI's voting records


def test_labor_imputation_rule():
    ds = load_labor()
    assert ds.meta["n_missing_cells"] == 326
    names = list(ds.feature_names)
    # three-valued nominal -> three indicators that sum to one on every row (mode-imputed)
    cols = [i for i, c in enumerate(names) if c.startswith("pension=")]
    assert len(cols) == 3
    np.testing.assert_array_equal(ds.X[:, cols].sum(axis=1), 1.0)


def test_encode_frame_rules_against_hand_computed():
    frame = pd.DataFrame({"num": [1.0, np.nan, 3.0, 10.0],
                          "two": ["a", "b", None, "b"],
                          "three": ["x", "y", "z", None]})  # fmt: skip
    nominal = {"two": ["a", "b"], "three": ["x", "y", "z"]}
    X, names, keep = encode_frame(frame, nominal)
    assert names == ("num", "two=b", "three=x", "three=y", "three=z")
    expected = np.array([[1, 0, 1, 0, 0], [3, 1, 0, 1, 0], [3, 1, 0, 0, 1], [10, 1, 1, 0, 0]])
    np.testing.assert_array_equal(X, expected)  # median 3, mode 'b', mode tie -> first 'x'
    assert keep.all()
    X, _, keep = encode_frame(frame, nominal, missing="drop")
    np.testing.assert_array_equal(keep, [True, False, False, False])
    assert X.shape == (1, 5)


def test_echocardiogram_drops_leaking_columns():
    ds = load_echocardiogram()
    assert "survival" not in ds.feature_names and "still-alive" not in ds.feature_names
    assert "name" not in ds.feature_names


def test_adult_subsets_and_drop():
    train, test = load_adult(subset="train"), load_adult(subset="test")
    assert train.X.shape[0] == 32561 and test.X.shape[0] == 16281
    assert train.feature_names == test.feature_names
    assert set(train.meta["split"]) == {"train"}
    dropped = load_adult(missing="drop")
    assert dropped.X.shape[0] == 45222  # the 48842 rows minus those with '?'
    assert dropped.meta["split"].shape == (45222,)


def test_spect_given_split():
    train, test = load_spect(subset="train"), load_spect(subset="test")
    assert train.meta["class_counts"] == {0: 40, 1: 40}
    assert test.meta["class_counts"] == {0: 15, 1: 172}
    both = load_spect()
    np.testing.assert_array_equal(both.X[both.meta["split"] == "test"], test.X)


def test_list_datasets_table():
    table = list_datasets()
    assert isinstance(table, pd.DataFrame)
    assert len(table) == len(EXPECTED) + 25
    assert table["name"].is_unique
    for name, (n, n0, n1) in EXPECTED.items():
        row = table.set_index("name").loc[name]
        assert (row["n"], row["n_negative"], row["n_positive"]) == (n, n0, n1)
    assert len(list_datasets("vovk_petej")) == 10


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: load_dataset("nope"), "Unknown dataset 'nope'"),
        (lambda: load_dataset(3), "Unknown dataset 3"),
        (lambda: load_dataset("vote", missing="mean"), "'missing' parameter"),
        (lambda: load_adult(subset="val"), "'subset' parameter of load_adult"),
        (lambda: load_lofstrom("nope"), "Unknown Lofstrom dataset"),
        (lambda: list_datasets("uci"), "'collection' parameter of list_datasets"),
    ],
)
def test_bad_arguments(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_lofstrom_takes_no_options():
    with pytest.raises(TypeError, match="takes no options"):
        load_dataset("lofstrom_ce/kc1", missing="drop")


def test_datasets_layer_imports_neither_sklearn_nor_matplotlib():
    import subprocess
    import sys

    code = (
        "import sys, venncal.datasets as d; d.load_dataset('vote'); d.make_xor(5);"
        "d.make_bivariate_normal(5);"
        "bad = [m for m in ('sklearn', 'matplotlib') if m in sys.modules]; print(bad)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_names_ignore_case_and_frame_view():
    assert load_dataset("Vote").meta["name"] == "vote"
    assert load_dataset("LOFSTROM_CE/CREDITA").meta["name"] == "lofstrom_ce/creditA"
    ds = load_dataset("liver")
    frame = ds.to_frame(target="selector2")
    assert frame.shape == (345, 7)
    np.testing.assert_array_equal(frame["selector2"], ds.y)
    np.testing.assert_array_equal(frame.drop(columns="selector2").to_numpy(), ds.X)
