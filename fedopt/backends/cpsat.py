"""OR-Tools CP-SAT, with the model written straight into its proto, one extend per row.

CP-SAT wants integer rows: rows with fractional coefficients (traffic, storage) are scaled
by 1e9 and rounded; the right-hand side absorbs the rounding, so a plan it accepts breaks a
limit by at most (terms in the row) x 1e-9 Gbit/s. The objective stays floating point.
"""

from __future__ import annotations

import math
import time

import numpy as np
from ortools.sat.python import cp_model

from fedopt.backends.base import BackendResult, SolveOptions
from fedopt.master import MasterProblem

SCALE = 1e9
BIG = 2**62


def _integer_row(coef: np.ndarray, lo: float, hi: float) -> tuple[np.ndarray, int, int]:
    integral = lambda v: not math.isfinite(v) or v == round(v)  # noqa: E731
    if np.all(coef == np.round(coef)) and integral(lo) and integral(hi):
        ilo = int(lo) if math.isfinite(lo) else -BIG
        ihi = int(hi) if math.isfinite(hi) else BIG
        return coef.astype(np.int64), ilo, ihi
    slack = 0.5 * len(coef)
    ilo = math.ceil(lo * SCALE - slack) if math.isfinite(lo) else -BIG
    ihi = math.floor(hi * SCALE + slack) if math.isfinite(hi) else BIG
    return np.round(coef * SCALE).astype(np.int64), ilo, ihi


class CpSatBackend:
    name = "cpsat"

    def solve_mip(self, mp: MasterProblem, opts: SolveOptions) -> BackendResult:
        t0 = time.perf_counter()
        model = cp_model.CpModel()
        proto = model.Proto()
        for _ in range(mp.n_cols):
            proto.variables.add().domain.extend([0, 1])
        A = mp.A.tocsr()
        for r in range(mp.n_rows):
            s, e = A.indptr[r], A.indptr[r + 1]
            coef, lo, hi = _integer_row(A.data[s:e], mp.lo[r], mp.hi[r])
            ct = proto.constraints.add()
            ct.linear.vars.extend(A.indices[s:e].tolist())
            ct.linear.coeffs.extend(coef.tolist())
            ct.linear.domain.extend([lo, hi])
        nz = np.flatnonzero(mp.c)
        proto.floating_point_objective.vars.extend(nz.tolist())
        proto.floating_point_objective.coeffs.extend(mp.c[nz].tolist())
        proto.floating_point_objective.maximize = True
        proto.floating_point_objective.offset = float(mp.constant)
        if opts.hint is not None:
            proto.solution_hint.vars.extend(range(mp.n_cols))
            proto.solution_hint.values.extend(np.asarray(opts.hint, dtype=np.int64).tolist())
        solver = cp_model.CpSolver()
        p = solver.parameters
        p.max_time_in_seconds = float(max(opts.time_limit, 0.01))
        p.num_workers = int(max(opts.threads, 1))
        p.random_seed = int(opts.seed)
        p.relative_gap_limit = float(opts.mip_gap)
        p.log_search_progress = bool(opts.verbose)
        st = solver.Solve(model)
        seconds = time.perf_counter() - t0
        has_x = st in (cp_model.OPTIMAL, cp_model.FEASIBLE)
        x = None
        if has_x:
            x = np.array([solver.Value(model.GetIntVarFromProtoIndex(i)) for i in range(mp.n_cols)], dtype=float)
        bound = float(solver.BestObjectiveBound()) if has_x or st == cp_model.UNKNOWN else None
        name = {cp_model.OPTIMAL: "optimal", cp_model.INFEASIBLE: "infeasible"}.get(st)
        if name is None:
            name = "timeout" if seconds >= opts.time_limit * 0.95 else ("feasible" if has_x else "error")
        if bound is not None and not math.isfinite(bound):
            bound = None
        return BackendResult(
            name,
            x,
            mp.objective_of(x) if x is not None else None,
            bound,
            seconds,
            {"cpsat_status": solver.StatusName(st), "branches": int(solver.NumBranches())},
        )
