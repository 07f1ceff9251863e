"""Card names as vendors, MLPerf, Gavel and Alibaba write them, matched to the catalog."""

from __future__ import annotations

import json
import math

import pytest

from fedopt.normalize.capacity import has_tensor
from fedopt.normalize.card_names import APPLE_CHIPS
from fedopt.normalize.cards import Card, CardResolver, missing_variant
from fedopt.normalize.catalog import MODELS_DIR, load_catalog

NAMES = {
    "k80": "K80",
    "p100": "P100-16GB",
    "v100": "V100-SXM2-32GB",
    "NVIDIA H100-SXM5-80GB": "H100-SXM-80GB",
    "H100 SXM": "H100-SXM-80GB",
    "NVIDIA H100 80GB HBM3": "H100-SXM-80GB",
    "NVIDIA H100-PCIe-80GB": "H100-PCIe-80GB",
    "H100 NVL Tensor Core GPU (PCIe)": "H100-NVL-94GB",
    "A100-80GB": "A100-SXM4-80GB",
    "NVIDIA A100 - PCIe - 80 GB": "A100-PCIe-80GB",
    "NVIDIA A100-SXM-40GB": "A100-SXM4-40GB",
    "Ascend 910B": "Ascend-910B",
    "Huawei Ascend 910B3": "Ascend-910B",
    "NVIDIA Blackwell GPU (B200-SXM-180GB)": "B200-SXM-180GB",
    "Intel(R) Gaudi(R) 2 AI Accelerator": "Gaudi2",
    "AMD Instinct MI300X 192GB HBM3": "MI300X",
    "TPU-v5p": "TPU-v5p",
    "TPU-trillium": "TPU-v6e",
    "NVIDIA GeForce RTX 4090": "RTX-4090",
    "RTX 4090D": "RTX-4090-D",  # the China variant: read as the 4090 until 2026-12-07, 12% above its peaks
    "NVIDIA GeForce RTX 4090 D": "RTX-4090-D",
    "4070 Ti 12GB": "RTX-4070-Ti",  # llama.cpp's benchmark tables write GeForce cards so
    "NVIDIA GeForce RTX 4070": "RTX-4070",  # not the 4070 Ti: a Ti the catalog has is its own card
    "V100M16": "V100-SXM2-16GB",
    "H20": "H20-96GB",
    "NVIDIA L40S": "L40S",
    "NVIDIA L40": "L40",
    "NVIDIA L4": "L4",
    "T4": "T4",
    "A10": "A10",
    "NVIDIA A10G": "A10G",
    # older, consumer and workstation cards that research traces use
    "Tesla K80": "K80",
    "Tesla K40m": "K40",
    "NVIDIA GeForce GTX 1080 Ti": "GTX-1080-Ti",
    "TITAN Xp": "TITAN-Xp",
    "TITAN V": "TITAN-V",
    "rtx2080ti": "RTX-2080-Ti",
    "NVIDIA TITAN RTX": "TITAN-RTX",
    "Quadro RTX 6000": "Quadro-RTX-6000",
    "Quadro RTX 8000": "Quadro-RTX-8000",
    "NVIDIA GeForce RTX 3090": "RTX-3090",
    "NVIDIA RTX 6000 Ada Generation": "RTX-6000-Ada",
    "NVIDIA RTX A6000": "RTX-A6000",
    "NVIDIA A2": "A2",
    "Tesla P4": "P4",
    # consumer cards of public benchmark tables; a "Ti" is its own card, a bare number is not a Ti
    "NVIDIA GeForce GTX 1080": "GTX-1080",
    "GeForce RTX 2080": "RTX-2080",
    "RTX 3060": "RTX-3060",
    "NVIDIA GeForce RTX 3070": "RTX-3070",
    "RTX 3080 Ti": "RTX-3080-Ti",
    "NVIDIA GeForce RTX 3080": "RTX-3080",
    "GeForce RTX 4080": "RTX-4080",
    "NVIDIA GeForce RTX 3060 Ti": "RTX-3060-Ti",  # a GA104, not the 3060's GA106
    "RTX 4060 Ti": "RTX-4060-Ti",
    "RTX 4060 Ti 16GB": "RTX-4060-Ti-16GB",
    "GeForce RTX 2070 SUPER": "RTX-2070-SUPER",
    "RTX 2080 Super": "RTX-2080-SUPER",  # not the 2080
    "NVIDIA GeForce RTX 5080": "RTX-5080",
    # variants with entries of their own since 2026-12-04 (read as their base card before)
    "RTX 4080 SUPER": "RTX-4080-SUPER",
    "GeForce RTX 4070 Ti SUPER": "RTX-4070-Ti-SUPER",
    "RTX 4070 SUPER": "RTX-4070-SUPER",
    "NVIDIA GeForce RTX 3070 Ti": "RTX-3070-Ti",
    "RTX 3090 Ti": "RTX-3090-Ti",
    "NVIDIA GeForce RTX 4060": "RTX-4060",  # not the 4060 Ti
    "NVIDIA GeForce RTX 5070 Ti": "RTX-5070-Ti",
    "RTX 5070": "RTX-5070",
    "RTX 5060 Ti 16GB": "RTX-5060-Ti-16GB",
    "RTX 5060 Ti": "RTX-5060-Ti",
    "RTX 3050": "RTX-3050",
    "GeForce RTX 2060": "RTX-2060",
    "RTX 4000 Ada 20GB": "RTX-4000-Ada",  # llama.cpp's tables
    "NVIDIA RTX 5000 Ada Generation": "RTX-5000-Ada",
    "RTX 4500 Ada": "RTX-4500-Ada",
    "NVIDIA RTX A4500": "RTX-A4500",
    "AMD Radeon PRO W7900": "W7900",
    "Radeon RX 7900 XT": "RX-7900-XT",  # not the XTX
    "AMD Radeon RX 7900 XTX": "RX-7900-XTX",  # "7900 xtx" is no card count ("8x h100"): None until 2026-12-04
    "AMD Radeon VII": "Radeon-VII",
    "AMD Instinct MI50": "MI50",
    "AMD Radeon Instinct MI60": "MI60",
    "AMD Instinct MI300A": "MI300A",  # the APU, not the MI300X
    "Intel Arc A770": "Arc-A770",
    # "Max-Q" here is the 300 W workstation card, not a laptop part (None until 2026-12-04)
    "NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition": "RTX-PRO-6000-Blackwell-Max-Q",
    "NVIDIA RTX PRO 6000 Blackwell Workstation Edition": "RTX-PRO-6000-Blackwell",
    "NVIDIA RTX PRO 5000 Blackwell": "RTX-PRO-5000-Blackwell",
    "NVIDIA RTX PRO 4000 Blackwell": "RTX-PRO-4000-Blackwell",
    "NVIDIA RTX PRO 2000 Blackwell": "RTX-PRO-2000-Blackwell",
    "NVIDIA DGX Spark": "GB10",
    "NVIDIA GB10": "GB10",
    # newer cards
    "NVIDIA RTX PRO 6000 Blackwell Server Edition": "RTX-PRO-6000-Blackwell",
    # the word order of NVIDIA's TensorRT-LLM tables, and the generation's name: read as Turing's Quadro
    # RTX 6000 until 2026-12-06; the bare name stays Turing's
    "RTX 6000 Pro Blackwell Server Edition": "RTX-PRO-6000-Blackwell",
    "RTX 6000 Blackwell": "RTX-PRO-6000-Blackwell",
    "RTX 4500 Pro Blackwell": "RTX-PRO-4500-Blackwell",
    "RTX 6000 Pro Blackwell Max-Q": "RTX-PRO-6000-Blackwell-Max-Q",
    "RTX 6000": "Quadro-RTX-6000",
    "NVIDIA H200 NVL": "H200-NVL-141GB",
    "NVIDIA H200": "H200-SXM-141GB",
    "NVIDIA B300-SXM-288GB": "B300-SXM-288GB",
    "NVIDIA B100": "B100",
    # sold by GPU + Grace LPDDR5X memory: 96 + 480, 144 + 480
    "NVIDIA GH200 480GB": "GH200-96GB",
    "GH200 624GB": "GH200-144GB",
    "NVIDIA GH200 Grace Hopper Superchip 144GB": "GH200-144GB",
    "NVIDIA GB300": "GB300",
    "AMD Instinct MI355X": "MI355X",
    "MI350X": "MI350X",
    "TPU v3": "TPU-v3",
    "TPU7x": "TPU7x",
    "TPU v7 (Ironwood)": "TPU7x",
    "TPU v7x": "TPU7x",
    # MLPerf Inference v5.1's accelerator: a board of two B60 GPUs, not one B60
    "[MAXSUN] MS-Intel Arc Pro B60 Dual 48G Turbo": "Arc-Pro-B60-Dual",
    "Intel Arc Pro B60": "Arc-Pro-B60",
    # MLPerf Inference v6.1's new cards, as their systems name them
    "Intel(R) Arc(TM) Pro B70": "Arc-Pro-B70",
    "Intel(R) Arc(TM) Pro B50": "Arc-Pro-B50",
    "NVIDIA RTX PRO 4500 Blackwell": "RTX-PRO-4500-Blackwell",
    "AMD Instinct MI350P": "MI350P",  # the PCIe card, half an MI350X: not the MI350X
    # Ampere workstation and VDI cards: the A5000's successor, and one of the A16 board's four GPUs
    "NVIDIA RTX A5500": "RTX-A5500",
    "NVIDIA A16": "A16",
    "A16-16GB": "A16",
    "AWS Trainium2": "Trainium2",
    # added 2026-12-07: AWS's fourth chip ("Trainium 3" was read as the first), China-market parts, Huawei's 950s
    "AWS Trainium3": "Trainium3",
    "Trainium 3": "Trainium3",
    "trn3": "Trainium3",
    "AMD Instinct MI308X": "MI308X",
    "NVIDIA RTX 5880 Ada Generation": "RTX-5880-Ada",
    "RTX 5880": "RTX-5880-Ada",
    "NVIDIA H20 141GB": "H20-141GB",
    "H20X-141C": "H20-141GB",
    # the second memory named by its type: nvidia-smi's "NVIDIA H20-3e" (and GPU feature discovery's label) is the 141 GB H20
    "NVIDIA H20-3e": "H20-141GB",
    "NVIDIA-H20-3e": "H20-141GB",
    "H20 HBM3e": "H20-141GB",
    "GH200 HBM3e": "GH200-144GB",
    "NVIDIA GH200 144G HBM3e": "GH200-144GB",
    "GH200 HBM3": "GH200-96GB",
    # Huawei's chip labels and servers: the 910B2C is a 910B; an Atlas A3 NPU one die of a 910C; Atlas A2 is not NVIDIA's A2
    "Ascend910B2C": "Ascend-910B",
    "Ascend910A": "Ascend-910",
    "Ascend910_9391": "Ascend-910C-die",
    "Atlas 800I A3": "Ascend-910C-die",
    "Ascend 910C": "Ascend-910C",
    "Atlas 800I A2": "Ascend-910B",
    "Atlas 200T A2 Box16": "Ascend-910B",
    # China's GeForce variants are cards of their own, not the 5090 (a 29% lower tensor rate; the V2 on 24 GB)
    "NVIDIA GeForce RTX 5090 D": "RTX-5090-D",
    "RTX 5090D V2": "RTX-5090-D-v2",
    "RTX 5090 32GB": "RTX-5090",
    # the V100S is a faster board than the V100 PCIe (130 against 112 TFLOPS, 1134 against 900 GB/s)
    "Tesla V100S-PCIE-32GB": "V100S-PCIe-32GB",
    "Tesla V100-PCIE-32GB": "V100-PCIe-32GB",
    "Huawei Ascend 950PR": "Ascend-950PR",
    "Ascend950DT": "Ascend-950DT",
    "Cambricon MLU370-X8": "MLU370-X8",
    # China's other accelerators; Iluvatar's BI-V100 is not a V100, Hygon's K100_AI not its K100 (no figures)
    "Biren BR100": "BR100",
    "BR104": "BR104",
    "Moore Threads MTT S4000": "MTT-S4000",
    "Iluvatar BI-V100": "BI-V100",
    "Tiangai 100": "BI-V100",
    "MetaX C500": "C500",
    "MXC500": "C500",
    "Hygon DCU BW1000": "BW1000",
    "K100_AI": "K100-AI",
    "Hygon DCU K100-AI": "K100-AI",
    # Qualcomm Cloud AI 100 cards as MLPerf Inference systems name them; the Pro when no SKU is written
    "QUALCOMM Cloud AI 100 Standard": "AIC100-Standard",
    "Qualcomm Cloud AI 100 Pro": "AIC100-Pro",
    "QUALCOMM Cloud AI 100 Ultra": "AIC100-Ultra",
    "QAIC100": "AIC100-Pro",
    "Cloud AI 100": "AIC100-Pro",
    "Cloud AI 100 Standard": "AIC100-Standard",
    "QUALCOMM Cloud AI 100 PCIe/HHHL Standard": "AIC100-Standard",  # v3.1's form words before the SKU
    "QUALCOMM Cloud AI 100 PCIe/HHHL Pro": "AIC100-Pro",
    "trn1": "Trainium",
    "inf2": "Inferentia2",
    "NVIDIA GeForce RTX 5090": "RTX-5090",
    "NVIDIA H800 PCIe": "H800-PCIe-80GB",
    "A800 PCIe 80GB": "A800-PCIe-80GB",
    "NVIDIA RTX A4000": "RTX-A4000",
    "Intel Data Center GPU Max 1550": "Max-1550",
    # Huawei's 910B server is called "A2": not NVIDIA's A2
    "Atlas 800T A2": "Ascend-910B",
    # systems named with their card count (Lambda's benchmark tables)
    "LambdaCloud 4xV100 16GB": "V100-SXM2-16GB",
    "8x H100 80GB SXM5": "H100-SXM-80GB",
    "Dell 2x H100 80GB SXM5": "H100-SXM-80GB",
    "2x RTX A6000": "RTX-A6000",
    # Apple silicon as llama.cpp's tables name it: the chip and its GPU core count
    "M1 Max 24-Core GPU 32GB": "M1-Max-24c",
    "Apple M1 Max": "M1-Max-32c",
    "M2 Ultra 76-Core GPU 192GB": "M2-Ultra-76c",
    "Apple M2 Ultra (60-core GPU)": "M2-Ultra-60c",
    "M3 10-Core GPU 16GB": "M3-10c",
    "Apple M3 8-core GPU": "M3-8c",
    "M3 Max 40-Core GPU 48GB": "M3-Max-40c",
    "Apple M1 Ultra": "M1-Ultra-64c",
    "M2 Max 30-core GPU": "M2-Max-30c",
    "Apple M3 Pro": "M3-Pro-18c",
    "M4 Pro 16-core GPU": "M4-Pro-16c",
    "Mac mini (M4, 10-core GPU)": "M4-10c",
    "mac2-m2pro.metal": "M2-Pro-19c",  # AWS's M2 Pro Mac instance
    "MacBook Pro M3 Pro 14-inch": "M3-Pro-18c",  # the laptop's screen, not the 14-core part
}


@pytest.mark.parametrize(("name", "card"), NAMES.items())
def test_names_resolve(name, card):
    hit = CardResolver().resolve(name)
    assert hit is not None and hit.id == card


def test_variants_the_catalog_lacks():
    res = CardResolver()
    assert missing_variant("RTX 2060 SUPER", res.resolve("RTX 2060 SUPER")) == ["super"]
    assert missing_variant("RTX 4060 Ti SUPER", res.resolve("RTX 4060 Ti SUPER")) == ["super"]  # the Ti is there
    for name in ("RTX 3060 Ti", "rtx3080ti", "RX 7900 XTX", "RX 7900 XT", "RTX 2080 SUPER", "NVIDIA H100 80GB HBM3"):
        assert missing_variant(name, res.resolve(name)) == [], name
    assert missing_variant("Unknown 9000 Ti", None) == []  # no card: the "no specs" note says it


def test_memory_size_the_catalog_lacks():
    # the 40 GB A800 has no figures of its own: read as the 80 GB card, which the user should hear of
    res = CardResolver()
    assert res.resolve("A800-40GB").memory_gb == 80
    assert missing_variant("A800-40GB", res.resolve("A800-40GB")) == ["40gb"]
    # the 141 GB H20 has its own (HBM3e: more bandwidth than the 96 GB card's HBM3), the bare name the 96 GB one
    assert (res.resolve("H20 141GB").memory_gb, res.resolve("H20 141GB").mem_bw_gbs) == (141, 4800)
    assert res.resolve("NVIDIA H20").memory_gb == 96
    assert missing_variant("NVIDIA H20-3e", res.resolve("NVIDIA H20-3e")) == []
    # a form the catalog lacks for that chip is said too (no H800 NVL: read as the H800 SXM); an NVL card is a PCIe card
    assert missing_variant("NVIDIA H800 NVL", res.resolve("NVIDIA H800 NVL")) == ["nvl"]
    assert missing_variant("H100 PCIe 94GB", res.resolve("H100 PCIe 94GB")) == []
    # installed vs usable memory (within 10%), a dual-die board's total, MIG slices, Grace Hopper's LPDDR: no note
    for name in ("B200 192GB", "H100 NVL 96GB", "K80 24GB", "A100 MIG 3g.40gb", "GH200 480GB", "A100-SXM4-40GB", "V100 32GB"):
        assert missing_variant(name, res.resolve(name)) == [], name


def test_a_later_generation_is_not_read_as_an_earlier_one():
    # "Trainium 3" was the first Trainium (a thirteenth of its peak) until 2026-12-07; a name no card
    # of the catalog carries gets no specs rather than another generation's
    res = CardResolver()
    for name in ("AWS Trainium 4", "Trn4", "Ascend 950", "GeForce GTX 950", "Hygon DCU K100", "Biren BR106"):
        assert res.resolve(name) is None, name
    assert res.resolve("AWS Trainium").id == "Trainium"


def test_laptop_parts_have_no_specs():
    # they run far below their desktop namesakes' clocks and power (Lambda's Max-Q rows)
    for name in ("RTX 2080 MAX-Q", "RTX 2080 SUPER MAX-Q", "GeForce RTX 4090 Laptop GPU", "RTX 3080 Mobile"):
        assert CardResolver().resolve(name) is None, name


def test_unknown_names():
    res = CardResolver()
    for name in ("G2", "Totally Unknown Accelerator", "", "hidden-series-3"):
        assert res.resolve(name) is None


def test_user_cards_win(tmp_path):
    mine = Card("H100", 900.0, 3000.0, 80.0)
    res = CardResolver(extra=[mine])
    assert res.resolve("H100") is mine
    assert res.resolve("NVIDIA H100-SXM5-80GB") is mine  # same family, same form
    assert res.resolve("NVIDIA H100-PCIe-80GB").id == "H100-PCIe-80GB"  # a PCIe card is another card


def test_narrow_format_peaks():
    # dense 8-bit and 4-bit matrix peaks (models/narrow_formats.csv); a card with nothing narrower
    # falls back to the next wider format's peak
    res = CardResolver()
    b200, v100, a100, rtx4090 = (res.resolve(n) for n in ("B200", "V100", "A100", "RTX 4090"))
    assert (b200.p8, b200.p4) == (4500, 9000)
    assert (v100.p8, v100.p4) == (125, 125)  # Volta: no INT8 matrix units, no FP8
    assert (a100.p8, a100.p4) == (624, 624)  # Ampere: INT8, no FP8, no FP4
    assert rtx4090.p8 == 660.6 and rtx4090.bf16_tflops == 165.2  # GeForce: BF16 with FP32 accumulate is half rate
    src = load_catalog()["A100"]["sources"]["fp8_tflops"]
    assert "int8" in src and "narrow_formats.csv" in src
    # China's RTX 5090 D and D V2: every tensor peak at 2,375 of the 5090's 3,352 AI TOPS
    rtx5090, rtx5090d, rtx5090dv2 = (res.resolve(n) for n in ("RTX 5090", "RTX 5090 D", "RTX 5090 D v2"))
    for peak in ("bf16_tflops", "p8", "p4"):
        assert getattr(rtx5090d, peak) == pytest.approx(getattr(rtx5090, peak) * 2375 / 3352, rel=0.002), peak
    assert (rtx5090d.memory_gb, rtx5090d.mem_bw_gbs, rtx5090dv2.memory_gb, rtx5090dv2.mem_bw_gbs) == (32, 1792, 24, 1344)
    # every Ada data-center card runs FP8 at twice its BF16 rate (the L20 is China's: its 8-bit peak was missing,
    # so an FP8 job on it ran at the BF16 peak)
    for name in ("L4", "L20", "L40", "L40S"):
        ada = res.resolve(name)
        assert ada.p8 == pytest.approx(2 * ada.bf16_tflops, rel=0.02), name  # L40S: 733 beside 362


def test_catalog_file_is_fresh():
    # models/catalog.json is what build_catalog() makes of the shared tables and models/*.csv
    from fedopt.normalize.catalog import CATALOG_PATH, build_catalog

    assert json.loads(CATALOG_PATH.read_text())["cards"] == json.loads(json.dumps(build_catalog()))


def test_corrections_replace_a_shared_figure_and_say_why(tmp_path):
    """The shared table gives the K80 board's 300 W beside one die's memory and peaks: the catalog
    counts dies (what a VM or a node lists), so its power is the die's 150 W, sourced to the fix;
    and the T4's 400 GB/s, where its bus gives 320."""
    from fedopt.normalize.catalog import build_catalog

    k80 = load_catalog()["K80"]
    assert (k80["power_w"], k80["memory_gb"], k80["mem_bw_gbs"]) == (150.0, 12.0, 240.0)
    assert k80["sources"]["power_w"].startswith("catalog_corrections.csv (") and "300 W" in k80["sources"]["power_w"]
    t4 = load_catalog()["T4"]  # 256-bit GDDR6 at 10 Gbps: 320 GB/s, not the shared table's 400
    assert (t4["mem_bw_gbs"], t4["memory_gb"], t4["bf16_tflops"]) == (320.0, 16.0, 65.0)
    assert t4["sources"]["mem_bw_gbs"].startswith("catalog_corrections.csv (") and "400 GB/s" in t4["sources"]["mem_bw_gbs"]
    bad = tmp_path / "corrections.csv"
    bad.write_text('gpu,field,value,reason\nK81,power_w,1,"no such card"\n')
    with pytest.raises(ValueError, match="'K81' has no 'power_w' to correct"):
        build_catalog(corrections=bad)
    assert (MODELS_DIR / "catalog_corrections.csv").exists()


def test_catalog_covers_the_issue_cards_with_sources():
    cat = load_catalog()
    for name in (
        "K80",
        "P100",
        "V100",
        "A100",
        "H100",
        "H200",
        "H800",
        "H20",
        "L40S",
        "L4",
        "A10",
        "T4",
        "910B",
        "B200",
        "MI300X",
        "Gaudi2",
    ):
        entry = cat[name]
        assert entry["complete"], name
        assert all(entry["sources"].get(f) for f in ("bf16_tflops", "mem_bw_gbs", "memory_gb")), name


def test_bridged_cards_ring_over_pcie_past_the_bridge():
    res = CardResolver()
    h100_nvl, h200_nvl, h100 = res.resolve("H100 NVL"), res.resolve("H200 NVL"), res.resolve("H100")
    assert h100_nvl.ring_gbs(2) == 600 and h100_nvl.ring_gbs(4) == 128  # a bridge joins two
    assert h200_nvl.ring_gbs(4) == 900 and h200_nvl.ring_gbs(8) == 128  # ... four on H200 NVL
    assert h100.ring_gbs(8) == 900


def test_nvl72_racks_keep_nvlink_past_one_node():
    import numpy as np

    from fedopt.normalize.capacity import card_logs

    res = CardResolver()

    def ring(name, n):
        return round(float(900.0 / np.exp(card_logs(res.resolve(name), [n])[0, 3])), 6)

    assert ring("GB200 NVL72", 64) == 1800 and ring("GB200", 144) == 50  # one NVLink domain of 72
    assert ring("H100", 8) == 900 and ring("H100", 16) == 50  # an HGX node is 8


def test_tf32_peak_where_the_matrix_units_take_fp32():
    # TF32 at half the dense BF16 peak on Ampere and newer (A100 156, H100 494.5 TFLOPS); V100,
    # Turing and CDNA4 run FP32 work on their vector units (15.7, 16.3, 157.3 TFLOPS)
    res = CardResolver()
    assert res.resolve("A100 SXM").tf32 == pytest.approx(156, abs=1)
    assert res.resolve("H100 SXM").tf32 == pytest.approx(494.5)
    assert res.resolve("RTX 3090").tf32 == pytest.approx(res.resolve("RTX 3090").bf16_tflops / 2, rel=0.01)
    for name in ("V100", "Quadro RTX 8000", "MI355X", "K80"):
        card = res.resolve(name)
        assert card.tf32 == card.fp32 < card.bf16_tflops or name == "K80"


def test_geforce_tensor_peaks_agree_with_their_fp32_peaks():
    # GeForce matrix units at FP32 accumulate run 512 FLOPs per SM per clock on Ampere, Ada and
    # Blackwell (twice the FP32 vector rate's 256) and on Turing (four times its 128): a typo in
    # either figure of models/catalog_supplement.csv breaks the ratio
    res = CardResolver()
    twice = ["RTX 3060", "RTX 3070", "RTX 3080", "RTX 3080 Ti", "RTX 3090", "RTX 4070", "RTX 4070 Ti", "RTX 4080", "RTX 4090"]
    twice += ["RTX 5080", "RTX 5090", "RTX 3060 Ti", "RTX 4060 Ti", "RTX 4060 Ti 16GB"]
    twice += ["RTX 3050", "RTX 3070 Ti", "RTX 3090 Ti", "RTX 4060", "RTX 4070 SUPER", "RTX 4070 Ti SUPER", "RTX 4080 SUPER"]
    twice += ["RTX 5060 Ti", "RTX 5060 Ti 16GB", "RTX 5070", "RTX 5070 Ti", "GB10"]  # DGX Spark's GPU rates as GeForce
    twice += ["RTX 4090 D"]
    for name in twice:
        card = res.resolve(name)
        assert card.bf16_tflops / card.fp32_tflops == pytest.approx(2.0, rel=0.01), name
    # workstation Blackwell (RTX PRO): full rate at FP32 accumulate, 1024 FLOPs per SM per clock, four
    # times the FP32 vector rate (RTX PRO 6000: 500 / 125)
    for name in ("RTX PRO 6000", "RTX PRO 6000 Max-Q", "RTX PRO 5000", "RTX PRO 4500", "RTX PRO 4000", "RTX PRO 2000"):
        card = res.resolve(name)
        assert card.bf16_tflops / card.fp32_tflops == pytest.approx(4.0, rel=0.02), name
    # workstation Ada: full rate at FP32 accumulate too (RTX 6000 Ada: 364.2 / 91.1), the rule the RTX 5880
    # Ada's figure rests on, with FP8 at twice BF16
    for name in ("RTX 6000 Ada", "RTX 5000 Ada", "RTX 4500 Ada", "RTX 4000 Ada", "RTX 5880 Ada"):
        card = res.resolve(name)
        assert card.bf16_tflops / card.fp32_tflops == pytest.approx(4.0, rel=0.01), name
        assert card.p8 / card.bf16_tflops == pytest.approx(2.0, rel=0.01), name
    for name in ("RTX 2080", "RTX 2080 Ti", "RTX 2070 SUPER", "RTX 2080 SUPER", "RTX 2060"):
        card = res.resolve(name)
        assert card.bf16_tflops / card.fp32_tflops == pytest.approx(4.0, rel=0.01), name
    # 8-bit at FP16 accumulate: four times the BF16 figure
    for name in ("RTX 4060 Ti", "RTX 4070", "RTX 4070 Ti", "RTX 4080", "RTX 5080", "RTX 4060", "RTX 4070 SUPER"):
        card = res.resolve(name)
        assert card.p8 / card.bf16_tflops == pytest.approx(4.0, rel=0.01), name
    for name in ("RTX 4070 Ti SUPER", "RTX 4080 SUPER", "RTX 5060 Ti", "RTX 5070", "RTX 5070 Ti", "RTX 4090 D"):
        card = res.resolve(name)
        assert card.p8 / card.bf16_tflops == pytest.approx(4.0, rel=0.01), name
    for name in ("RTX 5060 Ti", "RTX 5070", "RTX 5070 Ti"):  # 4-bit: eight times (RTX 5080: 900.4 / 112.6)
        card = res.resolve(name)
        assert card.p4 / card.bf16_tflops == pytest.approx(8.0, rel=0.01), name


def test_vgpu_types_name_their_board():
    # NVIDIA vGPU (C-Series) type names: the letters after the chip name the board
    res = CardResolver()
    boards = {
        "NVIDIA H100-80C": "H100-PCIe-80GB",
        "NVIDIA-H100XM-80C": "H100-SXM-80GB",  # as GPU feature discovery labels a vGPU node
        "H100L-94C": "H100-NVL-94GB",
        "H200X-141C": "H200-SXM-141GB",
        "H200-141C": "H200-NVL-141GB",
        "H800-80C": "H800-PCIe-80GB",
        "A100DX-80C": "A100-SXM4-80GB",
        "A100X-40C": "A100-SXM4-40GB",
        "V100DX-32C": "V100-SXM2-32GB",
        "H20-96C": "H20-96GB",
        "L40S-48C": "L40S",
    }
    assert {name: res.resolve(name).id for name in boards} == boards
    # an NVL board is NVIDIA's PCIe card of that chip: asked for PCIe, the NVL when nothing else
    # is (H200) or the memory says so (94 GB); a plain PCIe card otherwise
    assert res.resolve("H200 PCIe").id == "H200-NVL-141GB"
    assert res.resolve("H100 PCIe 94GB").id == "H100-NVL-94GB"
    assert res.resolve("H100 PCIe").id == "H100-PCIe-80GB"


def test_cards_added_on_2026_12_04_keep_their_sources_arithmetic():
    # figures of models/catalog_supplement.csv that follow from others (sources column)
    res = CardResolver()
    mi300a, mi300x = res.resolve("MI300A"), res.resolve("MI300X")
    assert mi300a.bf16_tflops / mi300x.bf16_tflops == pytest.approx(228 / 304, rel=0.01)  # compute units
    assert mi300a.p8 / mi300x.p8 == pytest.approx(228 / 304, rel=0.01)
    assert res.resolve("RTX 5000 Ada").bf16_tflops == pytest.approx(100 * 2550 * 1024 / 1e6, rel=0.01)  # SMs x boost
    assert res.resolve("RTX 4000 Ada").mem_bw_gbs == pytest.approx(160 * 18 / 8)  # bus bits x Gbps / 8
    for name in ("Radeon VII", "MI50", "MI60"):  # Vega 20: packed FP16, no matrix units
        assert not has_tensor(res.resolve(name)), name
    assert has_tensor(res.resolve("Arc A770"))  # XMX: 8x its FP32 vector rate
    # RDNA3's WMMA is twice its dual-issue FP32 figure: read as the RX 7900 XTX is
    assert has_tensor(res.resolve("W7900")) == has_tensor(res.resolve("RX 7900 XT")) == has_tensor(res.resolve("RX 7900 XTX"))


def test_a_pcie_only_card_keeps_pcie_past_eight_cards():
    # MLPerf Inference servers hold 10 RTX PRO 6000, 16 L4 or 18 Cloud AI 100 on one PCIe fabric: past
    # 8 such cards still reach each other over PCIe (128 GB/s), not over the 50 GB/s network an HGX node leaves by
    from fedopt.normalize.capacity import card_logs

    res = CardResolver()
    pro, l4, h100, nvl, gb200 = (res.resolve(n) for n in ("RTX PRO 6000 Blackwell Server", "L4", "H100 SXM", "H100 NVL", "GB200"))
    assert pro.scaleup <= 128 and pro.domain == 18 and l4.domain == 18 == res.resolve("Cloud AI 100 Pro").domain
    assert h100.domain == 8 and nvl.domain == 8 and gb200.domain == 72  # NVLink, bridges, NVL72
    lc = card_logs(pro, [8, 10, 18, 19])[:, 3]
    assert lc[0] == lc[1] == lc[2] == pytest.approx(math.log(900 / pro.scaleup))
    assert lc[3] == pytest.approx(math.log(900 / 50))  # a second server: the network
    h = card_logs(h100, [8, 10])[:, 3]
    assert h[0] == pytest.approx(0.0) and h[1] == pytest.approx(math.log(900 / 50))


def test_resolvers_share_one_reading_of_the_shipped_catalog():
    """Rate tables make a resolver per card: the catalog is read and indexed once, and each
    resolver's own dicts stay its own (a user's cards or cache never leak into another's)."""
    from fedopt.normalize.cards import CardResolver

    a, b = CardResolver(), CardResolver()
    assert a.catalog["K80"] is b.catalog["K80"]  # the same frozen Card, not re-read
    a.catalog["X"] = a.catalog["K80"]
    a.resolve("H100")
    assert "X" not in b.catalog and "H100" not in b._cache
    assert a.catalog is not b.catalog and a._aliases is not b._aliases


def test_same_silicon_is_one_chip_at_one_clock_and_memory():
    """Export variants and boards of one die are the same silicon; a different power, bandwidth or
    narrow-format peak is not (each pair's figures are the catalog's)."""
    from fedopt.normalize.cards import same_silicon, silicon_sibling

    cat = CardResolver()
    card = cat.resolve
    for a, b in (("H800-SXM-80GB", "H100-SXM-80GB"), ("A800-SXM4-80GB", "A100-SXM4-80GB"), ("TITAN RTX", "Quadro RTX 8000")):
        assert same_silicon(card(a), card(b)) and same_silicon(card(b), card(a)), (a, b)
    not_one = (
        ("A100-SXM4-40GB", "A100-PCIe-40GB"),  # 400 W against 250 W: other sustained clocks
        ("B300", "B200"),  # the BF16 peak and bandwidth of a B200, 1.4x its FP4 peak
        ("H200-SXM-141GB", "H100-SXM-80GB"),  # same compute, 1.4x the bandwidth
        ("H20", "H100-SXM-80GB"),
        ("H100-SXM-80GB", "H100-SXM-80GB"),  # a card is not its own sibling
    )
    for a, b in not_one:
        assert not same_silicon(card(a), card(b)), (a, b)
    assert card("B300").bf16_tflops == card("B200").bf16_tflops  # why the narrow peaks are compared
    mig = cat.resolve("A100-SXM4-80GB MIG 7g.80gb")
    assert mig is not None and not same_silicon(mig, card("A800-SXM4-80GB"))
    pool = {"l40s": card("L40S"), "h100": card("H100-SXM-80GB"), "none": None}
    assert silicon_sibling(card("H800"), pool) == "h100" and silicon_sibling(card("H20"), pool) is None
    assert silicon_sibling(None, pool) is None


def test_same_die_is_one_chip_at_one_clock_whatever_its_memory():
    """An H100 SXM and an H200 SXM, an A100 SXM of 40 and of 80 GB: one die at one power on other
    memories; a card of another power or narrow-format peak is not; one silicon is one die."""
    from fedopt.normalize.cards import same_die, same_silicon

    card = CardResolver().resolve
    for a, b in (("H200-SXM-141GB", "H100-SXM-80GB"), ("A100-SXM4-40GB", "A100-SXM4-80GB"), ("H800-SXM-80GB", "H100-SXM-80GB")):
        assert same_die(card(a), card(b)) and same_die(card(b), card(a)), (a, b)
    assert not same_silicon(card("H200-SXM-141GB"), card("H100-SXM-80GB"))  # its memory is not
    for a, b in (("A100-SXM4-40GB", "A100-PCIe-40GB"), ("B300", "B200"), ("H20", "H100-SXM-80GB"), ("L40S", "L4")):
        assert not same_die(card(a), card(b)), (a, b)
    assert not same_die(card("H100-SXM-80GB"), card("H100-SXM-80GB"))


def test_cards_added_on_2026_12_07_keep_their_sources_arithmetic():
    res = CardResolver()
    mi308x, mi300x = res.resolve("MI308X"), res.resolve("MI300X")
    for peak in ("bf16_tflops", "p8", "fp32"):  # 80 of the MI300X's 304 compute units
        assert getattr(mi308x, peak) / getattr(mi300x, peak) == pytest.approx(80 / 304, rel=0.01), peak
    assert res.resolve("RTX 4090 D").bf16_tflops == pytest.approx(114 * 2520 * 512 / 1e6, rel=0.01)  # SMs x boost
    assert res.resolve("RTX 5880 Ada").bf16_tflops == pytest.approx(4 * 69.3, rel=0.01)  # 4x FP32, as the RTX 6000 Ada
    h20, h20_141 = res.resolve("H20"), res.resolve("H20 141GB")  # one chip on two memories
    assert (h20_141.bf16_tflops, h20_141.p8, h20_141.fp32) == (h20.bf16_tflops, h20.p8, h20.fp32)
    for name in ("Ascend 950PR", "Ascend 950DT"):  # no 16-bit figure published: assumed half the FP8 peak
        assert res.resolve(name).bf16_tflops == res.resolve(name).p8 / 2, name
    assert res.resolve("Trainium3").bf16_tflops * 3.75 == pytest.approx(res.resolve("Trainium3").p8, rel=0.01)


def test_apple_chips_by_their_gpu_core_count():
    res = CardResolver()
    # a cut-down part is its full chip's peak per core times its cores, at the chip's memory bandwidth;
    # the 30-core M3 Max and 32-core M4 Max have less bandwidth than their chips and no figures of their own
    parts = 0
    for gen, tier, full, cut in APPLE_CHIPS:
        chip = f"M{gen} {tier.title()}".strip()
        small, whole = res.resolve(f"{chip} {cut}-core GPU"), res.resolve(chip)
        assert whole is not None and whole.vendor == "apple" and whole.bf16_tflops == whole.fp32, chip  # no matrix units
        if small is None:
            assert chip in ("M3 Max", "M4 Max"), chip
            continue
        parts += 1
        assert small.bf16_tflops / whole.bf16_tflops == pytest.approx(cut / full, rel=0.01), chip
        assert small.mem_bw_gbs == whole.mem_bw_gbs, chip
    assert parts == 13
    # chips without figures get none rather than a sibling's; an AWS m3 instance is no Apple chip
    for name in ("M3 Max 30-core GPU", "M4 Max 32-core", "M5", "M4 Extreme", "m3.xlarge", "m3.2xlarge", "m4.large", "m2.medium"):
        assert res.resolve(name) is None, name
