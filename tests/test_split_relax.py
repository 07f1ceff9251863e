"""The relaxed full model's bound: never below the exact optimum, and no looser than the LP's."""

from __future__ import annotations

import time

import numpy as np

import fedopt
from fedopt.backends.base import SolveOptions
from fedopt.columns.enumerate import running_columns
from fedopt.columns.rules import valid_placements
from fedopt.columns.value import snapshot_constant
from fedopt.decompose.colgen import ColumnGeneration, _Columns
from fedopt.decompose.split_relax import RelaxationBound, relaxed_model
from fedopt.instance import load_instance

EXAMPLE = "instances/examples/fleet-s.json"


def _relaxation_bound(inst) -> float | None:
    cg = ColumnGeneration(inst, SolveOptions(time_limit=20))
    cg._singles()
    cols = _Columns(inst, cg.rows)
    running = running_columns(inst)
    _, rv, rm = cols.prepare(running.subset(valid_placements(running)))
    split_jobs = [int(j) for j in np.flatnonzero((inst.job_max_parts >= 2) & ~inst.pinned)]
    assert split_jobs  # the example has splittable gangs: the split block is exercised
    columns = [(cg.singles_value, cg.singles_AT.T.tocsc()), (rv, rm)]
    lp = relaxed_model(inst, cg.rows, columns, split_jobs, snapshot_constant(inst))
    rb = RelaxationBound(lp, 20)
    t0 = time.perf_counter()
    while not rb.h.wait(0.05)[0] and time.perf_counter() - t0 < 25:
        pass
    return rb.finish()


def test_relaxation_bound_is_valid_and_tight_on_the_example():
    inst = load_instance(EXAMPLE)
    exact = fedopt.solve(inst, method="exact", time_limit=30)
    assert exact.status == "optimal"
    bound = _relaxation_bound(inst)
    assert bound is not None
    assert bound >= exact.objective - 1e-6 * max(1.0, abs(exact.objective))
    colgen = fedopt.solve(inst, method="colgen", time_limit=20)
    assert colgen.bound >= exact.objective - 1e-6 * max(1.0, abs(exact.objective))
    assert colgen.stats["relaxation_bound"] is None or colgen.bound <= colgen.stats["relaxation_bound"] + 1e-9
