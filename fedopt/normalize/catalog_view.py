"""The card catalog as people read it: every card with its figures, and what a name resolves to.

Operators check a measurement file's card names before trusting a prediction ("is my
``NVIDIA-H100-80GB-HBM3`` the SXM part? where does its bandwidth come from?"); these frames are
what ``normalize --catalog`` and ``normalize --resolve NAME`` print, and what notebooks get.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable

import pandas as pd

from fedopt.normalize.cards import Card, CardResolver, arch_vendor, missing_variant, same_silicon
from fedopt.normalize.catalog import load_catalog
from fedopt.normalize.mig import mig_parent_id

FIGURES = (
    "bf16_tflops",
    "fp8_tflops",
    "fp4_tflops",
    "fp32_tflops",
    "memory_gb",
    "mem_bw_gbs",
    "scaleup_gbs",
    "power_w",
)


def _row(card: Card, origin: str) -> dict:
    arch, vendor = arch_vendor(card, card.id)
    return {"card": card.id, "vendor": vendor, "architecture": arch, **{f: getattr(card, f) for f in FIGURES}, "from": origin}


def catalog_frame(resolver: CardResolver | None = None) -> pd.DataFrame:
    """One row per card the resolver knows (the catalog's, then a ``--cards`` file's, marked so),
    with its dense peaks (TFLOPS; 8-bit: FP8, or INT8 where a card has no FP8), memory (GB),
    bandwidths (GB/s) and board power (W); empty where the sources give no figure."""
    res = resolver or CardResolver()
    rows = [_row(c, "catalog") for c in res.catalog.values()]
    rows += [_row(c, "--cards") for c in res.extra.values()]
    return pd.DataFrame(rows).set_index("card").sort_index(kind="stable")


@functools.cache
def _catalog_sources() -> dict[str, dict[str, str]]:
    """Card id -> its figures' sources, read once (``--catalog --json`` asks for every card's)."""
    return {cid: dict(entry.get("sources", {})) for cid, entry in load_catalog().items()}


def card_sources(card: Card | None, resolver: CardResolver | None = None) -> dict[str, str]:
    """Where each figure of a card comes from: the catalog's sources, ``--cards`` for a user's card;
    a MIG slice names its parent card's."""
    if card is None:
        return {}
    if resolver is not None and card.id in resolver.extra:
        return {f: "--cards file" for f in FIGURES if getattr(card, f) is not None}
    return dict(_catalog_sources().get(mig_parent_id(card.id) or card.id, {}))


def resolution_frame(names: Iterable[str], resolver: CardResolver | None = None) -> pd.DataFrame:
    """What each name resolves to: the card (empty: no specs, predicted as a typical card), how the
    name matched, the card's architecture, variant words (Ti, SUPER, XT) the card lacks, and the other
    known cards of its chip (``cards.same_silicon``: a fit reads the card as one of them when it has
    that one's rows and none of its own)."""
    res = resolver or CardResolver()
    known = {**res.catalog, **res.extra}
    rows = []
    for name in names:
        card, how = res.match(str(name))
        arch = arch_vendor(card, card.id)[0] if card is not None else ""
        lacks = " ".join(missing_variant(str(name), card))
        chip = " ".join(k for k, c in known.items() if card is not None and same_silicon(card, c))
        rows.append(
            {
                "name": str(name),
                "card": card.id if card else "",
                "how": how,
                "architecture": arch,
                "lacks": lacks,
                "same_chip": chip,
            }
        )
    return pd.DataFrame(rows, columns=["name", "card", "how", "architecture", "lacks", "same_chip"])
