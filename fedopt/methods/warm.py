"""Warm starts: a previous plan's placements as columns and as a starting 0/1 vector."""

from __future__ import annotations

import numpy as np

from fedopt.columns.enumerate import placement_columns
from fedopt.columns.pool import ColumnPool
from fedopt.columns.rules import valid_placements
from fedopt.instance.model import Instance
from fedopt.instance.schema import PlanDoc
from fedopt.master import MasterProblem


def previous_columns(inst: Instance, previous: PlanDoc | None) -> ColumnPool:
    """The previous plan's placements that still name known jobs and pools and keep rules 1-3."""
    if previous is None:
        return ColumnPool.empty(inst)
    rows = []
    for a in previous.assignments:
        j = inst.job_index.get(a.job)
        parts = [(inst.cluster_index.get(p.cluster), inst.type_index.get(p.card_type), p.count) for p in a.parts]
        if j is None or any(c is None or t is None or (c, t) not in inst.pool_index for c, t, _ in parts):
            continue
        if len({t for _, t, _ in parts}) != 1:
            continue
        rows.append((j, parts[0][1], sum(n for _, _, n in parts), [c for c, _, _ in parts], [n for _, _, n in parts]))
    cols = placement_columns(inst, rows)
    return cols.subset(valid_placements(cols)) if cols.size else cols


def warm_x(mp: MasterProblem, warm: ColumnPool) -> np.ndarray | None:
    """A 0/1 vector over ``mp`` selecting the warm placements found among its columns, if feasible."""
    if not warm.size or not mp.n_cols:
        return None
    index: dict[tuple, int] = {}
    cols = mp.cols
    for c in range(cols.size):
        index.setdefault((int(cols.job[c]), tuple(sorted(cols.parts_of(c)))), c)
    x = np.zeros(mp.n_cols)
    for c in range(warm.size):
        hit = index.get((int(warm.job[c]), tuple(sorted(warm.parts_of(c)))))
        if hit is not None:
            x[hit] = 1.0
    return x if mp.is_feasible(x) else None
