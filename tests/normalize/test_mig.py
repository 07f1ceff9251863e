"""MIG slices in card names: the slice's share of its card, and the card it is cut from."""

from __future__ import annotations

import pytest

from fedopt.normalize.cards import CardResolver, missing_variant
from fedopt.normalize.mig import mig_parent_id


def test_mig_slices_take_their_share_of_the_card():
    # MIG User Guide: a g-slice instance has g/7 of the SMs (g/4 on A30) and its named memory
    res = CardResolver()
    a100_40, h100 = res.resolve("A100-SXM4-40GB"), res.resolve("H100-SXM-80GB")
    label = res.resolve("NVIDIA-A100-SXM4-40GB-MIG-1g.5gb")  # GPU feature discovery, mixed strategy
    assert label.id == "A100-SXM4-40GB-MIG-1g.5gb"
    assert label.bf16_tflops == pytest.approx(a100_40.bf16_tflops / 7)
    assert label.mem_bw_gbs == pytest.approx(a100_40.mem_bw_gbs / 8) and label.memory_gb == 5
    assert res.resolve("A100 MIG 1g.5gb") == label  # only a 40 GB card has 1g.5gb slices
    assert res.resolve("A100 MIG 1g.10gb").id == "A100-SXM4-80GB-MIG-1g.10gb"
    three = res.resolve("H100 MIG 3g.40gb")
    assert three.bf16_tflops == pytest.approx(h100.bf16_tflops * 3 / 7) and three.mem_bw_gbs == pytest.approx(h100.mem_bw_gbs / 2)
    assert three.scaleup_gbs < h100.scaleup_gbs and three.domain == 8  # no NVLink peer traffic
    assert res.resolve("A30 MIG 2g.12gb").bf16_tflops == pytest.approx(res.resolve("A30").bf16_tflops / 2)
    shared = res.resolve("A100-SXM4-40GB MIG 2c.7g.40gb")  # a compute instance: 2 of the 7 slices, all the memory
    assert shared.bf16_tflops == pytest.approx(a100_40.bf16_tflops * 2 / 7) and shared.mem_bw_gbs == a100_40.mem_bw_gbs
    for card in (label, three, shared):
        assert res.resolve(card.id) == card  # a slice's id names it again
    assert res.resolve("L40S MIG 1g.12gb") is None  # no MIG on that card: no specs rather than a whole card's
    assert res.resolve("A100 MIG 8g.80gb") is None


def test_mig_profiles_written_before_the_word_mig():
    # MLPerf submitters write the instance count and profile before "MIG"
    res = CardResolver()
    assert res.resolve("NVIDIA A100-PCIe-80GB (1x1g.10gb MIG)").id == "A100-PCIe-80GB-MIG-1g.10gb"
    assert res.resolve("NVIDIA A100-SXM-80GB (1x1g.10gb MIG)").id == "A100-SXM4-80GB-MIG-1g.10gb"
    assert res.resolve("H100 3g.40gb MIG").id == "H100-SXM-80GB-MIG-3g.40gb"
    assert res.resolve("H100 2c.7g.80gb MIG").id == "H100-SXM-80GB-MIG-2c.7g.80gb"  # not a vGPU type "H100-2C"
    assert missing_variant("NVIDIA A100-PCIe-80GB (1x1g.10gb MIG)", res.resolve("A100 PCIe 80GB")) == []
    from fedopt.normalize.mig import mig_instances

    assert mig_instances("NVIDIA A100-SXM-80GB (2x1g.10gb MIG)") == 2
    assert mig_instances("A100 MIG 1g.10gb") is None and mig_instances("8x H100") is None


def test_a_mig_slice_predicts_below_its_card():
    import pandas as pd

    from fedopt.normalize.model import ThroughputModel

    m = pd.DataFrame(
        {"workload": ["w", "w"], "card_type": ["H100-SXM-80GB", "A100-SXM4-80GB"], "cards": [1, 1], "throughput": [3.0, 1.0]}
    )
    q = pd.DataFrame({"workload": "w", "card_type": ["H100 MIG 1g.10gb", "H100 MIG 3g.40gb", "H100-SXM-80GB"], "cards": 1})
    one, three, whole = ThroughputModel().fit(m).predict(q)
    assert whole == pytest.approx(3.0) and 0 < one < three < whole
    assert three < 0.6 * whole  # 3/7 of the SMs, half the bandwidth
    # every share of the card's time scales with the slice, the host's too (MLPerf Inference's
    # one-slice runs go at about 1/7 of their card): a 1g slice at most 1/7 of the card's rate
    # (1/8 of its bandwidth), however much of the time the fit reads as host time
    assert one <= whole / 7 * 1.0001


def test_mig_share_is_the_slices_share_of_the_sms():
    from fedopt.normalize.mig import mig_share

    res = CardResolver()
    assert mig_share(res.resolve("A100 MIG 1g.5gb").id) == pytest.approx(1 / 7)
    assert mig_share(res.resolve("A30 MIG 2g.12gb").id) == pytest.approx(1 / 2)  # four slices on an A30
    assert mig_share(res.resolve("A100-SXM4-40GB MIG 2c.7g.40gb").id) == pytest.approx(2 / 7)  # a compute instance
    assert mig_share(res.resolve("H100").id) == 1.0


def test_a_slices_id_names_the_card_it_is_cut_from():
    res = CardResolver()
    slice_ = res.resolve("A100 MIG 1g.5gb")
    assert mig_parent_id(slice_.id) == "A100-SXM4-40GB" == res.whole_card("A100 MIG 1g.5gb").id
    assert mig_parent_id("A100-SXM4-40GB") is None
