"""The ``--cards cards.json`` file: its JSON Schema and its loader, both from one list of fields."""

from __future__ import annotations

import json
import math
from pathlib import Path

from fedopt.errors import InputError
from fedopt.normalize.cards import Card, CardResolver, with_catalog_figures

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
