"""NVIDIA Multi-Instance GPU slices in card names: which profile a name gives and what share of its
card the slice has (``cards.CardResolver`` makes a slice's ``Card`` from these)."""

from __future__ import annotations

import re

from fedopt.normalize.card_names import clean_name, family

# NVIDIA Multi-Instance GPU slices, as GPU feature discovery labels them under the mixed strategy
# (``NVIDIA-A100-SXM4-40GB-MIG-1g.5gb``) or people write them (``H100 MIG 3g.40gb``), and compute
# instances sharing one GPU instance (``MIG 2c.7g.40gb``). The MIG User Guide's profile tables:
# a ``g``-slice instance has g/7 of the card's SMs (g/4 on A30 and RTX PRO 6000 Blackwell) and the
# memory its name gives, with that share of the memory slices, hence of the bandwidth and L2; no
# GPU-to-GPU peer traffic (NVLink or PCIe), so collectives go through the host.
MIG_NAME = re.compile(  # "MIG 1g.10gb" or, as MLPerf submitters write it, "(1x1g.10gb MIG)"
    r"\bmig ?(?:(\d) ?c )?(\d) ?g (\d+) ?gb\b|\b(?:(\d+) ?x ?)?(?:(\d) ?c )?(\d) ?g (\d+) ?gb mig\b"
)
COMPUTE_SLICES = {"a30": 4, "rtxpro6000": 4, "rtxpro6000maxq": 4}  # compute slices of a whole card: 7 on every other MIG part
MIG_FAMILIES = frozenset(
    {"a100", "a800", "a30", "h100", "h800", "h20", "h200", "gh200", "b200", "gb200", "b300", "gb300"}
    | {"rtxpro6000", "rtxpro6000maxq"}
)
MEMORY_SLICES = {1: 1, 2: 2, 3: 4, 4: 4, 7: 8}  # of 8 memory slices on 7-slice parts (A100, H100, B200 ...)


SLICE_ID_MARK = "-MIG-"  # a slice's card id: its card's id, this, its profile ("A100-SXM4-40GB-MIG-1g.5gb")


def mig_parent_id(card_id: str) -> str | None:
    """The card id a MIG slice's card id (``CardResolver`` made it) is cut from; None for a whole card."""
    parent, sep, _ = card_id.partition(SLICE_ID_MARK)
    return parent if sep else None


def mig_share(card_id: str) -> float:
    """The share of its card's SMs a MIG slice's card id (``CardResolver`` made it) has; 1 for a whole card."""
    parent, sep, profile = card_id.partition(SLICE_ID_MARK)
    if not sep or (mig := mig_profile(f"MIG {profile}")) is None:
        return 1.0
    return sm_share(parent, mig[0])


def sm_share(card_name: str, compute_slices: int) -> float:
    """The share of a card's SMs that many compute slices are (of 7; of 4 on A30 and RTX PRO 6000)."""
    return compute_slices / COMPUTE_SLICES.get(family(card_name) or "", 7)


def mig_instances(name: str) -> int | None:
    """How many MIG instances a name says a run used, if it says (``"(1x1g.10gb MIG)"`` -> 1)."""
    m = MIG_NAME.search(clean_name(name))
    return int(m.group(4)) if m is not None and m.group(4) else None


def mig_profile(name: str) -> tuple[int, int, float] | None:
    """(compute slices, GPU-instance slices, memory GB) of a MIG slice's name, else None:
    ``"A100-SXM4-40GB-MIG-1g.5gb"`` -> (1, 1, 5.0), ``"MIG 2c.7g.40gb"`` -> (2, 7, 40.0)."""
    m = MIG_NAME.search(clean_name(name))
    if m is None:
        return None
    c_, g_, gb = m.group(1, 2, 3) if m.group(2) else m.group(5, 6, 7)
    g = int(g_)
    c = int(c_) if c_ else g
    return min(c, g), g, float(gb)
