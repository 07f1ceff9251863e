"""Card specs for the normalization model, and names as people write them matched to the catalog.

``CardResolver.resolve("NVIDIA H100-SXM5-80GB")`` finds the catalog's ``H100-SXM-80GB``; Gavel's
``k80``, MLPerf's ``Intel(R) Gaudi(R) 2 AI Accelerator``, Alibaba's ``V100M32`` and ``A100-80GB``
resolve too; a MIG slice (``NVIDIA-A100-SXM4-40GB-MIG-1g.5gb``) is its share of the card. Cards
given by the user (``--cards cards.json``, ``cards_file``; the instance ``CardType`` form) win over the catalog. A
name that matches nothing resolves to ``None``; the model still predicts for it (see
``fedopt.normalize.model``).
"""

from __future__ import annotations

import dataclasses
import functools
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from fedopt.normalize.card_names import ARCH, DESKTOP_MAX_Q, LAPTOP, clean_name, compact, family, form_factor, memory_in_name
from fedopt.normalize.catalog import load_catalog
from fedopt.normalize.cloud_instances import cloud_instance
from fedopt.normalize.mig import COMPUTE_SLICES, MEMORY_SLICES, MIG_FAMILIES, MIG_NAME, SLICE_ID_MARK, mig_profile, sm_share

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
    gb = memory_in_name(name)
    # within 10%: usable vs installed (B200 180 / 192 GB, H100 NVL 94 / 96 GB); a dual-die board's
    # total (K80 24 GB) is its two dies' memory; a MIG slice's memory is the slice's
    other_size = bool(gb and card.memory_gb) and all(abs(math.log(gb / (k * card.memory_gb))) > 0.1 for k in (1, 2))
    if other_size and not MIG_NAME.search(clean_name(name)):
        out.append(f"{gb:g}gb")
    # a form the card is not (an "H800 NVL" read as the H800 SXM: the catalog has no H800 NVL); an NVL
    # card is a PCIe card, so "H100 PCIe 94GB" read as the H100 NVL is no miss
    asked, got = form_factor(name), form_factor(card.id)
    if asked and got and asked != got and (asked, got) != ("pcie", "nvl"):
        out.append(asked)
    return out


def _index(cat: Mapping[str, Mapping]) -> tuple[dict[str, Card], dict[str, str]]:
    """(id -> Card, compact name -> id) of a catalog's complete entries, aliases included."""
    cards: dict[str, Card] = {}
    aliases: dict[str, str] = {}
    for key, entry in cat.items():
        if not entry.get("complete", True):
            continue
        cards.setdefault(entry["id"], Card.from_entry(entry))
        aliases[compact(key)] = entry["id"]
    for cid in cards:
        aliases[compact(cid)] = cid
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
        comp = compact(name)
        if not comp:
            return None, "empty name"
        for cid, card in self.extra.items():
            if compact(cid) == comp:
                return card, "--cards id"
        if (cloud := cloud_instance(name)) is not None and cloud.card in self.catalog:
            return self.catalog[cloud.card], f"{cloud.provider} instance"
        if (mig := mig_profile(name)) is not None:
            card = self._mig_slice(name, *mig)
            return card, "MIG slice" if card is not None else "MIG slice of a card without MIG"
        fam = family(name)
        if fam is not None and fam not in DESKTOP_MAX_Q and LAPTOP.search(clean_name(name)):
            return None, "laptop part"  # it runs far below its desktop namesake's clocks and power
        if self.extra and fam is not None:
            form = form_factor(name)
            # a user's card of the same family, unless the name asks for another form (PCIe vs SXM)
            hits = [c for cid, c in self.extra.items() if family(cid) == fam and form in (None, form_factor(cid) or "sxm")]
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
        if fam not in MIG_FAMILIES or slices > COMPUTE_SLICES.get(fam, 7):
            return None
        whole = COMPUTE_SLICES.get(fam, 7)
        parent_name = MIG_NAME.sub(" ", clean_name(name))
        if memory_in_name(parent_name) is None:  # the card's memory from the slice's: 1g.5gb is an A100 40GB's
            share = slices / whole if whole != 7 else MEMORY_SLICES.get(slices, slices) / 8
            parent_name += f" {round(gb / share)}gb"
        return self.resolve(parent_name)

    def _mig_slice(self, name: str, compute: int, slices: int, gb: float) -> Card | None:
        """The share of its card a MIG slice gets (``mig_profile``); None on a card without MIG."""
        parent = self._mig_parent(name, slices, gb)
        if parent is None:
            return None
        sm = sm_share(name, compute)
        mem = min(1.0, gb / parent.memory_gb) if parent.memory_gb else sm
        peaks = ("bf16_tflops", "fp32_tflops", "fp8_tflops", "fp4_tflops", "power_w")
        scaled = {f: v * sm for f in peaks if (v := getattr(parent, f)) is not None}
        profile = f"{compute}c.{slices}g.{gb:g}gb" if compute != slices else f"{slices}g.{gb:g}gb"
        return dataclasses.replace(
            parent,
            id=f"{parent.id}{SLICE_ID_MARK}{profile}",
            memory_gb=gb,
            mem_bw_gbs=parent.mem_bw_gbs * mem,
            scaleup_gbs=DEFAULT_SCALEUP_GBS,
            **scaled,
        )

    def _best(self, name: str, hits: list[Card]) -> Card:
        if len(hits) == 1:
            return hits[0]
        form, mem = form_factor(name), memory_in_name(name)
        default = self._aliases.get(compact(family(name) or ""))

        def score(c: Card) -> tuple:
            cform = form_factor(c.id)
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
    TITAN RTX). One die at one power (``same_die``) and memory bandwidth within 5%. What differs, the
    links and the memory size, is in their specs; what a job gets from their compute and memory is not."""
    return same_die(a, b) and abs(a.mem_bw_gbs / b.mem_bw_gbs - 1) <= SILICON_BW_TOLERANCE


def same_die(a: Card, b: Card) -> bool:
    """Whether two card types are one chip at one clock and power, whatever their memory (an H100 SXM
    and an H200 SXM; an A100 SXM of 40 and of 80 GB): same architecture, BF16, 8-bit and 4-bit peaks
    within 2%, board power within 10% where both give it (a 250 W PCIe A100 is not the 400 W SXM one).
    Their compute is the same, so what a job gets more from one than from the other is its memory's doing."""
    if a.id == b.id or mig_profile(a.id) is not None or mig_profile(b.id) is not None:
        return False
    if arch_vendor(a)[0] != arch_vendor(b)[0]:  # a card of no known family is its own architecture
        return False
    if any(abs(x / y - 1) > SILICON_BF16_TOLERANCE for x, y in ((a.bf16_tflops, b.bf16_tflops), (a.p8, b.p8), (a.p4, b.p4))):
        return False  # every matrix peak: a B300 has a B200's BF16 peak and bandwidth, not its FP4 peak
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
