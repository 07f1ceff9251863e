"""Shared fixtures: the spec's worked examples and the tiny per-rule instances."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SPEC_EXAMPLES = ROOT.parent / "shared" / "spec" / "examples"
TINY = ROOT / "instances" / "tiny"
TINY_OPTIMA: dict[str, float] = json.loads((TINY / "optima.json").read_text())


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: longer solves (still part of CI)")


@pytest.fixture
def spec_examples() -> Path:
    if not SPEC_EXAMPLES.exists():
        pytest.skip("shared/spec/examples not beside the project")
    return SPEC_EXAMPLES


def tiny_doc(name: str) -> dict:
    return json.loads((TINY / f"{name}.json").read_text())
