"""Every tiny instance reaches its known optimum on every backend, and every plan is checked."""

import pytest

import fedopt
from fedopt.check import check_plan
from tests.conftest import TINY, TINY_OPTIMA

BACKENDS = ["highs", "cpsat", "pyomo"]


def _solve_and_check(path, backend):
    result = fedopt.solve(path, backend=backend, time_limit=30)
    verdict = check_plan(result.inst, result.to_doc())
    assert verdict.ok, verdict.violations
    assert verdict.objective == pytest.approx(result.objective, abs=1e-6)
    return result


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", sorted(TINY_OPTIMA))
def test_tiny_optimum(name, backend):
    result = _solve_and_check(TINY / f"{name}.json", backend)
    assert result.objective == pytest.approx(TINY_OPTIMA[name], abs=1e-6)
    assert result.status == "optimal"
    assert result.bound == pytest.approx(TINY_OPTIMA[name], abs=1e-4)


@pytest.mark.parametrize("backend", BACKENDS)
def test_spec_example_optimum(spec_examples, backend):
    result = _solve_and_check(spec_examples / "tiny.json", backend)
    assert result.objective == pytest.approx(147.0)
    assert result.gap == pytest.approx(0.0, abs=1e-6)


def test_result_views(spec_examples):
    result = fedopt.solve(spec_examples / "tiny.json")
    frame = result.to_frame()
    assert set(frame["job"]) == {"j1", "j2", "j3", "j4", "j5"}
    assert frame.loc[frame.job == "j4", "status"].item() == "kept"
    assert "objective 147" in result.summary()
    doc = result.to_dict()
    assert doc["version"] == 1 and doc["instance"] == "tiny" and doc["status"] == "optimal"
    assert "start_slot" not in doc["assignments"][0]


def test_pinned_conflict_is_infeasible():
    from tests.conftest import tiny_doc

    doc = tiny_doc("pinned")
    doc["jobs"][1].update(preemptible=False, running={"parts": [{"cluster": "a1", "card_type": "H100", "count": 8}]})
    with pytest.raises(fedopt.InfeasibleError) as exc:
        fedopt.solve(fedopt.parse_instance(doc))
    assert "pool a1/H100: pinned jobs K, L need 16 > 8" in str(exc.value)


def test_same_seed_same_plan(spec_examples):
    a = fedopt.solve(spec_examples / "tiny.json", seed=3).to_dict()
    b = fedopt.solve(spec_examples / "tiny.json", seed=3).to_dict()
    for d in (a, b):
        d.pop("stats")
        d.pop("solver")
    assert a == b


def test_start_solution_never_passes_for_optimal():
    """Found by the fuzz run: HiGHS, given the greedy start, stopped there calling it optimal
    (0.75) with a dual bound of 1.35; fedopt re-solves without the start and gets 1.35."""
    doc = {
        "version": 1,
        "card_types": [{"id": "H100", "stack": "cuda", "memory_gb": 80, "bf16_tflops": 989, "mem_bw_gbs": 3350}],
        "regions": [{"id": "r0"}],
        "clusters": [{"id": "c1", "region": "r0", "pools": [{"card_type": "H100", "cards": 16}]}],
        "tenants": [{"id": "t0", "quota_cards": 4}],
        "jobs": [
            {
                "id": "j0",
                "tenant": "t0",
                "priority": 0.5,
                "throughput": {"H100": 0.3},
                "cards": 1,
                "affinity": {"same_region": ["j1"]},
            },
            {"id": "j1", "priority": 0.5, "throughput": {"H100": 0.3}, "cards": {"min": 4, "max": 8, "step": 2}},
        ],
    }
    r = fedopt.solve(fedopt.parse_instance(doc))
    assert r.objective == pytest.approx(1.35)
    assert r.status == "optimal"
