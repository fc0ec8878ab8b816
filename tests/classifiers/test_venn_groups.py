"""VennClassifier within groups (a Mondrian taxonomy): each group's prediction is the Venn
predictor of that group's calibration examples alone, validity within every group, clear errors
and documented fallbacks."""

import warnings

import numpy as np
import pytest
from sklearn.ensemble import RandomForestClassifier
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import GaussianNB

from tests._group_validity import add_group_rows, assert_valid, group_summary
from tests._reference.venn_abers_naive import venn_abers_naive
from venncal import VenncalWarning
from venncal.classifiers.venn import VennClassifier
from venncal.core.venn import equal_mass_venn_predict, venn_predict


def _data(seed, n, k=2, groups=("north", "south", "east")):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    g = rng.choice(np.array(groups), size=n)
    z = X @ [1.5, -1.0, 0.5] + 1.2 * (g == groups[1]) + rng.normal(size=n)
    y = np.digitize(z, np.linspace(-1, 1, k + 1)[1:-1])
    return X, y, g


def _model(k=2):
    X, y, _ = _data(100, 400, k)
    return LogisticRegression().fit(X, y)


def _tercile(scores):
    """A callable taxonomy: one category per object, from its own score only."""
    return np.digitize(scores, [0.3, 0.7])


def _label_and_confidence(scores):
    """A callable multiclass taxonomy: the predicted label and whether its probability > 0.6."""
    return np.argmax(scores, axis=1) * 2 + (scores.max(axis=1) > 0.6)


CASES = [(2, "label"), (2, "bins"), (2, "isotonic"), (2, _tercile)]
CASES += [(3, "label"), (3, "bins"), (3, _label_and_confidence)]


def _naive_pairs(cal_groups, cal_cats, cal_y, test_groups, test_cats, k):
    """Venn predictor with categories (group, category), counted straight from the definition."""
    lower = np.empty((len(test_cats), k))
    upper = np.empty((len(test_cats), k))
    for i, (g, c) in enumerate(zip(test_groups, test_cats)):
        members = cal_y[(cal_groups == g) & (cal_cats == c)]
        freq = [
            [(np.sum(members == j) + (t == j)) / (members.size + 1) for j in range(k)]
            for t in range(k)
        ]
        lower[i], upper[i] = np.min(freq, axis=0), np.max(freq, axis=0)
    return lower, upper


@pytest.mark.parametrize(
    "k, taxonomy", CASES, ids=lambda v: v if isinstance(v, (int, str)) else v.__name__
)
def test_each_group_gets_the_venn_predictor_of_its_own_rows(k, taxonomy):
    model = _model(k)
    X, y, g = _data(0, 300, k)
    Xt, _, gt = _data(1, 120, k)
    vp = VennClassifier(FrozenEstimator(model), taxonomy=taxonomy, n_bins=4)
    vp.fit(X, y, calibration_groups=g)
    got = vp.predict_venn(Xt, calibration_groups=gt)
    for name in ("north", "south", "east"):
        own = VennClassifier(FrozenEstimator(model), taxonomy=taxonomy, n_bins=4)
        own.fit(X[g == name], y[g == name])
        rows = gt == name
        ref = own.predict_venn(Xt[rows])
        np.testing.assert_array_equal(got.lower[rows], ref.lower)
        np.testing.assert_array_equal(got.upper[rows], ref.upper)
        np.testing.assert_array_equal(got.category_size[rows], ref.category_size)
        np.testing.assert_array_equal(
            vp.predict_proba(Xt, calibration_groups=gt)[rows], own.predict_proba(Xt[rows])
        )
        np.testing.assert_array_equal(
            vp.predict(Xt, calibration_groups=gt)[rows], own.predict(Xt[rows])
        )
        np.testing.assert_array_equal(
            vp.predict_multiprobability(Xt, calibration_groups=gt)[rows],
            own.predict_multiprobability(Xt[rows]),
        )
    # the pooled predictor differs: the groups matter here
    pooled = VennClassifier(FrozenEstimator(model), taxonomy=taxonomy, n_bins=4).fit(X, y)
    assert not np.allclose(pooled.predict_venn(Xt).lower, got.lower)
    assert vp.groups_ == ["east", "north", "south"] and vp.pooled_groups_ == []


@pytest.mark.parametrize("k", [2, 3])
def test_label_taxonomy_is_the_group_label_pair_of_the_definition(k):
    model = _model(k)
    X, y, g = _data(2, 250, k)
    Xt, _, gt = _data(3, 80, k)
    vp = VennClassifier(FrozenEstimator(model)).fit(X, y, calibration_groups=g)
    got = vp.predict_venn(Xt, calibration_groups=gt)
    lo, hi = _naive_pairs(g, model.predict(X), y, gt, model.predict(Xt), k)
    np.testing.assert_allclose(got.lower, lo, atol=1e-12)
    np.testing.assert_allclose(got.upper, hi, atol=1e-12)
    if k == 2:
        np.testing.assert_allclose(
            vp.predict_interval(Xt, calibration_groups=gt), np.column_stack([lo[:, 1], hi[:, 1]])
        )


def test_isotonic_taxonomy_is_venn_abers_on_the_group():
    model = _model()
    X, y, g = _data(4, 200)
    Xt, _, gt = _data(5, 40)
    vp = VennClassifier(FrozenEstimator(model), taxonomy="isotonic")
    got = vp.fit(X, y, calibration_groups=g).predict_interval(Xt, calibration_groups=gt)
    s, t = model.predict_proba(X)[:, 1], model.predict_proba(Xt)[:, 1]
    for name in ("north", "south", "east"):
        rows = gt == name
        ref = venn_abers_naive(s[g == name], y[g == name], t[rows])
        np.testing.assert_allclose(got[rows], np.column_stack(ref), atol=1e-12)


def test_weighted_isotonic_taxonomy_uses_the_group_weights():
    model = _model()
    X, y, g = _data(16, 200)
    Xt, _, gt = _data(17, 40)
    w = np.random.default_rng(16).uniform(0.2, 3.0, size=200)
    vp = VennClassifier(FrozenEstimator(model), taxonomy="isotonic")
    got = vp.fit(X, y, w, calibration_groups=g).predict_interval(Xt, calibration_groups=gt)
    for name in ("north", "south", "east"):
        own = VennClassifier(FrozenEstimator(model), taxonomy="isotonic")
        own.fit(X[g == name], y[g == name], w[g == name])
        rows = gt == name
        np.testing.assert_array_equal(got[rows], own.predict_interval(Xt[rows]))


@pytest.mark.parametrize("taxonomy", ["label", "bins", "isotonic"])
def test_oob_draws_z_r_from_the_group_and_leaves_it_out(taxonomy):
    from venncal.classifiers._oob import draw_reference_examples

    X, y, g = _data(6, 240)
    Xt, _, gt = _data(7, 30)
    rf = RandomForestClassifier(n_estimators=30, max_depth=4, random_state=0)
    vp = VennClassifier(rf, method="oob", taxonomy=taxonomy, n_bins=3, random_state=3)
    got = vp.fit(X, y, calibration_groups=g).predict_interval(Xt, calibration_groups=gt)
    cal_g = g[vp.cal_index_]
    for i in range(len(Xt)):
        pos = np.flatnonzero(cal_g == gt[i])  # the group's calibration examples
        r = draw_reference_examples(vp.seed_, vp.cal_index_[pos], Xt[i : i + 1])
        s = vp.oob_.test_probas(Xt[i : i + 1], r)[:, 1]
        keep = pos[vp.cal_index_[pos] != r[0]]
        assert keep.size == pos.size - 1  # z_r is in the group and left out
        cs, cy = vp.cal_scores_[keep], vp.cal_labels_[keep]
        if taxonomy == "label":
            ref = venn_predict((cs > 0.5).astype(int), cy, (s > 0.5).astype(int)).p0_p1[0]
        elif taxonomy == "isotonic":
            ref = np.ravel(venn_abers_naive(cs, cy, s))
        else:
            ref = equal_mass_venn_predict(cs, cy, s, n_bins=3).p0_p1[0]
        np.testing.assert_allclose(got[i], ref, atol=1e-12)


def _shifted(rng, n, minority=0.1, shift=1.5):
    """Features, labels and groups: the minority group's labels are shifted down."""
    X = rng.normal(size=(n, 2))
    g = np.where(rng.random(n) < minority, "minor", "major")
    logit = 2.0 * X[:, 0] - X[:, 1] - shift * (g == "minor")
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
    return X, y, g


@pytest.mark.parametrize("taxonomy", ["label", "bins", "isotonic"])
def test_valid_within_every_group_where_pooled_calibration_is_not(taxonomy):
    """Pooled: valid overall but over-predicting in a minority group (10% of the data, labels
    shifted, invisible to the model); group-wise: valid in both groups (Corollary 1 of Vovk &
    Petej 2014 within every category of a Mondrian taxonomy)."""
    rng = np.random.default_rng(14)
    model = FrozenEstimator(GaussianNB().fit(*_shifted(rng, 2000, minority=0.0)[:2]))
    reps, n_cal, n_test = 200, 300, 50
    stats = {m: {"major": [], "minor": [], "all": []} for m in ("pooled", "groups")}
    for _ in range(reps):
        X, y, g = _shifted(rng, n_cal)
        Xt, yt, gt = _shifted(rng, n_test)
        pooled = VennClassifier(model, taxonomy=taxonomy, n_bins=3).fit(X, y)
        grouped = VennClassifier(model, taxonomy=taxonomy, n_bins=3, group_fallback="pooled")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", VenncalWarning)  # a rare one-class minority group
            grouped.fit(X, y, calibration_groups=g)
            intervals = {
                "pooled": pooled.predict_interval(Xt),
                "groups": grouped.predict_interval(Xt, calibration_groups=gt),
            }
        add_group_rows(stats, intervals, yt, gt)
    assert_valid(stats["pooled"]["all"], "all")  # the pooled predictor is valid overall ...
    f, lo, hi, se = group_summary(stats["pooled"]["minor"])
    assert lo - f > 0.1 and lo - f > 5 * se  # ... but over-predicts in the minority group
    for name in ("major", "minor", "all"):
        assert_valid(stats["groups"][name], name)


def test_oob_valid_within_every_group():
    """The same within a bagged ensemble calibrated out of bag, z_r drawn within the group."""
    rng = np.random.default_rng(15)
    stats = {m: {"major": [], "minor": []} for m in ("pooled", "groups")}
    for rep in range(100):
        X, y, g = _shifted(rng, 200)
        Xt, yt, gt = _shifted(rng, 50)
        rf = RandomForestClassifier(n_estimators=15, max_depth=3, random_state=rep)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", VenncalWarning)  # rows without out-of-bag score
            pooled = VennClassifier(rf, method="oob", random_state=rep).fit(X, y)
            grouped = VennClassifier(rf, method="oob", random_state=rep, group_fallback="pooled")
            grouped.fit(X, y, calibration_groups=g)
            intervals = {
                "pooled": pooled.predict_interval(Xt),
                "groups": grouped.predict_interval(Xt, calibration_groups=gt),
            }
        add_group_rows(stats, intervals, yt, gt)
    f, lo, hi, se = group_summary(stats["pooled"]["minor"])
    assert lo - f > 0.1 and lo - f > 5 * se
    for name in ("major", "minor"):
        assert_valid(stats["groups"][name], name)


def _one_line(info):
    assert "\n" not in str(info.value), str(info.value)


def test_unknown_group_is_an_error_or_the_pooled_answer():
    model = _model()
    X, y, g = _data(8, 300)
    Xt, _, gt = _data(9, 60)
    gt = gt.astype("<U5")
    gt[:7] = "west"
    strict = VennClassifier(FrozenEstimator(model)).fit(X, y, calibration_groups=g)
    for predict in ("predict_venn", "predict_interval", "predict_proba", "predict"):
        with pytest.raises(ValueError, match=r"groups \['west'\] were not seen at fit") as info:
            getattr(strict, predict)(Xt, calibration_groups=gt)
        _one_line(info)
    soft = VennClassifier(FrozenEstimator(model), group_fallback="pooled")
    soft.fit(X, y, calibration_groups=g)
    with pytest.warns(VenncalWarning, match=r"groups \['west'\] were not seen at fit"):
        got = soft.predict_interval(Xt, calibration_groups=gt)
    pooled = VennClassifier(FrozenEstimator(model)).fit(X, y)
    np.testing.assert_array_equal(got[:7], pooled.predict_interval(Xt[:7]))
    # the other rows keep their own group's answer
    known = strict.predict_interval(Xt[7:], calibration_groups=gt[7:])
    np.testing.assert_array_equal(got[7:], known)
    assert not np.allclose(known, pooled.predict_interval(Xt[7:]))


def test_one_class_group_under_the_isotonic_taxonomy():
    model = _model()
    X, y, g = _data(10, 300)
    g = g.astype("<U5")
    g[:5], y[:5] = "tiny", 1  # a group of one class only
    vp = VennClassifier(FrozenEstimator(model), taxonomy="isotonic")
    with pytest.raises(
        ValueError, match="group 'tiny' has calibration examples of one class"
    ) as info:
        vp.fit(X, y, calibration_groups=g)
    _one_line(info)
    soft = VennClassifier(FrozenEstimator(model), taxonomy="isotonic", group_fallback="pooled")
    with pytest.warns(VenncalWarning, match=r"groups \['tiny'\] cannot be calibrated"):
        soft.fit(X, y, calibration_groups=g)
    assert soft.pooled_groups_ == ["tiny"] and soft.groups_ == ["east", "north", "south"]
    Xt, _, gt = _data(11, 40)
    gt = gt.astype("<U5")
    gt[:6] = "tiny"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # announced at fit: no second warning
        got = soft.predict_interval(Xt, calibration_groups=gt)
    pooled = VennClassifier(FrozenEstimator(model), taxonomy="isotonic").fit(X, y)
    np.testing.assert_array_equal(got[:6], pooled.predict_interval(Xt[:6]))
    rows = gt == "north"
    own = VennClassifier(FrozenEstimator(model), taxonomy="isotonic")
    own.fit(X[g == "north"], y[g == "north"])
    np.testing.assert_array_equal(got[rows], own.predict_interval(Xt[rows]))
    # a one-class group is a valid category of the other taxonomies
    label = VennClassifier(FrozenEstimator(model)).fit(X, y, calibration_groups=g)
    assert "tiny" in label.groups_


def test_group_without_calibration_examples():
    X, y, g = _data(12, 400)
    g = g.astype("<U8")
    g[:12] = [f"single{i}" for i in range(12)]  # one row each: most go to the training part
    vp = VennClassifier(GaussianNB(), random_state=0)
    with pytest.raises(ValueError, match="has no calibration example") as info:
        vp.fit(X, y, calibration_groups=g)
    _one_line(info)
    soft = VennClassifier(GaussianNB(), random_state=0, group_fallback="pooled")
    with pytest.warns(VenncalWarning, match="cannot be calibrated on their own"):
        soft.fit(X, y, calibration_groups=g)
    assert soft.pooled_groups_ and set(soft.pooled_groups_) <= {f"single{i}" for i in range(12)}
    assert set(soft.groups_) >= {"east", "north", "south"}
    # the estimator and the split are those of the fit without groups, whose answer the
    # groups without calibration examples get
    plain = VennClassifier(GaussianNB(), random_state=0).fit(X, y)
    np.testing.assert_array_equal(soft.cal_scores_, plain.cal_scores_)
    Xt = X[:12] + 0.01
    got = soft.predict_interval(Xt, calibration_groups=g[:12])
    rows = np.isin(g[:12], soft.pooled_groups_)
    np.testing.assert_array_equal(got[rows], plain.predict_interval(Xt[rows]))


def test_groups_at_prediction_must_match_the_fit():
    model = _model()
    X, y, g = _data(13, 200)
    plain = VennClassifier(FrozenEstimator(model)).fit(X, y)
    grouped = VennClassifier(FrozenEstimator(model)).fit(X, y, calibration_groups=g)
    for predict in (
        "predict_venn",
        "predict_multiprobability",
        "predict_interval",
        "predict_proba",
        "predict_log_proba",
        "predict",
    ):
        with pytest.raises(ValueError, match="fitted without groups") as info:
            getattr(plain, predict)(X[:5], calibration_groups=g[:5])
        _one_line(info)
        with pytest.raises(
            ValueError, match="fitted within groups: pass calibration_groups="
        ) as info:
            getattr(grouped, predict)(X[:5])
        _one_line(info)
    np.testing.assert_array_equal(
        grouped.predict_log_proba(X[:5], calibration_groups=g[:5]),
        np.log(grouped.predict_proba(X[:5], calibration_groups=g[:5])),
    )
    # a refit without groups forgets them
    grouped.fit(X, y)
    np.testing.assert_array_equal(grouped.predict_proba(X[:5]), plain.predict_proba(X[:5]))


@pytest.mark.parametrize(
    "groups, err, match",
    [
        (np.zeros(199, dtype=int), ValueError, "'calibration_groups' has 199 labels for 200"),
        (np.zeros((200, 2), dtype=int), ValueError, "must be 1-D"),
        (np.linspace(0, 1, 200), TypeError, "integers, strings or booleans"),
        (np.array([1, "a"] * 100, dtype=object), TypeError, "of one kind"),
    ],
    ids=["length", "2-D", "float", "mixed"],
)
def test_bad_groups_at_fit_and_prediction(groups, err, match):
    model = _model()
    X, y, g = _data(14, 200)
    with pytest.raises(err, match=match) as info:
        VennClassifier(FrozenEstimator(model)).fit(X, y, calibration_groups=groups)
    _one_line(info)
    vp = VennClassifier(FrozenEstimator(model)).fit(X, y, calibration_groups=g)
    with pytest.raises(err, match=match) as info:
        vp.predict_proba(X, calibration_groups=groups)
    _one_line(info)


def test_bad_parameters():
    X, y, g = _data(15, 200)
    with pytest.raises(ValueError, match="'group_fallback' parameter of VennClassifier") as info:
        VennClassifier(GaussianNB(), group_fallback="nearest").fit(X, y, calibration_groups=g)
    _one_line(info)
    with pytest.raises(ValueError, match="not 'full'; use method='inductive'") as info:
        VennClassifier(GaussianNB(), method="full").fit(X, y, calibration_groups=g)
    _one_line(info)


def test_length_error_counts_rows_at_fit_and_objects_at_prediction():
    X, y, g = _data(15, 200)
    with pytest.raises(ValueError) as info:
        VennClassifier(FrozenEstimator(_model())).fit(X, y, calibration_groups=g[:199])
    assert str(info.value) == "'calibration_groups' has 199 labels for 200 rows; they must match."
    vp = VennClassifier(FrozenEstimator(_model())).fit(X, y, calibration_groups=g)
    with pytest.raises(ValueError) as info:
        vp.predict_proba(X[:5], calibration_groups=g[:4])
    assert str(info.value) == "'calibration_groups' has 4 labels for 5 objects; they must match."


@pytest.mark.parametrize("method", ["inductive", "oob"])
@pytest.mark.parametrize(
    "predict",
    [
        "predict",
        "predict_proba",
        "predict_log_proba",
        "predict_interval",
        "predict_venn",
        "predict_multiprobability",
    ],
)
def test_unknown_group_warning_points_at_the_call(method, predict):
    """The warning names the line that called the predict method, not a line of venncal."""
    X, y, g = _data(16, 300)
    if method == "oob":
        est = RandomForestClassifier(n_estimators=15, max_depth=3, random_state=0)
    else:
        est = FrozenEstimator(_model())
    vp = VennClassifier(est, method=method, group_fallback="pooled", random_state=0)
    vp.fit(X, y, calibration_groups=g)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        getattr(vp, predict)(X[:6], calibration_groups=["west"] + list(g[1:6]))
    unseen = [w for w in caught if "were not seen at fit" in str(w.message)]
    assert len(unseen) == 1, [str(w.message) for w in caught]
    assert unseen[0].category is VenncalWarning
    assert unseen[0].filename == __file__
