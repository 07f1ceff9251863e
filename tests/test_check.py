"""The checker against the spec's worked examples and hand-made broken plans."""

import pytest

from fedopt.check import check_plan
from fedopt.instance import load_instance
from fedopt.instance.io import parse_document, read_bytes
from fedopt.instance.schema import PlanDoc


def _check(dir, inst, plan):
    return check_plan(load_instance(dir / inst), parse_document(read_bytes(dir / plan), PlanDoc))


def test_optimal_example_plan(spec_examples):
    r = _check(spec_examples, "tiny.json", "tiny.optimal.plan.json")
    assert r.ok
    assert r.objective == pytest.approx(147.0)
    assert r.terms["egress"] == pytest.approx(9.0)


def test_broken_example_plan(spec_examples):
    r = _check(spec_examples, "tiny.json", "tiny.broken.plan.json")
    got = sorted(str(v) for v in r.violations)
    assert got == [
        "rule 4: pool a1/H100 28 > 16",
        "rule 5: tenant t1 12 > 8",
        "rule 8: different_cluster: j5/j2 share cluster a1",
        "rule 9: j4 (pinned) stopped",
    ]
    assert r.objective == pytest.approx(96.9)


def test_horizon_example_plan(spec_examples):
    r = _check(spec_examples, "tiny-horizon.json", "tiny-horizon.plan.json")
    assert r.ok, r.violations
    assert r.objective == pytest.approx(21.0)


def _plan(assignments, objective=None):
    return PlanDoc.model_validate({"assignments": assignments, "objective": objective})


def _part(c, t, n):
    return {"cluster": c, "card_type": t, "count": n}


def test_rules_1_to_3_and_objective_mismatch(spec_examples):
    inst = load_instance(spec_examples / "tiny.json")
    plan = _plan(
        [
            {"job": "j1", "parts": [_part("b1", "A100", 8)]},  # j1 allows H100 only
            {"job": "j3", "parts": [_part("a1", "H100", 2), _part("b1", "H100", 2)]},  # max_parts 1
            {"job": "j5", "parts": [_part("b1", "A100", 6)]},  # 6 not in 4, 8, 12
            {"job": "j4", "parts": [_part("c1", "910B", 8)]},
        ],
        objective=1.0,
    )
    rules = sorted({v.rule for v in check_plan(inst, plan).violations})
    assert rules == [1, 2, 3, 11]


def test_link_and_storage(spec_examples):
    inst = load_instance(spec_examples / "tiny.json")
    # j2 split a1 + c1 would need H100 in c: use a1 + b1 with huge sync instead
    doc = inst.doc.model_dump()
    doc["jobs"][1]["split"]["sync_gbps"] = 150
    doc["clusters"][0]["storage_gbps"] = 1
    from fedopt.instance import parse_instance

    inst2 = parse_instance(doc)
    plan = _plan(
        [
            {"job": "j2", "parts": [_part("a1", "H100", 8), _part("b1", "H100", 8)]},
            {"job": "j1", "parts": [_part("a1", "H100", 8)]},
            {"job": "j4", "parts": [_part("c1", "910B", 8)]},
        ]
    )
    msgs = [str(v) for v in check_plan(inst2, plan).violations]
    assert "rule 6: link a-b 150 > 100 Gbit/s" in msgs
    assert "rule 7: cluster a1 storage 2 > 1 Gbit/s" in msgs
