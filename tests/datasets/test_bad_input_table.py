"""Bad-input table over every public loader, generator and model of venncal.datasets."""

import inspect

import numpy as np
import pytest

from tests._assertions import assert_one_line_error_naming
from venncal import datasets
from venncal.datasets import (
    BivariateNormalModel,
    CircularModel,
    EccentricRingModel,
    OffsetXorModel,
    SeparableModel,
    XorModel,
)

#: public name -> list of (call, the parameter the error must name)
CASES = {
    "list_datasets": [
        (lambda: datasets.list_datasets("uci"), "collection"),
        (lambda: datasets.list_datasets(["naeini"]), "collection"),
    ],
    "load_dataset": [
        (lambda: datasets.load_dataset(None), "name"),
        (lambda: datasets.load_dataset(3), "name"),
        (lambda: datasets.load_dataset("nope"), "name"),
        (lambda: datasets.load_dataset("vote", missing="mean"), "missing"),
        (lambda: datasets.load_dataset("vote", colour="red"), "colour"),
        (lambda: datasets.load_dataset("lofstrom_ce/sonar", missing="drop"), "missing"),
    ],
    "load_lofstrom": [
        (lambda: datasets.load_lofstrom(None), "name"),
        (lambda: datasets.load_lofstrom(3), "name"),
        (lambda: datasets.load_lofstrom(["colic"]), "name"),
        (lambda: datasets.load_lofstrom("nope"), "nope"),
    ],
    "make_xor": [],
    "make_circular": [],
    "make_bivariate_normal": [
        (lambda: datasets.make_bivariate_normal(mean0="ab"), "mean0"),
        (lambda: datasets.make_bivariate_normal(mean1=5), "mean1"),
        (lambda: datasets.make_bivariate_normal(std=(1.0, -1.0)), "std"),
        (lambda: datasets.make_bivariate_normal(rho=1.0), "rho"),
        (lambda: datasets.make_bivariate_normal(rho="0"), "rho"),
        (lambda: datasets.make_bivariate_normal(prior=0.0), "prior"),
    ],
    "XorModel": [
        (lambda: XorModel(center=-1.0).sample(10), "center"),
        (lambda: XorModel(scale="a").sample(10), "scale"),
        (lambda: XorModel().posterior([[1.0, 2.0, 3.0]]), "X"),
        (lambda: XorModel().posterior([["a", "b"]]), "X"),
        (lambda: XorModel().posterior([[np.nan, 1.0]]), "X"),
    ],
    "CircularModel": [
        (lambda: CircularModel(radius=np.inf).sample(10), "radius"),
        (lambda: CircularModel().posterior(np.zeros((3, 1))), "X"),
    ],
    "BivariateNormalModel": [
        (lambda: BivariateNormalModel(rho=np.nan).sample(10), "rho"),
        (lambda: BivariateNormalModel().partial_posterior([[0.0, 0.0]], component=2), "component"),
    ],
    "make_offset_xor": [(lambda: datasets.make_offset_xor(near=-1.0), "near")],
    "make_eccentric_ring": [
        (lambda: datasets.make_eccentric_ring(eccentricity=1.5), "eccentricity")
    ],
    "make_separable": [],
    "OffsetXorModel": [
        (lambda: OffsetXorModel(far="a").sample(10), "far"),
        (lambda: OffsetXorModel().posterior([[1.0, 2.0, 3.0]]), "X"),
    ],
    "EccentricRingModel": [
        (lambda: EccentricRingModel(ring_scale=0.0).sample(10), "ring_scale"),
        (lambda: EccentricRingModel(n_angles=0).posterior([[0.0, 0.0]]), "n_angles"),
        (lambda: EccentricRingModel().posterior([[np.nan, 1.0]]), "X"),
    ],
    "SeparableModel": [(lambda: SeparableModel().posterior(np.zeros((3, 1))), "X")],
    "Dataset": [],
}
# every simulated-data maker the package exports: the same checks of its size and seed
for _maker in [name for name in datasets.__all__ if name.startswith("make_")]:
    _f = getattr(datasets, _maker)
    CASES[_maker] += [
        (lambda f=_f: f(0), "n_samples"),
        (lambda f=_f: f(-5), "n_samples"),
        (lambda f=_f: f(2.5), "n_samples"),
        (lambda f=_f: f("10"), "n_samples"),
        (lambda f=_f: f(None), "n_samples"),
        (lambda f=_f: f(random_state=-1), "random_state"),
        (lambda f=_f: f(random_state=1.5), "random_state"),
        (lambda f=_f: f(random_state="seed"), "random_state"),
    ]
for _model in (
    XorModel,
    CircularModel,
    BivariateNormalModel,
    OffsetXorModel,
    EccentricRingModel,
    SeparableModel,
):
    CASES[_model.__name__] += [
        (lambda m=_model: m().sample(0), "n_samples"),
        (lambda m=_model: m().sample(10, random_state=-1), "random_state"),
    ]
_LOADERS = [n for n in datasets.__all__ if n.startswith("load_") and n not in CASES]
for _name in _LOADERS:
    _f = getattr(datasets, _name)
    CASES[_name] = [
        (lambda f=_f: f(missing="mean"), "missing"),
        (lambda f=_f: f(missing=["impute"]), "missing"),
        (lambda f=_f: f(missing=None), "missing"),
    ]
    if "subset" in inspect.signature(_f).parameters:
        CASES[_name] += [
            (lambda f=_f: f(subset="validation"), "subset"),
            (lambda f=_f: f(subset=1), "subset"),
        ]


def test_every_public_name_is_in_the_table():
    assert set(datasets.__all__) <= set(CASES), sorted(set(datasets.__all__) - set(CASES))


@pytest.mark.parametrize(
    ("call", "param"),
    [
        pytest.param(call, param, id=f"{name}-{param}-{i}")
        for name, cases in sorted(CASES.items())
        for i, (call, param) in enumerate(cases)
    ],
)
def test_bad_input_gives_a_one_line_error_naming_the_parameter(call, param):
    assert_one_line_error_naming(call, param)


def test_generators_still_accept_their_seeds():
    a = datasets.make_xor(50, random_state=0)
    b = datasets.make_xor(50, random_state=np.random.default_rng(0))
    c = datasets.make_xor(50, random_state=np.int64(0))
    np.testing.assert_array_equal(a.X, b.X)
    np.testing.assert_array_equal(a.X, c.X)
