"""Profile-only prediction (the roofline of spec section 3), calibrated efficiencies, memory fit."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from fedopt.instance.load import parse_instance
from fedopt.normalize.catalog import card_type
from fedopt.normalize.model import ThroughputModel
from fedopt.normalize.roofline import CardSpec, calibrated, card_specs, profile_rate, profile_rate_calibrated

ROOT = Path(__file__).resolve().parents[2]


def spec(name: str) -> CardSpec:
    c = card_type(name)
    return CardSpec(name, c.bf16_tflops, c.mem_bw_gbs, c.memory_gb, c.scaleup_gbs)


H100, H20, A100, B910, L4 = (spec(n) for n in ("H100-SXM-80GB", "H20-96GB", "A100-SXM4-80GB", "Ascend-910B", "L4"))


def test_compute_bound_profile_is_one_on_the_reference():
    assert profile_rate(1.0, 0.0, 0.0, 10, H100, H100) == pytest.approx(1.0)
    assert profile_rate_calibrated(1.0, 0.0, 0.0, 10, H100, H100) == pytest.approx(1.0)


def test_h20_is_slow_for_pretraining_and_close_for_decoding():
    pretrain = {c.id: profile_rate(1.0, 1.0, 0.4, 60, c, H100) for c in (H100, H20, A100)}
    decode = {c.id: profile_rate(1.0, 40.0, 0.0, 60, c, H100) for c in (H100, H20, A100)}  # batched decoding
    assert pretrain["H20-96GB"] < 0.25 * pretrain["H100-SXM-80GB"]  # a sixth of the compute
    assert decode["H20-96GB"] > decode["H100-SXM-80GB"]  # more memory bandwidth than an H100
    assert decode["A100-SXM4-80GB"] < decode["H20-96GB"]


def test_memory_fit_of_a_profile():
    assert profile_rate(1.0, 4.0, 0.1, 70, L4, H100) == 0.0  # 70 GB on a 24 GB card: ineligible
    assert profile_rate(1.0, 4.0, 0.1, 20, L4, H100) > 0


def test_calibrated_efficiency_is_opt_in_and_relative_to_the_reference():
    assert H20.efficiency == 1.0  # plain specs stay plain
    cal = calibrated(H20, H100, params={"cards": {"H20-96GB": {"efficiency": 0.5}, "H100-SXM-80GB": {"efficiency": 1.0}}})
    assert cal.efficiency == pytest.approx(0.5)
    params = {"cards": {"H100-SXM-80GB": {"efficiency": 0.8}}, "architectures": {"nvidia-hopper": 0.8}, "vendors": {},
              "common": {"efficiency": 1.0}}  # fmt: skip
    # H20 is not measured: it takes its architecture's (Hopper's) efficiency, so relative to the H100 it is 1
    assert calibrated(H20, H100, params=params).efficiency == pytest.approx(1.0)
    assert calibrated(B910, H100, params=params).efficiency == pytest.approx(1.0 / 0.8)
    # a card under a catalog name but of other specs is not that card: the common efficiency
    import dataclasses

    other = dataclasses.replace(H20, bf16_tflops=H20.bf16_tflops * 1.5)
    assert calibrated(other, H100, params=params).efficiency == pytest.approx(1.0 / 0.8)
    near = dataclasses.replace(H20, bf16_tflops=H20.bf16_tflops * 1.05)  # within 10%: the H20 still
    assert calibrated(near, H100, params=params).efficiency == pytest.approx(1.0)
    # the shipped calibration: every card gets a positive finite efficiency
    for c in (H100, H20, A100, B910, L4):
        assert 0.2 < calibrated(c, H100).efficiency < 5


def test_memory_fit_from_measured_zeros():
    m = pd.DataFrame(
        {
            "workload": ["big"] * 4 + ["small"] * 2,
            "card_type": ["k80", "T4", "V100-SXM2-32GB", "A100-SXM4-80GB", "k80", "A100-SXM4-80GB"],
            "cards": 1,
            "throughput": [0.0, 0.0, 2.0, 5.0, 1.0, 6.0],
        }
    )
    model = ThroughputModel().fit(m)
    q = pd.DataFrame(
        {"workload": ["big", "big", "big", "small"], "card_type": ["P100-16GB", "L4", "H100", "P100-16GB"], "cards": 1}
    )
    p = model.predict(q)
    assert p[0] == 0.0  # 16 GB: no more than the T4 it failed on, less than the V100 it ran on
    assert p[1] > 0  # 24 GB: more than any card it failed on
    assert p[2] > 5.0 and p[3] > 0


def test_a_zero_beside_a_run_on_the_same_card_is_an_empty_cell():
    # benchmark tables write 0 for "not run": an H100 system with 0 beside another H100 that ran the
    # job says nothing of memory, so a 16 GB V100 stays eligible (it would be 0 were the 0 a failure)
    m = pd.DataFrame(
        {
            "workload": ["xl"] * 4,
            "card_type": ["Dell H100 80GB SXM5", "H100 80GB SXM5", "RTX 4090", "A100 80GB SXM4"],
            "cards": 1,
            "throughput": [0.0, 62259.0, 40427.0, 43078.0],
        }
    )
    model = ThroughputModel().fit(m)
    q = pd.DataFrame({"workload": ["xl", "xl"], "card_type": ["V100 16GB", "H100 SXM"], "cards": 1})
    p = model.predict(q)
    assert p[0] > 0 and p[1] == pytest.approx(62259.0)


def test_workload_on_one_card_and_unknown_card():
    m = pd.DataFrame(
        {"workload": ["a", "a", "b"], "card_type": ["H100", "A100", "H100"], "cards": 8, "throughput": [2.0, 1.0, 10.0]}
    )
    model = ThroughputModel().fit(m)
    q = pd.DataFrame({"workload": ["b", "b", "b", "c"], "card_type": ["B200", "A30", "no such card", "H100"], "cards": 8})
    p = model.predict(q)
    assert p[0] > 10.0 > p[1] > 0  # from specs, with the common shares
    assert p[2] > 0 and p[3] > 0


def test_precision_picks_the_cards_peak_in_that_format():
    # by hand: a compute-bound FP4 job against an H100 (no FP4: its FP8 1979 counts): B200 9000 /
    # 1979; at BF16 2250 / 989. V100 has no INT8/FP8 matrix units: an FP8 job runs at its BF16 125
    h100, b200, v100 = (card_specs([card_type(n)], narrow=True)[0] for n in ("H100-SXM-80GB", "B200-SXM-180GB", "V100-SXM2-32GB"))
    assert profile_rate(1.0, 0.0, 0.0, 10, h100, h100, "fp4") == pytest.approx(1.0)  # still 1 on the reference
    assert profile_rate(1.0, 0.0, 0.0, 10, b200, h100, "fp4") == pytest.approx(9000 / 1979)
    assert profile_rate(1.0, 0.0, 0.0, 10, b200, h100) == pytest.approx(2250 / 989)
    assert profile_rate(1.0, 0.0, 0.0, 10, v100, h100, "int8") == pytest.approx(125 / 1979)
    assert card_specs([card_type("B200-SXM-180GB")])[0].fp4_tflops is None  # the catalog is read only when asked
    # an FP32 job: TF32 on an H100 (494.5) and an A100 (156), the FP32 vector units on a V100 (15.7)
    a100 = card_specs([card_type("A100-SXM4-80GB")], narrow=True)[0]
    assert profile_rate(1.0, 0.0, 0.0, 10, a100, h100, "fp32") == pytest.approx(156 / 494.5, rel=0.01)
    assert profile_rate(1.0, 0.0, 0.0, 10, v100, h100, "fp32") == pytest.approx(15.7 / 494.5)
    assert card_specs([card_type("V100-SXM2-32GB")])[0].matrix_tflops("fp32") == pytest.approx(62.5)  # no catalog: half BF16


def test_instance_profiles_with_precision():
    # fleet-s plus a B200 type, H800 the reference: a compute-bound FP4 job with no measurements
    # gets B200 9000 / H800 1979 (FP8: H800 has no FP4), a BF16 one 2250 / 989; 910B has no FP4,
    # so an FP4 job counts its INT8 640 there
    doc = json.loads((ROOT / "instances" / "examples" / "fleet-s.json").read_text())
    doc["card_types"].append(card_type("B200-SXM-180GB").model_dump(exclude_none=True))
    doc["settings"]["reference_card"] = "H800"
    base = {"tflop_per_unit": 1.0, "gb_per_unit": 0.0, "comm_gb_per_unit": 0.0, "memory_gb": 20.0}
    for job, precision in zip(doc["jobs"][:2], ("fp4", "bf16"), strict=True):
        job["throughput"] = {}
        job["profile"] = base | {"precision": precision}
    inst = parse_instance(doc)
    ids = [c.id for c in inst.doc.card_types]
    fp4, bf16 = inst.rate[0], inst.rate[1]
    assert fp4[ids.index("H800")] == pytest.approx(1.0) and bf16[ids.index("H800")] == pytest.approx(1.0)
    assert fp4[ids.index("B200-SXM-180GB")] == pytest.approx(9000 / 1979)
    assert bf16[ids.index("B200-SXM-180GB")] == pytest.approx(2250 / 989)
    assert fp4[ids.index("910B")] == pytest.approx(640 / 1979)
