"""Model files of MulticalibrationCalibrator: the loaded calibrator predicts bit for bit what the
saved one predicted, and an edited file (checksum recomputed) whose trees, coding or
predictors within levels break what a fit guarantees is refused with one ModelFileError line."""

import json

import numpy as np
import pandas as pd
import pytest

import venncal
from tests.persistence._files import refused_on_load, rewrite
from tests.persistence._invariants import segment_frame
from tests.persistence._savable import segment_data
from venncal import MulticalibrationCalibrator


def _fitted(**params):
    s, y, seg = segment_data(0, 600)
    params = {"min_samples_leaf": 30, "max_iter": 40, **params}
    return MulticalibrationCalibrator(**params).fit(s, y, segments=seg)


def _test_rows(cal):
    s, _, seg = segment_data(1, 300)
    extra = segment_frame(cal.coding_, 60)  # unknown and missing levels, extreme numbers
    return np.r_[s, np.linspace(0, 1, 60)], pd.concat([seg, extra], ignore_index=True)


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"interval": "pooled", "merge": "square"},
        {"n_folds": 3, "numerical": ["x"], "categorical": ["g"]},
    ],
)
def test_a_loaded_calibrator_predicts_what_the_saved_one_did(params, tmp_path):
    cal = _fitted(**params)
    assert sum(cal.n_trees_) > 0 and cal.trees_.max_depth > 1
    back = venncal.load(venncal.save(cal, tmp_path / "m.json"))
    t, seg = _test_rows(cal)
    for method in ("predict_proba", "predict_interval", "predict", "decision_function"):
        np.testing.assert_array_equal(
            getattr(back, method)(t, segments=seg), getattr(cal, method)(t, segments=seg)
        )
    assert back.get_params() == cal.get_params()


def test_weighted_logit_scores_round_trip(tmp_path):
    s, y, seg = segment_data(2, 500)
    w = np.random.default_rng(2).uniform(0.2, 3.0, 500)
    z = np.log(s) - np.log1p(-s)
    cal = MulticalibrationCalibrator(score_scale="logit", min_samples_leaf=30)
    cal.fit(z, y, sample_weight=w, segments=seg)
    back = venncal.load(venncal.save(cal, tmp_path / "m.json"))
    np.testing.assert_array_equal(
        back.predict_interval(z, segments=seg), cal.predict_interval(z, segments=seg)
    )


def _saved(tmp_path, **params):
    path = venncal.save(_fitted(**params), tmp_path / "m.json")
    return path, json.loads(path.read_text())


def _fields(node):
    return node["dataclass"]["fields"]


def _data(node):
    return node["array"]["data"]


def _trees(doc):
    return _fields(doc["fitted"]["trees_"])


def _inner(trees):
    return [j for j, f in enumerate(_data(trees["feature"])) if f >= 0]


def _edit_cycle(doc):
    trees = _trees(doc)
    j = _inner(trees)[1]
    _data(trees["left"])[j] = j  # a node that is its own child
    return "later node"


def _edit_two_parents(doc):
    trees = _trees(doc)
    a, b = _inner(trees)[:2]
    _data(trees["right"])[b] = _data(trees["right"])[a]
    return "child of one node"


def _edit_depth(doc):
    _trees(doc)["max_depth"] -= 1
    return "deepest leaf"


def _edit_feature(doc):
    trees = _trees(doc)
    _data(trees["feature"])[_inner(trees)[0]] = 99
    return "beyond"


def _edit_inner_value(doc):
    trees = _trees(doc)
    _data(trees["value"])[_inner(trees)[0]] = 0.5
    return "inner node must be 0"


def _edit_leaf(doc):
    trees = _trees(doc)
    leaf = _data(trees["feature"]).index(-1)
    _data(trees["left"])[leaf] = leaf + 1
    return "a leaf"


def _edit_roots(doc):
    roots = _data(_trees(doc)["roots"])
    roots[1] = roots[0]
    return "roots"


def _edit_edges(doc):
    edges = _fields(doc["fitted"]["coding_"])["edges"]["tuple"][0]
    _data(edges)[0] = _data(edges)[-1] + 1.0
    return "strictly increasing"


def _edit_names(doc):
    names = _fields(doc["fitted"]["coding_"])["numerical"]["tuple"]
    names[0] = "g"
    return "both categorical and numerical"


def _edit_columns(doc):
    doc["fitted"]["numerical_"] = ["y"]
    return "coding_'s columns"


def _edit_level_code(doc):
    levels = _fields(doc["fitted"]["level_predictors_"])["levels"]["tuple"]
    _data(levels[0])[-1] = 7
    return "codes in [0, 3]"


def _edit_level_table(doc):
    tables = _fields(doc["fitted"]["level_predictors_"])["tables"]["tuple"][0]["tuple"]
    values0 = _data(_fields(tables[0])["values0"])
    values0[:] = [0.999] * len(values0)
    return "p0 > p1"


def _edit_interval(doc):
    doc["params"]["interval"] = "pooled"
    return "exactly when interval='segments'"


def _edit_tree_count(doc):
    doc["fitted"]["n_trees_"][0] += 1
    return "n_trees_"


def _edit_folds(doc):
    doc["params"]["n_folds"] = 300
    return "from 2 to 100"


@pytest.mark.parametrize(
    "edit",
    [
        _edit_cycle,
        _edit_two_parents,
        _edit_depth,
        _edit_feature,
        _edit_inner_value,
        _edit_leaf,
        _edit_roots,
        _edit_edges,
        _edit_names,
        _edit_columns,
        _edit_level_code,
        _edit_level_table,
        _edit_interval,
        _edit_tree_count,
        _edit_folds,
    ],
)
def test_an_edited_file_is_refused_in_one_line(edit, tmp_path):
    path, doc = _saved(tmp_path)
    fragment = edit(doc)
    rewrite(path, doc)
    refused_on_load(path, fragment)


def _identity_fit():
    # a base model right in every segment: the held-out check keeps the scores as they are
    rng = np.random.default_rng(6)
    p = rng.uniform(0.05, 0.95, 800)
    y = (rng.random(800) < p).astype(int)
    seg = pd.DataFrame({"g": rng.choice(list("abc"), 800), "x": rng.normal(size=800)})
    return MulticalibrationCalibrator().fit(p, y, segments=seg), p, seg


def test_the_held_out_choice_round_trips(tmp_path):
    cal, p, seg = _identity_fit()
    assert cal.chosen_ == "identity"
    back = venncal.load(venncal.save(cal, tmp_path / "m.json"))
    assert back.chosen_ == "identity" and back.cv_log_loss_ == cal.cv_log_loss_
    for method in ("predict_proba", "predict_interval", "predict"):
        np.testing.assert_array_equal(
            getattr(back, method)(p, segments=seg), getattr(cal, method)(p, segments=seg)
        )
    boosted = _fitted()
    assert boosted.chosen_ == "boosted"
    assert venncal.load(venncal.save(boosted, tmp_path / "b.json")).chosen_ == "boosted"


def test_a_file_without_the_choice_predicts_as_boosted(tmp_path):
    # files written before the held-out check existed always kept the trees
    cal = _fitted()
    path = venncal.save(cal, tmp_path / "m.json")
    doc = json.loads(path.read_text())
    del doc["fitted"]["chosen_"], doc["fitted"]["cv_log_loss_"]
    rewrite(path, doc)
    back = venncal.load(path)
    t, seg = _test_rows(cal)
    np.testing.assert_array_equal(
        back.predict_proba(t, segments=seg), cal.predict_proba(t, segments=seg)
    )


def _edit_chosen(doc):
    doc["fitted"]["chosen_"] = "isotonic"
    return "must be one of"


def _edit_chosen_with_trees(doc):
    doc["fitted"]["chosen_"] = "identity"
    return "must be empty unless chosen_"


def _edit_cv_log_loss(doc):
    doc["fitted"]["cv_log_loss_"]["dict"].pop("identity")
    return "must map identity"


@pytest.mark.parametrize("edit", [_edit_chosen, _edit_chosen_with_trees, _edit_cv_log_loss])
def test_an_edited_choice_is_refused_in_one_line(edit, tmp_path):
    path, doc = _saved(tmp_path)
    fragment = edit(doc)
    rewrite(path, doc)
    refused_on_load(path, fragment)
