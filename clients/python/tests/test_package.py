"""The package builds as a wheel offline (setuptools from Debian) and imports from it, typed."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_builds_and_installs_as_a_wheel(tmp_path: Path) -> None:
    # Built from a copy: setuptools writes build/ and *.egg-info/ beside the sources.
    src = tmp_path / "src-copy"
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns("tests", "build", "*.egg-info", "__pycache__", ".pytest_cache"))
    build = (
        "import sys; from setuptools import build_meta as b; "
        "print(b.build_wheel(sys.argv[1]))"
    )
    out = subprocess.run([sys.executable, "-c", build, str(tmp_path / "dist")], cwd=src, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-3000:]
    wheel = tmp_path / "dist" / out.stdout.strip().splitlines()[-1]
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        meta = z.read(next(n for n in names if n.endswith("METADATA"))).decode()
        z.extractall(tmp_path / "site")
    assert "census_data_service/py.typed" in names
    assert "Requires-Dist: requests" in meta and "Requires-Dist: pandas" in meta
    assert "Requires-Dist: geopandas" in meta and "extra == 'geo'" in meta
    check = "import census_data_service as c; print(c.__file__, c.__version__)"
    run = subprocess.run([sys.executable, "-c", check], cwd=tmp_path, env={"PYTHONPATH": str(tmp_path / "site")}, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert str(tmp_path / "site") in run.stdout and run.stdout.split()[-1] == "0.1.0"
    assert wheel.name.startswith("census_data_service-0.1.0-")
