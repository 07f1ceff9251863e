"""Rule 8: ``same_region`` and ``different_cluster`` between pairs of placed jobs.

different_cluster, per shared cluster q:   x(a uses q) + x(b uses q) <= 1.
same_region, per region r and direction:   x(a lies in r) + x(b placed, not all in r) <= 1,
plus x(a spans regions) + x(b placed) <= 1: both placed forces one common region.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from fedopt.columns.pool import ColumnPool
from fedopt.constraints.base import RowBlock


def admits(cols: ColumnPool) -> np.ndarray:
    return np.ones(cols.size, dtype=bool)


def _by_job(cols: ColumnPool) -> tuple[np.ndarray, np.ndarray]:
    order = np.argsort(cols.job, kind="stable")
    starts = np.searchsorted(cols.job[order], np.arange(cols.inst.n_jobs + 1))
    return order, starts


def rows(cols: ColumnPool) -> RowBlock:
    inst = cols.inst
    order, starts = _by_job(cols)
    r_idx: list[np.ndarray] = []
    c_idx: list[np.ndarray] = []
    labels: list[str] = []

    def add(columns: np.ndarray, label: str) -> None:
        r_idx.append(np.full(len(columns), len(labels)))
        c_idx.append(columns)
        labels.append(label)

    use = cols.cluster_use.tocsc()
    for a, b in inst.different_cluster_pairs:
        ca, cb = order[starts[a] : starts[a + 1]], order[starts[b] : starts[b + 1]]
        ua, ub = use[ca], use[cb]
        shared = np.flatnonzero((np.asarray(ua.sum(axis=0)).ravel() > 0) & (np.asarray(ub.sum(axis=0)).ravel() > 0))
        for q in shared:
            hit = np.concatenate([ca[ua[:, q].toarray().ravel() > 0], cb[ub[:, q].toarray().ravel() > 0]])
            add(hit, f"different_cluster {inst.job_ids[a]}/{inst.job_ids[b]} in {inst.cluster_ids[q]}")
    region = cols.single_region
    for a, b in inst.same_region_pairs:
        ca, cb = order[starts[a] : starts[a + 1]], order[starts[b] : starts[b + 1]]
        if not len(ca) or not len(cb):
            continue
        for x, y in ((ca, cb), (cb, ca)):
            jx, jy = inst.job_ids[cols.job[x[0]]], inst.job_ids[cols.job[y[0]]]
            for r in np.unique(region[x][region[x] >= 0]):
                add(np.concatenate([x[region[x] == r], y[region[y] != r]]), f"same_region {jx}->{jy} at {inst.region_ids[r]}")
            multi = x[region[x] < 0]
            if len(multi):
                add(np.concatenate([multi, y]), f"same_region {jx} spans regions while {jy} placed")
    n = len(labels)
    if n:
        rr, cc = np.concatenate(r_idx), np.concatenate(c_idx)
        A = sp.csr_matrix((np.ones(len(rr)), (rr, cc)), shape=(n, cols.size))
    else:
        A = sp.csr_matrix((0, cols.size))
    return RowBlock("affinity", A, np.full(n, -np.inf), np.ones(n), labels)
