"""Bundled benchmark datasets and simulated data with known posteriors.

Every dataset of the papers that venncal reproduces ships inside the package (nothing is
downloaded); ``venncal/datasets/data/SOURCES.md`` gives the provenance and licence of each file.
Loaders return a :class:`Dataset` with numeric features (nominal features one-hot encoded,
missing values imputed by a documented rule), labels in {0, 1} and metadata.

The generators draw the simulated data of the papers and carry the true posterior probability
as a function, so that calibration and grouping loss can be measured exactly.
"""

from venncal.datasets._base import Dataset
from venncal.datasets._bivariate import BivariateNormalModel, make_bivariate_normal
from venncal.datasets._loaders import (
    list_datasets,
    load_adult,
    load_australian,
    load_breast_cancer,
    load_breast_w,
    load_dataset,
    load_diabetes,
    load_echocardiogram,
    load_hepatitis,
    load_ionosphere,
    load_labor,
    load_liver,
    load_lofstrom,
    load_spect,
    load_vote,
)
from venncal.datasets._naeini import (
    EccentricRingModel,
    OffsetXorModel,
    SeparableModel,
    make_eccentric_ring,
    make_offset_xor,
    make_separable,
)
from venncal.datasets._simulated import CircularModel, XorModel, make_circular, make_xor

__all__ = [
    "Dataset",
    "list_datasets",
    "load_dataset",
    "load_adult",
    "load_australian",
    "load_breast_cancer",
    "load_breast_w",
    "load_diabetes",
    "load_echocardiogram",
    "load_hepatitis",
    "load_ionosphere",
    "load_labor",
    "load_liver",
    "load_lofstrom",
    "load_spect",
    "load_vote",
    "make_xor",
    "make_circular",
    "make_bivariate_normal",
    "make_offset_xor",
    "make_eccentric_ring",
    "make_separable",
    "XorModel",
    "CircularModel",
    "OffsetXorModel",
    "EccentricRingModel",
    "SeparableModel",
    "BivariateNormalModel",
]
