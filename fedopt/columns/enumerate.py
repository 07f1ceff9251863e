"""Enumeration of every valid placement (rules 1-3) of every job, as a ColumnPool.

Single-pool placements are built for all jobs at once with numpy. Splits over several clusters
are enumerated per job (cluster subsets x compositions of the total) up to a budget; past it the
pool is marked incomplete, and the exact method's bound then covers only what was enumerated.
"""

from __future__ import annotations

import math
from functools import lru_cache
from itertools import combinations

import numpy as np

from fedopt.columns.pool import ColumnPool
from fedopt.instance.model import Instance

DEFAULT_SPLIT_BUDGET = 400_000


def _job_totals(inst: Instance) -> tuple[np.ndarray, np.ndarray]:
    """Flat (job, total) pairs of every allowed total that is a multiple of the granularity."""
    jobs, totals = [], []
    for j, t in enumerate(inst.job_totals):
        t = t[t % inst.job_granularity[j] == 0]
        jobs.append(np.full(len(t), j, dtype=np.int64))
        totals.append(t)
    return np.concatenate(jobs), np.concatenate(totals)


def single_pool_columns(inst: Instance, jobs: np.ndarray | None = None) -> ColumnPool:
    """Every one-part placement of the given jobs (default: all), vectorized."""
    ok = inst.pool_ok
    if jobs is not None:
        mask = np.zeros(inst.n_jobs, dtype=bool)
        mask[jobs] = True
        ok = ok & mask[:, None]
    pj, pp = np.nonzero(ok)  # eligible (job, pool) pairs, sorted by job
    if inst.n_jobs == 0 or len(pj) == 0:
        return ColumnPool.empty(inst)
    tj, tv = _job_totals(inst)
    starts = np.searchsorted(tj, np.arange(inst.n_jobs))
    counts = np.bincount(tj, minlength=inst.n_jobs)
    rep = counts[pj]
    col_job = np.repeat(pj, rep)
    col_pool = np.repeat(pp, rep)
    offs = np.arange(rep.sum()) - np.repeat(np.cumsum(rep) - rep, rep)
    col_total = tv[np.repeat(starts[pj], rep) + offs]
    fits = col_total <= inst.pool_cards[col_pool]
    col_job, col_pool, col_total = col_job[fits], col_pool[fits], col_total[fits]
    n = len(col_job)
    return ColumnPool(
        inst,
        col_job,
        inst.pool_type[col_pool],
        col_total,
        np.arange(n + 1, dtype=np.int64),
        inst.pool_cluster[col_pool],
        col_total.copy(),
    )


@lru_cache(maxsize=512)
def _compositions(units: int, k: int) -> np.ndarray:
    """All ways to write ``units`` as an ordered sum of k positive integers, [m, k]."""
    if k == 1:
        return np.array([[units]], dtype=np.int64)
    cuts = np.array(list(combinations(range(1, units), k - 1)), dtype=np.int64).reshape(-1, k - 1)
    edges = np.hstack([np.zeros((len(cuts), 1), dtype=np.int64), cuts, np.full((len(cuts), 1), units)])
    return np.diff(edges, axis=1)


def split_columns(inst: Instance, budget: int = DEFAULT_SPLIT_BUDGET, jobs: np.ndarray | None = None) -> ColumnPool:
    """Placements of 2..max_parts parts in distinct clusters, same card type, within scope."""
    job_l, type_l, total_l, ptr_l, cl_l, cnt_l = [], [], [], [0], [], []
    made = 0
    complete = True
    skipped: set[int] = set()
    notes: list[str] = []
    ok = inst.pool_ok
    candidates = np.flatnonzero(inst.job_max_parts >= 2) if jobs is None else [j for j in jobs if inst.job_max_parts[j] >= 2]
    for j in candidates:
        g = int(inst.job_granularity[j])
        totals = [int(t) for t in inst.job_totals[j] if t % g == 0]
        kmax = int(inst.job_max_parts[j])
        for t in np.flatnonzero(inst.type_ok[j]):
            pools = np.flatnonzero(ok[j] & (inst.pool_type == t))
            if len(pools) < 2:
                continue
            groups = (
                [pools]
                if inst.job_federation[j]
                else [
                    pools[inst.cluster_region[inst.pool_cluster[pools]] == r]
                    for r in np.unique(inst.cluster_region[inst.pool_cluster[pools]])
                ]
            )
            for group in groups:
                for k in range(2, min(kmax, len(group)) + 1):
                    for combo in combinations(group.tolist(), k):
                        caps = inst.pool_cards[list(combo)] // g
                        for total in totals:
                            units = total // g
                            if units < k or caps.sum() < units:
                                continue
                            if math.comb(units - 1, k - 1) > budget - made:
                                skipped.add(int(j))  # too many ways to split this total: leave it out
                                continue
                            comps = _compositions(units, k)
                            comps = comps[(comps <= caps).all(axis=1)]
                            if made + len(comps) > budget:
                                complete = False
                                comps = comps[: max(budget - made, 0)]
                            m = len(comps)
                            if m == 0:
                                continue
                            made += m
                            job_l.append(np.full(m, j))
                            type_l.append(np.full(m, t))
                            total_l.append(np.full(m, total))
                            cl_l.append(np.tile(inst.pool_cluster[list(combo)], m))
                            cnt_l.append((comps * g).ravel())
                            ptr_l.append(np.full(m, k))
        if not complete:
            notes.append(f"split enumeration stopped at the budget of {budget} columns (job {inst.job_ids[j]})")
            skipped.update(int(k) for k in candidates[list(candidates).index(j) :])
            break
    if skipped:
        complete = False
        left_out = sorted(skipped)
        names = ", ".join(inst.job_ids[j] for j in left_out[:5])
        notes.append(f"splits left out (too many compositions or the budget) for {len(left_out)} jobs ({names})")
    if not job_l:
        pool = ColumnPool.empty(inst)
        pool.complete = complete
        pool.notes = notes
        pool.incomplete_jobs = frozenset(skipped)
        return pool
    ptr = np.concatenate([[0], np.cumsum(np.concatenate(ptr_l[1:]))]).astype(np.int64)
    return ColumnPool(
        inst,
        np.concatenate(job_l).astype(np.int64),
        np.concatenate(type_l).astype(np.int64),
        np.concatenate(total_l).astype(np.int64),
        ptr,
        np.concatenate(cl_l).astype(np.int64),
        np.concatenate(cnt_l).astype(np.int64),
        complete,
        notes,
        frozenset(skipped),
    )


def enumerate_columns(inst: Instance, split_budget: int = DEFAULT_SPLIT_BUDGET) -> ColumnPool:
    """Every valid placement of every job (within the split budget)."""
    return ColumnPool.concat(inst, [single_pool_columns(inst), split_columns(inst, split_budget)])


def running_columns(inst: Instance) -> ColumnPool:
    """The running placement of every running job, as columns (whatever rules they break)."""
    job_l, type_l, total_l, ptr, cl_l, cnt_l = [], [], [], [0], [], []
    for j, run in enumerate(inst.running):
        if not run:
            continue
        job_l.append(j)
        type_l.append(run[0][1])
        total_l.append(sum(p[2] for p in run))
        cl_l.extend(p[0] for p in run)
        cnt_l.extend(p[2] for p in run)
        ptr.append(ptr[-1] + len(run))
    if not job_l:
        return ColumnPool.empty(inst)
    arr = lambda v: np.array(v, dtype=np.int64)  # noqa: E731
    return ColumnPool(inst, arr(job_l), arr(type_l), arr(total_l), arr(ptr), arr(cl_l), arr(cnt_l))


def placement_columns(inst: Instance, placements: list[tuple[int, int, int, list[int], list[int]]]) -> ColumnPool:
    """Columns from explicit placements ``(job, type, total, clusters, counts)``."""
    if not placements:
        return ColumnPool.empty(inst)
    job = np.array([p[0] for p in placements], dtype=np.int64)
    ctype = np.array([p[1] for p in placements], dtype=np.int64)
    total = np.array([p[2] for p in placements], dtype=np.int64)
    lens = np.array([len(p[3]) for p in placements], dtype=np.int64)
    ptr = np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)
    clusters = np.concatenate([np.asarray(p[3], dtype=np.int64) for p in placements])
    counts = np.concatenate([np.asarray(p[4], dtype=np.int64) for p in placements])
    return ColumnPool(inst, job, ctype, total, ptr, clusters, counts)
