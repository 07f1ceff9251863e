"""Solve a MIP given as arrays with HiGHS, in this process or as a child process's script.

Run as ``python highs_child.py MODEL.npz RESULT.npz`` it reads the model, solves it and writes
the result; it imports only numpy and highspy (not fedopt: a child starts in ~0.3 s and never
runs the parent's ``__main__``, so it works from any script or notebook).
"""

from __future__ import annotations

import json
import os
import sys

import highspy
import numpy as np


def to_lp(arrays: dict) -> highspy.HighsLp:
    """A ``HighsLp`` from the arrays of ``ArrayModel`` (plus ``maximize``, ``offset``)."""
    inf = highspy.kHighsInf
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = len(arrays["cost"]), len(arrays["row_lower"])
    lp.col_cost_ = np.asarray(arrays["cost"], dtype=float)
    lp.col_lower_ = np.asarray(arrays["lower"], dtype=float)
    lp.col_upper_ = np.asarray(arrays["upper"], dtype=float)
    rlo, rhi = np.asarray(arrays["row_lower"], dtype=float), np.asarray(arrays["row_upper"], dtype=float)
    lp.row_lower_ = np.where(np.isfinite(rlo), rlo, -inf)
    lp.row_upper_ = np.where(np.isfinite(rhi), rhi, inf)
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = np.asarray(arrays["start"], dtype=np.int32)
    lp.a_matrix_.index_ = np.asarray(arrays["index"], dtype=np.int32)
    lp.a_matrix_.value_ = np.asarray(arrays["value"], dtype=float)
    lp.sense_ = highspy.ObjSense.kMaximize if bool(arrays["maximize"]) else highspy.ObjSense.kMinimize
    lp.offset_ = float(arrays["offset"])
    kinds = (highspy.HighsVarType.kContinuous, highspy.HighsVarType.kInteger)
    lp.integrality_ = [kinds[int(k)] for k in np.asarray(arrays["integer"], dtype=bool)]
    return lp


def solve(arrays: dict, options: dict) -> dict:
    """``{"status", "bound", "objective", "x"}``: ``x`` None without a feasible solution,
    ``bound`` the MIP dual bound (None if there is none or the model is infeasible)."""
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    for key, val in options.items():
        h.setOptionValue(key, val)
    h.passModel(to_lp(arrays))
    h.run()
    info = h.getInfo()
    status = h.getModelStatus()
    x = np.asarray(h.getSolution().col_value).copy() if info.primal_solution_status == 2 else None  # 2: feasible
    bound = float(info.mip_dual_bound)
    infeasible = status in (highspy.HighsModelStatus.kInfeasible, highspy.HighsModelStatus.kUnboundedOrInfeasible)
    return {
        "status": h.modelStatusToString(status),
        "bound": bound if np.isfinite(bound) and abs(bound) < 1e20 and not infeasible else None,
        "objective": float(info.objective_function_value) if x is not None else None,
        "x": x,
    }


def _die_with_parent() -> None:
    """Linux: be killed when the parent dies (a crashed parent leaves no solve running)."""
    try:
        import ctypes
        import signal

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def main(model_path: str, result_path: str) -> None:
    _die_with_parent()
    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)  # HiGHS's banner and logs go nowhere
    with np.load(model_path, allow_pickle=False) as data:
        arrays = {k: data[k] for k in data.files}
    options = json.loads(str(arrays.pop("options")))
    res = solve(arrays, options)
    out = {"meta": np.array(json.dumps({k: res[k] for k in ("status", "bound", "objective")}))}
    if res["x"] is not None:
        out["x"] = res["x"]
    tmp = result_path + ".part"
    with open(tmp, "wb") as fh:
        np.savez(fh, **out)
    os.replace(tmp, result_path)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
