"""Horizon instances (spec section 4): solved, checked in every slot, same optimum on every backend."""

import pytest

import fedopt
from fedopt.check import check_plan
from fedopt.generate import generate
from fedopt.instance import parse_instance


@pytest.mark.parametrize("backend", ["highs", "cpsat", "pyomo"])
def test_spec_horizon_example(spec_examples, backend):
    r = fedopt.solve(spec_examples / "tiny-horizon.json", backend=backend)
    assert r.objective == pytest.approx(21.0)
    assert r.status == "optimal"
    verdict = check_plan(r.inst, r.to_doc())
    assert verdict.ok and verdict.objective == pytest.approx(21.0)
    doc = r.to_dict()
    assert all("start_slot" in a for a in doc["assignments"])
    # j3 is released at slot 1; j5 must end by its deadline (slot 4)
    starts = {a["job"]: a["start_slot"] for a in doc["assignments"]}
    assert starts["j3"] >= 1


def test_horizon_deadline_and_release_bind(spec_examples):
    import json

    doc = json.loads((spec_examples / "tiny-horizon.json").read_text())
    doc["jobs"][4]["deadline_slot"] = 1  # j5 (work 14.4) cannot finish in one slot on 8 H100 at 0.9 -> needs 12 cards
    r = fedopt.solve(parse_instance(doc))
    assert check_plan(r.inst, r.to_doc()).ok
    placed = {r.inst.job_ids[j]: parts for j, parts in r.placements.items()}
    if "j5" in placed:
        assert sum(n for _, _, n in placed["j5"]) * 0.9 >= 14.4


def test_generated_horizon_instance_is_checked():
    inst = parse_instance(generate("s", seed=2, horizon=6))
    r = fedopt.solve(inst, time_limit=30)
    verdict = check_plan(inst, r.to_doc())
    assert verdict.ok, verdict.violations[:3]
    assert r.bound is None or r.bound <= r.objective + 1e-6


def test_large_horizon_model_is_cut_not_refused(monkeypatch):
    import fedopt.horizon.solve as hs

    monkeypatch.setattr(hs, "MAX_TIMED_COLUMNS", 2000)
    inst = parse_instance(generate("s", seed=2, horizon=6))
    r = fedopt.solve(inst, time_limit=20, method="exact")
    assert check_plan(inst, r.to_doc()).ok
    assert r.bound is None and r.status == "feasible"
    assert "fastest placements" in r.stats["notes"][0]


def test_colgen_on_the_spec_example(spec_examples):
    r = fedopt.solve(spec_examples / "tiny-horizon.json", method="colgen")
    assert r.stats["method"] == "colgen-horizon"
    assert r.objective == pytest.approx(21.0)
    assert r.bound is not None and r.bound <= 21.0 + 1e-6
    assert check_plan(r.inst, r.to_doc()).ok


@pytest.mark.parametrize(("preset", "seed", "slots"), [("s", 1, 24), ("s", 3, 12), ("m", 2, 6)])
def test_colgen_bound_holds_against_exact(preset, seed, slots):
    """Costs are minimized: colgen's bound is below the optimum, its plan not below it."""
    inst = parse_instance(generate(preset, seed=seed, horizon=slots))
    exact = fedopt.solve(inst, method="exact", time_limit=60)
    assert exact.status == "optimal"
    cg = fedopt.solve(inst, method="colgen", time_limit=30)
    tol = 1e-6 * max(1.0, abs(exact.objective))
    assert cg.bound is not None and cg.bound <= exact.objective + tol
    assert cg.objective >= exact.objective - tol
    assert cg.objective <= 1.01 * exact.objective
    assert check_plan(inst, cg.to_doc()).ok


def test_colgen_bound_covers_splits_left_out(monkeypatch):
    """A 16-card gang that must split over two 8-card pools, with its split placements left
    out of the enumeration: colgen cannot place it, but its bound must still allow the
    optimum (4 = the gang placed at slot 0 for the 4 slots), through the relaxed split term."""
    import json

    import fedopt.horizon.solve as hs
    from tests.conftest import TINY

    doc = json.loads((TINY / "split_region.json").read_text())
    doc["settings"]["horizon"] = {"slots": 4, "slot_hours": 1.0}
    inst = parse_instance(doc)
    exact = fedopt.solve(inst, method="exact")
    assert exact.status == "optimal" and exact.objective == pytest.approx(4.0)
    monkeypatch.setattr(hs, "HORIZON_SPLIT_BUDGET", 1)
    cg = fedopt.solve(inst, method="colgen", time_limit=10)
    assert cg.stats["relaxed_split_jobs"] == 1
    assert cg.objective == pytest.approx(8.0)  # left unplaced: the only placements were not enumerated
    assert cg.bound is not None and cg.bound <= 4.0 + 1e-9
    assert check_plan(inst, cg.to_doc()).ok


def test_auto_picks_colgen_for_large_horizon_models(monkeypatch):
    import fedopt.horizon.solve as hs

    monkeypatch.setattr(hs, "AUTO_EXACT_TIMED", 10)
    r = fedopt.solve(parse_instance(generate("s", seed=2, horizon=6)), time_limit=20)
    assert r.stats["method"] == "colgen-horizon"


def test_rolling_windows_cover_the_horizon():
    from fedopt.horizon.rolling import windows

    assert windows(24, 12, 6) == [(0, 12, 6), (6, 18, 12), (12, 24, 24)]
    assert windows(6, 12, 6) == [(0, 6, 6)]
    assert windows(10, 4, 3) == [(0, 4, 3), (3, 7, 6), (6, 10, 10)]


@pytest.mark.parametrize(("preset", "seed", "slots"), [("s", 1, 24), ("m", 2, 6)])
def test_rolling_plan_is_checked_and_bounded(preset, seed, slots, monkeypatch):
    import fedopt.horizon.solve as hs

    monkeypatch.setattr(hs, "ROLLING_WINDOW", 4)
    monkeypatch.setattr(hs, "ROLLING_COMMIT", 2)
    inst = parse_instance(generate(preset, seed=seed, horizon=slots))
    exact = fedopt.solve(inst, method="exact", time_limit=60)
    r = fedopt.solve(inst, method="rolling", time_limit=30)
    assert r.stats["method"] == "rolling-horizon" and len(r.stats["steps"]) >= 2
    assert check_plan(inst, r.to_doc()).ok
    tol = 1e-6 * max(1.0, abs(exact.objective))
    assert r.objective >= exact.objective - tol
    assert r.bound is not None and r.bound <= exact.objective + tol


def test_rolling_is_for_horizon_instances():
    from fedopt.errors import InputError
    from tests.conftest import TINY

    with pytest.raises(InputError, match="horizon"):
        fedopt.solve(TINY / "capacity.json", method="rolling")
