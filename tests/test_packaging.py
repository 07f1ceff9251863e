"""What a regular (non-editable) install ships: the files the package reads at run time.

A wheel holds the package directory only; the catalog and calibrated parameters once lived in a
top-level models/ and a `pip install .` then failed on the first card lookup (2026-12-04).
"""

from __future__ import annotations

import fnmatch
import tomllib
from pathlib import Path

import fedopt
from fedopt.normalize import calibrate, intervals
from fedopt.normalize.catalog import CATALOG_PATH, MODELS_DIR

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = Path(fedopt.__file__).resolve().parent


def _package_data() -> list[str]:
    doc = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return doc["tool"]["setuptools"]["package-data"]["fedopt"]


def test_run_time_files_live_in_the_package():
    for path in (MODELS_DIR, CATALOG_PATH, calibrate.PARAMS_PATH, intervals.INTERVALS_PATH):
        assert PACKAGE in path.resolve().parents, path


def test_every_model_file_is_package_data():
    globs = _package_data()
    files = [p.relative_to(PACKAGE).as_posix() for p in MODELS_DIR.iterdir() if p.is_file()]
    assert {"models/catalog.json", "models/normalize_params.json", "models/normalize_intervals.json"} <= set(files)
    for rel in files:
        assert any(fnmatch.fnmatch(rel, g) for g in globs), f"{rel} is not in [tool.setuptools.package-data]"
