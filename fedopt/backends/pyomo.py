"""Pyomo, for users with another MIP solver (Gurobi, CPLEX, SCIP ...): ``--backend pyomo:NAME``.

The model is an ordinary Pyomo ConcreteModel (binary columns, one constraint per row); it is
tested here with HiGHS through Pyomo's ``highs`` interface.
"""

from __future__ import annotations

import math
import time

import numpy as np

from fedopt.backends.base import BackendResult, SolveOptions
from fedopt.master import MasterProblem

TIME_OPTION = {
    "highs": "time_limit",
    "appsi_highs": "time_limit",
    "gurobi": "TimeLimit",
    "cplex": "timelimit",
    "scip": "limits/time",
    "cbc": "seconds",
    "glpk": "tmlim",
}


def to_pyomo(mp: MasterProblem):
    """The master problem as a Pyomo model (exposed for users who want to extend it)."""
    import pyomo.environ as pe

    m = pe.ConcreteModel(name="fedopt")
    m.x = pe.Var(range(mp.n_cols), within=pe.Binary)
    nz = np.flatnonzero(mp.c)
    m.obj = pe.Objective(expr=sum(float(mp.c[i]) * m.x[i] for i in nz) + float(mp.constant), sense=pe.maximize)
    A = mp.A.tocsr()
    m.rows = pe.ConstraintList()
    for r in range(mp.n_rows):
        s, e = A.indptr[r], A.indptr[r + 1]
        if s == e:
            continue
        expr = sum(float(v) * m.x[int(i)] for i, v in zip(A.indices[s:e], A.data[s:e], strict=True))
        lo = float(mp.lo[r]) if math.isfinite(mp.lo[r]) else None
        hi = float(mp.hi[r]) if math.isfinite(mp.hi[r]) else None
        m.rows.add((lo, expr, hi))
    return m


class PyomoBackend:
    def __init__(self, solver: str = "highs"):
        self.solver = solver
        self.name = f"pyomo:{solver}"

    def solve_mip(self, mp: MasterProblem, opts: SolveOptions) -> BackendResult:
        import pyomo.environ as pe
        from pyomo.opt import TerminationCondition as TC

        if self.solver in ("highs", "appsi_highs"):
            import fedopt.backends.highs  # noqa: F401  (silences HiGHS's banner)
        t0 = time.perf_counter()
        m = to_pyomo(mp)
        opt = pe.SolverFactory(self.solver)
        options = {}
        if self.solver in TIME_OPTION:
            options[TIME_OPTION[self.solver]] = float(opts.time_limit)
        if self.solver in ("highs", "appsi_highs"):
            options["mip_rel_gap"] = float(opts.mip_gap)
            options["random_seed"] = int(opts.seed)
            options["threads"] = int(max(opts.threads, 1))
        res = opt.solve(m, options=options, load_solutions=False, tee=bool(opts.verbose))
        cond = res.solver.termination_condition
        x = None
        try:
            m.solutions.load_from(res)
            x = np.array([round(pe.value(m.x[i]) or 0.0) for i in range(mp.n_cols)], dtype=float)
        except Exception:  # no solution to load (infeasible, or none found in time)
            x = None
        ub = res.problem.upper_bound
        bound = float(ub) if ub is not None and math.isfinite(float(ub)) else None
        if cond == TC.optimal:
            name = "optimal"
        elif cond == TC.infeasible:
            name = "infeasible"
        elif cond in (TC.maxTimeLimit, TC.maxIterations):
            name = "timeout"
        else:
            name = "feasible" if x is not None else "error"
        return BackendResult(
            name,
            x,
            mp.objective_of(x) if x is not None else None,
            bound,
            time.perf_counter() - t0,
            {"pyomo_termination": str(cond)},
        )
