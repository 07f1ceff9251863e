"""Solving horizon instances: the time-indexed MIP over every placement and start slot."""

from __future__ import annotations

import time

import numpy as np

from fedopt.backends import SolveOptions, get_backend
from fedopt.columns.enumerate import enumerate_columns, running_columns
from fedopt.columns.pool import ColumnPool
from fedopt.columns.rank import best_k_per_job
from fedopt.columns.rules import valid_placements
from fedopt.errors import InputError
from fedopt.feasibility import raise_if_pinned_infeasible
from fedopt.greedy import greedy_x
from fedopt.horizon.model import TimedColumns, build_timed_master, expand
from fedopt.instance.model import Instance
from fedopt.master import admissible
from fedopt.plan import Result
from fedopt.presets import load_preset
from fedopt.progress import Progress

# The time-indexed model multiplies placements by slots: keep both in check.
HORIZON_SPLIT_BUDGET = 20_000
MAX_TIMED_COLUMNS = 3_000_000
ROLLING_WINDOW = 12  # rolling horizon: start slots per step
ROLLING_COMMIT = 6  # of which the first ones are committed
AUTO_EXACT_TIMED = 200_000  # auto: the whole time-indexed MIP up to this many (placement, start) pairs


def _fit(inst: Instance, cols: ColumnPool) -> ColumnPool:
    """Keep the time-indexed model within MAX_TIMED_COLUMNS: each job's fastest placements
    (running ones always kept). The plan is still checked; no bound is claimed then."""
    slots = inst.horizon.slots
    if cols.size * slots <= MAX_TIMED_COLUMNS:
        return cols
    per_job = max(1, MAX_TIMED_COLUMNS // (slots * max(1, inst.n_jobs)))
    keep = np.zeros(cols.size, dtype=bool)
    keep[best_k_per_job(np.arange(cols.size), cols.speed, cols.job, per_job)] = True
    keep |= cols.is_running
    out = cols.subset(keep)
    out.complete = False
    out.notes = [
        *cols.notes,
        f"horizon model cut to each job's {per_job} fastest placements to stay within {MAX_TIMED_COLUMNS} columns",
    ]
    return out


def placements_for_horizon(inst: Instance, split_budget: int) -> ColumnPool:
    full = enumerate_columns(inst, split_budget)
    run = running_columns(inst)
    run = run.subset(valid_placements(run))
    cols = ColumnPool.concat(inst, [full.subset(~full.is_running), run])
    cols = cols.subset(admissible(cols))
    cols.complete = full.complete
    return cols


def solve_horizon(
    inst: Instance,
    *,
    time_limit: float | None = None,
    seed: int = 0,
    preset: str | None = None,
    backend: str = "highs",
    quiet: bool = True,
    should_stop=None,
    method: str = "auto",
) -> Result:
    """Solve a horizon instance: ``exact`` (the whole time-indexed MIP), ``colgen`` (column
    generation over placement and start slot), ``auto`` (exact while the model is small and
    every placement was enumerated, else colgen)."""
    t0 = time.perf_counter()
    cfg = load_preset(preset or "default")
    limit = time_limit if time_limit is not None else cfg.time_limit
    progress = Progress.auto(quiet)
    raise_if_pinned_infeasible(inst)
    cols = placements_for_horizon(inst, min(cfg.split_budget, HORIZON_SPLIT_BUDGET))
    if method == "auto":
        method = "exact" if cols.complete and cols.size * inst.horizon.slots <= AUTO_EXACT_TIMED else "colgen"
    if method in ("colgen", "rolling"):
        return _solve_colgen(inst, cols, cfg, limit, seed, progress, should_stop, t0, rolling=method == "rolling")
    if method not in ("exact",):
        raise InputError("--method", f"horizon instances are solved by auto, exact, colgen or rolling, not {method!r}")
    cols = _fit(inst, cols)
    tc = expand(inst, cols)
    mp, job = build_timed_master(inst, tc)
    useful = (mp.c > 1e-12) | inst.pinned[job]
    if not useful.all():
        keep = np.flatnonzero(useful)
        tc.place, tc.start, tc.duration = tc.place[keep], tc.start[keep], tc.duration[keep]
        mp, job = build_timed_master(inst, tc)
    t_built = time.perf_counter()
    hint = greedy_x(mp)
    progress.round("greedy", None, None, -mp.objective_of(hint), mp.n_cols)
    remaining = max(0.1, (t0 + limit - time.perf_counter()) * 0.92)
    opts = SolveOptions(
        time_limit=remaining, mip_gap=cfg.mip_gap, threads=cfg.threads, seed=seed, hint=hint, should_stop=should_stop
    )
    if mp.n_cols == 0:
        from fedopt.backends.base import BackendResult

        res = BackendResult("optimal", np.zeros(0), mp.constant, mp.constant, 0.0)
    else:
        res = get_backend(backend).solve_mip(mp, opts)
    x = res.x if res.x is not None and mp.is_feasible(res.x) and mp.objective_of(res.x) >= mp.objective_of(hint) - 1e-9 else hint
    cost = -mp.objective_of(x)
    bound = None
    if res.bound is not None and cols.complete:
        bound = min(-res.bound, cost)  # a lower bound on the cost
    status = res.status if res.status in ("optimal", "timeout") else "feasible"
    if status == "optimal" and not cols.complete:
        status = "feasible"
    progress.round("mip", None, bound, cost, mp.n_cols)
    chosen = np.flatnonzero(x > 0.5)
    placements = {int(job[c]): mp.cols.parts_of(int(c)) for c in chosen}
    starts = {int(job[c]): int(tc.start[c]) for c in chosen}
    stats = {
        "notes": list(cols.notes),
        "method": "exact-horizon",
        "columns": int(mp.n_cols),
        "rows": int(mp.n_rows),
        "placements": int(cols.size),
        "greedy_objective": -mp.objective_of(hint),
        "history": progress.history,
        "seconds": {"build": t_built - t0, "solve": res.seconds, "total": time.perf_counter() - t0},
    }
    solver = {"backend": res.info | {"name": backend}, "time_limit": limit, "seed": seed}
    return _checked(Result(inst, placements, status, cost, bound, start_slots=starts, solver=solver, stats=stats))


def _solve_colgen(
    inst: Instance,
    cols: ColumnPool,
    cfg,
    limit: float,
    seed: int,
    progress: Progress,
    should_stop,
    t0: float,
    rolling: bool = False,
) -> Result:
    from fedopt.horizon.colgen import TimedColumnGeneration

    opts = SolveOptions(time_limit=limit, mip_gap=cfg.mip_gap, threads=cfg.threads, seed=seed, should_stop=should_stop)
    cg = TimedColumnGeneration(inst, cols, opts, progress)
    t_built = time.perf_counter()
    if rolling:
        from fedopt.horizon.rolling import solve_rolling

        slots = inst.horizon.slots
        window = min(slots, ROLLING_WINDOW)
        r = solve_rolling(cg, t0 + limit * 0.95, window, max(1, min(ROLLING_COMMIT, window)))
        full = cg.full[0]
        tc = TimedColumns(full.placements, full.place[r.chosen], full.start[r.chosen], full.duration[r.chosen])
        objective, value_bound = r.objective, r.bound
        extra = {"method": "rolling-horizon", "steps": r.steps}
    else:
        out = cg.run(t0 + limit * 0.95)
        tc, objective, value_bound, extra = out.tc, out.objective, out.bound, {"method": "colgen-horizon", **out.stats}
    cost = -objective
    bound = None if value_bound is None else min(-value_bound, cost)  # a lower bound on the cost
    gap = None if bound is None else (cost - bound) / max(1.0, abs(cost))
    status = "optimal" if gap is not None and gap <= max(cfg.mip_gap, 1e-9) else "feasible"
    placements = {int(tc.placements.job[p]): tc.placements.parts_of(int(p)) for p in tc.place}
    starts = {int(tc.placements.job[p]): int(s) for p, s in zip(tc.place, tc.start, strict=True)}
    stats = {
        "notes": list(cols.notes),
        "placements": int(cols.size),
        "relaxed_split_jobs": len(cg.relaxed_jobs_all),
        **extra,
        "history": progress.history,
        "seconds": {"build": t_built - t0, "solve": time.perf_counter() - t_built, "total": time.perf_counter() - t0},
    }
    solver = {"backend": {"name": "highs"}, "time_limit": limit, "seed": seed}
    return _checked(Result(inst, placements, status, cost, bound, start_slots=starts, solver=solver, stats=stats))


def _checked(result: Result) -> Result:
    """Every horizon plan passes the independent checker before it is returned."""
    from fedopt.solve import _assert_checked

    _assert_checked(result)
    return result
