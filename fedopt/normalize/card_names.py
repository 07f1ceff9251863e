"""What a card name says: its family (``"NVIDIA H100-SXM5-80GB"`` -> ``h100``), form factor, memory size
and architecture, read from the name alone; ``cards.CardResolver`` turns these into catalog cards."""

from __future__ import annotations

import functools
import re

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
    "apple",
)

# Apple silicon: (generation, tier, the full chip's GPU cores, its cut-down part's). A cut-down part is
# a family of its own (24 of the M1 Max's 32 cores), its cores written after the chip ("M1 Max
# 24-Core GPU"); a chip the catalog has no figures for gets none rather than a sibling's.
APPLE_CHIPS = (
    (1, "", 8, 7),
    (1, "pro", 16, 14),
    (1, "max", 32, 24),
    (1, "ultra", 64, 48),
    (2, "", 10, 8),
    (2, "pro", 19, 16),
    (2, "max", 38, 30),
    (2, "ultra", 76, 60),
    (3, "", 10, 8),
    (3, "pro", 18, 14),
    (3, "max", 40, 30),
    (3, "ultra", 80, 60),
    (4, "", 10, 8),
    (4, "pro", 20, 16),
    (4, "max", 40, 32),
)


def _apple_families() -> list[tuple[str, str]]:
    """``m3max30`` before ``m3max``; the bare chip (``m3``) is neither a Pro/Max/Ultra (nor a tier not
    in the table, ``M4 Extreme``) nor an AWS instance type (``m3.xlarge``: CPUs only)."""
    out = []
    for gen, tier, _full, cut in APPLE_CHIPS:
        chip, name = f"m{gen} ?{tier}" if tier else f"m{gen}", f"m{gen}{tier}"
        out.append((f"{name}{cut}", rf"\b{chip} {cut}(?: ?c)?\b(?! ?inch)"))  # not a laptop's screen: "M1 Pro 14-inch"
        if tier:
            out.append((name, rf"\b{chip}\b"))
        else:
            out.append((name, rf"\b{chip}\b(?![ .]*(?:pro|max|ultra|extreme)\b)(?!.*\b(?:medium|x?large|\d*xlarge)\b)"))
    return out


_APPLE_FAMILIES = _apple_families()

# One die of Huawei's 910C, two to a package: each is its own NPU to CANN (SoC names Ascend910_9391,
# 910_93 ...) and to Kubernetes (an Atlas 800T or 800I A3 server of eight packages lists 16 NPUs of
# 64 GB), so these names are the die's, catalog entry Ascend-910C-die; "Ascend 910C" is the package
ASCEND_A3_DIE = r"\b910 ?c die\b|\b910 93\d{0,2}\b|\b(?:atlas ?(?:800[ti]|900)|a ?200t) ?a3\b"
_A3_DIE_GB = 64.0

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
    # Huawei's Atlas A2 products carry the 910B (vllm-ascend's device list: Atlas 800T A2, 900 A2 PoD, 200T A2
    # Box16, 300T A2 cards, 800I A2), not NVIDIA's A2
    ("910b", r"\batlas ?(800[ti]|900|[23]00t) ?a2\b"),
    # the 910C, and its dies by CANN's SoC names and the Atlas A3 products that carry them (before "atlas" below
    # and before "910", which would take "910 9391")
    ("910c", r"\b910 ?c\b|" + ASCEND_A3_DIE),
    ("atlas", r"\batlas\b"),  # other Atlas products (200I A2: a 310B edge module; 300I Duo: 310P): none in the catalog
    ("a2", r"\ba2\b"),
    ("a16", r"\ba16\b"),
    ("l40s", r"\bl ?40 ?s\b"),
    ("l40", r"\bl ?40\b"),
    ("l20", r"\bl ?20\b"),
    ("l4", r"\bl ?4\b"),
    ("t4", r"\bt ?4\b"),
    ("v100s", r"\bv ?100 ?s\b"),  # the V100S: a faster PCIe board (130 TFLOPS, 1134 GB/s), not the V100's 112 and 900
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
    ("rtx5880ada", r"\brtx ?5880\b|\b5880 ?ada\b"),  # the China-market AD102 workstation card
    ("rtx5000ada", r"\b(rtx )?5000 ?ada\b"),
    ("rtx4500ada", r"\b(rtx )?4500 ?ada\b"),
    ("rtx4000ada", r"\b(rtx )?4000 ?ada\b"),
    # Blackwell's RTX PRO cards, also as NVIDIA's own docs write them ("RTX 6000 Pro Blackwell Server
    # Edition", TensorRT-LLM; "RTX 6000 Blackwell" is read so by clean_name): the bare "RTX 6000" is Turing's
    ("rtxpro6000maxq", r"\brtx ?(pro ?6000|6000 ?pro)\b.*\bmax ?q\b"),  # the 300 W workstation card
    ("rtxpro6000", r"\brtx ?(pro ?6000|6000 ?pro)\b"),
    ("rtxpro4500", r"\brtx ?(pro ?4500|4500 ?pro)\b"),
    ("rtxpro5000", r"\brtx ?(pro ?5000|5000 ?pro)\b"),
    ("rtxpro4000", r"\brtx ?(pro ?4000|4000 ?pro)\b"),
    ("rtxpro2000", r"\brtx ?(pro ?2000|2000 ?pro)\b"),
    ("gb10", r"\bgb10\b|\bdgx ?spark\b"),  # DGX Spark's Grace Blackwell chip
    ("quadrortx6000", r"\b(quadro )?rtx ?6000\b"),
    ("quadrortx8000", r"\b(quadro )?rtx ?8000\b"),
    ("rtx4090d", r"\b(rtx )?4090 ?d\b"),  # the China variant: the 4090's memory, 114 of its 128 SMs
    ("rtx4090", r"\b(rtx )?4090\b"),
    ("rtx4080super", r"\b(rtx )?4080 ?super\b"),
    ("rtx4080", r"\b(rtx )?4080\b"),
    ("rtx4070tisuper", r"\b(rtx )?4070 ?ti ?super\b"),
    ("rtx4070ti", r"\b(rtx )?4070 ?ti\b"),
    ("rtx4070super", r"\b(rtx )?4070 ?super\b"),
    ("rtx4070", r"\b(rtx )?4070\b"),
    ("rtx4060ti", r"\b(rtx )?4060 ?ti\b"),
    ("rtx4060", r"\b(rtx )?4060\b"),
    # the China variants: the 5090's SMs with its tensor rate cut to 2375 of 3352 AI TOPS; the V2 also on 24 GB, 384 bits
    ("rtx5090dv2", r"\b(rtx )?5090 ?d ?v ?2\b"),
    ("rtx5090d", r"\b(rtx )?5090 ?d\b"),
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
    ("mi308x", r"\bmi ?308 ?x?\b"),  # the China-market CDNA 3 part
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
    ("950pr", r"\b950 ?pr\b"),  # "Ascend 950" alone names no chip: the PR and DT differ in memory
    ("950dt", r"\b950 ?dt\b"),
    ("910b", r"\b910 ?b\d?c?\b"),  # 910B1-B4 and 910B2C, the chip names MindCluster labels nodes with
    ("910", r"\b910 ?a?\b"),
    ("tpu7x", r"\btpu ?v? ?7 ?x\b|\btpu ?v ?7 ?p?\b|\bironwood\b"),
    ("tpuv6e", r"\btpu ?v ?6 ?e\b|\btrillium\b|\btpu ?v6\b"),
    ("tpuv5p", r"\btpu ?v ?5 ?p\b"),
    ("tpuv5e", r"\btpu ?v ?5 ?e\b|\btpu ?v ?5 ?lite"),
    ("tpuv4", r"\btpu ?v ?4\b"),
    ("tpuv3", r"\btpu ?v ?3\b"),
    ("trainium3", r"\btrainium ?3\b|\btrn ?3\b"),  # before trainium: "trainium 3" is not a Trn1
    ("trainium2", r"\btrainium ?2\b|\btrn ?2\b"),
    ("trainium", r"\btrainium(?: ?1)?\b(?! ?\d)|\btrn ?1\b"),  # not a later generation ("trainium 4")
    ("inferentia2", r"\binferentia ?2\b|\binf ?2\b"),
    ("mlu370", r"\bmlu ?370"),
    # China's other accelerators (catalog_supplement.csv: press and cloud-provider figures)
    ("br100", r"\bbr ?100\b"),
    ("br104", r"\bbr ?104\b"),
    ("mtts4000", r"\b(?:mtt ?)?s ?4000\b"),
    ("biv100", r"\bbi ?v?100\b|\btiangai ?100\b"),
    ("c500", r"\b(?:mx)?c ?500\b"),
    ("bw1000", r"\bbw ?1000\b"),
    ("k100ai", r"\bk100ai\b"),
    *_APPLE_FAMILIES,
    # Qualcomm Cloud AI 100 (clean_name writes "Cloud AI 100" as "qaic100"); the Pro when no SKU is written
    ("aic100ultra", r"\bq?aic ?100\b.*\bultra\b"),
    ("aic100standard", r"\bq?aic ?100\b.*\b(?:standard|std)\b"),
    ("aic100", r"\bq?aic ?100\b"),
]
_FAMILY_RE = [(fam, re.compile(pat)) for fam, pat in _FAMILIES]
DESKTOP_MAX_Q = frozenset({"rtxpro6000maxq"})  # "Max-Q" in a desktop card's name: a power level, not a laptop
LAPTOP = re.compile(r"\bmax ?q\b|\bmobile\b|\blaptop\b|\bnotebook\b")
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
    "rtx5880ada": "nvidia-ada",
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
    "v100s": "nvidia-volta",
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
    "rtx4090d": "nvidia-ada",
    "rtx4080": "nvidia-ada",
    "rtx4070ti": "nvidia-ada",
    "rtx4070": "nvidia-ada",
    "rtx4060ti": "nvidia-ada",
    "rtx4060": "nvidia-ada",
    "rtx4070super": "nvidia-ada",
    "rtx4070tisuper": "nvidia-ada",
    "rtx4080super": "nvidia-ada",
    "rtx5090": "nvidia-blackwell",
    "rtx5090d": "nvidia-blackwell",
    "rtx5090dv2": "nvidia-blackwell",
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
    "mi308x": "amd-cdna3",
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
    "950pr": "huawei-davinci",
    "950dt": "huawei-davinci",
    "tpuv4": "google-tpu",
    "tpuv5e": "google-tpu",
    "tpuv5p": "google-tpu",
    "tpuv6e": "google-tpu",
    "tpuv3": "google-tpu",
    "tpu7x": "google-tpu",
    "trainium": "aws-neuron",
    "trainium2": "aws-neuron",
    "trainium3": "aws-neuron",
    "inferentia2": "aws-neuron",
    "mlu370": "cambricon-mlu",
    "br100": "biren-br",
    "br104": "biren-br",
    "mtts4000": "moorethreads-musa",
    "biv100": "iluvatar-corex",
    "c500": "metax-maca",
    "bw1000": "hygon-dcu",
    "k100ai": "hygon-dcu",
    "aic100": "qualcomm-aic100",
    "aic100standard": "qualcomm-aic100",
    "aic100ultra": "qualcomm-aic100",
} | {fam: f"apple-{fam[:2]}" for fam, _ in _APPLE_FAMILIES}  # "m3max30" -> apple-m3


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
    s = re.sub(r"\bk ?100 ai\b", "k100ai", s)  # Hygon's K100_AI ("ai" is a dropped word), not the K100
    s = re.sub(r"\bbi ?v ?100\b", "biv100", s)  # Iluvatar's BI-V100, not a V100
    s = _VGPU.sub(_vgpu_board, s)  # a vGPU type's board letters: "h100xm 80c" -> "h100 sxm 80gb"
    # a workstation card named by its generation, whose word is dropped below: "RTX 6000 Blackwell" is the RTX PRO
    s = re.sub(r"\brtx ?(2000|4000|4500|5000|6000) blackwell\b", r"rtx pro \1", s)
    words = [w for w in s.split() if w not in _NOISE]
    return " ".join(words)


def compact(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


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


# Chips sold on two memories whose second is named by its memory type, not its size: nvidia-smi
# calls the 141 GB H20 "NVIDIA H20-3e" (HBM3e; the first H20 has 96 GB of HBM3), and the GH200 of
# 144 GB "GH200 144G HBM3e" (NVIDIA/mig-parted's config), written "GH200 HBM3e" without the size.
_HBM3E_GB = {"h20": 141.0, "gh200": 144.0}
_HBM3E_WORD = re.compile(r"(?:hbm|[\s_-])3e\b")


def memory_in_name(name: str) -> float | None:
    """The GPU memory (GB) a name gives, if any (its size, or its memory type where that names the part)."""
    s = clean_name(name)
    m = re.search(r"\b(\d{2,3}) ?g(b|ib)?\b", s) or re.search(r"\bm(16|32|40|80)\b", s)
    if not m:
        fam = family(name)
        if fam == "910c" and re.search(ASCEND_A3_DIE, s):
            return _A3_DIE_GB
        return _HBM3E_GB[fam] if fam in _HBM3E_GB and _HBM3E_WORD.search(name.lower()) else None
    gb = float(m.group(1))
    if family(name) == "gh200" and gb >= _GRACE_LPDDR_GB:
        gb = gb - _GRACE_LPDDR_GB if gb > _GRACE_LPDDR_GB else 96.0
    return gb


def form_factor(name: str) -> str | None:
    s = clean_name(name)
    for form, pat in _FORMS.items():
        if re.search(pat, s):
            return form
    return None
