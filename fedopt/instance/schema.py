"""The model-v1 instance format as pydantic models: parsing, typing and the JSON Schema.

Only the shape and per-field ranges live here; cross references (unknown ids, duplicates,
routes) are checked in :mod:`fedopt.instance.validate`, where the JSON path is known.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

# Counts are bounded so that arrays stay int64 and a typo like 10**30 is an input error.
MAX_COUNT = 10**9
NonNegInt = Annotated[int, Field(ge=0, le=MAX_COUNT)]
PosInt = Annotated[int, Field(ge=1, le=MAX_COUNT)]
# Magnitudes are bounded too: far beyond any real fleet, near enough that sums stay exact in floats.
MAX_VALUE = 1e9
NonNegFloat = Annotated[float, Field(ge=0, le=MAX_VALUE)]
PosFloat = Annotated[float, Field(gt=0, le=MAX_VALUE)]
Weight = Annotated[float, Field(ge=0, le=1e6)]
Priority = Annotated[float, Field(gt=0, le=1e6)]


class _Model(BaseModel):
    # strict: "8" or 8.5 is not a card count; ints are accepted where floats are expected.
    # Unknown fields are ignored so that extensions of v1 still load.
    model_config = ConfigDict(strict=True, extra="ignore", frozen=True, allow_inf_nan=False)


class CardType(_Model):
    id: str = Field(min_length=1)
    vendor: str = ""
    stack: str = Field(description="software stack a job must match: cuda, cann (Ascend), rocm")
    memory_gb: NonNegFloat
    bf16_tflops: PosFloat = Field(description="dense BF16 peak TFLOPS")
    mem_bw_gbs: PosFloat = Field(description="memory bandwidth, GB/s")
    scaleup_gbs: NonNegFloat | None = Field(None, description="intra-node interconnect, GB/s")
    power_w: NonNegFloat | None = None
    price_per_hour: NonNegFloat | None = None


class Region(_Model):
    id: str = Field(min_length=1)


class Link(_Model):
    a: str
    b: str
    gbps: NonNegFloat
    latency_ms: NonNegFloat = 0.0
    egress_per_gb: NonNegFloat = 0.0


class Pool(_Model):
    card_type: str
    cards: NonNegInt = Field(description="every healthy card, including those running jobs hold")
    cards_per_node: PosInt | None = None


class Cluster(_Model):
    id: str = Field(min_length=1)
    region: str
    storage_gbps: NonNegFloat | None = Field(None, description="absent = unlimited")
    pools: list[Pool] = Field(default_factory=list)


class Dataset(_Model):
    id: str = Field(min_length=1)
    size_gb: NonNegFloat = 0.0
    replicas: list[str] = Field(min_length=1)


class Tenant(_Model):
    id: str = Field(min_length=1)
    quota_cards: NonNegInt | None = Field(None, description="absent = unlimited")


class ElasticCards(_Model):
    min: PosInt
    max: PosInt
    step: PosInt = 1


class Split(_Model):
    max_parts: Annotated[int, Field(ge=1, le=64)] = 1
    scope: Literal["region", "federation"] = "region"
    sync_gbps: NonNegFloat = 0.0


class DataRead(_Model):
    dataset: str
    gbps: NonNegFloat


class Affinity(_Model):
    same_region: list[str] = Field(default_factory=list)
    different_cluster: list[str] = Field(default_factory=list)


class Part(_Model):
    cluster: str
    card_type: str
    count: PosInt


class Running(_Model):
    parts: list[Part] = Field(min_length=1)


class Profile(_Model):
    """Workload description the normalization model predicts rates from (README: Profiles)."""

    params_b: NonNegFloat = Field(0.0, description="model parameters, billions")
    tflop_per_unit: PosFloat = Field(description="compute per unit of work, TFLOP")
    gb_per_unit: NonNegFloat = Field(0.0, description="memory traffic per unit of work, GB")
    memory_gb: NonNegFloat = Field(0.0, description="memory footprint per card, GB")
    comm_gb_per_unit: NonNegFloat = Field(0.0, description="collective traffic per card per unit of work, GB (scale-up network)")
    precision: Literal["fp32", "bf16", "fp8", "int8", "fp4"] = Field(
        "bf16",
        description="number format of its matrix math: the card's dense peak in it counts (without it: the next wider "
        "one; fp32: TF32, or the FP32 vector peak on a card without TF32)",
    )


class Job(_Model):
    id: str = Field(min_length=1)
    tenant: str | None = None
    priority: Priority = 1.0
    kind: Literal["train", "infer"] = "train"
    cards: PosInt | ElasticCards
    granularity: PosInt = 1
    memory_gb: NonNegFloat | None = None
    stack: str | None = None
    card_types: list[str] | None = None
    regions: list[str] | None = None
    throughput: dict[str, Annotated[float, Field(ge=0, le=1e6)]] = Field(default_factory=dict)
    profile: Profile | None = None
    split: Split = Field(default_factory=Split)
    data: list[DataRead] = Field(default_factory=list)
    affinity: Affinity | None = None
    running: Running | None = None
    preemptible: bool = True
    work: NonNegFloat | None = Field(None, description="normalized card-hours left (horizon)")
    release_slot: NonNegInt = 0
    deadline_slot: NonNegInt | None = None


class SpanEfficiency(_Model):
    cluster: PosFloat = 1.0
    region: PosFloat = 0.9
    federation: PosFloat = 0.7


class Weights(_Model):
    throughput: Weight = 1.0
    completion: Weight = 1.0
    egress: Weight = 1.0
    migration: Weight = 1.0
    preemption: Weight = 1.0


class Horizon(_Model):
    slots: Annotated[int, Field(ge=1, le=10_000)]
    slot_hours: PosFloat = 1.0


class Settings(_Model):
    span_efficiency: SpanEfficiency = Field(default_factory=SpanEfficiency)
    weights: Weights = Field(default_factory=Weights)
    migration_hours: NonNegFloat = 0.5
    reference_card: str | None = None
    horizon: Horizon | None = None
    max_moves: NonNegInt | None = Field(
        None, description="extension: at most this many running jobs may be migrated or preempted (re-planning)"
    )


class InstanceDoc(_Model):
    """A model-v1 instance, as written in ``instance.json``."""

    version: Literal[1]
    name: str = "instance"
    card_types: list[CardType] = Field(min_length=1)
    regions: list[Region] = Field(min_length=1)
    links: list[Link] = Field(default_factory=list)
    clusters: list[Cluster] = Field(default_factory=list)
    datasets: list[Dataset] = Field(default_factory=list)
    tenants: list[Tenant] = Field(default_factory=list)
    jobs: list[Job] = Field(default_factory=list)
    settings: Settings = Field(default_factory=Settings)


class Assignment(_Model):
    job: str
    parts: list[Part] = Field(min_length=1)
    start_slot: NonNegInt | None = None


class PlanDoc(BaseModel):
    """A model-v1 plan (``plan.json``); solver and stats are free-form."""

    model_config = ConfigDict(extra="ignore", frozen=True, allow_inf_nan=False)

    version: Literal[1] = 1
    instance: str = ""
    status: Literal["optimal", "feasible", "infeasible", "timeout"] = "feasible"
    objective: float | None = None
    bound: float | None = None
    gap: float | None = None
    assignments: list[Assignment] = Field(description="every placed job; an absent job is not placed")
    solver: dict = Field(default_factory=dict)
    stats: dict = Field(default_factory=dict)
