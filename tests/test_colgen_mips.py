"""The MIPs colgen solves on fleet-m: what relax-and-fix frees, and where HiGHS's presolve is off."""

from __future__ import annotations

import time

from fedopt.backends.base import SolveOptions
from fedopt.decompose import colgen
from fedopt.instance import load_instance

EXAMPLE = "instances/examples/fleet-m.json"


def _mips(monkeypatch, **constants: int) -> tuple[list[tuple[int, bool]], int]:
    """((columns, presolve) of each MIP in solve order, columns in the master at relax-and-fix),
    with colgen's module constants set to ``constants``."""
    calls: list[tuple[int, bool]] = []

    class Recording(colgen.HighsBackend):
        def solve_mip(self, mp, opts):
            calls.append((mp.n_cols, opts.presolve))
            return super().solve_mip(mp, opts)

    monkeypatch.setattr(colgen, "HighsBackend", Recording)
    for name, value in constants.items():
        monkeypatch.setattr(colgen, name, value)
    cg = colgen.ColumnGeneration(load_instance(EXAMPLE), SolveOptions(time_limit=20, seed=1))
    master: list[int] = []
    fix = cg._relax_and_fix

    def recording_fix(until):
        master.append(cg.columns.n)
        fix(until)

    monkeypatch.setattr(cg, "_relax_and_fix", recording_fix)
    res = cg.run(time.perf_counter() + 20)
    assert res.x is not None and res.mp.is_feasible(res.x)
    assert len(calls) >= 2 and len(master) == 1  # relax-and-fix's MIP, then the final one
    return calls, master[0]


def test_pools_of_partly_placed_jobs_are_freed_only_in_a_big_master(monkeypatch):
    narrow, master = _mips(monkeypatch, WIDE_FIX_COLUMNS=10**9)
    wide, _ = _mips(monkeypatch, WIDE_FIX_COLUMNS=master)
    assert narrow[0][0] < wide[0][0] <= master


def test_final_mip_presolve_depends_on_its_size(monkeypatch):
    small, _ = _mips(monkeypatch, FINAL_PRESOLVE_MAX_COLUMNS=10**9)
    assert all(presolve for _, presolve in small)
    final_cols = small[-1][0]
    big, _ = _mips(monkeypatch, FINAL_PRESOLVE_MAX_COLUMNS=final_cols)
    assert big[-1] == (final_cols, False)
    assert all(presolve for _, presolve in big[:-1])  # relax-and-fix keeps it
