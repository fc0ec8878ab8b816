"""The CI's wheel inspection reports what a wheel lacks or should not hold."""

import importlib.util
import zipfile
from pathlib import Path

import venncal

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("check_wheel", ROOT / ".ci" / "check_wheel.py")
check_wheel = importlib.util.module_from_spec(spec)
spec.loader.exec_module(check_wheel)


def _wheel(tmp_path, *, drop=(), extra=(), alter=()):
    """A wheel-shaped zip of the source tree's package, with files dropped, added or altered."""
    path = tmp_path / f"venncal-{venncal.__version__}-py3-none-any.whl"
    src = ROOT / "src"
    with zipfile.ZipFile(path, "w") as zf:
        for file in sorted((src / "venncal").rglob("*")):
            if not file.is_file() or "__pycache__" in file.parts:
                continue
            name = file.relative_to(src).as_posix()
            if name in drop:
                continue
            data = file.read_bytes() + (b"#" if name in alter else b"")
            zf.writestr(name, data)
        for name in extra:
            zf.writestr(name, b"")
        zf.writestr(f"venncal-{venncal.__version__}.dist-info/licenses/LICENSE", b"BSD")
        zf.writestr(
            f"venncal-{venncal.__version__}.dist-info/entry_points.txt",
            "[console_scripts]\nvenncal = venncal.cli:main\n",
        )
    return path


def test_a_complete_wheel_passes(tmp_path):
    assert check_wheel.problems(_wheel(tmp_path)) == []


def test_missing_typing_marker_module_and_data_are_reported(tmp_path):
    data = next(
        f.relative_to(ROOT / "src").as_posix()
        for f in (ROOT / "src" / "venncal" / "datasets" / "data").rglob("*")
        if f.is_file()
    )
    found = check_wheel.problems(
        _wheel(tmp_path, drop={"venncal/py.typed", "venncal/metrics/_smooth.py", data})
    )
    assert any("py.typed" in line for line in found)
    assert any("_smooth.py is missing" in line for line in found)
    assert any(data in line for line in found)


def test_altered_files_and_foreign_folders_are_reported(tmp_path):
    found = check_wheel.problems(
        _wheel(tmp_path, alter={"venncal/__init__.py"}, extra={"tests/test_x.py"})
    )
    assert any("__init__.py differs" in line for line in found)
    assert any("tests/test_x.py" in line for line in found)


def test_the_main_entry_point_counts_the_wheels(tmp_path):
    assert check_wheel.main([str(tmp_path)]) == 1  # no wheel at all
    _wheel(tmp_path)
    assert check_wheel.main([str(tmp_path)]) == 0
