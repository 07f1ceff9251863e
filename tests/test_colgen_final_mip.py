"""colgen's final MIP: without HiGHS's presolve from a size on (it stalled on xl)."""

from __future__ import annotations

import time

from fedopt.backends.base import SolveOptions
from fedopt.decompose import colgen
from fedopt.instance import load_instance

EXAMPLE = "instances/examples/fleet-m.json"


def _presolve_of_each_mip(monkeypatch, presolve_below: int) -> list[tuple[int, bool]]:
    calls: list[tuple[int, bool]] = []

    class Recording(colgen.HighsBackend):
        def solve_mip(self, mp, opts):
            calls.append((mp.n_cols, opts.presolve))
            return super().solve_mip(mp, opts)

    monkeypatch.setattr(colgen, "HighsBackend", Recording)
    monkeypatch.setattr(colgen, "FINAL_PRESOLVE_MAX_COLUMNS", presolve_below)
    inst = load_instance(EXAMPLE)
    res = colgen.ColumnGeneration(inst, SolveOptions(time_limit=20, seed=1)).run(time.perf_counter() + 20)
    assert res.x is not None and res.mp.is_feasible(res.x)
    return calls


def test_final_mip_presolve_depends_on_its_size(monkeypatch):
    small = _presolve_of_each_mip(monkeypatch, presolve_below=10**9)
    assert len(small) >= 2 and all(presolve for _, presolve in small)  # relax-and-fix's MIP and the final one
    final_cols = small[-1][0]
    big = _presolve_of_each_mip(monkeypatch, presolve_below=final_cols)
    assert big[-1] == (final_cols, False)
    assert all(presolve for _, presolve in big[:-1])  # relax-and-fix keeps it
