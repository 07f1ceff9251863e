"""A HiGHS solve in a child process: the right answer, and a stop that leaves nothing running."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from fedopt.backends.highs_process import ArrayModel, ChildSolve, solve_arrays


def knapsack(values, weights, capacity) -> ArrayModel:
    A = sp.csc_matrix(np.asarray([weights], dtype=float))
    n = len(values)
    return ArrayModel(
        cost=np.asarray(values, float),
        lower=np.zeros(n),
        upper=np.ones(n),
        row_lower=np.array([-np.inf]),
        row_upper=np.array([float(capacity)]),
        start=A.indptr,
        index=A.indices,
        value=A.data,
        integer=np.ones(n, bool),
        offset=1.0,
    )


def test_child_solves_a_small_mip_by_hand():
    # values 6, 5, 4 with weights 3, 2, 2 and capacity 4: take the last two (9), plus offset 1
    child = ChildSolve(knapsack([6, 5, 4], [3, 2, 2], 4), {"time_limit": 10.0})
    res = child.result(wait=30)
    assert res is not None and res["status"] == "Optimal"
    assert res["bound"] == 10.0 and np.allclose(res["x"], [0, 1, 1])
    assert solve_arrays(knapsack([6, 5, 4], [3, 2, 2], 4), {})["objective"] == 10.0


def test_a_stopped_child_is_gone_at_once():
    rng = np.random.default_rng(1)
    n = 400  # a hard random multi-row knapsack: it runs to its 60 s limit unless stopped
    A = sp.csc_matrix(rng.integers(20, 60, size=(8, n)).astype(float))
    model = ArrayModel(
        cost=rng.integers(30, 90, size=n).astype(float),
        lower=np.zeros(n),
        upper=np.ones(n),
        row_lower=np.full(8, -np.inf),
        row_upper=A.sum(axis=1).A1 / 3,
        start=A.indptr,
        index=A.indices,
        value=A.data,
        integer=np.ones(n, bool),
    )
    child = ChildSolve(model, {"time_limit": 60.0, "mip_rel_gap": 0.0})
    time.sleep(1.0)
    assert not child.ready()
    t0 = time.perf_counter()
    assert child.result(wait=0.0) is None
    assert time.perf_counter() - t0 < 5
    assert child._proc.poll() is not None and not child._dir.exists()


def test_works_from_a_script_without_a_main_guard(tmp_path):
    # multiprocessing's spawn/forkserver would re-run this script in the child; ours does not
    script = tmp_path / "plain.py"
    script.write_text(
        "from tests.backends.test_highs_process import knapsack\n"
        "from fedopt.backends.highs_process import ChildSolve\n"
        "res = ChildSolve(knapsack([6, 5, 4], [3, 2, 2], 4), {'time_limit': 10.0}).result(wait=30)\n"
        "print(res['bound'])\n"
    )
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60, cwd=root,
                         env={**os.environ, "PYTHONPATH": str(root)})  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert out.stdout == "10.0\n"  # and no HiGHS banner on stdout
