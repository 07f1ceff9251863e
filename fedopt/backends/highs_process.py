"""A HiGHS MIP solved in a child process, beside the parent's own work.

Why a process: a solve in highspy's solver thread can only be stopped through an interrupt
callback, and that callback needs the GIL, which column generation holds most of the time (the
callback waits, HiGHS slows down). A child process takes no GIL, uses the other core, and can be
stopped at any moment by killing it: nothing is left running when the parent is done with it
(on Linux it also dies with a parent that crashes).

The child is ``python -P highs_child.py MODEL.npz RESULT.npz`` (``fedopt.backends.highs_child``):
it imports numpy and highspy only and starts in ~0.3 s; unlike multiprocessing's spawn and
forkserver it never re-runs the parent's main script, so it works from any script or notebook.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import weakref
from dataclasses import dataclass, fields
from pathlib import Path

import highspy
import numpy as np

from fedopt.backends import highs_child

_SILENCED = False


def silence_banner() -> None:
    """HiGHS prints a banner on stdout at its first construction in a process; plans may go to
    stdout. Construct one with stdout pointed at /dev/null."""
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
    """A MIP as plain arrays: max/min ``cost . x + offset``, ``row_lower <= A x <= row_upper``,
    ``lower <= x <= upper``, A column-wise (``start``, ``index``, ``value``)."""

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

    def arrays(self) -> dict:
        """The fields by name, not copied (``dataclasses.asdict`` would deep-copy every array)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def to_lp(self) -> highspy.HighsLp:
        return highs_child.to_lp(self.arrays())


def solve_arrays(model: ArrayModel, options: dict) -> dict:
    """Solve ``model`` here with HiGHS ``options``: ``{"status", "bound", "objective", "x"}``."""
    return highs_child.solve(model.arrays(), options)


_LIVE: weakref.WeakSet = weakref.WeakSet()


class ChildSolve:
    """``solve_arrays(model, options)`` started now in a child process; :meth:`ready`,
    :meth:`result` (waits, then kills) and :meth:`kill`. The options should carry a time limit:
    the child also ends by it."""

    def __init__(self, model: ArrayModel, options: dict):
        self._dir = Path(tempfile.mkdtemp(prefix="fedopt-highs-"))
        self._result_path = self._dir / "result.npz"
        self._result: dict | None = None
        arrays = {k: np.asarray(v) for k, v in model.arrays().items()}
        np.savez(self._dir / "model.npz", options=np.array(json.dumps(options)), **arrays)
        self._proc = subprocess.Popen(
            [sys.executable, "-P", highs_child.__file__, str(self._dir / "model.npz"), str(self._result_path)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        _LIVE.add(self)

    def ready(self) -> bool:
        """True once the child has ended (with its result, or without one)."""
        return self._proc.poll() is not None

    def result(self, wait: float = 0.0) -> dict | None:
        """The result, waiting up to ``wait`` seconds for it; a child still solving then is
        killed (None). None too if the child failed."""
        if self._result is None and self._dir.exists():
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._proc.wait(timeout=max(0.0, wait))
            if self._proc.poll() is not None and self._result_path.exists():
                with np.load(self._result_path, allow_pickle=False) as data:
                    res = json.loads(str(data["meta"]))
                    res["x"] = data["x"].copy() if "x" in data.files else None
                self._result = res
        self.kill()
        return self._result

    def kill(self) -> None:
        """Stop the child now and remove its files (no-op once done)."""
        if self._proc.poll() is None:
            self._proc.kill()
        self._proc.wait()
        shutil.rmtree(self._dir, ignore_errors=True)
        _LIVE.discard(self)


@atexit.register
def kill_all() -> None:
    """Kill every child still solving (also called before leaving with ``os._exit``, which skips atexit)."""
    for solve in list(_LIVE):
        solve.kill()
