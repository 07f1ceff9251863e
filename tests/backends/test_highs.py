"""The HiGHS backend keeps what a solve found, even one abandoned after an interrupt."""

import numpy as np
import scipy.sparse as sp

from fedopt.backends import highs
from fedopt.backends.base import SolveOptions
from fedopt.columns.pool import ColumnPool
from fedopt.instance.load import load_instance
from fedopt.master import MasterProblem, Rows
from tests.conftest import TINY


def _knapsack(n: int = 40, seed: int = 3) -> MasterProblem:
    """max v.x, w.x <= cap, x binary: a MIP with several improving solutions."""
    rng = np.random.default_rng(seed)
    w = rng.integers(5, 40, n).astype(float)
    v = w * rng.uniform(0.8, 1.2, n)
    inst = load_instance(TINY / "capacity.json")
    A = sp.csr_matrix(w.reshape(1, -1))
    cols = ColumnPool.empty(inst)
    mp = MasterProblem(cols, v, 0.0, A, np.array([-np.inf]), np.array([w.sum() / 3]), Rows.of(inst), np.arange(1))
    return mp


def test_incumbents_are_copied_as_found(monkeypatch):
    mp = _knapsack()
    res = highs.HighsBackend().solve_mip(mp, SolveOptions(time_limit=20))
    assert res.status == "optimal"
    assert (mp.A @ res.x)[0] <= mp.hi[0] + 1e-9

    def abandon(h, limit, should_stop=None):  # the solve finishes, but we pretend it was abandoned
        h.run()
        return False

    monkeypatch.setattr(highs, "run_guarded", abandon)
    lost = highs.HighsBackend().solve_mip(mp, SolveOptions(time_limit=20))
    assert lost.status == "timeout"
    assert lost.info["incumbents"] >= 1
    assert lost.x is not None
    assert lost.objective == res.objective


def test_presolve_can_be_switched_off(monkeypatch):
    """The final MIP of a big colgen solve runs without HiGHS's presolve (it stalled on xl)."""
    mp = _knapsack()
    made = []
    real = highs.new_highs

    def recording():
        h = real()
        made.append(h)
        return h

    monkeypatch.setattr(highs, "new_highs", recording)
    with_presolve = highs.HighsBackend().solve_mip(mp, SolveOptions(time_limit=20))
    without = highs.HighsBackend().solve_mip(mp, SolveOptions(time_limit=20, presolve=False))
    assert [h.getOptionValue("presolve")[1] for h in made] == ["choose", "off"]
    assert with_presolve.status == without.status == "optimal"
    assert abs(with_presolve.objective - without.objective) <= 1e-6 * abs(with_presolve.objective)
