"""Shared fixtures for the normalization tests."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def run_cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """``python -m fedopt ARGS`` in a subprocess (the interface outside checkers use)."""
    return subprocess.run([sys.executable, "-m", "fedopt", *args], capture_output=True, text=True, cwd=cwd or ROOT, timeout=120)


@pytest.fixture
def write(tmp_path):
    def _write(name: str, text: str) -> Path:
        p = tmp_path / name
        p.write_text(text)
        return p

    return _write


def measured_cell(d, workload: str, card: str, n: int) -> float:
    """The one throughput of a measurement table at (workload, card as written, count): a loader's row as published."""
    row = d[(d["workload"] == workload) & (d["card_type"] == card) & (d["cards"] == n)]
    assert len(row) == 1
    return row["throughput"].iloc[0]
