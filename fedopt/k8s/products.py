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

# Extended resources that are whole accelerator cards, and the labels that name their product,
# most specific first. A resource name ending in a product (huawei.com/Ascend910B) names it too.
RESOURCE_LABELS: dict[str, tuple[str, ...]] = {
    "nvidia.com/gpu": (
        "nvidia.com/gpu.product",  # NVIDIA GPU feature discovery (GPU operator)
        "cloud.google.com/gke-accelerator",  # GKE
        "k8s.amazonaws.com/accelerator",  # EKS
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

# (pattern on the normalized product string, catalog id); first match wins. Normalized = upper
# case, '_' and ' ' as '-', vendor prefixes removed (see _normalize).
_PATTERNS: list[tuple[str, str]] = [
    (r"^B200\b", "B200-SXM-180GB"),
    (r"^H200\b", "H200-SXM-141GB"),
    (r"^H800\b", "H800-SXM-80GB"),
    (r"^H20\b", "H20-96GB"),
    (r"^H100\b.*\bPCIE\b", "H100-PCIe-80GB"),
    (r"^H100\b(?!.*\bNVL\b)", "H100-SXM-80GB"),  # H100-80GB-HBM3, H100-SXM5-80GB, GKE h100-80gb / h100-mega-80gb
    (r"^A800\b", "A800-SXM4-80GB"),
    (r"^A100\b.*\bPCIE\b.*\b80GB\b|^A100-80GB-PCIE\b", "A100-PCIe-80GB"),
    (r"^A100\b(?!.*\bPCIE\b).*\b40GB\b", "A100-SXM4-40GB"),
    (r"^A100\b(?!.*\bPCIE\b).*\b80GB\b", "A100-SXM4-80GB"),
    (r"^A10G\b", "A10G"),
    (r"^A10\b", "A10"),
    (r"^A30\b", "A30"),
    (r"^L40S\b", "L40S"),
    (r"^L40\b", "L40"),
    (r"^L20\b", "L20"),
    (r"^L4\b", "L4"),
    (r"^T4\b", "T4"),
    (r"^V100\b.*\bPCIE\b.*\b16GB\b", "V100-PCIe-16GB"),
    (r"^V100\b.*\bSXM2\b.*\b32GB\b", "V100-SXM2-32GB"),
    (r"^P100\b.*\b16GB\b", "P100-16GB"),
    (r"^K80\b", "K80"),
    (r"^MI300X\b", "MI300X"),
    (r"^74A1$", "MI300X"),  # PCI device id the AMD node labeller reports
    (r"^(ASCEND-?)?910B\w*\b", "Ascend-910B"),  # Ascend910B, 910B3, Ascend910B4
    (r"^(MODULE|CARD)-910B\b", "Ascend-910B"),  # accelerator-type of Atlas 800T A2 / 300T A2
    (r"^GAUDI2\b", "Gaudi2"),
]
_PREFIXES = ("NVIDIA-", "TESLA-", "GEFORCE-", "AMD-", "INSTINCT-", "RADEON-", "HUAWEI-", "INTEL-", "HABANA-")


def _normalize(value: str) -> str:
    s = re.sub(r"[\s_]+", "-", value.strip()).upper()
    stripped = True
    while stripped:
        stripped = False
        for p in _PREFIXES:
            if s.startswith(p):
                s, stripped = s[len(p) :], True
    return s


def match_product(value: str, catalog: dict[str, dict]) -> str | None:
    """Catalog id of a product label value (or resource-name suffix), or None if unknown.

    An exact catalog id or alias (any case) wins; then the vendor naming patterns. Bare family
    names without a memory size (``A100``, ``V100``) resolve as the catalog's aliases do.
    """
    if not value:
        return None
    by_lower = {k.lower(): k for k in catalog}
    if value.strip().lower() in by_lower:
        return catalog[by_lower[value.strip().lower()]]["id"]
    s = _normalize(value)
    if s.lower() in by_lower:
        return catalog[by_lower[s.lower()]]["id"]
    for pattern, cid in _PATTERNS:
        if re.search(pattern, s) and cid in catalog:
            return cid
    return None


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
) -> ProductMatch:
    """Product of the cards of ``resource`` on a node with ``labels``.

    ``overrides`` maps exact label values to catalog (or config) ids and is asked first.
    Returns ``ProductMatch(None, None, None)`` when no label names a product at all.
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
        cid = match_product(value, catalog)
        if cid is not None:
            return ProductMatch(cid, key, value)
        if first_named is None and key not in ("accelerator", "servertype"):
            first_named = ProductMatch(None, key, value)
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
