"""The baseline: what a Kubernetes/Karmada-style scheduler does.

One job at a time, by priority (then arrival order); running jobs keep their place; each job goes
whole to the eligible pool with the most free cards that admits it, at the largest allowed size,
blind to card speed and data locality; no splits, no migrations, no preemption.
"""

from __future__ import annotations

import numpy as np

from fedopt.columns.enumerate import running_columns, single_pool_columns
from fedopt.columns.pool import ColumnPool
from fedopt.columns.rules import valid_placements
from fedopt.instance.model import Instance
from fedopt.master import admissible, build_master
from fedopt.methods import Outcome
from fedopt.methods.exact import placements_of


def solve_greedy(inst: Instance) -> Outcome:
    running = running_columns(inst)
    running = running.subset(valid_placements(running))
    singles = single_pool_columns(inst)
    singles = singles.subset(~singles.is_running)
    cols = ColumnPool.concat(inst, [running, singles])
    cols = cols.subset(admissible(cols))
    mp = build_master(cols, drop_empty=False)
    A = mp.A.tocsc()
    x = np.zeros(mp.n_cols)
    act = np.zeros(mp.n_rows)
    hi = mp.hi + 1e-9

    def fits(c: int) -> bool:
        s, e = A.indptr[c], A.indptr[c + 1]
        return bool(np.all(act[A.indices[s:e]] + A.data[s:e] <= hi[A.indices[s:e]]))

    def take(c: int) -> None:
        s, e = A.indptr[c], A.indptr[c + 1]
        act[A.indices[s:e]] += A.data[s:e]
        x[c] = 1.0

    is_run = cols.is_running
    # running jobs stay where they are (pinned first)
    for c in np.flatnonzero(is_run)[np.argsort(~inst.pinned[cols.job[is_run]], kind="stable")]:
        if fits(c):
            take(c)
    placed = np.zeros(inst.n_jobs, dtype=bool)
    placed[cols.job[x > 0]] = True
    by_job: dict[int, np.ndarray] = {}
    order = np.argsort(cols.job, kind="stable")
    bounds = np.searchsorted(cols.job[order], np.arange(inst.n_jobs + 1))
    for j in range(inst.n_jobs):
        by_job[j] = order[bounds[j] : bounds[j + 1]]
    pool_free = inst.pool_cards.astype(float) - np.asarray(cols.pool_usage.T @ x).ravel()
    for j in sorted(range(inst.n_jobs), key=lambda j: (-inst.job_priority[j], j)):
        if placed[j] or inst.running[j] is not None:
            continue  # a preempted-by-nobody running job that no longer fits stays out
        cand = by_job[j]
        cand = cand[~is_run[cand]]
        if not len(cand):
            continue
        pools = cols.part_pool[cols.part_ptr[cand]]
        # most free pool first, then the largest size that fits
        for c in cand[np.lexsort((-cols.total[cand], -pool_free[pools]))]:
            if fits(c):
                take(c)
                pool_free[cols.part_pool[cols.part_ptr[c]]] -= cols.total[c]
                placed[j] = True
                break
    return Outcome(
        placements_of(mp, x), "feasible", mp.objective_of(x), None, {"backend": {"name": "greedy"}}, {"columns": int(mp.n_cols)}
    )
