"""Rule 8: ``same_region`` and ``different_cluster`` between pairs of placed jobs.

different_cluster, per cluster q both jobs could use:  x(a uses q) + x(b uses q) <= 1.
same_region, per direction (x, y) and region r x could use:
    x(x lies in r) + x(y placed, not all in r) <= 1,
and, when x could span regions, x(x spans regions) + x(y placed) <= 1.
If both are placed, x lies in one region r (else the last row breaks) and then y lies in r too.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from fedopt.columns.pool import ColumnPool
from fedopt.constraints.base import RowSet
from fedopt.instance.model import Instance

MULTI = -1  # region key of the "spans regions" row


@dataclass(frozen=True)
class AffinityKeys:
    kind: np.ndarray  # 0 different_cluster, 1 same_region
    x: np.ndarray  # job
    y: np.ndarray  # partner job
    where: np.ndarray  # cluster (kind 0) or region or MULTI (kind 1)


def admits(cols: ColumnPool) -> np.ndarray:
    return np.ones(cols.size, dtype=bool)


def row_set(inst: Instance) -> RowSet:
    kind, xs, ys, where, labels = [], [], [], [], []
    cluster_ok = np.zeros((inst.n_jobs, len(inst.cluster_ids)), dtype=bool)
    jj, pp = np.nonzero(inst.pool_ok)
    cluster_ok[jj, inst.pool_cluster[pp]] = True
    region_ok = np.zeros((inst.n_jobs, len(inst.region_ids)), dtype=bool)
    region_ok[jj, inst.cluster_region[inst.pool_cluster[pp]]] = True
    for a, b in inst.different_cluster_pairs:
        for q in np.flatnonzero(cluster_ok[a] & cluster_ok[b]):
            kind.append(0), xs.append(a), ys.append(b), where.append(q)
            labels.append(f"different_cluster {inst.job_ids[a]}/{inst.job_ids[b]} in {inst.cluster_ids[q]}")
    for a, b in inst.same_region_pairs:
        if not (region_ok[a].any() and region_ok[b].any()):
            continue
        for x, y in ((a, b), (b, a)):
            for r in np.flatnonzero(region_ok[x]):
                kind.append(1), xs.append(x), ys.append(y), where.append(r)
                labels.append(f"same_region {inst.job_ids[x]}->{inst.job_ids[y]} at {inst.region_ids[r]}")
            if inst.job_max_parts[x] > 1 and inst.job_federation[x] and region_ok[x].sum() > 1:
                kind.append(1), xs.append(x), ys.append(y), where.append(MULTI)
                labels.append(f"same_region {inst.job_ids[x]} spans regions while {inst.job_ids[y]} placed")
    n = len(labels)
    keys = AffinityKeys(*(np.array(v, dtype=np.int64) for v in (kind, xs, ys, where)))
    return RowSet("affinity", np.full(n, -np.inf), np.ones(n), labels, keys)


def matrix(cols: ColumnPool, rows: RowSet) -> sp.csr_matrix:
    k: AffinityKeys = rows.keys
    if rows.n == 0 or cols.size == 0:
        return sp.csr_matrix((rows.n, cols.size))
    order = np.argsort(cols.job, kind="stable")
    starts = np.searchsorted(cols.job[order], np.arange(cols.inst.n_jobs + 1))
    use = cols.cluster_use.tocsc()
    region = cols.single_region
    r_idx, c_idx = [], []
    for row in range(rows.n):
        cx = order[starts[k.x[row]] : starts[k.x[row] + 1]]
        cy = order[starts[k.y[row]] : starts[k.y[row] + 1]]
        if k.kind[row] == 0:
            q = k.where[row]
            hit = np.concatenate([cx[use[cx, q].toarray().ravel() > 0], cy[use[cy, q].toarray().ravel() > 0]])
        elif k.where[row] == MULTI:
            hit = np.concatenate([cx[region[cx] < 0], cy])
        else:
            r = k.where[row]
            hit = np.concatenate([cx[region[cx] == r], cy[region[cy] != r]])
        r_idx.append(np.full(len(hit), row))
        c_idx.append(hit)
    rr, cc = np.concatenate(r_idx), np.concatenate(c_idx)
    return sp.csr_matrix((np.ones(len(rr)), (rr, cc)), shape=(rows.n, cols.size))
