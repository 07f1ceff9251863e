"""The exact method: every placement enumerated, one MIP (spec section 2 as it stands)."""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from fedopt.backends import SolveOptions, get_backend
from fedopt.columns.enumerate import DEFAULT_SPLIT_BUDGET, enumerate_columns
from fedopt.greedy import greedy_x
from fedopt.instance.model import Instance
from fedopt.master import MasterProblem, admissible, build_master
from fedopt.methods import Outcome, Placements


def placements_of(mp: MasterProblem, x: np.ndarray) -> Placements:
    cols = mp.cols
    return {int(cols.job[c]): cols.parts_of(int(c)) for c in np.flatnonzero(x > 0.5)}


def build(inst: Instance, split_budget: int = DEFAULT_SPLIT_BUDGET) -> tuple[MasterProblem, dict[str, Any]]:
    """Columns and master of the exact model, with build statistics."""
    t0 = time.perf_counter()
    full = enumerate_columns(inst, split_budget)
    t1 = time.perf_counter()
    cols = full.subset(admissible(full))
    mp = build_master(cols)
    useful = (mp.c > 1e-12) | inst.pinned[cols.job]  # a column worth <= 0 is never better than none
    if not useful.all():
        mp = build_master(cols.subset(useful))
    stats = {
        "columns_enumerated": int(full.size),
        "columns": int(mp.n_cols),
        "rows": int(mp.n_rows),
        "nonzeros": int(mp.A.nnz),
        "enumeration_complete": bool(full.complete),
        "seconds_enumerate": t1 - t0,
        "seconds_build": time.perf_counter() - t1,
    }
    if full.notes:
        stats["notes"] = list(full.notes)
    return mp, stats


def solve_exact(inst: Instance, opts: SolveOptions, backend: str, split_budget: int, deadline: float, warm=None) -> Outcome:
    mp, stats = build(inst, split_budget)
    t = time.perf_counter()
    hint = greedy_x(mp)
    if warm is not None:
        from fedopt.methods.warm import warm_x

        wx = warm_x(mp, warm)
        if wx is not None:
            wx = greedy_x(mp, start=wx)
            stats["warm_objective"] = mp.objective_of(wx)
            if mp.objective_of(wx) > mp.objective_of(hint):
                hint = wx
    stats["seconds_greedy"] = time.perf_counter() - t
    stats["greedy_objective"] = mp.objective_of(hint)
    opts.time_limit = max(0.1, (deadline - time.perf_counter()) * 0.9 - 0.5)
    opts.hint = hint
    if mp.n_cols == 0:  # nothing can be placed: the empty plan is optimal
        return Outcome({}, "optimal", mp.constant, mp.constant, {"backend": {"name": backend}}, stats)
    res = get_backend(backend).solve_mip(mp, opts)
    x = res.x
    if x is None or not mp.is_feasible(x) or mp.objective_of(x) < mp.objective_of(hint) - 1e-9:
        x = hint
    if not mp.is_feasible(x):  # only a >= row (max_moves) can make the greedy plan infeasible
        from fedopt.errors import InfeasibleError

        raise InfeasibleError([f"no plan found that meets every limit (solver: {res.status}); max_moves may be too small"])
    status = res.status
    if status == "optimal" and not stats["enumeration_complete"]:
        status = "feasible"
    if status in ("error", "infeasible"):
        status = "feasible"
    bound = res.bound if stats["enumeration_complete"] else None
    objective = mp.objective_of(x)
    if bound is not None and bound < objective:
        bound = objective  # the solver's bound, rounded
    if status == "optimal" and (bound is None or bound - objective > max(opts.mip_gap, 1e-9) * max(1.0, abs(objective)) + 1e-7):
        status = "feasible"  # never call a plan optimal that its own bound does not close
    stats["seconds_solve"] = res.seconds
    return Outcome(placements_of(mp, x), status, objective, bound, {"backend": res.info | {"name": backend}}, stats)
