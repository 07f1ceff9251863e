"""The accelerator catalog (``models/catalog.json``): public spec figures, each with its source.

``build_catalog`` derives it from the shared data tables (gpu_specs_curated.csv, the llm-analysis
GPU configs), ``models/catalog_supplement.csv`` (vendor datasheet figures for cards and
fields those tables lack) and ``models/narrow_formats.csv`` (dense 8-bit and 4-bit matrix peaks:
FP8, or INT8 where a card has no FP8; FP4/MXFP4); ``models/catalog_corrections.csv`` replaces a shared
table's figure that is wrong for the card as the catalog counts it, with the reason.
``write_catalog()`` regenerates the file (a test fails when it is stale).
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

from fedopt.instance.schema import CardType

MODELS_DIR = Path(__file__).resolve().parent.parent / "models"  # fedopt/models: shipped in the wheel (package data)
CATALOG_PATH = MODELS_DIR / "catalog.json"
SHARED_SPECS = Path(__file__).resolve().parents[3] / "shared" / "data" / "gpu_specs"

# Short names people use for the catalog's cards.
ALIASES = {
    "V100": "V100-SXM2-32GB",
    "A100": "A100-SXM4-80GB",
    "A800": "A800-SXM4-80GB",
    "H100": "H100-SXM-80GB",
    "H800": "H800-SXM-80GB",
    "H200": "H200-SXM-141GB",
    "H20": "H20-96GB",
    "910B": "Ascend-910B",
    "B200": "B200-SXM-180GB",
    "P100": "P100-16GB",
    "A100-40GB": "A100-SXM4-40GB",
    "A100-80GB": "A100-SXM4-80GB",
    "H100-PCIe": "H100-PCIe-80GB",
    "H100-NVL": "H100-NVL-94GB",
    "GH200": "GH200-96GB",
    "Trillium": "TPU-v6e",
}


def _vendor(name: str) -> tuple[str, str]:
    if name.startswith("Ascend"):
        return "huawei", "cann"
    if name.startswith("MI"):
        return "amd", "rocm"
    if name.startswith("Gaudi"):
        return "intel", "synapse"
    return "nvidia", "cuda"


def _num(x: str) -> float | None:
    x = (x or "").strip()
    return float(x) if x else None


def build_catalog(
    specs_dir: Path = SHARED_SPECS,
    supplement: Path = MODELS_DIR / "catalog_supplement.csv",
    narrow: Path = MODELS_DIR / "narrow_formats.csv",
    corrections: Path = MODELS_DIR / "catalog_corrections.csv",
) -> list[dict]:
    cards: dict[str, dict] = {}
    with open(specs_dir / "gpu_specs_curated.csv", newline="") as fh:
        for row in csv.DictReader(fh):
            vendor, stack = _vendor(row["gpu"])
            src = f"gpu_specs_curated.csv ({row['sources']})"
            bf16 = _num(row["bf16_dense_tflops"])
            tflops_src = src
            if bf16 is None and _num(row["fp16_dense_tflops"]) is not None:
                bf16 = _num(row["fp16_dense_tflops"])  # same tensor-core rate on these cards
                tflops_src = src + "; fp16 dense figure (no bf16 given)"
            cards[row["gpu"]] = {
                "id": row["gpu"],
                "vendor": vendor,
                "stack": stack,
                "memory_gb": _num(row["mem_gb"]),
                "bf16_tflops": bf16,
                "mem_bw_gbs": _num(row["mem_bw_gbs"]),
                "scaleup_gbs": _num(row["interconnect_p2p_gbs"]),
                "power_w": _num(row["tdp_w"]),
                "sources": {k: src for k in ("memory_gb", "mem_bw_gbs", "scaleup_gbs", "power_w")} | {"bf16_tflops": tflops_src},
            }
    with open(supplement, newline="") as fh:
        for row in csv.DictReader(fh):
            card = cards.setdefault(row["gpu"], {"id": row["gpu"], "vendor": row["vendor"], "stack": row["stack"], "sources": {}})
            for field, col in (
                ("bf16_tflops", "bf16_dense_tflops"),
                ("memory_gb", "mem_gb"),
                ("mem_bw_gbs", "mem_bw_gbs"),
                ("scaleup_gbs", "interconnect_p2p_gbs"),
                ("power_w", "tdp_w"),
                ("fp32_tflops", "fp32_tflops"),
            ):
                v = _num(row.get(col) or "")
                if v is not None and card.get(field) is None:
                    card[field] = v
                    card["sources"][field] = f"catalog_supplement.csv ({row['sources']})"
    with open(narrow, newline="") as fh:
        for row in csv.DictReader(fh):
            card = cards.get(row["gpu"])
            if card is None:
                raise ValueError(f"{narrow.name}: {row['gpu']!r} is not a catalog card")
            for field in ("fp8_tflops", "fp4_tflops"):
                v = _num(row.get(field) or "")
                if v is not None:
                    card[field] = v
                    kind = row["fp8_kind"] if field == "fp8_tflops" else "fp4"
                    card["sources"][field] = f"narrow_formats.csv ({kind}; {row['sources']})"
    with open(corrections, newline="") as fh:
        for row in csv.DictReader(fh):
            card = cards.get(row["gpu"])
            if card is None or row["field"] not in card:
                raise ValueError(f"{corrections.name}: {row['gpu']!r} has no {row['field']!r} to correct")
            card[row["field"]] = float(row["value"])
            card["sources"][row["field"]] = f"catalog_corrections.csv ({row['reason']})"
    for card in cards.values():
        card["complete"] = all(card.get(k) is not None for k in ("bf16_tflops", "memory_gb", "mem_bw_gbs"))
    return sorted(cards.values(), key=lambda c: c["id"])


def write_catalog(path: Path = CATALOG_PATH) -> list[dict]:
    cards = build_catalog()
    path.write_text(json.dumps({"aliases": ALIASES, "cards": cards}, indent=1) + "\n")
    return cards


def load_catalog(path: Path = CATALOG_PATH) -> dict[str, dict]:
    """id -> catalog entry, aliases included."""
    data = json.loads(path.read_text())
    cards = {c["id"]: c for c in data["cards"]}
    for alias, target in data.get("aliases", {}).items():
        cards.setdefault(alias, cards[target])
    return cards


def card_type(name: str, id: str | None = None) -> CardType:
    """An instance CardType from a complete catalog entry (``id`` renames it)."""
    entry = load_catalog()[name]
    if not entry["complete"]:
        raise KeyError(f"catalog entry {name} lacks figures: {entry}")
    return CardType(
        id=id or name,
        vendor=entry["vendor"],
        stack=entry["stack"],
        memory_gb=entry["memory_gb"],
        bf16_tflops=entry["bf16_tflops"],
        mem_bw_gbs=entry["mem_bw_gbs"],
        scaleup_gbs=entry.get("scaleup_gbs"),
        power_w=entry.get("power_w"),
    )
