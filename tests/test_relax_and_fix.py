"""The columns relax-and-fix leaves free: in a big master, those sharing a pool with a partly placed job's."""

from __future__ import annotations

import time

import numpy as np

from fedopt.backends.base import SolveOptions
from fedopt.decompose import colgen
from fedopt.decompose.colgen import ColumnGeneration, _Columns
from fedopt.instance import load_instance

EXAMPLE = "instances/examples/fleet-m.json"


def test_sharing_pools_is_the_columns_on_the_same_capacity_rows():
    inst = load_instance(EXAMPLE)
    cg = ColumnGeneration(inst, SolveOptions(time_limit=20))
    cg._singles()
    cg.columns = _Columns(inst, cg.rows)
    cg.columns.add(*cg.columns.prepare(cg.singles))
    mp = cg.columns.master()
    dense = mp.A.toarray() != 0
    capacity = cg.rows.families() == "capacity"
    rng = np.random.default_rng(3)
    for picked in ([], [0], rng.choice(mp.n_cols, 5, replace=False).tolist()):
        cols = np.zeros(mp.n_cols, dtype=bool)
        cols[picked] = True
        rows = dense[:, cols].any(axis=1) & capacity
        expected = dense[rows].any(axis=0)
        got = cg._sharing_pools(mp, cols)
        assert got.dtype == bool and got.shape == (mp.n_cols,)
        assert (got == expected).all()
        assert got[cols].all()  # a column shares its own pool
        if picked:
            assert 0 < got.sum() < mp.n_cols  # fleet-m has 12 pools: some columns are elsewhere


def _first_mip_columns(monkeypatch, wide_from: int) -> tuple[int, int]:
    """(columns of relax-and-fix's MIP, columns in the master) on fleet-m with ``WIDE_FIX_COLUMNS = wide_from``."""
    sizes: list[int] = []

    class Recording(colgen.HighsBackend):
        def solve_mip(self, mp, opts):
            sizes.append(mp.n_cols)
            return super().solve_mip(mp, opts)

    monkeypatch.setattr(colgen, "HighsBackend", Recording)
    monkeypatch.setattr(colgen, "WIDE_FIX_COLUMNS", wide_from)
    inst = load_instance(EXAMPLE)
    cg = ColumnGeneration(inst, SolveOptions(time_limit=20, seed=1))
    seen: list[int] = []
    fix = cg._relax_and_fix

    def recording_fix(until):
        seen.append(cg.columns.n)
        fix(until)

    monkeypatch.setattr(cg, "_relax_and_fix", recording_fix)
    cg.run(time.perf_counter() + 20)
    return sizes[0], seen[0]


def test_pools_of_partly_placed_jobs_are_freed_only_in_a_big_master(monkeypatch):
    narrow, master = _first_mip_columns(monkeypatch, wide_from=10**9)
    wide, _ = _first_mip_columns(monkeypatch, wide_from=master)
    assert narrow < wide <= master
