"""Rules 1-3 on columns, vectorized: for placements that were not built to satisfy them
(running placements read from the instance)."""

from __future__ import annotations

import numpy as np

from fedopt.columns.pool import ColumnPool


def valid_placements(cols: ColumnPool) -> np.ndarray:
    inst = cols.inst
    if not cols.size:
        return np.zeros(0, dtype=bool)
    job = cols.job
    ok = inst.type_ok[job, cols.ctype]
    part_job = job[cols.part_col]
    bad_part = ~inst.region_ok[part_job, cols.part_region]
    bad_part |= (cols.part_count <= 0) | (cols.part_count % inst.job_granularity[part_job] != 0)
    bad_part |= cols.part_pool < 0
    ok &= np.bincount(cols.part_col, weights=bad_part, minlength=cols.size) == 0
    # distinct clusters: a column's cluster incidence counts each cluster once
    ok &= np.asarray(cols.cluster_use.sum(axis=1)).ravel() == cols.nparts
    ok &= cols.nparts <= inst.job_max_parts[job]
    ok &= (cols.nparts == 1) | inst.job_federation[job] | (cols.nregions == 1)
    allowed = np.array([cols.total[c] in set(inst.job_totals[j].tolist()) for c, j in enumerate(job)], dtype=bool)
    return ok & allowed
