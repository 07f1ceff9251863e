"""Model sizes read from workload names, and whether they fit on one card (checked by hand)."""

from __future__ import annotations

import pytest

from fedopt.normalize.footprint import fits_one_card, parameters_billion, replica_workloads


@pytest.mark.parametrize(
    ("name", "billions"),
    [
        ("mlperf-inf-v6.1/llama2-70b-99.9", 70.0),
        ("mlperf-inf-v4.1/mixtral-8x7b", 56.0),  # 8 experts of 7B
        ("mlperf-inf-v5.0/llama3_1-405b", 405.0),
        ("mlperf-inf-v5.1/llama3.1-8b", 8.0),  # the version's '.1' is not a size
        ("mlperf-inf-v6.1/wan-2.2-t2v-a14b", 14.0),  # active parameters
        ("llamacpp-llama2/70B q4_0 tg", 70.0),
        ("mlperf-train-v6.0/gpt_oss_20b", 20.0),
        ("mlperf-inf-v4.1/gptj-99", None),  # no size stated
        ("B200 resnet50", None),  # a card's name is not a size
        ("gavel/ResNet-18 (batch size 128)", None),
    ],
)
def test_sizes_are_read_from_names(name, billions):
    assert parameters_billion(name) == billions


def test_a_model_fits_where_its_bytes_take_at_most_90_percent_of_memory():
    # 70 GB at one byte per parameter: 70 <= 72 (80 GB), 70 > 43.2 (48 GB); unnamed or no memory: no
    rows = ["llama2-70b", "llama2-70b", "llama2-70b", "resnet50", "llama3-8b"]
    memory = [80.0, 48.0, None, 80.0, 24.0]
    assert fits_one_card(rows, memory, 1.0).tolist() == [1.0, 0.0, 0.0, 0.0, 1.0]
    assert fits_one_card(rows, memory, 2.0).tolist() == [0.0, 0.0, 0.0, 0.0, 1.0]  # 16 <= 21.6


def test_replica_patterns_name_the_workloads_covered():
    wl = ["mlperf-inf/llama2-70b", "train/llama2-70b", "serve-8b", "mlperf-inf/llama2-70b"]
    assert replica_workloads(wl, True).tolist() == [1, 1, 1, 1]
    assert replica_workloads(wl, False).tolist() == [0, 0, 0, 0]
    assert replica_workloads(wl, "mlperf-inf*").tolist() == [1, 0, 0, 1]
    assert replica_workloads(wl, " serve-* , mlperf-inf/* ").tolist() == [1, 0, 1, 1]  # spaces around commas
    assert replica_workloads(wl, "Serve-*").tolist() == [0, 0, 0, 0]  # case counts, as in the CSV
    assert replica_workloads([], "x*").tolist() == []
