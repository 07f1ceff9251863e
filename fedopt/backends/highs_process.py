"""A HiGHS MIP solved in a child process, beside the parent's own work.

Why a process: a solve in highspy's solver thread can only be stopped through an interrupt
callback, and that callback needs the GIL, which column generation holds most of the time (the
callback waits, HiGHS slows down). A child process takes no GIL, uses the other core, and can be
stopped at any moment by killing it: nothing is left running when the parent is done with it.

Children fork from a forkserver started once per parent process with numpy, highspy and this
module preloaded, so a start costs milliseconds after the first (~1 s). Where there is no
forkserver (Windows), :class:`ChildSolve` runs the solve in a thread instead, ended by its own
time limit.
"""

from __future__ import annotations

import atexit
import multiprocessing as mp
import os
import sys
import threading
import weakref
from dataclasses import dataclass

import highspy
import numpy as np

_SILENCED = False


def silence_banner() -> None:
    """HiGHS prints a banner on stdout at its first construction in a process; plans may go to
    stdout. Construct one with stdout pointed at /dev/null (children forked later inherit that)."""
    global _SILENCED
    if _SILENCED:
        return
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 1)
            highspy.Highs()
    finally:
        os.dup2(saved, 1)
        os.close(saved)
    _SILENCED = True


silence_banner()


@dataclass
class ArrayModel:
    """A MIP as plain arrays (picklable; a ``HighsLp`` is not): max/min ``cost . x + offset``,
    ``row_lower <= A x <= row_upper``, ``lower <= x <= upper``, A column-wise."""

    cost: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    row_lower: np.ndarray
    row_upper: np.ndarray
    start: np.ndarray
    index: np.ndarray
    value: np.ndarray
    integer: np.ndarray  # bool per column
    maximize: bool = True
    offset: float = 0.0

    @property
    def n_cols(self) -> int:
        return len(self.cost)

    def to_lp(self) -> highspy.HighsLp:
        inf = highspy.kHighsInf
        lp = highspy.HighsLp()
        lp.num_col_, lp.num_row_ = len(self.cost), len(self.row_lower)
        lp.col_cost_ = np.asarray(self.cost, dtype=float)
        lp.col_lower_ = np.asarray(self.lower, dtype=float)
        lp.col_upper_ = np.asarray(self.upper, dtype=float)
        lp.row_lower_ = np.where(np.isfinite(self.row_lower), self.row_lower, -inf)
        lp.row_upper_ = np.where(np.isfinite(self.row_upper), self.row_upper, inf)
        lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
        lp.a_matrix_.start_ = np.asarray(self.start, dtype=np.int32)
        lp.a_matrix_.index_ = np.asarray(self.index, dtype=np.int32)
        lp.a_matrix_.value_ = np.asarray(self.value, dtype=float)
        lp.sense_ = highspy.ObjSense.kMaximize if self.maximize else highspy.ObjSense.kMinimize
        lp.offset_ = float(self.offset)
        kinds = (highspy.HighsVarType.kContinuous, highspy.HighsVarType.kInteger)
        lp.integrality_ = [kinds[int(k)] for k in self.integer]
        return lp


def solve_arrays(model: ArrayModel, options: dict) -> dict:
    """Solve ``model`` with HiGHS ``options``: ``{"status", "bound", "objective", "x"}`` (``x``
    None without a feasible solution; ``bound`` the MIP dual bound, None if there is none)."""
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    for key, val in options.items():
        h.setOptionValue(key, val)
    h.passModel(model.to_lp())
    h.run()
    info = h.getInfo()
    status = h.getModelStatus()
    x = None
    if info.primal_solution_status == 2:  # feasible
        x = np.asarray(h.getSolution().col_value).copy()
    bound = float(info.mip_dual_bound)
    infeasible = status in (highspy.HighsModelStatus.kInfeasible, highspy.HighsModelStatus.kUnboundedOrInfeasible)
    return {
        "status": h.modelStatusToString(status),
        "bound": bound if np.isfinite(bound) and abs(bound) < 1e20 and not infeasible else None,
        "objective": float(info.objective_function_value) if x is not None else None,
        "x": x,
    }


def _child(conn, model: ArrayModel, options: dict) -> None:
    try:
        conn.send(solve_arrays(model, options))
    except Exception as exc:  # reported to the parent, which then takes no result
        conn.send({"status": f"error: {exc}", "bound": None, "objective": None, "x": None})
    finally:
        conn.close()


_CONTEXT: mp.context.BaseContext | None = None
_LIVE: weakref.WeakSet = weakref.WeakSet()


def _context() -> mp.context.BaseContext | None:
    global _CONTEXT
    if _CONTEXT is None:
        try:
            ctx = mp.get_context("forkserver")
        except ValueError:
            return None
        ctx.set_forkserver_preload(["numpy", "highspy", __name__])
        _CONTEXT = ctx
    return _CONTEXT


class ChildSolve:
    """``solve_arrays(model, options)`` started now in a child process; :meth:`ready`,
    :meth:`result` (waits, then kills) and :meth:`kill`. The options should carry a time limit:
    the child also ends by it."""

    def __init__(self, model: ArrayModel, options: dict):
        self._result: dict | None = None
        self._thread: threading.Thread | None = None
        self._proc = None
        ctx = _context()
        if ctx is None:  # no forkserver here: a thread, ended by the time limit only
            box: list[dict] = []
            self._box = box
            self._thread = threading.Thread(target=lambda: box.append(solve_arrays(model, options)), daemon=True)
            self._thread.start()
            return
        self._conn, child_end = ctx.Pipe(duplex=False)
        self._proc = ctx.Process(target=_child, args=(child_end, model, options), daemon=True)
        self._proc.start()
        child_end.close()
        _LIVE.add(self)

    def ready(self) -> bool:
        """True once the result is there (or the child is gone without one)."""
        if self._thread is not None:
            return not self._thread.is_alive()
        return self._result is not None or self._poll(0.0) or not self._proc.is_alive()

    def _poll(self, wait: float) -> bool:
        if self._result is not None:
            return True
        try:
            if self._conn.poll(max(0.0, wait)):
                self._result = self._conn.recv()
                return True
        except (EOFError, OSError):  # the child died without a result
            pass
        return False

    def result(self, wait: float = 0.0) -> dict | None:
        """The result, waiting up to ``wait`` seconds for it; a child still solving then is killed
        (None)."""
        if self._thread is not None:
            self._thread.join(timeout=wait)
            return self._box[0] if self._box else None
        got = self._poll(wait)
        self.kill()
        return self._result if got else None

    def kill(self) -> None:
        """Stop the child now (no-op once it has ended)."""
        if self._proc is None:
            return
        if self._proc.is_alive():
            self._proc.kill()
        self._proc.join(timeout=5)
        self._conn.close()
        _LIVE.discard(self)


@atexit.register
def _kill_live() -> None:
    for solve in list(_LIVE):
        solve.kill()


def kill_all() -> None:
    """Kill every child still solving (before leaving with ``os._exit``, which skips atexit)."""
    _kill_live()
