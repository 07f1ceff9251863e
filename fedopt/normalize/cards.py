"""Card specs for the normalization model, and names as people write them matched to the catalog.

``CardResolver.resolve("NVIDIA H100-SXM5-80GB")`` finds the catalog's ``H100-SXM-80GB``; Gavel's
``k80``, MLPerf's ``Intel(R) Gaudi(R) 2 AI Accelerator``, Alibaba's ``V100M32`` and ``A100-80GB``
resolve too; a MIG slice (``NVIDIA-A100-SXM4-40GB-MIG-1g.5gb``) is its share of the card. Cards
given by the user (``--cards cards.json``, the instance ``CardType`` form) win over the catalog. A
name that matches nothing resolves to ``None``; the model still predicts for it (see
``fedopt.normalize.model``).
"""

from __future__ import annotations

import csv
import dataclasses
import functools
import json
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from fedopt.errors import InputError
from fedopt.normalize.catalog import MODELS_DIR, load_catalog

# Vector (non-tensor) FP32 peak is this share of the dense BF16 peak when a card gives none:
# about the geometric mean of the catalog's tensor-core cards that give both (H100 1/15,
# A100 1/16, B200 1/30, MI300X 1/8, T4 1/8, L40S 1/4, H20 1/3.4 ...).
FP32_SHARE_DEFAULT = 1 / 8.0
DEFAULT_SCALEUP_GBS = 32.0  # PCIe Gen3 x16 both directions, when a card gives none
# Cards whose scale-up figure is an NVLink bridge: (their PCIe both directions, cards one bridge
# joins). A ring over more cards than a bridge joins runs on PCIe.
BRIDGED = {
    "A30": (64.0, 2),
    "A40": (64.0, 2),
    "RTX-A6000": (64.0, 2),
    "RTX-A5000": (64.0, 2),
    "RTX-A5500": (64.0, 2),
    "RTX-A4500": (64.0, 2),
    "MI50": (64.0, 4),  # two Infinity Fabric Link bridges join a hive of four
    "MI60": (64.0, 4),
    "A800-PCIe-80GB": (64.0, 2),
    "H800-PCIe-80GB": (128.0, 2),
    "H100-NVL-94GB": (128.0, 2),
    "H200-NVL-141GB": (128.0, 4),
}
# Cards whose scale-up network joins more than one 8-card node: NVL72 racks (one NVLink domain of
# 72 GPUs over NVLink switch trays). A ring within the domain runs at the NVLink figure.
SCALEUP_DOMAIN = {"gb200": 72, "gb300": 72}  # by family
NODE_CARDS = 8  # cards one scale-up network joins unless the card says otherwise
# A card whose only link is PCIe (no NVLink / Infinity Fabric / bridge network): a server holds up
# to 18 of them on one PCIe fabric (MLPerf Inference: 16 L4, 16 L40S, 10 RTX PRO 6000, and in v3.0
# Qualcomm's G292-Z43 with 18 half-height Cloud AI 100 per node), so past 8 they still reach each
# other over PCIe, not the network
PCIE_NODE_CARDS = 18
PCIE_LINK_GBS = 128.0  # PCIe 5.0 x16, both directions: the catalog's figure for a PCIe-only card
# Power-limited clocks. A card given less power per peak TFLOPS than its architecture's flagship
# (same silicon process, full power) cannot hold the boost clock its peak assumes while the matrix
# units are busy: H100 PCIe (350 W for 756 TFLOPS) against H100 SXM (700 W for 989), L4 (72 W)
# against L40S. Dynamic power grows about as the cube of the clock (voltage follows it), so the
# sustained clock falls as the cube root of the shortfall: ``power_deficit``. How much of it a
# fit believes is learned (``kappa``): saturating int8 inference shows it, training barely does.
# Architectures whose cards span several processes (Gaudi2 7 nm / Gaudi3 5 nm) have no flagship.
POWER_FLAGSHIP = {
    "nvidia-pascal": "P100-SXM2-16GB",
    "nvidia-volta": "V100-SXM2-32GB",
    "nvidia-turing": "Quadro-RTX-8000",
    "nvidia-ampere": "A100-SXM4-80GB",
    "nvidia-ada": "L40S",
    "nvidia-hopper": "H100-SXM-80GB",
    "nvidia-blackwell": "B200-SXM-180GB",
    "nvidia-blackwell/graphics": "RTX-PRO-6000-Blackwell",  # GRAPHICS_DIE_FAMILIES
    "amd-cdna3": "MI300X",
    "amd-cdna4": "MI355X",
    "intel-xe2": "Arc-Pro-B60",  # BMG-G21 at 200 W: the 70 W B50 is the same die, the B70 a larger one at 230 W
}
# NVIDIA's Blackwell generation is two kinds of silicon: the data-centre die (B200, GB200, B300),
# whose matrix units do far more per watt, and the graphics die (GB20x) of the RTX PRO and GeForce
# cards. A graphics card's power per TFLOPS is compared with its own kind's full-power part, so
# the 200 W RTX PRO 4500 reads power-limited beside the 600 W RTX PRO 6000, not beside a B200
# (``power_group``).
GRAPHICS_DIE_FAMILIES = frozenset(
    {"rtxpro6000", "rtxpro6000maxq", "rtxpro5000", "rtxpro4500", "rtxpro4000", "rtxpro2000", "gb10"}
    | {"rtx5090", "rtx5080", "rtx5070ti", "rtx5070", "rtx5060ti"}
)


# architectures whose matrix units run FP32 work as TF32 (NVIDIA Ampere and newer, AMD CDNA3's
# XF32, Intel Gaudi's MME), at half their dense BF16 rate
TF32_ARCHS = frozenset({"nvidia-ampere", "nvidia-ada", "nvidia-hopper", "nvidia-blackwell", "amd-cdna3", "intel-gaudi"})


@dataclass(frozen=True)
class Card:
    """What the model knows of a card type (figures per card)."""

    id: str
    bf16_tflops: float
    mem_bw_gbs: float
    memory_gb: float | None = None
    scaleup_gbs: float | None = None
    fp32_tflops: float | None = None
    power_w: float | None = None
    vendor: str = ""
    stack: str = ""
    fp8_tflops: float | None = None  # dense 8-bit matrix peak (FP8, or INT8 where there is no FP8)
    fp4_tflops: float | None = None  # dense 4-bit floating-point matrix peak (FP4 / MXFP4)

    @property
    def p8(self) -> float:
        """8-bit dense peak; the BF16 one when the card has nothing faster (or gives none)."""
        return max(self.fp8_tflops or 0.0, self.bf16_tflops)

    @property
    def p4(self) -> float:
        """4-bit dense peak; the 8-bit one when the card has nothing faster."""
        return max(self.fp4_tflops or 0.0, self.p8)

    @property
    def fp32(self) -> float:
        return self.fp32_tflops or self.bf16_tflops * FP32_SHARE_DEFAULT

    @property
    def tf32(self) -> float:
        """Dense peak of FP32 work on the matrix units: TF32 at half the BF16 peak where the
        architecture has it (``TF32_ARCHS``), else the FP32 vector peak (V100 and Turing's
        matrix units take FP16 only; TPUs, CDNA4, DaVinci: no TF32 path)."""
        if arch_vendor(self)[0] in TF32_ARCHS:
            return max(self.bf16_tflops / 2, self.fp32)
        return self.fp32

    @property
    def scaleup(self) -> float:
        return self.scaleup_gbs or DEFAULT_SCALEUP_GBS

    def ring_gbs(self, n: int) -> float:
        """Bandwidth of a ring all-reduce over ``n`` cards of one node: NVLink bridges join pairs
        (H200 NVL: fours) only, so past that the ring runs over PCIe."""
        if self.id in BRIDGED:
            pcie, joined = BRIDGED[self.id]
            if n > joined:
                return min(self.scaleup, pcie)
        return self.scaleup

    @property
    def domain(self) -> int:
        """Cards one scale-up network joins (8 for an HGX node, 72 for an NVL72 rack; a MIG slice
        joins no NVLink network)."""
        if mig_profile(self.id) is not None:
            return NODE_CARDS
        fam = family(self.id) or ""
        if fam not in SCALEUP_DOMAIN and self.id not in BRIDGED and self.scaleup <= PCIE_LINK_GBS:
            return PCIE_NODE_CARDS
        return SCALEUP_DOMAIN.get(fam, NODE_CARDS)

    @staticmethod
    def from_entry(entry: Mapping, id: str | None = None) -> Card:
        return Card(
            id=id or str(entry["id"]),
            bf16_tflops=float(entry["bf16_tflops"]),
            mem_bw_gbs=float(entry["mem_bw_gbs"]),
            memory_gb=_opt(entry.get("memory_gb")),
            scaleup_gbs=_opt(entry.get("scaleup_gbs")),
            fp32_tflops=_opt(entry.get("fp32_tflops")),
            power_w=_opt(entry.get("power_w")),
            vendor=str(entry.get("vendor") or ""),
            stack=str(entry.get("stack") or ""),
            fp8_tflops=_opt(entry.get("fp8_tflops")),
            fp4_tflops=_opt(entry.get("fp4_tflops")),
        )


def _opt(x) -> float | None:
    return None if x is None else float(x)


# ---------------------------------------------------------------------- names
_NOISE = (
    "nvidia",
    "amd",
    "intel",
    "huawei",
    "google",
    "habana",
    "tesla",
    "geforce",
    "radeon",
    "instinct",
    "tensor",
    "core",
    "gpu",
    "ai",
    "accelerator",
    "blackwell",
    "hopper",
    "ampere",
    "ascend",
    "cambricon",
    "cloud",
    "aws",
    "hbm3",
    "hbm3e",
    "hbm2",
    "hbm2e",
)

# Family patterns, tried in order on the cleaned name (spaces between words, lower case).
_FAMILIES = [
    ("gh200", r"gh ?200"),
    ("gb200", r"gb ?200"),
    ("gb300", r"gb ?300"),
    ("b300", r"\bb ?300\b"),
    ("b200", r"\bb ?200\b"),
    ("b100", r"\bb ?100\b"),
    ("h200", r"\bh ?200\b"),
    ("h100", r"\bh ?100\b"),
    ("h800", r"\bh ?800\b"),
    ("h20", r"\bh ?20\b"),
    ("a100", r"\ba ?100\b"),
    ("a800", r"\ba ?800\b"),
    ("a10g", r"\ba ?10 ?g\b"),
    ("a6000", r"\b(rtx )?a ?6000\b"),
    ("a5500", r"\b(rtx )?a ?5500\b"),
    ("a5000", r"\b(rtx )?a ?5000\b"),
    ("a4500", r"\b(rtx )?a ?4500\b"),
    ("a4000", r"\b(rtx )?a ?4000\b"),
    ("a30", r"\ba ?30\b"),
    ("a40", r"\ba ?40\b"),
    ("a10", r"\ba ?10\b"),
    ("910b", r"\batlas ?(800t|900) ?a2\b"),  # Huawei's 910B servers and clusters, not NVIDIA's A2
    ("a2", r"\ba2\b"),
    ("a16", r"\ba16\b"),
    ("l40s", r"\bl ?40 ?s\b"),
    ("l40", r"\bl ?40\b"),
    ("l20", r"\bl ?20\b"),
    ("l4", r"\bl ?4\b"),
    ("t4", r"\bt ?4\b"),
    ("v100", r"\bv ?100"),
    ("p100", r"\bp ?100\b"),
    ("p40", r"\bp ?40\b"),
    ("k80", r"\bk ?80[mc]?\b"),
    ("k40", r"\bk ?40[mc]?\b"),
    ("p4", r"\bp ?4\b"),
    ("gtx1080ti", r"\b(gtx )?1080 ?ti\b"),
    ("gtx1080", r"\b(gtx )?1080\b"),
    ("titanxp", r"\btitan ?xp\b"),
    ("titanv", r"\btitan ?v\b"),
    ("titanrtx", r"\btitan ?rtx\b"),
    ("rtx2080ti", r"\b(rtx )?2080 ?ti\b"),
    ("rtx2080super", r"\b(rtx )?2080 ?super\b"),
    ("rtx2080", r"\b(rtx )?2080\b"),
    ("rtx2070super", r"\b(rtx )?2070 ?super\b"),
    ("rtx2070", r"\b(rtx )?2070\b"),
    ("rtx2060", r"\b(rtx )?2060\b"),
    ("rtx3090ti", r"\b(rtx )?3090 ?ti\b"),
    ("rtx3090", r"\b(rtx )?3090\b"),
    ("rtx3080ti", r"\b(rtx )?3080 ?ti\b"),
    ("rtx3080", r"\b(rtx )?3080\b"),
    ("rtx3070ti", r"\b(rtx )?3070 ?ti\b"),
    ("rtx3070", r"\b(rtx )?3070\b"),
    ("rtx3060ti", r"\b(rtx )?3060 ?ti\b"),
    ("rtx3060", r"\b(rtx )?3060\b"),
    ("rtx3050", r"\b(rtx )?3050\b"),
    ("rtx6000ada", r"\b(rtx )?6000 ?ada\b"),
    ("rtx5000ada", r"\b(rtx )?5000 ?ada\b"),
    ("rtx4500ada", r"\b(rtx )?4500 ?ada\b"),
    ("rtx4000ada", r"\b(rtx )?4000 ?ada\b"),
    ("rtxpro6000maxq", r"\brtx ?pro ?6000\b.*\bmax ?q\b"),  # the 300 W workstation card, not a laptop part
    ("rtxpro6000", r"\brtx ?pro ?6000\b"),
    ("rtxpro4500", r"\brtx ?pro ?4500\b"),
    ("rtxpro5000", r"\brtx ?pro ?5000\b"),
    ("rtxpro4000", r"\brtx ?pro ?4000\b"),
    ("rtxpro2000", r"\brtx ?pro ?2000\b"),
    ("gb10", r"\bgb10\b|\bdgx ?spark\b"),  # DGX Spark's Grace Blackwell chip
    ("quadrortx6000", r"\b(quadro )?rtx ?6000\b"),
    ("quadrortx8000", r"\b(quadro )?rtx ?8000\b"),
    ("rtx4090", r"\b(rtx )?4090 ?d?\b"),  # the 4090 D (China) takes the 4090: same memory, ~11% fewer SMs
    ("rtx4080super", r"\b(rtx )?4080 ?super\b"),
    ("rtx4080", r"\b(rtx )?4080\b"),
    ("rtx4070tisuper", r"\b(rtx )?4070 ?ti ?super\b"),
    ("rtx4070ti", r"\b(rtx )?4070 ?ti\b"),
    ("rtx4070super", r"\b(rtx )?4070 ?super\b"),
    ("rtx4070", r"\b(rtx )?4070\b"),
    ("rtx4060ti", r"\b(rtx )?4060 ?ti\b"),
    ("rtx4060", r"\b(rtx )?4060\b"),
    ("rtx5090", r"\b(rtx )?5090\b"),
    ("rtx5080", r"\b(rtx )?5080\b"),
    ("rtx5070ti", r"\b(rtx )?5070 ?ti\b"),
    ("rtx5070", r"\b(rtx )?5070\b"),
    ("rtx5060ti", r"\b(rtx )?5060 ?ti\b"),
    ("max1550", r"\b(data center )?max ?1550\b|\bponte ?vecchio\b"),
    ("arcprob60dual", r"\b(arc ?pro ?)?b60 ?dual\b"),  # two B60 GPUs on one board (MAXSUN, Sparkle)
    ("arcprob60", r"\barc ?pro ?b60\b|\bbmg ?pro ?b60\b"),
    ("arcprob70", r"\barc ?pro ?b70\b|\bbmg ?b70\b"),
    ("arcprob50", r"\barc ?pro ?b50\b|\bbmg ?b50\b"),
    ("rx7900xtx", r"\b(rx )?7900 ?xtx\b"),
    ("rx7900xt", r"\b(rx )?7900 ?xt\b"),
    ("w7900", r"\b(pro )?w ?7900\b"),
    ("radeonvii", r"\bvii\b"),  # "Radeon VII" once clean_name drops the vendor words
    ("arca770", r"\b(arc )?a ?770\b"),
    ("mi355x", r"\bmi ?355 ?x?\b"),
    ("mi350p", r"\bmi ?350 ?p\b"),  # the PCIe card: half an MI350X
    ("mi350x", r"\bmi ?350 ?x?\b"),
    ("mi325x", r"\bmi ?325 ?x\b"),
    ("mi300a", r"\bmi ?300 ?a\b"),  # the APU: 228 of the MI300X's 304 compute units
    ("mi300x", r"\bmi ?300 ?x?\b"),
    ("mi250x", r"\bmi ?250 ?x\b"),
    ("mi250", r"\bmi ?250\b"),
    ("mi210", r"\bmi ?210\b"),
    ("mi100", r"\bmi ?100\b"),
    ("mi60", r"\bmi ?60\b"),
    ("mi50", r"\bmi ?50\b"),
    ("gaudi3", r"\bgaudi ?3\b|\bhl ?325"),
    ("gaudi2", r"\bgaudi ?2\b|\bhl ?225"),
    ("910c", r"\b910 ?c\b"),
    ("910b", r"\b910 ?b\d?\b"),
    ("910", r"\b910\b"),
    ("tpu7x", r"\btpu ?v? ?7 ?x\b|\btpu ?v ?7 ?p?\b|\bironwood\b"),
    ("tpuv6e", r"\btpu ?v ?6 ?e\b|\btrillium\b|\btpu ?v6\b"),
    ("tpuv5p", r"\btpu ?v ?5 ?p\b"),
    ("tpuv5e", r"\btpu ?v ?5 ?e\b|\btpu ?v ?5 ?lite"),
    ("tpuv4", r"\btpu ?v ?4\b"),
    ("tpuv3", r"\btpu ?v ?3\b"),
    ("trainium2", r"\btrainium ?2\b|\btrn ?2\b"),
    ("trainium", r"\btrainium ?1?\b|\btrn ?1\b"),
    ("inferentia2", r"\binferentia ?2\b|\binf ?2\b"),
    ("mlu370", r"\bmlu ?370"),
    # Qualcomm Cloud AI 100 (clean_name writes "Cloud AI 100" as "qaic100"); the Pro when no SKU is written
    ("aic100ultra", r"\bq?aic ?100\b.*\bultra\b"),
    ("aic100standard", r"\bq?aic ?100\b.*\b(?:standard|std)\b"),
    ("aic100", r"\bq?aic ?100\b"),
]
_FAMILY_RE = [(fam, re.compile(pat)) for fam, pat in _FAMILIES]
_DESKTOP_MAX_Q = frozenset({"rtxpro6000maxq"})  # "Max-Q" in a desktop card's name: a power level, not a laptop
_LAPTOP = re.compile(r"\bmax ?q\b|\bmobile\b|\blaptop\b|\bnotebook\b")
_FORMS = {"nvl": r"\bnvl\b", "sxm": r"\bsxm|\boam\b", "pcie": r"\bpcie\b|\bpci e\b|\bpci\b"}


# Architecture (one software/compiler generation) of each family: cards of one architecture share
# their achieved share of peak in the model's prior.
ARCH = {
    "k80": "nvidia-kepler",
    "k40": "nvidia-kepler",
    "p4": "nvidia-pascal",
    "gtx1080ti": "nvidia-pascal",
    "gtx1080": "nvidia-pascal",
    "titanxp": "nvidia-pascal",
    "titanv": "nvidia-volta",
    "rtx2080ti": "nvidia-turing",
    "rtx2080": "nvidia-turing",
    "rtx2080super": "nvidia-turing",
    "rtx2070super": "nvidia-turing",
    "rtx2070": "nvidia-turing",
    "rtx2060": "nvidia-turing",
    "titanrtx": "nvidia-turing",
    "quadrortx6000": "nvidia-turing",
    "quadrortx8000": "nvidia-turing",
    "rtx3090": "nvidia-ampere",
    "rtx3090ti": "nvidia-ampere",
    "rtx3070ti": "nvidia-ampere",
    "rtx3050": "nvidia-ampere",
    "a4500": "nvidia-ampere",
    "rtx3080": "nvidia-ampere",
    "rtx3080ti": "nvidia-ampere",
    "rtx3070": "nvidia-ampere",
    "rtx3060": "nvidia-ampere",
    "rtx3060ti": "nvidia-ampere",
    "a2": "nvidia-ampere",
    "rtx6000ada": "nvidia-ada",
    "rtx5000ada": "nvidia-ada",
    "rtx4500ada": "nvidia-ada",
    "rtx4000ada": "nvidia-ada",
    "rtxpro6000": "nvidia-blackwell",
    "rtxpro6000maxq": "nvidia-blackwell",
    "rtxpro4500": "nvidia-blackwell",
    "rtxpro5000": "nvidia-blackwell",
    "rtxpro4000": "nvidia-blackwell",
    "rtxpro2000": "nvidia-blackwell",
    "gb10": "nvidia-blackwell",
    "p100": "nvidia-pascal",
    "p40": "nvidia-pascal",
    "v100": "nvidia-volta",
    "t4": "nvidia-turing",
    "a100": "nvidia-ampere",
    "a800": "nvidia-ampere",
    "a30": "nvidia-ampere",
    "a10": "nvidia-ampere",
    "a10g": "nvidia-ampere",
    "a40": "nvidia-ampere",
    "a6000": "nvidia-ampere",
    "a5000": "nvidia-ampere",
    "a5500": "nvidia-ampere",
    "a16": "nvidia-ampere",
    "a4000": "nvidia-ampere",
    "l4": "nvidia-ada",
    "l20": "nvidia-ada",
    "l40": "nvidia-ada",
    "l40s": "nvidia-ada",
    "rtx4090": "nvidia-ada",
    "rtx4080": "nvidia-ada",
    "rtx4070ti": "nvidia-ada",
    "rtx4070": "nvidia-ada",
    "rtx4060ti": "nvidia-ada",
    "rtx4060": "nvidia-ada",
    "rtx4070super": "nvidia-ada",
    "rtx4070tisuper": "nvidia-ada",
    "rtx4080super": "nvidia-ada",
    "rtx5090": "nvidia-blackwell",
    "rtx5080": "nvidia-blackwell",
    "rtx5070ti": "nvidia-blackwell",
    "rtx5070": "nvidia-blackwell",
    "rtx5060ti": "nvidia-blackwell",
    "max1550": "intel-xe-hpc",
    "arcprob60": "intel-xe2",
    "arcprob60dual": "intel-xe2",
    "arcprob70": "intel-xe2",
    "arcprob50": "intel-xe2",
    "h100": "nvidia-hopper",
    "h800": "nvidia-hopper",
    "h200": "nvidia-hopper",
    "h20": "nvidia-hopper",
    "gh200": "nvidia-hopper",
    "b100": "nvidia-blackwell",
    "b200": "nvidia-blackwell",
    "gb200": "nvidia-blackwell",
    "b300": "nvidia-blackwell",
    "gb300": "nvidia-blackwell",
    "mi100": "amd-cdna1",
    "mi210": "amd-cdna2",
    "mi250": "amd-cdna2",
    "mi250x": "amd-cdna2",
    "mi300x": "amd-cdna3",
    "mi325x": "amd-cdna3",
    "mi300a": "amd-cdna3",
    "mi350x": "amd-cdna4",
    "mi350p": "amd-cdna4",
    "mi355x": "amd-cdna4",
    "rx7900xtx": "amd-rdna3",
    "rx7900xt": "amd-rdna3",
    "w7900": "amd-rdna3",
    "radeonvii": "amd-gcn5",
    "mi50": "amd-gcn5",
    "mi60": "amd-gcn5",
    "arca770": "intel-xe-hpg",
    "gaudi2": "intel-gaudi",
    "gaudi3": "intel-gaudi",
    "910": "huawei-davinci",
    "910b": "huawei-davinci",
    "910c": "huawei-davinci",
    "tpuv4": "google-tpu",
    "tpuv5e": "google-tpu",
    "tpuv5p": "google-tpu",
    "tpuv6e": "google-tpu",
    "tpuv3": "google-tpu",
    "tpu7x": "google-tpu",
    "trainium": "aws-neuron",
    "trainium2": "aws-neuron",
    "inferentia2": "aws-neuron",
    "mlu370": "cambricon-mlu",
    "aic100": "qualcomm-aic100",
    "aic100standard": "qualcomm-aic100",
    "aic100ultra": "qualcomm-aic100",
}


def arch_vendor(card: Card | None, key: str = "") -> tuple[str, str]:
    """(architecture, vendor) of a card; a card of no known family is its own architecture."""
    if card is None:
        return "?" + key, "?"
    fam = family(card.id)
    arch = ARCH.get(fam or "", "")
    vendor = card.vendor or (arch.split("-")[0] if arch else "")
    return arch or f"{vendor or '?'}-{card.id}", vendor or "?"


def power_group(card: Card) -> str:
    """The group whose flagship a card's power is compared with (``POWER_FLAGSHIP``): its
    architecture, Blackwell's graphics die apart from its data-centre die."""
    arch = arch_vendor(card, card.id)[0]
    return f"{arch}/graphics" if family(card.id) in GRAPHICS_DIE_FAMILIES else arch


# NVIDIA vGPU (C-Series) types name the board by letters after the chip and the frame buffer after
# it (NVIDIA AI Enterprise, "NVIDIA AI Enterprise and NVIDIA vGPU (C-Series)", the peer-to-peer and
# NVSwitch tables): H100-80C is the H100 PCIe 80GB, H100XM-80C the SXM5 80GB, H100L-94C the NVL,
# H100XL-94C the SXM5 94GB, H100XS-64C the SXM5 64GB, H200-141C the H200 NVL, H200X-141C the SXM5,
# H20-96C and H20X-141C SXM5 boards, A100DX-80C / A800DX-80C the HGX 80GB, A100X-40C the HGX 40GB,
# V100X-16C / V100DX-32C the SXM2. A time-sliced vGPU runs on all of its board's SMs while its turn
# lasts, so it reads as its board; the bare chip names the PCIe card (the H200's is the NVL; the
# H20 has no PCIe card).
# not a MIG compute instance written after the chip ("H100 2c.7g.40gb MIG")
_VGPU = re.compile(r"\b(a100|a800|h100|h800|h200|h20|v100)(dx|xm|xl|xs|x|l)? (\d{1,3})c\b(?! ?\d ?g\b)")
_VGPU_FORMS = {"": "pcie", "x": "sxm", "dx": "sxm", "xm": "sxm", "xl": "sxm", "xs": "sxm", "l": "nvl"}


def _vgpu_board(m: re.Match) -> str:
    chip, letters, gb = m.group(1), m.group(2) or "", m.group(3)
    form = "sxm" if chip == "h20" else "nvl" if chip == "h200" and not letters else _VGPU_FORMS[letters]
    return f"{chip} {form} {gb}gb"


def clean_name(name: str) -> str:
    """Lower case, punctuation to spaces, vendor words dropped: ``"NVIDIA H100-SXM5-80GB"`` -> ``"h100 sxm5 80gb"``."""
    s = name.lower()
    s = re.sub(r"\((r|tm)\)|[®™]", " ", s)
    s = re.sub(r"[^a-z0-9.]+", " ", s)
    s = re.sub(r"(?<=[a-z])\.|\.(?=[a-z ]|$)", " ", s)
    s = re.sub(r"\b(nvidia|tesla|amd|instinct|radeon|intel|huawei|ascend|google)(?=[a-z]{0,3}\d)", " ", s)  # "ascend910c"
    # split letters from digits inside a word only where it helps: "v100m32" -> "v100 m32"
    s = re.sub(r"(\d)(m)(16|32|40|80)\b", r"\1 \2\3", s)
    s = re.sub(r"\b\d{1,4} ?x(?!tx?\b)(?= ?[a-z])", " ", s)  # a system's card count: "8x h100", "4xv100"; not "7900 xt"
    s = re.sub(r"\b(?:cloud )?ai ?100\b", "qaic100", s)  # Qualcomm's card: "cloud" and "ai" are dropped words
    s = _VGPU.sub(_vgpu_board, s)  # a vGPU type's board letters: "h100xm 80c" -> "h100 sxm 80gb"
    words = [w for w in s.split() if w not in _NOISE]
    return " ".join(words)


def _compact(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


_VARIANT_WORDS = re.compile(r"(?:(?<=\d)|\b)(ti|super|xtx|xt)\b")


def missing_variant(name: str, card: Card | None) -> list[str]:
    """Variant words of a name (Ti, SUPER, XT) and a memory size (``141GB``) that the card it
    resolved to lacks: a card the catalog does not have is read as its nearest sibling (``RTX 4080
    SUPER`` as the RTX 4080, whose figures are 5-20% below a SUPER's or Ti's; ``H20 141GB`` as the
    96 GB H20, so memory fit and bandwidth are the smaller card's), which a user should hear of."""
    if card is None:
        return []
    have = set(_VARIANT_WORDS.findall(clean_name(card.id)))
    out = [w for w in dict.fromkeys(_VARIANT_WORDS.findall(clean_name(name))) if w not in have]
    gb = _memory(name)
    # within 10%: usable vs installed (B200 180 / 192 GB, H100 NVL 94 / 96 GB); a dual-die board's
    # total (K80 24 GB) is its two dies' memory; a MIG slice's memory is the slice's
    other_size = bool(gb and card.memory_gb) and all(abs(math.log(gb / (k * card.memory_gb))) > 0.1 for k in (1, 2))
    if other_size and not _MIG.search(clean_name(name)):
        out.append(f"{gb:g}gb")
    return out


@functools.lru_cache(maxsize=65536)
def family(name: str) -> str | None:
    """The card family a name belongs to (``"h100"``); cached: predictions ask it of the same few
    card ids many times (the architecture of each, its TF32 path)."""
    s = clean_name(name)
    for fam, rx in _FAMILY_RE:
        if rx.search(s):
            return fam
    return None


# Grace Hopper superchips are sold by their memory with the Grace CPU's 480 GB of LPDDR5X:
# "GH200 480GB" (96 GB of HBM3 beside the 480 GB), "GH200 624GB" (144 GB of HBM3e)
_GRACE_LPDDR_GB = 480.0


def _memory(name: str) -> float | None:
    """The GPU memory (GB) a name gives, if any."""
    s = clean_name(name)
    m = re.search(r"\b(\d{2,3}) ?g(b|ib)?\b", s) or re.search(r"\bm(16|32|40|80)\b", s)
    if not m:
        return None
    gb = float(m.group(1))
    if family(name) == "gh200" and gb >= _GRACE_LPDDR_GB:
        gb = gb - _GRACE_LPDDR_GB if gb > _GRACE_LPDDR_GB else 96.0
    return gb


# NVIDIA Multi-Instance GPU slices, as GPU feature discovery labels them under the mixed strategy
# (``NVIDIA-A100-SXM4-40GB-MIG-1g.5gb``) or people write them (``H100 MIG 3g.40gb``), and compute
# instances sharing one GPU instance (``MIG 2c.7g.40gb``). The MIG User Guide's profile tables:
# a ``g``-slice instance has g/7 of the card's SMs (g/4 on A30 and RTX PRO 6000 Blackwell) and the
# memory its name gives, with that share of the memory slices, hence of the bandwidth and L2; no
# GPU-to-GPU peer traffic (NVLink or PCIe), so collectives go through the host.
_MIG = re.compile(  # "MIG 1g.10gb" or, as MLPerf submitters write it, "(1x1g.10gb MIG)"
    r"\bmig ?(?:(\d) ?c )?(\d) ?g (\d+) ?gb\b|\b(?:(\d+) ?x ?)?(?:(\d) ?c )?(\d) ?g (\d+) ?gb mig\b"
)
_MIG_SLICES = {"a30": 4, "rtxpro6000": 4, "rtxpro6000maxq": 4}  # compute slices of a whole card: 7 on every other MIG part
_MIG_FAMILIES = frozenset(
    {"a100", "a800", "a30", "h100", "h800", "h20", "h200", "gh200", "b200", "gb200", "b300", "gb300"}
    | {"rtxpro6000", "rtxpro6000maxq"}
)
_MIG_MEM_SLICES = {1: 1, 2: 2, 3: 4, 4: 4, 7: 8}  # of 8 memory slices on 7-slice parts (A100, H100, B200 ...)


_MIG_ID = "-MIG-"  # a slice's card id: its card's id, this, its profile ("A100-SXM4-40GB-MIG-1g.5gb")


def mig_parent_id(card_id: str) -> str | None:
    """The card id a MIG slice's card id (``CardResolver`` made it) is cut from; None for a whole card."""
    parent, sep, _ = card_id.partition(_MIG_ID)
    return parent if sep else None


def mig_share(card_id: str) -> float:
    """The share of its card's SMs a MIG slice's card id (``CardResolver`` made it) has; 1 for a whole card."""
    parent, sep, profile = card_id.partition(_MIG_ID)
    if not sep or (mig := mig_profile(f"MIG {profile}")) is None:
        return 1.0
    return _sm_share(parent, mig[0])


def _sm_share(card_name: str, compute_slices: int) -> float:
    """The share of a card's SMs that many compute slices are (of 7; of 4 on A30 and RTX PRO 6000)."""
    return compute_slices / _MIG_SLICES.get(family(card_name) or "", 7)


def mig_instances(name: str) -> int | None:
    """How many MIG instances a name says a run used, if it says (``"(1x1g.10gb MIG)"`` -> 1)."""
    m = _MIG.search(clean_name(name))
    return int(m.group(4)) if m is not None and m.group(4) else None


def mig_profile(name: str) -> tuple[int, int, float] | None:
    """(compute slices, GPU-instance slices, memory GB) of a MIG slice's name, else None:
    ``"A100-SXM4-40GB-MIG-1g.5gb"`` -> (1, 1, 5.0), ``"MIG 2c.7g.40gb"`` -> (2, 7, 40.0)."""
    m = _MIG.search(clean_name(name))
    if m is None:
        return None
    c_, g_, gb = m.group(1, 2, 3) if m.group(2) else m.group(5, 6, 7)
    g = int(g_)
    c = int(c_) if c_ else g
    return min(c, g), g, float(gb)


class CloudInstance(NamedTuple):
    card: str  # catalog id
    provider: str  # aws, gcp, azure
    source: str  # the provider's page that says which card the type carries


@functools.cache
def _cloud_instances() -> tuple[tuple[re.Pattern, CloudInstance], ...]:
    """Each cloud instance type's pattern and card, from ``models/cloud_instances.csv``."""
    with open(MODELS_DIR / "cloud_instances.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    return tuple((re.compile(r["instance"]), CloudInstance(r["card"], r["provider"], r["source"])) for r in rows)


def cloud_instance(name: str) -> CloudInstance | None:
    """The card of a cloud instance or machine type (``p4d.24xlarge``, ``a3-highgpu-8g``,
    ``Standard_ND96isr_H100_v5``, ``v5litepod-8``): what cloud benchmarks and node labels name
    instead of the card; read as a card name, ``a2-highgpu-1g`` (eight A100s) would be an NVIDIA A2."""
    s = re.sub(r"^(?:standard_|ml\.)", "", name.strip().lower())  # Azure's size prefix, SageMaker's instance prefix
    return next((hit for rx, hit in _cloud_instances() if rx.fullmatch(s)), None)


def _form(name: str) -> str | None:
    s = clean_name(name)
    for form, pat in _FORMS.items():
        if re.search(pat, s):
            return form
    return None


def _index(cat: Mapping[str, Mapping]) -> tuple[dict[str, Card], dict[str, str]]:
    """(id -> Card, compact name -> id) of a catalog's complete entries, aliases included."""
    cards: dict[str, Card] = {}
    aliases: dict[str, str] = {}
    for key, entry in cat.items():
        if not entry.get("complete", True):
            continue
        cards.setdefault(entry["id"], Card.from_entry(entry))
        aliases[_compact(key)] = entry["id"]
    for cid in cards:
        aliases[_compact(cid)] = cid
    return cards, aliases


def _catalog_stamp() -> tuple[str, int]:
    from fedopt.normalize.catalog import CATALOG_PATH

    try:
        return str(CATALOG_PATH), CATALOG_PATH.stat().st_mtime_ns
    except OSError:
        return str(CATALOG_PATH), 0


@functools.lru_cache(maxsize=2)
def _shipped_index(path: str, mtime_ns: int) -> tuple[dict[str, Card], dict[str, str]]:
    """The shipped catalog's index: rate tables and calibrated profiles make a resolver per card,
    and reading and indexing the catalog each time cost 25 of a 32 s ``--table`` (Cards are frozen;
    each resolver copies the dicts)."""
    return _index(load_catalog(Path(path)))


class CardResolver:
    """Names -> ``Card``: the user's cards first (exact, then by family), then the catalog."""

    def __init__(self, catalog: Mapping[str, Mapping] | None = None, extra: Iterable[Card] = ()):
        if catalog is None:  # the shipped catalog, read and indexed once per process (per file version)
            cards, aliases = _shipped_index(*_catalog_stamp())
        else:
            cards, aliases = _index(catalog)
        self.catalog: dict[str, Card] = dict(cards)
        self._aliases: dict[str, str] = dict(aliases)
        self.extra: dict[str, Card] = {c.id: c for c in extra}
        self._cache: dict[str, Card | None] = {}

    def power_deficit(self, card: Card | None) -> float:
        """-ln(sustained / boost clock) >= 0 of a power-limited card (``POWER_FLAGSHIP``); 0 when
        the card or its architecture's flagship has no power figure."""
        if card is None or not card.power_w:
            return 0.0
        flagship = self.catalog.get(POWER_FLAGSHIP.get(power_group(card), ""))
        if flagship is None or not flagship.power_w:
            return 0.0
        ratio = (card.power_w / card.bf16_tflops) / (flagship.power_w / flagship.bf16_tflops)
        return max(0.0, -math.log(ratio) / 3.0)

    def resolve(self, name: str) -> Card | None:
        key = str(name)
        if key not in self._cache:
            self._cache[key] = self.match(key)[0]
        return self._cache[key]

    def match(self, name: str) -> tuple[Card | None, str]:
        """The card a name resolves to and how (``--cards id``, ``--cards family``, ``aws instance``
        (``gcp``, ``azure``), ``MIG slice``, ``catalog id or alias``, ``catalog family``; without a
        card: ``laptop part``, ``no family``, ``family not in the catalog``): what ``normalize
        --resolve`` shows a user."""
        comp = _compact(name)
        if not comp:
            return None, "empty name"
        for cid, card in self.extra.items():
            if _compact(cid) == comp:
                return card, "--cards id"
        if (cloud := cloud_instance(name)) is not None and cloud.card in self.catalog:
            return self.catalog[cloud.card], f"{cloud.provider} instance"
        if (mig := mig_profile(name)) is not None:
            card = self._mig_slice(name, *mig)
            return card, "MIG slice" if card is not None else "MIG slice of a card without MIG"
        fam = family(name)
        if fam is not None and fam not in _DESKTOP_MAX_Q and _LAPTOP.search(clean_name(name)):
            return None, "laptop part"  # it runs far below its desktop namesake's clocks and power
        if self.extra and fam is not None:
            form = _form(name)
            # a user's card of the same family, unless the name asks for another form (PCIe vs SXM)
            hits = [c for cid, c in self.extra.items() if family(cid) == fam and form in (None, _form(cid) or "sxm")]
            if hits:
                return self._best(name, hits), "--cards family"
        if comp in self._aliases:
            return self.catalog[self._aliases[comp]], "catalog id or alias"
        if fam is None:
            return None, "no family"
        hits = [c for cid, c in self.catalog.items() if family(cid) == fam]
        if not hits:
            return None, "family not in the catalog"
        return self._best(name, hits), "catalog family"

    def whole_card(self, name: str) -> Card | None:
        """The card a name is on: a MIG slice's parent card (``A100-SXM4-40GB-MIG-1g.5gb``: the
        A100 40GB, as a node label names the cards it carries), else the card the name resolves to."""
        if (mig := mig_profile(name)) is not None:
            return self._mig_parent(name, mig[1], mig[2])
        return self.resolve(name)

    def _mig_parent(self, name: str, slices: int, gb: float) -> Card | None:
        """The card a MIG slice is cut from; None on a card without MIG or with fewer slices."""
        fam = family(name)
        if fam not in _MIG_FAMILIES or slices > _MIG_SLICES.get(fam, 7):
            return None
        whole = _MIG_SLICES.get(fam, 7)
        parent_name = _MIG.sub(" ", clean_name(name))
        if _memory(parent_name) is None:  # the card's memory from the slice's: 1g.5gb is an A100 40GB's
            share = slices / whole if whole != 7 else _MIG_MEM_SLICES.get(slices, slices) / 8
            parent_name += f" {round(gb / share)}gb"
        return self.resolve(parent_name)

    def _mig_slice(self, name: str, compute: int, slices: int, gb: float) -> Card | None:
        """The share of its card a MIG slice gets (``mig_profile``); None on a card without MIG."""
        parent = self._mig_parent(name, slices, gb)
        if parent is None:
            return None
        sm = _sm_share(name, compute)
        mem = min(1.0, gb / parent.memory_gb) if parent.memory_gb else sm
        peaks = ("bf16_tflops", "fp32_tflops", "fp8_tflops", "fp4_tflops", "power_w")
        scaled = {f: v * sm for f in peaks if (v := getattr(parent, f)) is not None}
        profile = f"{compute}c.{slices}g.{gb:g}gb" if compute != slices else f"{slices}g.{gb:g}gb"
        return dataclasses.replace(
            parent,
            id=f"{parent.id}{_MIG_ID}{profile}",
            memory_gb=gb,
            mem_bw_gbs=parent.mem_bw_gbs * mem,
            scaleup_gbs=DEFAULT_SCALEUP_GBS,
            **scaled,
        )

    def _best(self, name: str, hits: list[Card]) -> Card:
        if len(hits) == 1:
            return hits[0]
        form, mem = _form(name), _memory(name)
        default = self._aliases.get(_compact(family(name) or ""))

        def score(c: Card) -> tuple:
            cform = _form(c.id)
            s = 0.0
            if form is not None:
                if form == "pcie" and cform == "nvl":  # a PCIe card: "H100 PCIe 94GB (H100 NVL)" in NVIDIA's tables
                    s += 1.9  # below a plain PCIe card unless the memory names the NVL
                else:
                    s += 2.0 if cform == form else (-1.0 if cform is not None else 0.0)
            elif cform in ("sxm", None):
                s += 0.5  # no form written: the SXM/OAM part, the one benchmarks and clusters use most
            if mem is not None and c.memory_gb:
                s -= abs(math.log(c.memory_gb / mem))
            if c.id == default:
                s += 0.25
            return (s, c.id)

        return max(hits, key=score)


# figures the instance's CardType form makes optional: a card type without them takes its twin's
_TWIN_FIELDS = ("fp32_tflops", "fp8_tflops", "fp4_tflops", "power_w")
_UNSCALED = ("fp32_tflops", "power_w")  # not peaks of the BF16 matrix units: copied as they are


def catalog_twin(card: Card, catalog: CardResolver | None = None) -> Card | None:
    """The catalog card a user's card (``--cards``, an instance's card type) stands for: its id
    resolved in the catalog alone, kept only when the BF16 peaks agree within 10% (an "h100"
    of 989 TFLOPS is the H100 SXM; one of 400 is some other card under that name)."""
    twin = (catalog or CardResolver()).resolve(card.id)
    if twin is None or not same_bf16_peak(twin.bf16_tflops, card.bf16_tflops):
        return None
    return twin


TWIN_BF16_TOLERANCE = 0.1  # a user's card and the catalog card its name resolves to are one card within this


def same_bf16_peak(catalog_tflops: float, users_tflops: float) -> bool:
    """Whether a user's card under a catalog name is that card: BF16 peaks within 10%."""
    return abs(catalog_tflops / users_tflops - 1) <= TWIN_BF16_TOLERANCE


# two card types are one chip at one clock and one memory within these (relative differences)
SILICON_BF16_TOLERANCE = 0.02
SILICON_BW_TOLERANCE = 0.05
SILICON_POWER_TOLERANCE = 0.10


def same_silicon(a: Card, b: Card) -> bool:
    """Whether two card types are one chip at one clock and one memory: an export variant (H800 and
    H100 SXM, A800 and A100 SXM, their PCIe boards) or two boards of one die (Quadro RTX 6000 and 8000,
    TITAN RTX). Same architecture, BF16, 8-bit and 4-bit peaks within 2%, memory bandwidth within 5%, board power within
    10% where both give it (a 250 W PCIe A100 is not the 400 W SXM one). What differs, the links and
    the memory size, is in their specs; what a job gets from their compute and memory is not."""
    if a.id == b.id or mig_profile(a.id) is not None or mig_profile(b.id) is not None:
        return False
    if arch_vendor(a)[0] != arch_vendor(b)[0]:  # a card of no known family is its own architecture
        return False
    if any(abs(x / y - 1) > SILICON_BF16_TOLERANCE for x, y in ((a.bf16_tflops, b.bf16_tflops), (a.p8, b.p8), (a.p4, b.p4))):
        return False  # every matrix peak: a B300 has a B200's BF16 peak and bandwidth, not its FP4 peak
    if abs(a.mem_bw_gbs / b.mem_bw_gbs - 1) > SILICON_BW_TOLERANCE:
        return False
    return not (a.power_w and b.power_w and abs(a.power_w / b.power_w - 1) > SILICON_POWER_TOLERANCE)


def silicon_sibling(card: Card | None, candidates: Mapping[str, Card | None]) -> str | None:
    """The key of the first of ``candidates`` (in their order) that is ``card``'s chip at its clock
    and memory (``same_silicon``), None when there is none."""
    if card is None:
        return None
    return next((k for k, c in candidates.items() if c is not None and same_silicon(card, c)), None)


def with_catalog_figures(card: Card, catalog: CardResolver | None = None) -> Card:
    """A user's card takes the FP32, 8-bit and 4-bit peaks and the board power it does not give from
    its catalog twin (same family, BF16 within 10%): an instance's card types seldom carry them, and
    the model reads a power-limited card's clocks from its power (``CardResolver.power_deficit``)."""
    missing = [f for f in _TWIN_FIELDS if getattr(card, f) is None]
    if not missing:
        return card
    twin = catalog_twin(card, catalog)
    if twin is None:
        return card
    scale = card.bf16_tflops / twin.bf16_tflops  # narrow peaks keep their ratio to BF16
    fill = {f: getattr(twin, f) * (1.0 if f in _UNSCALED else scale) for f in missing if getattr(twin, f)}
    return dataclasses.replace(card, **fill) if fill else card


def from_card_type(ct, catalog: CardResolver | None = None) -> Card:
    """A ``Card`` from an instance ``CardType`` (pydantic model or dict)."""
    d = ct if isinstance(ct, Mapping) else ct.model_dump()
    return with_catalog_figures(Card.from_entry(d), catalog)


# ---------------------------------------------------------------------- cards.json
_CARD_FIELDS = ("bf16_tflops", "mem_bw_gbs")  # required, positive
_OPTIONAL_FIGURES = ("memory_gb", "scaleup_gbs", "fp32_tflops", "fp8_tflops", "fp4_tflops", "power_w")  # non-negative
_TEXT_FIELDS = ("vendor", "stack")
_FIELD_DOCS = {
    "id": "card type name, unique in the file; a measurement's card_type matches it by id, then by family",
    "bf16_tflops": "dense BF16 matrix peak, TFLOPS (FP16 where the card has no BF16)",
    "mem_bw_gbs": "memory bandwidth, GB/s",
    "memory_gb": "memory per card, GB (a job that needs more is predicted 0 there)",
    "scaleup_gbs": "scale-up link (NVLink, xGMI, HCCS) per card, GB/s; absent: PCIe",
    "fp32_tflops": "dense FP32 vector peak, TFLOPS; absent: the catalog twin's",
    "fp8_tflops": "dense 8-bit matrix peak (FP8, else INT8), TFLOPS; absent: the catalog twin's, scaled by BF16",
    "fp4_tflops": "dense 4-bit floating-point matrix peak, TFLOPS; absent: the catalog twin's, scaled by BF16",
    "power_w": "board power, W (a power-limited card's sustained clocks are read from it); absent: the catalog twin's",
    "vendor": "nvidia, amd, huawei, intel, google, aws ... (absent: from the family)",
    "stack": "software stack: cuda, rocm, cann ... (an instance's CardType needs it; the model does not)",
}


def cards_file_schema() -> dict:
    """The JSON Schema (draft 2020-12) of a ``--cards`` file, from the fields ``load_cards_file``
    checks (``fedopt schema --cards``). Not expressible in it: ids unique within the file, and the
    catalog twin a card without its narrow peaks or power takes them from."""
    card = {
        "type": "object",
        "required": ["id", *_CARD_FIELDS],
        "properties": {
            "id": {"type": "string", "minLength": 1, "description": _FIELD_DOCS["id"]},
            **{f: {"type": "number", "exclusiveMinimum": 0, "description": _FIELD_DOCS[f]} for f in _CARD_FIELDS},
            **{f: {"type": ["number", "null"], "minimum": 0, "description": _FIELD_DOCS[f]} for f in _OPTIONAL_FIGURES},
            **{f: {"type": ["string", "null"], "description": _FIELD_DOCS[f]} for f in _TEXT_FIELDS},
        },
        "additionalProperties": True,  # an instance's CardType (price_per_hour ...) works as it is
    }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "fedopt normalize --cards file",
        "description": "Card types before the catalog: a JSON list in the instance CardType form, or an instance "
        "document whose card_types are read (docs/normalize.md, Card names).",
        "$defs": {"card": card},
        "oneOf": [
            {"type": "array", "items": {"$ref": "#/$defs/card"}},
            {
                "type": "object",
                "required": ["card_types"],
                "properties": {"card_types": {"type": "array", "items": {"$ref": "#/$defs/card"}}},
            },
        ],
    }


def load_cards_file(path: str | Path) -> list[Card]:
    """A JSON list of card types in the instance ``CardType`` form (``fp32_tflops``, ``fp8_tflops``,
    ``fp4_tflops`` optional: dense FP32, 8-bit, 4-bit peaks; the catalog twin's when absent)."""
    src = str(path)
    try:
        data = json.loads(Path(path).read_text())
    except FileNotFoundError:
        raise InputError("--cards", f"no such file: {src}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError("--cards", f"cannot read {src}: {exc}") from None
    except json.JSONDecodeError as exc:
        raise InputError(f"line {exc.lineno}", f"not JSON: {exc.msg}", src) from None
    if isinstance(data, dict) and isinstance(data.get("card_types"), list):
        data = data["card_types"]  # an instance document also works
    if not isinstance(data, list):
        raise InputError("(root)", "expected a JSON list of card types", src)
    cards = []
    seen: set[str] = set()
    for i, obj in enumerate(data):
        where = f"[{i}]"
        if not isinstance(obj, dict):
            raise InputError(where, "expected an object {id, bf16_tflops, mem_bw_gbs, memory_gb, ...}", src)
        cid = obj.get("id")
        if not isinstance(cid, str) or not cid:
            raise InputError(f"{where}.id", "missing or not a non-empty string", src)
        if cid in seen:
            raise InputError(f"{where}.id", f"duplicate card type {cid!r}", src)
        seen.add(cid)
        for f in _TEXT_FIELDS:
            if obj.get(f) is not None and not isinstance(obj[f], str):
                raise InputError(f"{where}.{f}", f"expected a string, got {obj[f]!r}", src)
        for f in (*_CARD_FIELDS, *_OPTIONAL_FIGURES):
            v = obj.get(f)
            if v is None:
                if f in _CARD_FIELDS:
                    raise InputError(f"{where}.{f}", "missing", src)
                continue
            if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v) or v < 0:
                raise InputError(f"{where}.{f}", f"expected a finite non-negative number, got {v!r}", src)
            if f in _CARD_FIELDS and v <= 0:
                raise InputError(f"{where}.{f}", f"must be positive, got {v!r}", src)
        cards.append(Card.from_entry(obj))
    catalog = CardResolver()
    return [with_catalog_figures(c, catalog) for c in cards]
