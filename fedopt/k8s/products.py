"""Which accelerator a Kubernetes node carries: extended resources, product labels, catalog entries.

Device plugins advertise cards as extended resources (``nvidia.com/gpu``, ``huawei.com/Ascend910``,
``amd.com/gpu``); feature-discovery daemons label the node with the product
(``nvidia.com/gpu.product=NVIDIA-H100-80GB-HBM3``, ``amd.com/gpu.product-name=AMD_Instinct_MI300X_OAM``,
``accelerator-type=module-910b-8`` ...). :func:`match_product` maps such strings to the catalog
(``models/catalog.json``); :func:`node_labels_for` goes the other way for exports.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from fedopt.normalize.cards import CardResolver
from fedopt.normalize.cloud_instances import cloud_instance

# Extended resources that are whole accelerator cards, and the labels that name their product,
# most specific first. A resource name ending in a product (huawei.com/Ascend910B) names it too.
RESOURCE_LABELS: dict[str, tuple[str, ...]] = {
    "nvidia.com/gpu": (
        "nvidia.com/gpu.product",  # NVIDIA GPU feature discovery (GPU operator)
        "cloud.google.com/gke-accelerator",  # GKE
        "k8s.amazonaws.com/accelerator",  # EKS
        "aliyun.accelerator/nvidia_name",  # Alibaba Cloud ACK (NVIDIA-A10, Tesla-V100-SXM2-16GB ...)
        "machine.cluster.vke.volcengine.com/gpu-name",  # Volcano Engine VKE (ByteDance's cloud; AIBrix pins on it)
        "accelerator",
    ),
    "amd.com/gpu": (
        "amd.com/gpu.product-name",  # AMD GPU operator node labeller
        "beta.amd.com/gpu.product-name",
        "amd.com/gpu.device-id",
        "beta.amd.com/gpu.device-id",
        "accelerator",
    ),
    "huawei.com/Ascend910": (
        "node.kubernetes.io/npu.chip.name",  # Ascend device plugin (MindCluster)
        "accelerator-type",  # module-910b-8, card-910b-2 ...
        "servertype",
        "accelerator",  # huawei-Ascend910
    ),
    "huawei.com/Ascend910B": ("node.kubernetes.io/npu.chip.name", "accelerator-type", "accelerator"),
    "habana.ai/gaudi": ("habana.ai/gaudi.product", "accelerator"),
}


# The cloud's instance-type labels (every managed node has one): read only when no product label
# names a known card, and only when the instance type is one the card table knows (an EKS node with
# the device plugin but no GPU feature discovery says p4d.24xlarge and nothing else)
INSTANCE_TYPE_LABELS = ("node.kubernetes.io/instance-type", "beta.kubernetes.io/instance-type")


def is_card_resource(name: str) -> bool:
    """Whole-card extended resources (MIG slices and shared-GPU resources are not cards)."""
    return name in RESOURCE_LABELS or name.startswith("huawei.com/Ascend")


# Software stack and vendor of each resource's cards, for exports of types the catalog lacks.
RESOURCE_OF_VENDOR = {
    "nvidia": "nvidia.com/gpu",
    "amd": "amd.com/gpu",
    "huawei": "huawei.com/Ascend910",
    "intel": "habana.ai/gaudi",
}

# PCI device ids the AMD node labeller reports (amd.com/gpu.device-id), as AMD's Instinct networking
# guide lists them for `lspci -d 1002:<id>`
AMD_DEVICE_IDS = {"74A1": "MI300X", "74A2": "MI308X", "74A5": "MI325X", "75A0": "MI350X", "75A3": "MI355X"}

# Strings of Kubernetes labels that no card name has (product names themselves are matched by the
# card-name resolver that `normalize` uses, fedopt.normalize.cards.CardResolver): (pattern on the
# normalized string, catalog id); first match wins. Normalized = upper case, '_' and ' ' as '-',
# vendor prefixes removed (see _normalize).
_PATTERNS: list[tuple[str, str]] = [
    *((rf"^(0X)?{dev}$", cid) for dev, cid in AMD_DEVICE_IDS.items()),
    (r"^(MODULE|CARD)-910B\b", "Ascend-910B"),  # accelerator-type of Atlas 800T A2 / 300T A2
]
# Cloud accelerator labels whose product a card name would misread: GKE's nvidia-tesla-a100 is the
# 40 GB A100 (its 80 GB one is nvidia-a100-80gb), where a bare "A100" is the catalog's 80 GB alias
_CLOUD_LABELS = {"nvidia-tesla-a100": "A100-SXM4-40GB"}
# The Ascend device plugin's resource name, also written as a label: it covers the 910 and the 910B
# alike, so it names no product (a bare "Ascend 910" elsewhere is the first chip)
_NOT_A_PRODUCT = re.compile(r"^(ASCEND-?)?910$")
_PREFIXES = ("NVIDIA-", "TESLA-", "GEFORCE-", "AMD-", "INSTINCT-", "RADEON-", "HUAWEI-", "INTEL-", "HABANA-")


# Packages of two dies that the device plugin lists as two cards (ROCm shows each MI250X graphics
# compute die as a GPU: a node of four MI250X has eight amd.com/gpu; an Atlas A3 server of eight
# 910C lists 16 NPUs), so a node's card is the die
DIE_OF_PACKAGE = {"MI250": "MI250-GCD", "MI250X": "MI250X-GCD", "Ascend-910C": "Ascend-910C-die"}


def _normalize(value: str) -> str:
    s = re.sub(r"[\s_]+", "-", value.strip()).upper()
    stripped = True
    while stripped:
        stripped = False
        for p in _PREFIXES:
            if s.startswith(p):
                s, stripped = s[len(p) :], True
    return s


def match_product(value: str, catalog: dict[str, dict], resolver: CardResolver | None = None) -> str | None:
    """Catalog id of a product label value (or resource-name suffix), or None if unknown.

    An exact catalog id or alias (any case) wins; then the label strings no card name has (device
    ids, accelerator types); then the card-name resolver ``normalize`` uses (``resolver``, one made
    on ``catalog`` if not given), with a MIG product read as the card it is cut from. Bare family
    names without a memory size (``A100``, ``V100``) resolve as the catalog's aliases do.
    """
    if not value or not value.strip():
        return None
    cid = _CLOUD_LABELS.get(value.strip().lower())
    if cid in catalog:
        return cid
    by_lower = {k.lower(): k for k in catalog}
    s = _normalize(value)
    for v in (value.strip().lower(), s.lower()):
        if v in by_lower:
            return catalog[by_lower[v]]["id"]
    for pattern, cid in _PATTERNS:
        if re.search(pattern, s) and cid in catalog:
            return cid
    if _NOT_A_PRODUCT.search(s):
        return None
    card = (resolver or CardResolver(catalog=catalog)).whole_card(value)
    return card.id if card is not None and card.id in catalog else None


@dataclass(frozen=True)
class ProductMatch:
    catalog_id: str | None  # None: a product was named but is not known
    label: str | None  # the label (or "resource") the product was read from
    value: str | None  # the label's value


def product_of_node(
    labels: dict[str, str],
    resource: str,
    catalog: dict[str, dict],
    overrides: dict[str, str] | None = None,
    extra_label_keys: tuple[str, ...] = (),
    resolver: CardResolver | None = None,
) -> ProductMatch:
    """Product of the cards of ``resource`` on a node with ``labels``.

    ``overrides`` maps exact label values to catalog (or config) ids and is asked first;
    ``resolver``: the card-name resolver on ``catalog`` (``match_product``), reused across nodes.
    Without a known product, a cloud instance type of the resource's vendor names the card
    (``INSTANCE_TYPE_LABELS``). Returns ``ProductMatch(None, None, None)`` when no label names a
    product at all (an unknown instance type names none).
    """
    overrides = overrides or {}
    keys = extra_label_keys + RESOURCE_LABELS.get(resource, RESOURCE_LABELS["huawei.com/Ascend910B"])
    first_named: ProductMatch | None = None
    candidates: list[tuple[str, str]] = [(k, labels[k]) for k in keys if labels.get(k)]
    suffix = resource.split("/", 1)[-1]
    if resource.startswith("huawei.com/") and suffix != "Ascend910":
        candidates.append(("resource", suffix))  # huawei.com/Ascend910B names the chip
    for key, value in candidates:
        if value in overrides:
            return ProductMatch(overrides[value], key, value)
        cid = match_product(value, catalog, resolver)
        if cid is not None:
            die = DIE_OF_PACKAGE.get(cid)  # a node's device plugin lists dies (each package is its vendor's)
            return ProductMatch(die if die in catalog else cid, key, value)
        if first_named is None and key not in ("accelerator", "servertype"):
            first_named = ProductMatch(None, key, value)
    vendor = next((v for v, r in RESOURCE_OF_VENDOR.items() if r == resource), None)
    for key in INSTANCE_TYPE_LABELS:
        hit = cloud_instance(labels.get(key) or "")
        if hit is not None and hit.card in catalog and catalog[hit.card].get("vendor") == vendor:
            return ProductMatch(hit.card, key, labels[key])
    if first_named is None and candidates:
        first_named = ProductMatch(None, candidates[0][0], candidates[0][1])
    return first_named or ProductMatch(None, None, None)


# Typical product label of each catalog card, for exports of instances not made by import-k8s.
DEFAULT_PRODUCT_LABEL: dict[str, tuple[str, str]] = {
    "H100-SXM-80GB": ("nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3"),
    "H100-PCIe-80GB": ("nvidia.com/gpu.product", "NVIDIA-H100-PCIe"),
    "H200-SXM-141GB": ("nvidia.com/gpu.product", "NVIDIA-H200"),
    "H800-SXM-80GB": ("nvidia.com/gpu.product", "NVIDIA-H800"),
    "H20-96GB": ("nvidia.com/gpu.product", "NVIDIA-H20"),
    "H20-141GB": ("nvidia.com/gpu.product", "NVIDIA-H20-3e"),  # nvidia-smi's "NVIDIA H20-3e"
    "B200-SXM-180GB": ("nvidia.com/gpu.product", "NVIDIA-B200"),
    "A100-SXM4-80GB": ("nvidia.com/gpu.product", "NVIDIA-A100-SXM4-80GB"),
    "A100-SXM4-40GB": ("nvidia.com/gpu.product", "NVIDIA-A100-SXM4-40GB"),
    "A100-PCIe-80GB": ("nvidia.com/gpu.product", "NVIDIA-A100-80GB-PCIe"),
    "A800-SXM4-80GB": ("nvidia.com/gpu.product", "NVIDIA-A800-SXM4-80GB"),
    "A10": ("nvidia.com/gpu.product", "NVIDIA-A10"),
    "A10G": ("nvidia.com/gpu.product", "NVIDIA-A10G"),
    "A30": ("nvidia.com/gpu.product", "NVIDIA-A30"),
    "L4": ("nvidia.com/gpu.product", "NVIDIA-L4"),
    "L20": ("nvidia.com/gpu.product", "NVIDIA-L20"),
    "L40": ("nvidia.com/gpu.product", "NVIDIA-L40"),
    "L40S": ("nvidia.com/gpu.product", "NVIDIA-L40S"),
    "T4": ("nvidia.com/gpu.product", "Tesla-T4"),
    "V100-SXM2-32GB": ("nvidia.com/gpu.product", "Tesla-V100-SXM2-32GB"),
    "V100-PCIe-16GB": ("nvidia.com/gpu.product", "Tesla-V100-PCIE-16GB"),
    "P100-16GB": ("nvidia.com/gpu.product", "Tesla-P100-PCIE-16GB"),
    "K80": ("nvidia.com/gpu.product", "Tesla-K80"),
    "MI300X": ("amd.com/gpu.product-name", "AMD_Instinct_MI300X_OAM"),
    "Ascend-910B": ("accelerator-type", "module-910b-8"),
}
