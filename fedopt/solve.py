"""``fedopt.solve``: from an instance to a checked plan.

The exact method enumerates every placement, builds the master MIP with arrays, starts the
backend from a greedy plan and returns the best plan with the solver's proven bound.
"""

from __future__ import annotations

import os
import time
from typing import Any

import numpy as np

from fedopt.backends import SolveOptions, get_backend
from fedopt.columns.enumerate import DEFAULT_SPLIT_BUDGET, enumerate_columns
from fedopt.feasibility import raise_if_pinned_infeasible
from fedopt.greedy import greedy_x
from fedopt.instance import Instance, load_instance
from fedopt.master import MasterProblem, admissible, build_master
from fedopt.plan import Result
from fedopt.presets import load_preset


def _placements(mp: MasterProblem, x: np.ndarray) -> dict[int, list[tuple[int, int, int]]]:
    cols = mp.cols
    return {int(cols.job[c]): cols.parts_of(int(c)) for c in np.flatnonzero(x > 0.5)}


def build(inst: Instance, split_budget: int = DEFAULT_SPLIT_BUDGET) -> tuple[MasterProblem, dict[str, Any]]:
    """Columns and master of the exact model, with build statistics."""
    t0 = time.perf_counter()
    full = enumerate_columns(inst, split_budget)
    t1 = time.perf_counter()
    keep = admissible(full)
    cols = full.subset(keep)
    mp = build_master(cols)
    useful = (mp.c > 1e-12) | inst.pinned[cols.job]  # a column worth <= 0 is never better than none
    if not useful.all():
        mp = build_master(cols.subset(useful))
    raise_if_pinned_infeasible(full, keep, mp)
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


def solve(
    instance: Instance | str | os.PathLike,
    *,
    backend: str = "highs",
    time_limit: float | None = None,
    seed: int = 0,
    preset: str | None = None,
    threads: int | None = None,
    mip_gap: float | None = None,
    verbose: bool = False,
) -> Result:
    """Solve a snapshot instance; the plan is checked before it is returned.

    ``preset`` names a file in ``solvers/`` whose values the other arguments override.
    """
    t_start = time.perf_counter()
    inst = instance if isinstance(instance, Instance) else load_instance(instance)
    t_loaded = time.perf_counter()
    if inst.horizon is not None:
        raise NotImplementedError("horizon instances are not solved yet; see the README's status")
    cfg = load_preset(preset or "default")
    opts = SolveOptions(
        time_limit=time_limit if time_limit is not None else cfg.time_limit,
        mip_gap=mip_gap if mip_gap is not None else cfg.mip_gap,
        threads=threads if threads is not None else cfg.threads,
        seed=seed,
        verbose=verbose,
    )
    mp, stats = build(inst, cfg.split_budget)
    t_built = time.perf_counter()
    hint = greedy_x(mp)
    t_greedy = time.perf_counter()
    opts.time_limit = max(0.1, opts.time_limit - (t_greedy - t_start))
    opts.hint = hint
    res = get_backend(backend).solve_mip(mp, opts)
    x = res.x
    if x is None or not mp.is_feasible(x) or mp.objective_of(x) < mp.objective_of(hint) - 1e-9:
        x = hint  # the greedy plan is feasible by construction
    status = res.status
    if status == "optimal" and not stats["enumeration_complete"]:
        status = "feasible"
    if status in ("error", "infeasible") and x is hint:
        status = "feasible"
    bound = res.bound if stats["enumeration_complete"] else None
    objective = mp.objective_of(x)
    if bound is not None and bound < objective:
        bound = objective  # rounding of the solver's bound
    seconds = {
        "load": t_loaded - t_start,
        "build": t_built - t_loaded,
        "greedy": t_greedy - t_built,
        "solve": res.seconds,
        "total": time.perf_counter() - t_start,
    }
    stats = stats | {"greedy_objective": mp.objective_of(hint), "seconds": seconds, "method": "exact"}
    result = Result(
        inst,
        _placements(mp, x),
        status,
        objective,
        bound,
        solver={
            "backend": res.info | {"name": backend},
            "time_limit": opts.time_limit,
            "seed": seed,
            "mip_gap": opts.mip_gap,
            "threads": opts.threads,
        },
        stats=stats,
    )
    _assert_checked(result)
    return result


def _assert_checked(result: Result) -> None:
    """Every plan leaves through the independent checker."""
    from fedopt.check import check_plan

    verdict = check_plan(result.inst, result.to_doc())
    result.stats["check"] = {"violations": [str(v) for v in verdict.violations], "objective": verdict.objective}
    if verdict.violations:
        raise RuntimeError("internal error: the plan fails the checker: " + "; ".join(map(str, verdict.violations)))
