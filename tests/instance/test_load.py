import json

import numpy as np
import pytest

from fedopt.errors import InputError
from fedopt.instance import load_instance, parse_instance
from tests.conftest import tiny_doc


def test_spec_example_loads_with_arrays(spec_examples):
    inst = load_instance(spec_examples / "tiny.json")
    assert inst.job_ids == ["j1", "j2", "j3", "j4", "j5"]
    assert inst.pool_cards.tolist() == [16, 16, 8, 16]
    # j1 allows H100 only; j4 is cann only
    assert inst.pool_ok[0].tolist() == [True, False, True, False]
    assert inst.pool_ok[3].tolist() == [False, False, False, True]
    # j3 reading d1 (in a) from region c costs 3600/8 x 1 x (0.02 + 0.01) = 13.5 per hour
    assert inst.remote_egress[2].tolist() == pytest.approx([0.0, 9.0, 13.5])
    assert inst.pinned.tolist() == [False, False, False, True, False]
    assert inst.different_cluster_pairs.tolist() == [[1, 4]]


def _errors(doc) -> str:
    with pytest.raises(InputError) as exc:
        parse_instance(json.dumps(doc) if isinstance(doc, dict) else doc)
    return str(exc.value)


def test_invalid_json_names_position():
    msg = _errors('{"version": 1, "card_types": [')
    assert "invalid JSON" in msg


def test_missing_field_names_path():
    doc = tiny_doc("capacity")
    del doc["jobs"][1]["cards"]
    assert "jobs[1].cards: required field is missing" in _errors(doc)


@pytest.mark.parametrize(
    ("mutate", "expected"),
    [
        (lambda d: d["jobs"][0].update(cards=-4), "jobs[0].cards"),
        (lambda d: d["jobs"][0].update(cards=2.5), "jobs[0].cards"),
        (lambda d: d["jobs"][0].update(cards="8"), "jobs[0].cards"),
        (lambda d: d["jobs"][0].update(cards={"min": 8, "max": 4}), "jobs[0].cards: min 8 > max 4"),
        (lambda d: d["jobs"][1].update(id="A"), "jobs[1].id: duplicate id 'A'"),
        (lambda d: d["clusters"][0].update(region="nowhere"), "clusters[0].region: unknown region 'nowhere'"),
        (lambda d: d["clusters"][0]["pools"][0].update(card_type="X1"), "clusters[0].pools[0].card_type: unknown card type"),
        (lambda d: d["clusters"][0]["pools"][0].update(cards=-1), "clusters[0].pools[0].cards"),
        (lambda d: d["jobs"][0].update(tenant="ghost"), "jobs[0].tenant: unknown tenant 'ghost'"),
        (lambda d: d["jobs"][0].update(affinity={"same_region": ["nobody"]}), "jobs[0].affinity.same_region[0]: unknown job"),
        (lambda d: d["jobs"][0].update(affinity={"different_cluster": ["A"]}), "with itself"),
        (lambda d: d["jobs"][0].update(priority=0), "jobs[0].priority"),
        (lambda d: d["jobs"][0].update(data=[{"dataset": "zz", "gbps": 1}]), "jobs[0].data[0].dataset: unknown dataset"),
        (lambda d: d.update(version=2), "version"),
        (lambda d: d["jobs"][0]["throughput"].update(Z9=1.0), "jobs[0].throughput.Z9: unknown card type"),
        (
            lambda d: d["jobs"][0].update(running={"parts": [{"cluster": "a1", "card_type": "H100", "count": 0}]}),
            "jobs[0].running.parts[0].count",
        ),
    ],
)
def test_bad_input_names_path(mutate, expected):
    doc = tiny_doc("capacity")
    mutate(doc)
    assert expected in _errors(doc)


def test_link_errors():
    doc = tiny_doc("bandwidth")
    doc["links"].append({"a": "a", "b": "zz", "gbps": 1})
    doc["links"].append({"a": "b", "b": "a", "gbps": 1})
    msg = _errors(doc)
    assert "links[1].b: unknown region 'zz'" in msg
    assert "links[2]: duplicate link b-a" in msg


def test_dataset_without_replica():
    doc = tiny_doc("bandwidth")
    doc["datasets"][0]["replicas"] = []
    assert "datasets[0].replicas" in _errors(doc)


def test_region_pair_a_job_needs_without_route():
    doc = tiny_doc("bandwidth")
    doc["links"] = []  # a and b disconnected: jobs restricted to b cannot read d (in a)
    doc["jobs"][0]["regions"] = ["b"]
    msg = _errors(doc)
    assert "jobs[0].regions[0]: no route from region 'b' to any replica of dataset 'd'" in msg


def test_unreachable_data_makes_region_ineligible_without_allow_list():
    doc = tiny_doc("bandwidth")
    doc["links"] = []
    inst = parse_instance(doc)
    assert not inst.pool_ok.any()


def test_non_utf8_and_empty():
    with pytest.raises(InputError, match="not UTF-8"):
        parse_instance(b'{"name": "\xff"}')
    with pytest.raises(InputError, match="empty"):
        parse_instance(b"  ")


def test_nan_rejected():
    doc = json.dumps(tiny_doc("capacity")).replace('"priority": 2', '"priority": NaN')
    with pytest.raises(InputError, match=r"jobs\[1\].priority"):
        parse_instance(doc)


def test_elastic_totals_and_profile_rates():
    doc = tiny_doc("elastic")
    inst = parse_instance(doc)
    assert inst.job_totals[0].tolist() == [4, 8, 12]
    doc["jobs"][1]["throughput"] = {}
    doc["jobs"][1]["profile"] = {"tflop_per_unit": 1.0}
    inst = parse_instance(doc)
    # a compute-bound profile on the reference card runs at exactly 1.0 (spec section 3)
    assert inst.rate[1].tolist() == [1.0]
    assert np.all(inst.type_ok[1])
