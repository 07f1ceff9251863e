"""Cloud instance types read as the card they carry."""

from __future__ import annotations

import csv

from fedopt.normalize.cards import CardResolver
from fedopt.normalize.catalog import MODELS_DIR
from fedopt.normalize.cloud_instances import cloud_instance


def test_cloud_instance_types_read_as_their_cards():
    res = CardResolver()
    cases = {
        "p4d.24xlarge": ("A100-SXM4-40GB", "aws instance"),
        "p4de.24xlarge": ("A100-SXM4-80GB", "aws instance"),
        "p5.48xlarge": ("H100-SXM-80GB", "aws instance"),
        "p5en.48xlarge": ("H200-SXM-141GB", "aws instance"),
        "g6e.12xlarge": ("L40S", "aws instance"),
        "g6.xlarge": ("L4", "aws instance"),
        "a2-highgpu-1g": ("A100-SXM4-40GB", "gcp instance"),  # not the NVIDIA A2 its prefix spells
        "a3-megagpu-8g": ("H100-SXM-80GB", "gcp instance"),
        "v5litepod-8": ("TPU-v5e", "gcp instance"),
        "Standard_ND96isr_H100_v5": ("H100-SXM-80GB", "azure instance"),
        "Standard_NC24ads_A100_v4": ("A100-PCIe-80GB", "azure instance"),
        "ml.g5.2xlarge": ("A10G", "aws instance"),  # SageMaker's name for the instance
    }
    for name, (card, how) in cases.items():
        got, got_how = res.match(name)
        assert (got.id, got_how) == (card, how), name
    # every row names a catalog card; no catalog id or alias reads as an instance
    with open(MODELS_DIR / "cloud_instances.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert rows and all(r["card"] in res.catalog and r["source"] for r in rows)
    assert [n for n in list(res.catalog) + list(res._aliases) if cloud_instance(n)] == []
    assert res.match("A2")[0].id == "A2" and cloud_instance("g6e") is None  # a card, a bare series
