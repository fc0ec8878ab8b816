"""The checksum of a model file's bytes: a damaged large file is refused before it is parsed.

A model file ends with two checksums: ``"sha256"``, the SHA-256 of the canonical JSON of the
values, and ``"bytes_sha256"``, that of every byte before it. The first is checked on the raw
bytes, so a damaged file near the 256 MiB cap is refused without the seconds and the memory
its parsing takes; a file laid out anew (or of format 1) is checked by its values, up to a
smaller cap. Here the caps are lowered so that small files stand for large ones.
"""

import hashlib
import json
import re
from pathlib import Path

import numpy as np
import pytest

import venncal
from tests.persistence._files import refused_on_load
from venncal.persistence import FORMAT_VERSION, ModelFileError, _model_file, checksum


@pytest.fixture
def saved(tmp_path):
    rng = np.random.default_rng(3)
    s = rng.random(400)
    cal = venncal.VennAbersCalibrator().fit(s, (rng.random(400) < s).astype(int))
    return venncal.save(cal, tmp_path / "m.json", metadata={"score": "margin"}), cal


@pytest.fixture
def small_caps(monkeypatch):
    """A value-check cap of 1 KiB: every test file is 'large'; parsing is watched."""
    monkeypatch.setattr(_model_file, "VALUE_CHECK_BYTES", 1024)
    parsed = []
    real = _model_file._parse
    monkeypatch.setattr(
        _model_file, "_parse", lambda raw, where: parsed.append(1) or real(raw, where)
    )
    return parsed


def _bytes_digest(raw: bytes) -> tuple[str, str]:
    """The stored and the recomputed digest of the bytes, found without venncal's code."""
    key = b'\n "bytes_sha256": "'
    at = raw.rindex(key)
    stored = raw[at + len(key) : at + len(key) + 64].decode()
    return stored, hashlib.sha256(raw[: at + 1]).hexdigest()


def test_the_file_ends_with_the_checksum_of_the_bytes_before_it(saved):
    path, _ = saved
    raw = path.read_bytes()
    stored, recomputed = _bytes_digest(raw)
    assert stored == recomputed
    doc = json.loads(raw)
    assert doc["format_version"] == FORMAT_VERSION >= 2
    assert list(doc)[-2:] == ["sha256", "bytes_sha256"]
    # the checksum of the values covers neither checksum
    assert doc["sha256"] == checksum(
        {k: doc[k] for k in doc if k not in ("sha256", "bytes_sha256")}
    )


def test_a_large_damaged_file_is_refused_before_it_is_parsed(saved, small_caps):
    path, _ = saved
    venncal.load(path)  # as written: accepted, whatever its size
    assert small_caps == [1]
    text = path.read_text()
    digits = [m.start() for m in re.finditer(r"\d\.\d{6}", text)]
    at = digits[len(digits) // 2] + 3
    damaged = text[:at] + ("1" if text[at] != "1" else "2") + text[at + 1 :]
    path.write_text(damaged)
    refused_on_load(path, "checksum of its bytes does not match", "changed after venncal wrote it")
    assert small_caps == [1]  # not parsed


@pytest.mark.parametrize("where", ["head", "checksum", "trailer"])
def test_any_byte_changed_is_refused(saved, small_caps, where):
    path, _ = saved
    raw = bytearray(path.read_bytes())
    at = {"head": 5, "checksum": raw.rindex(b'"sha256": "') + 12, "trailer": len(raw) - 1}[where]
    raw[at : at + 1] = b" " if where != "checksum" else (b"0" if raw[at] != ord("0") else b"1")
    path.write_bytes(bytes(raw))
    with pytest.raises(ModelFileError):
        venncal.load(path)
    assert small_caps == []


def test_a_large_file_laid_out_anew_needs_max_bytes(saved, small_caps, monkeypatch):
    path, cal = saved
    path.write_text(json.dumps(json.loads(path.read_text()), indent=2))
    from venncal.persistence import _reading

    with monkeypatch.context() as mp:  # refused from its last bytes: the rest is never read
        mp.setattr(_reading, "io", None)
        message = refused_on_load(path, "does not end with the checksum of its bytes", "max_bytes=")
    assert "1024 bytes" in message
    assert small_caps == []
    loaded = venncal.load(path, max_bytes=10**7)  # checked by its values instead
    s = np.linspace(0, 1, 11)
    assert np.array_equal(loaded.predict_interval(s), cal.predict_interval(s))


def test_a_small_file_is_checked_by_its_values(saved):
    """Under the value-check cap, a stale byte checksum is not a refusal: an edit re-signed by
    the checksum of its values, in venncal's own layout, loads; one that is not is refused."""
    path, cal = saved
    text = path.read_text()
    edited = text.replace('"score": "margin"', '"score": "logit"')
    assert edited != text
    doc = json.loads(edited)
    good = checksum({k: v for k, v in doc.items() if k not in ("sha256", "bytes_sha256")})
    stale = doc["sha256"]
    path.write_text(edited.replace(stale, good))
    assert venncal.persistence.read_model_file(path).metadata == {"score": "logit"}
    path.write_text(edited)  # the values changed, no checksum recomputed
    refused_on_load(path, "the checksum does not match")


def test_format_1_files_are_still_read():
    """A file of format 1 (no checksum of its bytes) loads as before; above the value-check
    cap it needs max_bytes."""
    path = Path(__file__).parents[1] / "golden" / "platt_v1.json"
    assert json.loads(path.read_text())["format_version"] == 1
    venncal.load(path)
    size = path.stat().st_size
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_model_file, "VALUE_CHECK_BYTES", size - 1)
        refused_on_load(path, "does not end with the checksum of its bytes")
        venncal.load(path, max_bytes=size)


def test_a_file_that_grows_past_its_stat_size_is_read_whole(saved, monkeypatch):
    """The reader sizes its buffer by the file's size, and still reads bytes appended after."""
    path, _ = saved
    from venncal.persistence import _reading

    raw = path.read_bytes()
    real_fstat = _reading.os.fstat

    class Short:
        def __init__(self, info):
            self.st_mode, self.st_size = info.st_mode, len(raw) // 3

    monkeypatch.setattr(_reading.os, "fstat", lambda fd: Short(real_fstat(fd)))
    assert bytes(_reading.read_bytes(path)) == raw
    with pytest.raises(_reading.ReadError, match="more than the 100"):
        _reading.read_bytes(path, 100)
