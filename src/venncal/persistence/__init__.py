"""Model files: fitted calibrators saved as versioned, checksummed JSON, and loaded back.

A model file holds only numbers and strings (no pickle, no code): the format and its version,
the venncal version that wrote it, the class name, the parameters, the fitted tables and a
SHA-256 checksum. Loading builds the calibrator from a registry of known classes; nothing in the
file is executed. A loaded calibrator predicts bit for bit what the saved one predicted.

This layer sits above the calibrators (it serialises them) and below the command line.

Examples
--------
>>> import os, tempfile
>>> from venncal.calibration import IsotonicCalibrator
>>> from venncal.persistence import load, save
>>> cal = IsotonicCalibrator().fit([0.1, 0.2, 0.3, 0.4], [0, 1, 0, 1])
>>> path = save(cal, os.path.join(tempfile.mkdtemp(), "isotonic.json"))
>>> load(path).predict_proba([0.25])[:, 1]
array([0.5])
"""

from venncal.persistence._model_file import (
    FORMAT,
    FORMAT_VERSION,
    ModelFile,
    ModelFileError,
    ModelState,
    checksum,
    load,
    read_model_file,
    read_model_state,
    save,
)
from venncal.persistence._registry import register_model_class, registered_names

__all__ = [
    "save",
    "load",
    "read_model_file",
    "ModelFile",
    "ModelState",
    "read_model_state",
    "ModelFileError",
    "register_model_class",
    "registered_names",
    "checksum",
    "FORMAT",
    "FORMAT_VERSION",
]
