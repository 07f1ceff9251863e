"""Roofline rate of a job profile on a card, relative to the reference card (spec section 3).

The time of one unit of work on a card is ``max(compute, memory traffic) + communication``;
the rate is the ideal compute time on the reference card divided by that time, so a
compute-bound job on the reference card runs at exactly 1.0 per card-hour.
"""

from __future__ import annotations

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


def unit_time_s(tflop: float, gb_moved: float, comm_gb: float, card: CardSpec) -> float:
    """Seconds for one unit of work on one card."""
    compute = tflop / (card.bf16_tflops * card.efficiency)
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
) -> float:
    """Rate on ``card`` in reference-card units; 0 when the job does not fit in its memory."""
    if memory_gb > card.memory_gb:
        return 0.0
    ideal_ref = tflop_per_unit / reference.bf16_tflops
    return ideal_ref / unit_time_s(tflop_per_unit, gb_per_unit, comm_gb_per_unit, card)
