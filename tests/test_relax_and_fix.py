"""The columns relax-and-fix leaves free: those sharing a pool with a partly placed job's."""

from __future__ import annotations

import numpy as np

from fedopt.backends.base import SolveOptions
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
