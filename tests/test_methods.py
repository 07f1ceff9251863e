"""Every method's plan passes the checker; colgen's bound is a real bound; exact is never beaten."""

import pytest

import fedopt
from fedopt.generate import generate
from fedopt.instance import parse_instance
from tests.conftest import TINY, TINY_OPTIMA


@pytest.mark.parametrize("name", sorted(TINY_OPTIMA))
def test_colgen_reaches_tiny_optima(name):
    r = fedopt.solve(TINY / f"{name}.json", method="colgen", time_limit=20)
    assert r.objective == pytest.approx(TINY_OPTIMA[name], abs=1e-6)
    assert r.bound >= TINY_OPTIMA[name] - 1e-6


@pytest.mark.parametrize("method", ["greedy", "pop"])
@pytest.mark.parametrize("name", sorted(TINY_OPTIMA))
def test_heuristics_are_feasible_and_never_beat_the_optimum(name, method):
    r = fedopt.solve(TINY / f"{name}.json", method=method, time_limit=20, pop_parts=2, threads=1)
    assert r.stats["check"]["violations"] == []
    assert r.objective <= TINY_OPTIMA[name] + 1e-6
    assert r.bound is None


@pytest.mark.parametrize(("preset", "seed"), [("s", 1), ("s", 2), ("m", 1), ("m", 4)])
def test_colgen_bound_holds_against_exact(preset, seed):
    inst = parse_instance(generate(preset, seed=seed))
    exact = fedopt.solve(inst, method="exact", time_limit=60)
    assert exact.status == "optimal"
    cg = fedopt.solve(inst, method="colgen", time_limit=30)
    assert cg.bound is not None
    assert cg.bound >= exact.objective - 1e-6 * max(1, abs(exact.objective))
    assert cg.objective <= exact.objective + 1e-6 * max(1, abs(exact.objective))
    assert cg.objective >= 0.97 * exact.objective
    greedy = fedopt.solve(inst, method="greedy")
    assert greedy.objective <= exact.objective + 1e-6


def test_auto_picks_exact_when_small():
    r = fedopt.solve(TINY / "capacity.json")
    assert r.stats["method"] == "exact"


def test_branching_tightens_the_bound_and_keeps_it_valid():
    """s seed 2's root LP leaves jobs partly placed: branching on them lowers the proven bound,
    never below the optimum."""
    inst = parse_instance(generate("s", seed=2))
    exact = fedopt.solve(inst, method="exact", time_limit=60)
    assert exact.status == "optimal"
    cg = fedopt.solve(inst, method="colgen", time_limit=20, seed=2)
    assert cg.stats["branch_nodes"] > 0
    assert exact.objective - 1e-6 <= cg.bound < cg.stats["lp_objective"] - 1e-6
