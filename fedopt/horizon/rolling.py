"""Rolling horizon: solve a window of start slots, commit its first part, roll on.

For horizons too long to solve whole, each step solves (by column generation) the jobs not yet
committed with start slots in ``[w0, w0 + window)``, within what the committed jobs leave of
every limit in every slot, and commits the jobs that start before ``w0 + commit``. The last
step takes every remaining start slot. A proven bound comes from one column generation over
the whole horizon first (its Lagrangian bound), so the gap of the committed plan is known.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from fedopt.horizon.colgen import TimedColumnGeneration


@dataclass
class RollingResult:
    chosen: np.ndarray  # committed candidates (indices in the full candidate set)
    objective: float  # value of the committed plan (maximized)
    bound: float | None  # upper bound of the value, over the whole horizon
    steps: list[dict]


def windows(slots: int, window: int, commit: int) -> list[tuple[int, int, int]]:
    """(first start, end of the window's starts, end of the committed starts) per step."""
    out, w0 = [], 0
    while w0 < slots:
        last = w0 + commit >= slots or w0 + window >= slots
        out.append((w0, slots if last else w0 + window, slots if last else w0 + commit))
        if last:
            break
        w0 += commit
    return out


def solve_rolling(
    cg: TimedColumnGeneration, deadline: float, window: int, commit: int, bound_share: float = 0.15
) -> RollingResult:
    tc, job, value, constant = cg.full
    t0 = time.perf_counter()
    bound = cg.lp_bound(t0 + (deadline - t0) * bound_share)
    fixed = np.zeros(0, dtype=np.int64)
    fixed_job = np.zeros(cg.inst.n_jobs, dtype=bool)
    steps: list[dict] = []
    plan = windows(cg.slots, window, commit)
    for i, (w0, w_end, c_end) in enumerate(plan):
        keep = (tc.start >= w0) & (tc.start < w_end) & ~fixed_job[job]
        cg.restrict(keep, fixed)
        now = time.perf_counter()
        out = cg.run(now + max(0.5, (deadline - now) / (len(plan) - i)))
        new = out.chosen[tc.start[out.chosen] < c_end]
        fixed = np.concatenate([fixed, new])
        fixed_job[job[new]] = True
        steps.append({"first_slot": w0, "window_end": w_end, "committed_until": c_end, "committed": len(new)})
    objective = constant + float(value[fixed].sum())
    if bound is not None:
        bound = max(bound, objective)
    return RollingResult(fixed, objective, bound, steps)
