"""The relaxed full model: its bound never below the exact optimum, its plan a real plan."""

from __future__ import annotations

import numpy as np

import fedopt
from fedopt.backends.base import SolveOptions
from fedopt.columns.enumerate import placement_columns, running_columns
from fedopt.columns.rules import valid_placements
from fedopt.columns.value import snapshot_constant
from fedopt.decompose.colgen import ColumnGeneration, _Columns
from fedopt.decompose.split_relax import RelaxationBound, decode_splits, relaxed_model
from fedopt.instance import load_instance

EXAMPLE = "instances/examples/fleet-m.json"  # 9 splittable gangs


def _relaxation(inst):
    cg = ColumnGeneration(inst, SolveOptions(time_limit=20))
    cg._singles()
    _, rv, rm = _Columns(inst, cg.rows).prepare(running_columns(inst).subset(valid_placements(running_columns(inst))))
    split_jobs = [int(j) for j in np.flatnonzero((inst.job_max_parts >= 2) & ~inst.pinned)]
    columns = [(cg.singles_value, cg.singles_AT.T.tocsc()), (rv, rm)]
    model, block = relaxed_model(inst, cg.rows, columns, split_jobs, snapshot_constant(inst))
    assert block.groups  # the split block is exercised
    rb = RelaxationBound(model, 20)
    bound = rb.finish(grace=25)
    return bound, rb.x, block, cg.singles.size + len(rv)


def test_relaxation_bound_is_valid_and_its_splits_are_placements():
    inst = load_instance(EXAMPLE)
    exact = fedopt.solve(inst, method="exact", time_limit=30)
    assert exact.status == "optimal"
    bound, x, block, n_base = _relaxation(inst)
    assert bound is not None and x is not None
    assert bound >= exact.objective - 1e-6 * max(1.0, abs(exact.objective))
    # decoded splits obey rules 1-3 (type, distinct clusters, parts, granularity, total)
    splits = placement_columns(inst, decode_splits(inst, block, x[n_base:]))
    assert valid_placements(splits).all()


def test_colgen_keeps_the_lower_bound_and_stays_valid():
    inst = load_instance(EXAMPLE)
    exact = fedopt.solve(inst, method="exact", time_limit=30)
    colgen = fedopt.solve(inst, method="colgen", time_limit=20)
    assert colgen.bound >= exact.objective - 1e-6 * max(1.0, abs(exact.objective))
    rb = colgen.stats["relaxation_bound"]
    assert rb is None or colgen.bound <= rb + 1e-9


def test_solve_goes_on_without_the_child(monkeypatch):
    # no temporary directory (or no process) for the relaxation: column generation's bound alone
    import fedopt.backends.highs_process as hp

    def no_tmp(*a, **k):
        raise OSError("read-only file system")

    monkeypatch.setattr(hp.tempfile, "mkdtemp", no_tmp)
    inst = load_instance(EXAMPLE)
    res = fedopt.solve(inst, method="colgen", time_limit=20)
    assert res.stats["relaxation_bound"] is None and res.objective > 0
    assert fedopt.check_plan(inst, res.to_doc()).ok
