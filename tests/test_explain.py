import fedopt
from fedopt.explain import explain, format_explanation
from tests.conftest import TINY, tiny_doc


def test_explains_a_pending_job_by_its_binding_limits():
    inst = fedopt.load_instance(TINY / "same_region.json")
    plan = fedopt.solve(inst).to_doc()
    e = explain(inst, plan, "Q")
    assert e["status"] == "pending"
    blockers = [b for o in e["options"] for b in o["blockers"]]
    assert any(b.startswith("pool a1/H100") for b in blockers)
    assert any("same_region" in b for b in blockers)
    assert "blocked by" in format_explanation(e)


def test_explains_a_job_with_no_eligible_pool():
    doc = tiny_doc("eligibility")
    doc["jobs"][0]["memory_gb"] = 500
    inst = fedopt.parse_instance(doc)
    e = explain(inst, fedopt.solve(inst).to_doc(), "BIG")
    assert e["status"] == "pending" and "no eligible pool" in e["why"][0]


def test_placed_job_marks_its_choice():
    inst = fedopt.load_instance(TINY / "egress.json")
    e = explain(inst, fedopt.solve(inst).to_doc(), "J")
    assert e["status"] == "placed"
    chosen = [o for o in e["options"] if o["chosen"]]
    assert chosen and chosen[0]["parts"] == "a1/A100 x4"
