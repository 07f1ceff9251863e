"""Realistic instances from the public traces in ``shared/data`` (``fedopt generate``).

- Fleet: the card mix and node sizes of Alibaba's 2026 GPU fleet trace (A10 single-card nodes,
  A100/A800/H800 eight-card nodes; its two undisclosed series stand in for H20 and Ascend 910B),
  scaled to the preset's card count, spread over regions and clusters.
- Jobs: sizes sampled from the Philly trace as a snapshot (a job is present in proportion to its
  duration: most take 1-8 cards), plus a tail of large LLM gangs (64-1024 cards); tenants are
  Philly's virtual clusters, with quotas from their share of GPU time; work from durations.
- Workloads: a few classes (LLM pre-training, fine-tuning, inference; vision; recommendation)
  whose roofline profiles give each job's rate on every card type (spec section 3).
- About half the fleet is already running jobs (some pinned), some jobs are elastic, large
  gangs may split over clusters, and most jobs read a dataset that lives in one or two regions.

The same preset and seed give the same file, byte for byte.
"""

from __future__ import annotations

import csv
import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from fedopt.errors import InputError
from fedopt.normalize.catalog import card_type
from fedopt.normalize.roofline import CardSpec, profile_rate

SHARED_DATA = Path(os.environ.get("FEDOPT_SHARED_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))


@dataclass(frozen=True)
class Preset:
    cards: int
    regions: int
    clusters_per_region: tuple[int, int]
    demand: float = 1.3  # requested cards / fleet cards
    big_gang_share: float = 0.04
    max_gang: int = 512
    horizon: int | None = None  # slots (one hour each) for horizon instances


PRESETS = {
    "s": Preset(128, 2, (1, 2), big_gang_share=0.0, max_gang=32),
    "m": Preset(1024, 3, (1, 3), big_gang_share=0.02, max_gang=128),
    "l": Preset(10240, 6, (1, 3)),
    "xl": Preset(102400, 12, (2, 4), max_gang=1024),
}

REGION_NAMES = [
    "cn-shanghai",
    "cn-beijing",
    "cn-hangzhou",
    "cn-shenzhen",
    "cn-zhangjiakou",
    "cn-wulanchabu",
    "cn-chengdu",
    "cn-guangzhou",
    "cn-qingdao",
    "cn-hongkong",
    "ap-singapore",
    "us-east-1",
    "us-west-1",
    "eu-central-1",
    "ap-tokyo",
    "me-riyadh",
]

# Alibaba cluster-trace-v2026-spot-gpu node_info_df.csv: GPUs by model (nodes x GPUs per node).
# GPU-series-1 / -2 are undisclosed there; here they stand in for H20 and Ascend 910B.
FLEET_MIX = {  # instance id: (catalog name, share of the trace's GPUs, cards per node)
    "A10": ("A10", 2494, 1),
    "A100": ("A100-SXM4-80GB", 3456, 8),
    "A800": ("A800-SXM4-80GB", 176, 8),
    "H800": ("H800-SXM-80GB", 1752, 8),
    "H20": ("H20-96GB", 1558, 8),
    "910B": ("Ascend-910B", 976, 8),
}

# Workload classes: roofline profiles (compute per unit, memory traffic, collective traffic, memory).
# Intensities follow the usual picture: pre-training is compute-bound everywhere, batched LLM
# decoding and recommendation are bound by memory bandwidth, vision sits in between.
WORKLOADS = {
    "llm-pretrain-70b": dict(kind="train", tflop=1.0, gb=1.0, comm=0.4, mem=72, params=70, share=0.18),
    "llm-pretrain-7b": dict(kind="train", tflop=1.0, gb=2.0, comm=0.15, mem=40, params=7, share=0.17),
    "llm-finetune-13b": dict(kind="train", tflop=1.0, gb=4.0, comm=0.1, mem=30, params=13, share=0.15),
    "llm-infer-70b": dict(kind="infer", tflop=1.0, gb=16.0, comm=0.05, mem=70, params=70, share=0.12),
    "llm-infer-7b": dict(kind="infer", tflop=1.0, gb=12.0, comm=0.0, mem=16, params=7, share=0.14),
    "vision-train": dict(kind="train", tflop=1.0, gb=6.0, comm=0.05, mem=12, params=0.1, share=0.14),
    "recsys-train": dict(kind="train", tflop=1.0, gb=25.0, comm=0.2, mem=20, params=1, share=0.10),
}


@lru_cache(maxsize=1)
def _philly() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(num_gpus, duration seconds, virtual cluster) of every Philly job."""
    sizes, durations, vcs = [], [], []
    path = SHARED_DATA / "philly" / "philly.csv"
    if not path.is_file():  # a regular install has the package only, not the public traces
        raise InputError(
            "shared data", f"not found: {path} (the public traces of the source tree; FEDOPT_SHARED_DATA names their directory)"
        )
    with open(path, newline="") as fh:
        for row in csv.DictReader(fh):
            sizes.append(int(row["num_gpus"]))
            durations.append(float(row["duration"]))
            vcs.append(row["cluster"])
    return np.array(sizes), np.array(durations), np.array(vcs)


def _snapshot_jobs(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """n jobs as a snapshot sees them: a job is present in proportion to its duration."""
    sizes, durations, vcs = _philly()
    p = durations / durations.sum()
    idx = rng.choice(len(sizes), size=n, p=p)
    return sizes[idx], durations[idx], vcs[idx]


def _pick_sizes(rng: np.random.Generator, preset: Preset, target_cards: int) -> tuple[list[int], list[float], list[str]]:
    sizes: list[int] = []
    hours: list[float] = []
    vcs: list[str] = []
    total = 0
    gangs = [g for g in (64, 128, 256, 512, 1024) if g <= preset.max_gang]
    while total < target_cards:
        s, d, v = _snapshot_jobs(rng, 64)
        for size, dur, vc in zip(s, d, v, strict=True):
            if gangs and rng.random() < preset.big_gang_share:
                size = int(rng.choice(gangs))
                dur = dur * 4
            sizes.append(int(size))
            hours.append(float(dur) / 3600)
            vcs.append(str(vc))
            total += int(size)
            if total >= target_cards:
                break
    return sizes, hours, vcs


def _graph(rng: np.random.Generator, names: list[str]) -> list[dict]:
    """A sparse connected region graph: a random tree plus a few shortcuts."""
    n = len(names)
    pos = rng.uniform(0, 1, size=(n, 2))
    links = []
    seen = set()

    def add(a: int, b: int) -> None:
        key = (min(a, b), max(a, b))
        if a == b or key in seen:
            return
        seen.add(key)
        dist = float(np.hypot(*(pos[a] - pos[b])))
        links.append(
            {
                "a": names[key[0]],
                "b": names[key[1]],
                "gbps": float(rng.choice([100, 200, 400, 800])),
                "latency_ms": round(2 + 60 * dist, 1),
                "egress_per_gb": float(rng.choice([0.01, 0.02, 0.05, 0.08])),
            }
        )

    for i in range(1, n):
        add(i, int(rng.integers(0, i)))
    for _ in range(max(0, n // 3)):
        add(int(rng.integers(0, n)), int(rng.integers(0, n)))
    return links


def _fleet(rng: np.random.Generator, preset: Preset, regions: list[str]) -> tuple[list[dict], dict[str, int]]:
    clusters: list[dict] = []
    for r in regions:
        for k in range(int(rng.integers(preset.clusters_per_region[0], preset.clusters_per_region[1] + 1))):
            clusters.append({"id": f"{r}-{chr(ord('a') + k)}", "region": r, "pools": []})
    shares = np.array([v[1] for v in FLEET_MIX.values()], dtype=float)
    shares /= shares.sum()
    totals: dict[str, int] = {}
    for (tid, (_, _, per_node)), share in zip(FLEET_MIX.items(), shares, strict=True):
        nodes = max(1, round(preset.cards * share / per_node))
        n_hosts = int(rng.integers(max(1, len(clusters) // 4), max(3, len(clusters) // 2) + 1))
        hosts = rng.choice(len(clusters), size=min(len(clusters), n_hosts), replace=False)
        split = rng.multinomial(nodes, rng.dirichlet(np.ones(len(hosts)) * 2))
        for h, n_nodes in zip(hosts, split, strict=True):
            if n_nodes:
                clusters[h]["pools"].append({"card_type": tid, "cards": int(n_nodes * per_node), "cards_per_node": per_node})
        totals[tid] = nodes * per_node
    clusters = [c for c in clusters if c["pools"]]
    for c in clusters:
        cards = sum(p["cards"] for p in c["pools"])
        c["storage_gbps"] = float(round(cards * rng.uniform(0.6, 1.5)))
    return clusters, totals


def _specs(types: list[dict]) -> list[CardSpec]:
    return [CardSpec(t["id"], t["bf16_tflops"], t["mem_bw_gbs"], t["memory_gb"], t.get("scaleup_gbs")) for t in types]


def pick_workload(rng: np.random.Generator, size: int) -> tuple[str, dict]:
    """A workload by its share of the mix; gangs of 64+ cards are training, never inference."""
    names = list(WORKLOADS)
    p = np.array([WORKLOADS[w]["share"] for w in names])
    wl = names[int(rng.choice(len(names), p=p / p.sum()))]
    if size >= 64 and WORKLOADS[wl]["kind"] == "infer":
        wl = "llm-pretrain-70b"
    return wl, WORKLOADS[wl]


def sample_job_traits(rng: np.random.Generator, job: dict, size: int, datasets: list[str], region_choices) -> None:
    """The job's stack, granularity, elastic range, split, data read and region limit, drawn in a
    fixed order (the generator's and the simulator's jobs come from the same draws).

    ``job`` already has ``kind``; ``region_choices(job)`` lists the regions a region limit may
    name (after the data read is drawn); an empty list draws no limit.
    """
    if rng.random() < 0.7:
        job["stack"] = "cuda"
    if size >= 8 and size % 8 == 0:
        job["granularity"] = 8
    if size >= 4 and rng.random() < 0.12:  # elastic: half to all of the request
        g = job.get("granularity", 1)
        lo = max(g, (size // 2) // g * g)
        step = max(g, ((size - lo) // 2) // g * g) if size > lo else g
        job["cards"] = {"min": lo, "max": lo + (size - lo) // step * step, "step": step}
    if size >= 16 and rng.random() < 0.7:
        fed = rng.random() < 0.4
        job["split"] = {
            "max_parts": int(rng.choice([2, 3, 4])),
            "scope": "federation" if fed else "region",
            "sync_gbps": float(rng.choice([5, 10, 25, 50])) if fed else 0.0,
        }
    if datasets and rng.random() < 0.65:
        read = rng.uniform(0.2, 2.0) if job["kind"] == "infer" else rng.uniform(0.5, 8.0)
        job["data"] = [{"dataset": datasets[int(rng.integers(0, len(datasets)))], "gbps": round(float(read), 2)}]
    if rng.random() < 0.05:
        choices = region_choices(job)
        if len(choices):
            pick = rng.choice(choices, size=min(len(choices), int(rng.integers(1, 3))), replace=False)
            job["regions"] = sorted(str(r) for r in pick)


def _rate_specs(specs: list[CardSpec], ref: int, calibrated: bool) -> tuple[list[CardSpec], CardSpec]:
    """The specs job rates are worked out on, and the reference's: as they are (the plain roofline),
    or with per-card efficiencies calibrated on real measurements (``roofline.calibrated``: the A100's
    measured one, the H800 the H100 SXM's (one chip), the H20 Hopper's, the 910B the common one)."""
    if not calibrated:
        return specs, specs[ref]
    from fedopt.normalize.roofline import calibrated_specs

    return calibrated_specs(specs, specs[ref])


def generate(
    preset: str | Preset = "m", seed: int = 0, name: str | None = None, horizon: int | None = None, calibrated: bool = False
) -> dict:
    """A model-v1 instance document (a dict ready for ``json.dump``). ``calibrated``: job rates with
    the calibrated per-card efficiencies of ``normalize`` (off by default, so that the committed
    examples and the recorded benchmarks stay reproducible)."""
    p = PRESETS[preset] if isinstance(preset, str) else preset
    rng = np.random.default_rng(seed)
    regions = REGION_NAMES[: p.regions] if p.regions <= len(REGION_NAMES) else [f"region-{i}" for i in range(p.regions)]
    types = [card_type(cat, id=tid).model_dump(exclude_none=True) for tid, (cat, _, _) in FLEET_MIX.items()]
    specs = _specs(types)
    ref = int(np.argmax([s.bf16_tflops for s in specs]))
    rate_specs, rate_ref = _rate_specs(specs, ref, calibrated)
    links = _graph(rng, regions)
    clusters, _ = _fleet(rng, p, regions)
    fleet_cards = sum(pl["cards"] for c in clusters for pl in c["pools"])

    datasets = []
    for d in range(max(2, len(regions) * 2)):
        reps = rng.choice(regions, size=int(rng.integers(1, 3)), replace=False)
        datasets.append({"id": f"ds{d}", "size_gb": float(round(10 ** rng.uniform(2, 4.7))), "replicas": sorted(reps.tolist())})

    sizes, hours, vcs = _pick_sizes(rng, p, int(fleet_cards * p.demand))
    vc_cards: dict[str, float] = {}
    for s, v in zip(sizes, vcs, strict=True):
        vc_cards[v] = vc_cards.get(v, 0) + s
    tenants = []
    for i, (vc, cards) in enumerate(sorted(vc_cards.items(), key=lambda kv: -kv[1])):
        t = {"id": f"vc-{vc}"}
        if i % 3 != 2:  # two of three tenants have a quota: ~70-100% of what they ask
            t["quota_cards"] = int(max(8, round(cards * rng.uniform(0.7, 1.0))))
        tenants.append(t)

    jobs = []
    for i, (size, hrs, vc) in enumerate(zip(sizes, hours, vcs, strict=True)):
        _, w = pick_workload(rng, int(size))
        rates = {}
        for t, spec in zip(types, rate_specs, strict=True):
            r = profile_rate(w["tflop"], w["gb"], w["comm"] * (size > 1), w["mem"], spec, rate_ref)
            if r > 0:
                rates[t["id"]] = round(r, 4)
        job: dict = {
            "id": f"job-{i:05d}",
            "tenant": f"vc-{vc}",
            "priority": float(rng.choice([1, 1, 1, 2, 2, 4])),
            "kind": w["kind"],
            "cards": int(size),
            "memory_gb": float(w["mem"]),
            "throughput": rates,
            "profile": {
                "params_b": w["params"],
                "tflop_per_unit": w["tflop"],
                "gb_per_unit": w["gb"],
                "comm_gb_per_unit": w["comm"],
                "memory_gb": float(w["mem"]),
            },
        }
        sample_job_traits(rng, job, int(size), [d["id"] for d in datasets], lambda _job: regions)
        best = max(rates.values(), default=1.0)
        job["work"] = round(max(hrs, 0.25) * size * best, 3)
        jobs.append(job)

    _place_running(rng, jobs, clusters, datasets, fleet_cards, {t["id"]: t for t in types})
    _affinities(rng, jobs)
    pinned: dict[str, int] = {}
    for job in jobs:
        if "running" in job and not job.get("preemptible", True):
            pinned[job["tenant"]] = pinned.get(job["tenant"], 0) + job["running"]["parts"][0]["count"]
    for t in tenants:  # a quota below what pinned jobs hold would make the instance infeasible
        if "quota_cards" in t:
            t["quota_cards"] = max(t["quota_cards"], pinned.get(t["id"], 0))
    doc = {
        "version": 1,
        "name": name or f"gen-{preset if isinstance(preset, str) else 'custom'}-{seed}" + ("-calibrated" if calibrated else ""),
        "card_types": types,
        "regions": [{"id": r} for r in regions],
        "links": links,
        "clusters": clusters,
        "datasets": datasets,
        "tenants": tenants,
        "jobs": jobs,
        "settings": {
            "span_efficiency": {"cluster": 1.0, "region": 0.9, "federation": 0.7},
            "weights": {"throughput": 1, "completion": 1, "egress": 0.01, "migration": 1, "preemption": 1},
            "migration_hours": 0.5,
        },
    }
    slots = horizon or p.horizon
    if slots:
        doc["settings"]["horizon"] = {"slots": int(slots), "slot_hours": 1.0}
    return doc


def _place_running(rng, jobs: list[dict], clusters: list[dict], datasets: list[dict], fleet_cards: int, types: dict) -> None:
    """Put about half the fleet's cards under running jobs, at valid one-pool placements
    in regions holding their data; one running job in ten is not preemptible."""
    free = {(c["id"], pl["card_type"]): pl["cards"] for c in clusters for pl in c["pools"]}
    region_of = {c["id"]: c["region"] for c in clusters}
    replicas = {d["id"]: set(d["replicas"]) for d in datasets}
    storage = {c["id"]: c["storage_gbps"] * 0.8 for c in clusters}
    target = fleet_cards * 0.5
    held = 0
    for i in rng.permutation(len(jobs)):
        job = jobs[i]
        if held >= target:
            break
        n = job["cards"] if isinstance(job["cards"], int) else job["cards"]["max"]
        g = job.get("granularity", 1)
        options = []
        for (cid, t), f in free.items():
            if t not in job["throughput"] or f < n or n % g:
                continue
            if job.get("stack", types[t]["stack"]) != types[t]["stack"] or types[t]["memory_gb"] < job["memory_gb"]:
                continue
            if job.get("regions") and region_of[cid] not in job["regions"]:
                continue
            reads = job.get("data", [])
            if any(region_of[cid] not in replicas[d["dataset"]] for d in reads):
                continue
            if sum(d["gbps"] for d in reads) > storage[cid]:
                continue
            options.append((cid, t))
        if not options:
            continue
        cid, t = options[int(rng.integers(0, len(options)))]
        free[(cid, t)] -= n
        storage[cid] -= sum(d["gbps"] for d in job.get("data", []))
        held += n
        job["running"] = {"parts": [{"cluster": cid, "card_type": t, "count": int(n)}]}
        if isinstance(job["cards"], dict):
            job["cards"] = {**job["cards"], "max": int(n)} if job["cards"]["min"] <= n else int(n)
        if rng.random() < 0.1 and "split" not in job:
            job["preemptible"] = False
        job["work"] = round(job["work"] * float(rng.uniform(0.2, 0.9)), 3)  # partly done


def _affinities(rng, jobs: list[dict]) -> None:
    """A few pairs that must share a region (a pipeline) or avoid a cluster (replicas)."""
    n = len(jobs)
    for _ in range(max(1, n // 50)):
        a, b = rng.choice(n, size=2, replace=False)
        kind = "same_region" if rng.random() < 0.5 else "different_cluster"
        jobs[a].setdefault("affinity", {}).setdefault(kind, []).append(jobs[b]["id"])
