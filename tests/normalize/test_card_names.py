"""What a card name alone says (family, form, memory, architecture), before any catalog lookup."""

from __future__ import annotations

import pytest

from fedopt.normalize.card_names import ARCH, LAPTOP, clean_name, compact, family, form_factor, memory_in_name


@pytest.mark.parametrize(
    ("name", "cleaned"),
    [
        ("NVIDIA H100-SXM5-80GB", "h100 sxm5 80gb"),  # vendor word dropped, punctuation to spaces
        ("8x H100", "h100"),  # a system's card count is not part of the card
        ("Radeon RX 7900 XT", "rx 7900 xt"),  # "7900 xt" is not a count "x"
        ("Intel(R) Gaudi(R) 2 AI Accelerator", "gaudi 2"),
        ("Ascend910C", "910c"),  # a vendor word glued to the model number
        ("V100M32", "v100 m32"),  # Alibaba's memory suffix split off
        ("NVIDIA H100XM-80C", "h100 sxm 80gb"),  # a vGPU type names its board
    ],
)
def test_clean_name(name, cleaned):
    assert clean_name(name) == cleaned


@pytest.mark.parametrize(
    ("name", "fam", "form", "gb"),
    [
        ("NVIDIA H100-SXM5-80GB", "h100", "sxm", 80.0),
        ("H100 PCIe", "h100", "pcie", None),
        ("AMD Instinct MI300X OAM", "mi300x", "sxm", None),  # OAM is AMD's SXM
        ("V100M32", "v100", None, 32.0),
        ("GH200 480GB", "gh200", None, 96.0),  # 480 GB is the Grace CPU's LPDDR5X: 96 GB of HBM3 beside it
        ("GH200 624GB", "gh200", None, 144.0),
        ("Cloud AI 100 Ultra", "aic100ultra", None, None),
        ("totally unknown", None, None, None),
    ],
)
def test_family_form_and_memory(name, fam, form, gb):
    assert (family(name), form_factor(name), memory_in_name(name)) == (fam, form, gb)


def test_every_family_has_an_architecture_of_its_vendor():
    # a family without an architecture would be its own architecture: no prior from its siblings
    expected = {"H20": "nvidia-hopper", "Ascend 910B": "huawei-davinci", "A2": "nvidia-ampere", "MI355X": "amd-cdna4"}
    for name, arch in expected.items():
        assert ARCH[family(name)] == arch, name
    vendors = {a.split("-")[0] for a in ARCH.values()}
    china = {"biren", "moorethreads", "iluvatar", "metax", "hygon"}
    assert vendors <= {"nvidia", "amd", "intel", "huawei", "google", "aws", "cambricon", "qualcomm", "apple"} | china


def test_laptop_words_and_compact_keys():
    assert LAPTOP.search(clean_name("RTX 4090 Laptop")) and LAPTOP.search(clean_name("RTX PRO 6000 Blackwell Max-Q"))
    assert not LAPTOP.search(clean_name("RTX 4090"))
    assert compact("H100-SXM-80GB") == compact("h100 sxm 80gb") == "h100sxm80gb"
