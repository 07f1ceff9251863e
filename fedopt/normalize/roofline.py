"""Roofline rate of a job profile on a card, relative to the reference card (spec section 3).

The time of one unit of work on a card is ``max(compute, memory traffic) + communication``;
the rate is the ideal compute time on the reference card divided by that time, so a
compute-bound job on the reference card runs at exactly 1.0 per card-hour. Compute runs at the
card's dense matrix peak in the profile's ``precision`` (BF16 by default; an FP8/INT8 or FP4 job
gets the card's 8-bit or 4-bit peak where it has one, the next wider one where it has not; an FP32
job its TF32 peak, or its FP32 vector peak on a card whose matrix units take no FP32: V100, T4).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

# Scale-up bandwidth assumed when a card gives none: PCIe Gen4 x16, one direction, GB/s.
DEFAULT_SCALEUP_GBS = 32.0


@dataclass(frozen=True)
class CardSpec:
    id: str
    bf16_tflops: float
    mem_bw_gbs: float
    memory_gb: float
    scaleup_gbs: float | None = None
    efficiency: float = 1.0  # achievable share of peak compute, calibrated per card
    fp8_tflops: float | None = None  # dense 8-bit matrix peak (FP8, or INT8 where there is no FP8)
    fp4_tflops: float | None = None  # dense FP4 matrix peak
    tf32_tflops: float | None = None  # dense peak of FP32 work: TF32 where the matrix units take it, else FP32

    def matrix_tflops(self, precision: str = "bf16") -> float:
        """Dense matrix peak at ``precision``; a card without that format runs the next wider one.
        ``fp32``: TF32 (half the BF16 peak when the card's figure is unknown)."""
        if precision == "fp32":
            return self.tf32_tflops or self.bf16_tflops / 2
        peak = self.bf16_tflops
        if precision in ("fp8", "int8", "fp4"):
            peak = max(peak, self.fp8_tflops or 0.0)
        if precision == "fp4":
            peak = max(peak, self.fp4_tflops or 0.0)
        return peak


def card_specs(card_types: Sequence, narrow: bool = False, cards: Sequence | None = None) -> list[CardSpec]:
    """``CardSpec`` of each instance card type. ``narrow``: with the 8-bit and 4-bit peaks of its
    catalog twin (same family, BF16 within 10%; scaled by their BF16 ratio): the instance form
    carries the BF16 peak only. Off by default: it reads the catalog. ``cards``: the types already
    resolved (``cards.from_card_type``), whose peaks are taken as they are."""
    specs = [CardSpec(c.id, c.bf16_tflops, c.mem_bw_gbs, c.memory_gb, c.scaleup_gbs) for c in card_types]
    if cards is None and not narrow:
        return specs
    if cards is None:
        from fedopt.normalize.cards import CardResolver, from_card_type

        res = CardResolver()
        cards = [from_card_type(ct, res) for ct in card_types]
    return [
        dataclasses.replace(s, fp8_tflops=c.fp8_tflops, fp4_tflops=c.fp4_tflops, tf32_tflops=c.tf32)
        for s, c in zip(specs, cards, strict=True)
    ]


def unit_time_s(tflop: float, gb_moved: float, comm_gb: float, card: CardSpec, precision: str = "bf16") -> float:
    """Seconds for one unit of work on one card."""
    compute = tflop / (card.matrix_tflops(precision) * card.efficiency)
    memory = gb_moved / card.mem_bw_gbs
    comm = comm_gb / (card.scaleup_gbs or DEFAULT_SCALEUP_GBS)
    return max(compute, memory) + comm


def profile_rate(
    tflop_per_unit: float,
    gb_per_unit: float,
    comm_gb_per_unit: float,
    memory_gb: float,
    card: CardSpec,
    reference: CardSpec,
    precision: str = "bf16",
) -> float:
    """Rate on ``card`` in reference-card units; 0 when the job does not fit in its memory."""
    if memory_gb > card.memory_gb:
        return 0.0
    ideal_ref = tflop_per_unit / reference.matrix_tflops(precision)
    return ideal_ref / unit_time_s(tflop_per_unit, gb_per_unit, comm_gb_per_unit, card, precision)


# ---------------------------------------------------------------------- calibrated efficiencies (opt-in)
def calibrated(card: CardSpec, reference: CardSpec | None = None, params: dict | None = None) -> CardSpec:
    """``card`` with the efficiency calibrated on measurements (``models/normalize_params.json``),
    relative to ``reference`` (which then has 1.0, so a compute-bound job on it stays 1.0).

    The card is matched to the catalog by its id (``"H100"``, ``"NVIDIA H100-SXM5-80GB"`` ...)
    when their BF16 peaks agree (``cards.catalog_twin``'s rule); a card measured in the calibration
    takes its own efficiency, another its architecture's (an H20 takes Hopper's), vendor's, or the
    common one (also a card with no twin). Without the file every efficiency is 1.
    """
    from fedopt.normalize.calibrate import efficiency, load_params
    from fedopt.normalize.cards import CardResolver, same_bf16_peak

    params = load_params() if params is None else params
    res = CardResolver()

    def eff(spec: CardSpec) -> float:
        hit = res.resolve(spec.id)
        if hit is not None and not same_bf16_peak(hit.bf16_tflops, spec.bf16_tflops):
            return float(params["common"]["efficiency"]) if params else 1.0  # another card under a catalog name
        return efficiency(hit.id if hit is not None else spec.id, params)

    rel = eff(card) / (eff(reference) if reference is not None else 1.0)
    return dataclasses.replace(card, efficiency=rel)


def calibrated_specs(specs: list[CardSpec], reference: CardSpec, params: dict | None = None) -> tuple[list[CardSpec], CardSpec]:
    """Every card type of a table and the reference with calibrated efficiencies relative to the
    reference's (``calibrated``), the calibration read once: what a table of profile rates runs on
    (``table.rate_table``, ``generate --calibrated-rates``)."""
    from fedopt.normalize.calibrate import load_params

    params = load_params() if params is None else params
    return [calibrated(s, reference, params) for s in specs], calibrated(reference, reference, params)


def profile_rate_calibrated(
    tflop_per_unit: float,
    gb_per_unit: float,
    comm_gb_per_unit: float,
    memory_gb: float,
    card: CardSpec,
    reference: CardSpec,
    params: dict | None = None,
    precision: str = "bf16",
) -> float:
    """``profile_rate`` with calibrated per-card efficiencies (the reference card's is 1)."""
    ref = calibrated(reference, reference, params)
    card = calibrated(card, reference, params)
    return profile_rate(tflop_per_unit, gb_per_unit, comm_gb_per_unit, memory_gb, card, ref, precision)
