"""Editing model files and expecting their refusal, for the model-file tests."""

import json

import pytest

import venncal
from venncal.persistence import ModelFileError, checksum


def rewrite(path, doc):
    """Write ``doc`` to ``path`` with a checksum that matches it (a deliberate edit)."""
    doc = {k: v for k, v in doc.items() if k != "sha256"}
    doc["sha256"] = checksum(doc)
    path.write_text(json.dumps(doc))


def refused_on_load(path, *fragments, **load_kwargs):
    """Loading ``path`` raises a one-line ModelFileError holding every fragment; its text."""
    with pytest.raises(ModelFileError) as info:
        venncal.load(path, **load_kwargs)
    text = str(info.value)
    assert "\n" not in text
    for fragment in fragments:
        assert fragment in text, text
    return text
