"""Model files of VennAbersDistribution: every prediction bit for bit after loading, with and
without groups, and edited tables refused in one line."""

import json
import subprocess
import sys

import numpy as np
import pytest

import venncal
from tests.persistence._cases import assert_same
from tests.persistence._files import refused_on_load, rewrite
from venncal import VennAbersDistribution


def _data(seed, n=200, weights="none"):
    rng = np.random.default_rng(seed)
    s = np.round(rng.normal(size=n), 1)
    y = np.round(s + rng.normal(size=n), 1)
    g = np.array(["north", "south", "east"])[rng.integers(0, 3, n)]
    w = {
        "none": None,
        "integer": rng.integers(1, 5, n).astype(float),
        "float": rng.uniform(0.1, 3.0, n),
        "wide": rng.random(n) * 10.0 ** rng.integers(-12, 12, n),  # the exact route
    }[weights]
    return s, y, g, w


def _predictions(dist, s, y, groups):
    kw = {} if groups is None else {"groups": groups}
    t = np.r_[-1e300, np.linspace(-3, 3, 25), y[:5], 1e300]
    t.sort()
    return {
        "cdf": dist.predict_cdf(s, t, **kw),
        "merged": dist.predict_merged_cdf(s, t, **kw),
        "quantiles": dist.predict_quantiles(s, [0.01, 0.1, 0.5, 0.77, 0.99], **kw),
        "interval": dist.predict_interval(s, confidence=0.9, **kw),
        "interval_50": dist.predict_interval(s, confidence=0.5, **kw),
        "mean": dist.predict_mean(s, **kw),
        "crps": dist.crps(s, y, **kw),
        "pit": dist.predict_pit(s, y, random_state=0, **kw),
    }


@pytest.mark.parametrize("weights", ["none", "integer", "float", "wide"])
@pytest.mark.parametrize("grouped", [False, True])
@pytest.mark.parametrize("merge", ["mean", "square", "log"])
def test_a_loaded_distribution_predicts_bit_for_bit(tmp_path, weights, grouped, merge):
    s, y, g, w = _data(1, weights=weights)
    dist = VennAbersDistribution(merge=merge).fit(s, y, w, groups=g if grouped else None)
    back = venncal.load(venncal.save(dist, tmp_path / "m.json"))
    assert type(back) is VennAbersDistribution and back.get_params() == dist.get_params()
    assert back.groups_ == dist.groups_ and back.pooled_groups_ == dist.pooled_groups_
    test = np.r_[np.round(np.random.default_rng(2).normal(size=60), 1), s[:20], -1e9, 1e9]
    truth = np.round(test + 0.2, 1)
    tg = np.resize(g, test.shape[0]) if grouped else None
    want, got = _predictions(dist, test, truth, tg), _predictions(back, test, truth, tg)
    for key in want:
        assert_same(got[key], want[key], key)


def test_a_pooled_group_and_the_fallback_survive_a_file(tmp_path):
    s, y, g, w = _data(3, weights="integer")
    w[g == "east"] = 0.0
    with pytest.warns(venncal.exceptions.VenncalWarning, match="weight zero"):
        dist = VennAbersDistribution(group_fallback="pooled").fit(s, y, w, groups=g)
    back = venncal.load(venncal.save(dist, tmp_path / "m.json"))
    assert back.pooled_groups_ == ["east"] and back.group_fallback == "pooled"
    tg = np.resize(["east", "west", "north"], 30)
    with pytest.warns(venncal.exceptions.VenncalWarning, match=r"\['west'\] were not seen"):
        got = back.predict_interval(s[:30], groups=tg)
    with pytest.warns(venncal.exceptions.VenncalWarning):
        assert_same(got, dist.predict_interval(s[:30], groups=tg))


def test_a_file_loads_in_a_fresh_process_and_predicts_the_same(tmp_path):
    s, y, g, w = _data(4, weights="float")
    dist = VennAbersDistribution().fit(s, y, w, groups=g)
    venncal.save(dist, tmp_path / "m.json")
    np.save(tmp_path / "want.npy", dist.predict_quantiles(s, [0.1, 0.9], groups=g))
    np.save(tmp_path / "s.npy", s)
    np.save(tmp_path / "g.npy", g)
    code = (
        "import numpy as np, venncal, sys; d = sys.argv[1]; "
        "m = venncal.load(d + '/m.json'); "
        "got = m.predict_quantiles(np.load(d + '/s.npy'), [0.1, 0.9], groups=np.load(d + '/g.npy')); "
        "assert np.array_equal(got, np.load(d + '/want.npy')), 'differs'; print('same')"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, check=False
    )
    assert out.stdout.strip() == "same", out.stderr


def _saved(tmp_path, grouped=False, weights="none"):
    s, y, g, w = _data(5, weights=weights)
    dist = VennAbersDistribution().fit(s, y, w, groups=g if grouped else None)
    path = venncal.save(dist, tmp_path / "m.json")
    return path, json.loads(path.read_text())


def _fields(node):
    return node["dataclass"]["fields"]


def _data_of(node):
    return node["array"]["data"]


def _tables(doc, i=None):
    return _fields(doc["fitted"]["tables_"] if i is None else doc["fitted"]["group_tables_"][i])


def _swap_first_two(values):
    values[0], values[1] = values[1], values[0]


EDITS = {
    "unsorted values": (lambda d: _swap_first_two(_data_of(_tables(d)["values"])), ".values"),
    "unsorted labels": (lambda d: _swap_first_two(_data_of(_tables(d)["labels"])), ".labels"),
    "NaN label": (
        lambda d: _data_of(_tables(d)["labels"]).__setitem__(3, "nan"),
        "holds NaN or infinite values",
    ),
    "labels out of order": (
        lambda d: _data_of(_tables(d)["labels"]).__setitem__(0, 99.0),
        "is not what its calibration rows fit",
    ),
    # moved in order, the table is the fit of other rows: its copy in labels_ tells
    "a label moved": (
        lambda d: _data_of(_tables(d)["labels"]).__setitem__(0, -99.0),
        "labels_ must equal VennAbersDistribution.tables_.labels",
    ),
    "a row moved to another score": (
        lambda d: _data_of(_tables(d)["row_value"]).__setitem__(0, 5),
        "is not what its calibration rows fit",
    ),
    "a row index past the values": (
        lambda d: _data_of(_tables(d)["row_value"]).__setitem__(0, 10**6),
        "row_value must index values",
    ),
    "a label without rows": (
        lambda d: _data_of(_tables(d)["label_start"]).__setitem__(2, 1),
        "label_start must rise strictly",
    ),
    "one start too few": (
        lambda d: _tables(d)["label_start"]["array"].update(
            shape=[len(_data_of(_tables(d)["label_start"])) - 1],
            data=_data_of(_tables(d)["label_start"])[:-1],
        ),
        "one start per label",
    ),
    "a count changed": (
        lambda d: _data_of(_tables(d)["weight"]).__setitem__(0, 7),
        ".weight is not what its calibration rows fit",
    ),
    "another geometry": (lambda d: _tables(d).__setitem__("route", "exact"), ".route"),
    "another total": (lambda d: _tables(d).__setitem__("n_calibration", 1.0), "n_calibration"),
    "labels_ not the table's": (
        lambda d: _data_of(d["fitted"]["labels_"]).__setitem__(0, -5.0),
        "labels_ must equal",
    ),
    "two score columns": (lambda d: d["fitted"].__setitem__("n_features_in_", 2), "must be 1"),
    "a bogus merge": (lambda d: d["params"].__setitem__("merge", "max"), "'merge' parameter"),
}


@pytest.mark.parametrize("edit", list(EDITS))
def test_edited_tables_are_refused_in_one_line(tmp_path, edit):
    change, said = EDITS[edit]
    path, doc = _saved(tmp_path)
    change(doc)
    rewrite(path, doc)
    refused_on_load(path, said)


def test_edited_weights_are_refused(tmp_path):
    path, doc = _saved(tmp_path, weights="float")
    weights = _data_of(_tables(doc)["row_weight"])
    for value, said in ((0.0, "positive weight"), (-1.0, "positive weight"), ("inf", "NaN or")):
        edited = json.loads(json.dumps(doc))
        _data_of(_tables(edited)["row_weight"])[0] = value
        rewrite(path, edited)
        refused_on_load(path, "row_weight", said)
    edited = json.loads(json.dumps(doc))
    _data_of(_tables(edited)["row_weight"])[0] = weights[0] * 2
    rewrite(path, edited)
    refused_on_load(path, "is not what its calibration rows fit")
    edited = json.loads(json.dumps(doc))
    body = _tables(edited)["row_weight"]["array"]
    body["shape"], body["data"] = [len(weights) - 1], weights[:-1]
    rewrite(path, edited)
    refused_on_load(path, "row_weight must hold a positive weight per row")


def test_edited_groups_are_refused(tmp_path):
    path, doc = _saved(tmp_path, grouped=True)
    assert doc["fitted"]["groups_"] == ["east", "north", "south"]
    cases = [
        (lambda d: d["fitted"]["groups_"].__setitem__(1, "east"), "distinct groups"),
        (lambda d: d["fitted"]["group_tables_"].pop(), "one table per group"),
        (lambda d: d["fitted"].__setitem__("pooled_groups_", ["east"]), "both in groups_"),
        (lambda d: d["fitted"].__setitem__("pooled_groups_", None), "all be None or all set"),
        (
            # a group's table swapped for another group's: each table is a fit, the pool not
            lambda d: d["fitted"]["group_tables_"].__setitem__(0, d["fitted"]["group_tables_"][1]),
            "tables_ must hold exactly the rows of group_tables_",
        ),
        (
            lambda d: _data_of(_tables(d, 2)["labels"]).__setitem__(0, 50.0),
            "group_tables_[2].labels is not what its calibration rows fit",
        ),
        (
            # moved in order, the group's table is the fit of other rows than the pool's
            lambda d: _data_of(_tables(d, 2)["labels"]).__setitem__(0, -50.0),
            "tables_ must hold exactly the rows of group_tables_",
        ),
        (lambda d: d["fitted"].__setitem__("group_tables_", [1, 2, 3]), "VADistributionTables"),
    ]
    for change, said in cases:
        edited = json.loads(json.dumps(doc))
        change(edited)
        rewrite(path, edited)
        refused_on_load(path, said)


def test_a_regressor_is_refused_by_save_in_one_line(tmp_path):
    from sklearn.linear_model import LinearRegression

    rng = np.random.default_rng(0)
    X = rng.normal(size=(100, 2))
    reg = venncal.VennAbersRegressor(LinearRegression()).fit(X, X[:, 0] + rng.normal(size=100))
    with pytest.raises(TypeError, match="wraps a scikit-learn estimator") as info:
        venncal.save(reg, tmp_path / "reg.json")
    assert "\n" not in str(info.value)
