"""``fedopt.solve``: from an instance to a checked plan, by the method asked for.

Every plan leaves through the independent checker; a plan it rejects is a bug and raises.
"""

from __future__ import annotations

import os
import time

from fedopt.backends import SolveOptions, get_backend
from fedopt.errors import InputError
from fedopt.feasibility import raise_if_pinned_infeasible
from fedopt.instance import Instance, load_instance
from fedopt.methods import METHODS, Outcome
from fedopt.plan import Result
from fedopt.presets import load_preset
from fedopt.progress import Progress

# The exact method is picked while the whole model stays this small.
AUTO_EXACT_MAX_COLUMNS = 60_000


# Bytes per column of a built model, and per nonzero (measured: exact on a 10k-card instance,
# 410k columns and 7.7M nonzeros peaked at 1.4 GiB).
BYTES_PER_COLUMN = 200
BYTES_PER_NONZERO = 180


def available_memory() -> int:
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return 1 << 40


def guard_memory(inst: Instance, method: str, split_budget: int, limit: int | None = None) -> int:
    """Estimate the model's memory before building it; refuse what would not fit."""
    from fedopt.columns.enumerate import single_pool_columns, split_columns
    from fedopt.errors import TooLargeError

    singles = single_pool_columns(inst).size
    columns = singles
    if method == "exact":
        columns += split_columns(inst, budget=split_budget).size
    nnz_per_column = 4 + 2 * len(inst.link_gbps) ** 0.5
    estimate = int(columns * (BYTES_PER_COLUMN + BYTES_PER_NONZERO * nnz_per_column))
    limit = limit if limit is not None else int(available_memory() * 0.8)
    if estimate > limit:
        raise TooLargeError(
            f"the {method} model would need about {estimate / 2**30:.1f} GiB ({columns} columns), more than the "
            f"{limit / 2**30:.1f} GiB available; try --method colgen or pop, or a preset with a smaller split_budget"
        )
    return estimate


def choose_method(inst: Instance, split_budget: int) -> str:
    """exact while enumeration is complete and small, else column generation."""
    from fedopt.columns.enumerate import single_pool_columns, split_columns

    singles = single_pool_columns(inst).size
    if singles > AUTO_EXACT_MAX_COLUMNS:
        return "colgen"
    splits = split_columns(inst, budget=min(split_budget, AUTO_EXACT_MAX_COLUMNS - singles))
    return "exact" if splits.complete and singles + splits.size <= AUTO_EXACT_MAX_COLUMNS else "colgen"


def solve(
    instance: Instance | str | os.PathLike,
    *,
    method: str = "auto",
    backend: str = "highs",
    time_limit: float | None = None,
    seed: int = 0,
    preset: str | None = None,
    threads: int | None = None,
    mip_gap: float | None = None,
    pop_parts: int = 4,
    verbose: bool = False,
    quiet: bool = True,
    progress: Progress | None = None,
    should_stop=None,
    previous=None,
) -> Result:
    """Solve a snapshot instance; the plan is checked before it is returned.

    ``method``: auto | exact | colgen | greedy | pop. ``previous`` (a PlanDoc) warm-starts the solve.
    ``preset`` names a file in ``solvers/`` whose values the other arguments override.
    ``quiet=False`` shows progress on a terminal.
    """
    t_start = time.perf_counter()
    if method not in METHODS:
        raise InputError("--method", f"unknown method {method!r}; choose one of {', '.join(METHODS)}")
    get_backend(backend)  # unknown names fail early
    inst = instance if isinstance(instance, Instance) else load_instance(instance)
    t_loaded = time.perf_counter()
    if inst.horizon is not None:
        from fedopt.horizon.solve import solve_horizon

        return solve_horizon(
            inst,
            time_limit=time_limit,
            seed=seed,
            preset=preset,
            backend=backend,
            quiet=quiet,
            should_stop=should_stop,
            method=method,
        )
    if method == "rolling":
        raise InputError("--method", "rolling is for horizon instances (settings.horizon); this one is a snapshot")
    cfg = load_preset(preset or "default")
    limit = time_limit if time_limit is not None else cfg.time_limit
    deadline = t_start + limit
    opts = SolveOptions(
        time_limit=limit,
        mip_gap=mip_gap if mip_gap is not None else cfg.mip_gap,
        threads=threads if threads is not None else cfg.threads,
        seed=seed,
        verbose=verbose,
        should_stop=should_stop,
    )
    progress = progress or Progress.auto(quiet)
    raise_if_pinned_infeasible(inst)
    chosen = choose_method(inst, cfg.split_budget) if method == "auto" else method
    if chosen in ("exact", "colgen"):
        guard_memory(inst, chosen, cfg.split_budget)
    warm = None
    if previous is not None:
        from fedopt.methods.warm import previous_columns

        warm = previous_columns(inst, previous)
    if chosen == "exact":
        from fedopt.methods.exact import solve_exact

        out: Outcome = solve_exact(inst, opts, backend, cfg.split_budget, deadline, warm=warm)
    elif chosen == "colgen":
        from fedopt.methods.colgen import solve_colgen

        out = solve_colgen(inst, opts, backend, deadline, progress, warm=warm)
    elif chosen == "greedy":
        from fedopt.methods.greedy_k8s import solve_greedy

        out = solve_greedy(inst)
    else:
        from fedopt.methods.pop import solve_pop

        out = solve_pop(inst, pop_parts, seed, backend, deadline, workers=opts.threads if threads is not None else None)
    seconds = {"load": t_loaded - t_start, "solve": time.perf_counter() - t_loaded, "total": time.perf_counter() - t_start}
    from fedopt.feasibility import unplaceable_jobs

    stats = out.stats | {"method": chosen, "seconds": seconds, "history": progress.history, "unplaceable": unplaceable_jobs(inst)}
    result = Result(
        inst,
        out.placements,
        out.status,
        out.objective,
        out.bound,
        solver=out.solver
        | {"method": chosen, "time_limit": limit, "seed": seed, "mip_gap": opts.mip_gap, "threads": opts.threads},
        stats=stats,
    )
    _assert_checked(result)
    return result


def _assert_checked(result: Result) -> None:
    """Every plan leaves through the independent checker."""
    from fedopt.check import check_plan

    verdict = check_plan(result.inst, result.to_doc(), check_objective=False)
    result.stats["check"] = {"violations": [str(v) for v in verdict.violations], "objective": verdict.objective}
    if verdict.violations:
        raise RuntimeError("internal error: the plan fails the checker: " + "; ".join(map(str, verdict.violations)))
    if abs(verdict.objective - result.objective) > 1e-6 * max(1.0, abs(verdict.objective)):
        raise RuntimeError(f"internal error: objective {result.objective} but the checker computes {verdict.objective}")
    result.objective = verdict.objective
