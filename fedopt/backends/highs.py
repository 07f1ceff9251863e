"""HiGHS through highspy, with the model passed as CSC arrays in one call."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import replace

import highspy
import numpy as np

from fedopt.backends.base import BackendResult, SolveOptions
from fedopt.backends.highs_process import silence_banner
from fedopt.master import MasterProblem

silence_banner()


def new_highs() -> highspy.Highs:
    """A Highs object with its own solver-thread locks.

    highspy 1.16 keeps the locks that mark "a solve is running" on the class, so one solve that
    ignored its interrupt (and was abandoned) would block every later solve in the process.
    """
    h = highspy.Highs()
    h._Highs__solver_stopped = threading.RLock()
    h._Highs__solver_started = threading.Lock()
    return h


# Grace past the time limit before the watchdog cancels a solve that does not stop by itself.
GRACE = 0.02


def _lp(mp: MasterProblem, integer: bool) -> highspy.HighsLp:
    inf = highspy.kHighsInf
    lp = highspy.HighsLp()
    lp.num_col_ = mp.n_cols
    lp.num_row_ = mp.n_rows
    lp.sense_ = highspy.ObjSense.kMaximize
    lp.offset_ = mp.constant
    lp.col_cost_ = np.asarray(mp.c, dtype=np.float64)
    lp.col_lower_ = np.zeros(mp.n_cols)
    lp.col_upper_ = np.ones(mp.n_cols)
    lp.row_lower_ = np.where(np.isfinite(mp.lo), mp.lo, -inf)
    lp.row_upper_ = np.where(np.isfinite(mp.hi), mp.hi, inf)
    csc = mp.A.tocsc()
    csc.sort_indices()
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.num_col_ = mp.n_cols
    lp.a_matrix_.num_row_ = mp.n_rows
    lp.a_matrix_.start_ = csc.indptr.astype(np.int32)
    lp.a_matrix_.index_ = csc.indices.astype(np.int32)
    lp.a_matrix_.value_ = csc.data.astype(np.float64)
    if integer:
        lp.integrality_ = [highspy.HighsVarType.kInteger] * mp.n_cols
    return lp


def _new_highs(opts: SolveOptions) -> highspy.Highs:
    h = new_highs()
    h.setOptionValue("output_flag", bool(opts.verbose))
    h.setOptionValue("time_limit", float(max(opts.time_limit, 0.01)))
    h.setOptionValue("random_seed", int(opts.seed))
    h.setOptionValue("threads", int(max(opts.threads, 1)))
    return h


# Solver threads left running after they ignored an interrupt. The interpreter must not finalize
# while one is inside HiGHS (it aborts): the command line ends with os._exit when this is non-empty.
ABANDONED: list[threading.Thread] = []


def run_guarded(h: highspy.Highs, limit: float, should_stop: Callable[[], bool] | None = None) -> bool:
    """Run, and interrupt the solve past ``limit`` seconds or when ``should_stop()`` says so.

    HiGHS's own time limit is not checked everywhere (presolve, some LP phases), so the solve
    runs in highspy's solver thread with user interrupts enabled, and this thread watches. If
    HiGHS does not stop within a short grace after the interrupt, the solve is abandoned (its
    daemon thread is left to finish on its own) and False is returned: do not touch ``h`` then.
    """
    deadline = time.perf_counter() + limit * (1 + GRACE) + 0.2
    thread = start_interruptible(h)
    while not h.wait(0.05)[0]:
        if time.perf_counter() > deadline or (should_stop is not None and should_stop()):
            return stop_solve(h, thread, max(3.0, 0.03 * limit))
    thread.join()
    return True


def start_interruptible(h: highspy.Highs) -> threading.Thread:
    """Start ``h``'s solve in highspy's solver thread, with user interrupts enabled."""
    h.HandleUserInterrupt = True
    h.HandleKeyboardInterrupt = False
    return h.startSolve()


def stop_solve(h: highspy.Highs, thread: threading.Thread, grace: float) -> bool:
    """Interrupt a started solve and wait up to ``grace`` seconds; True if it stopped. One that
    did not is abandoned (its daemon thread left to finish): do not touch ``h`` then."""
    h.cancelSolve()
    t0 = time.perf_counter()
    while not h.wait(0.05)[0]:
        if time.perf_counter() - t0 > grace:
            ABANDONED.append(thread)
            return False
    thread.join()
    return True


def add_columns(h: highspy.Highs, values: np.ndarray, mat) -> None:
    """Append columns in [0, 1] with objective ``values`` and coefficients ``mat`` (CSC) to a live model."""
    h.addCols(
        len(values),
        np.asarray(values, dtype=np.float64),
        np.zeros(len(values)),
        np.ones(len(values)),
        int(mat.nnz),
        mat.indptr[:-1].astype(np.int32),
        mat.indices.astype(np.int32),
        mat.data.astype(np.float64),
    )


class _Incumbents:
    """Copies of HiGHS's improving MIP solutions, taken in its callback.

    A solve abandoned after an interrupt (see :func:`run_guarded`) must not be touched again,
    so its best solution is only available if it was copied out as it was found.
    """

    def __init__(self, h: highspy.Highs):
        self._h = h
        self._lock = threading.Lock()
        self._x: np.ndarray | None = None
        self.count = 0
        h.cbMipImprovingSolution.subscribe(self._on_improving)

    def _on_improving(self, event) -> None:
        x = np.round(np.asarray(event.data_out.mip_solution, dtype=float))
        with self._lock:
            self._x = x
            self.count += 1

    def best(self) -> np.ndarray | None:
        with self._lock:
            return None if self._x is None else self._x.copy()

    def detach(self) -> None:
        self._h.cbMipImprovingSolution.unsubscribe(self._on_improving)


def _closed(objective: float, bound: float, gap: float) -> bool:
    return bound - objective <= max(gap, 1e-9) * max(1.0, abs(objective)) + 1e-7


class HighsBackend:
    name = "highs"

    def solve_mip(self, mp: MasterProblem, opts: SolveOptions) -> BackendResult:
        t0 = time.perf_counter()
        h = _new_highs(opts)
        h.setOptionValue("mip_rel_gap", float(opts.mip_gap))
        if not opts.presolve:
            h.setOptionValue("presolve", "off")
        h.passModel(_lp(mp, integer=True))
        if opts.hint is not None:
            sol = highspy.HighsSolution()
            sol.col_value = list(np.asarray(opts.hint, dtype=float))
            sol.value_valid = True
            h.setSolution(sol)
        incumbents = _Incumbents(h)
        if not run_guarded(h, opts.time_limit, opts.should_stop):
            # the solve thread lives on; what it found before it was abandoned is still ours
            x = incumbents.best()
            info = {"highs_status": "abandoned after interrupt", "incumbents": incumbents.count}
            objective = mp.objective_of(x) if x is not None else None
            return BackendResult("timeout", x, objective, None, time.perf_counter() - t0, info)
        incumbents.detach()
        status = h.getModelStatus()
        info = h.getInfo()
        seconds = time.perf_counter() - t0
        has_x = info.primal_solution_status == 2  # kSolutionStatusFeasible
        x = np.round(np.asarray(h.getSolution().col_value)) if has_x else None
        bound = float(info.mip_dual_bound) if np.isfinite(info.mip_dual_bound) else None
        if status == highspy.HighsModelStatus.kOptimal:
            name = "optimal"
        elif status == highspy.HighsModelStatus.kInfeasible:
            name = "infeasible"
        elif has_x:
            name = "timeout" if status == highspy.HighsModelStatus.kTimeLimit else "feasible"
        else:
            name = "timeout" if status == highspy.HighsModelStatus.kTimeLimit else "error"
        objective = mp.objective_of(x) if x is not None else None
        result = BackendResult(
            name, x, objective, bound, seconds, {"highs_status": h.modelStatusToString(status), "nodes": int(info.mip_node_count)}
        )
        if name == "optimal" and objective is not None and bound is not None and not _closed(objective, bound, opts.mip_gap):
            # HiGHS 1.16 can stop at a supplied start solution, call it optimal and still report a
            # higher dual bound (found by fedopt's fuzz tests). Trust neither: solve again without it.
            if opts.hint is not None and opts.time_limit - seconds > 0.5:
                retry = self.solve_mip(mp, replace(opts, hint=None, time_limit=opts.time_limit - seconds))
                if retry.objective is not None and retry.objective > objective:
                    retry.seconds += seconds
                    return retry
            result.status = "feasible"
        return result

    def solve_lp(self, mp: MasterProblem, opts: SolveOptions) -> BackendResult:
        """The LP relaxation with row duals (for bounds and pricing)."""
        t0 = time.perf_counter()
        h = _new_highs(opts)
        h.passModel(_lp(mp, integer=False))
        if not run_guarded(h, opts.time_limit, opts.should_stop):
            return BackendResult("timeout", None, None, None, time.perf_counter() - t0)
        status = h.getModelStatus()
        sol = h.getSolution()
        ok = status == highspy.HighsModelStatus.kOptimal
        x = np.asarray(sol.col_value) if ok else None
        duals = np.asarray(sol.row_dual) if ok else None
        obj = float(h.getInfo().objective_function_value) if ok else None
        return BackendResult("optimal" if ok else "error", x, obj, obj, time.perf_counter() - t0, row_duals=duals)
