"""The fleet a simulation runs on, and trace jobs mapped onto it as ``fedopt generate`` does.

The fleet is a generator preset (its card types, regions, links, clusters and datasets, made by
:func:`fedopt.generate.generate` with the same seed) or a model-v1 instance file (whose jobs and
tenants are ignored). A trace job keeps its arrival, card count and duration; it gets a workload
class, rates on every card type, a stack, node granularity, elasticity, splitting, a dataset
and a region allow-list with the generator's probabilities. Its work, in normalized
card-hours, is ``duration x cards x rate on the work card`` (A100 by default: a mid card), so a
faster card finishes it sooner and a slower one later.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from fedopt.errors import InputError
from fedopt.generate import PRESETS, _specs, generate, pick_workload, sample_job_traits
from fedopt.instance import Instance, parse_instance
from fedopt.normalize.roofline import profile_rate

WORK_CARD = "A100"


def fleet_document(fleet: str, seed: int) -> dict:
    """A model-v1 document with the fleet only (no jobs, no tenants, no horizon)."""
    if fleet in PRESETS:
        doc = generate(fleet, seed, name=f"sim-{fleet}-{seed}")
    else:
        path = Path(fleet)
        if not path.exists():
            raise InputError("--fleet", f"neither a preset ({', '.join(PRESETS)}) nor a file: {fleet!r}")
        try:
            doc = json.loads(path.read_text())
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError("--fleet", f"cannot read {fleet}: {exc}") from None
        except json.JSONDecodeError as exc:
            raise InputError("(root)", f"not JSON: {exc.msg} at line {exc.lineno}", source=fleet) from None
        if not isinstance(doc, dict):
            raise InputError("(root)", "not a JSON object", source=fleet)
        parse_instance(doc, source=fleet)  # bad input is named by its JSON path
    out = {k: v for k, v in doc.items() if k not in ("jobs", "tenants")}
    out["jobs"] = []
    out["tenants"] = []
    settings = dict(out.get("settings", {}))
    settings.pop("horizon", None)
    settings.pop("max_moves", None)
    out["settings"] = settings
    if not any(pl.get("cards", 0) for c in out.get("clusters", []) for pl in c.get("pools", [])):
        raise InputError("clusters", "the fleet has no cards", source=None if fleet in PRESETS else fleet)
    return out


@dataclass
class JobSpec:
    """A stream job mapped onto the fleet: its model-v1 document (without running or work) and
    the arrays the simulator uses between re-plans."""

    index: int
    doc: dict
    arrival: float  # hours since the start
    duration: float  # hours, as measured in the trace
    work0: float  # normalized card-hours
    priority: float
    totals: np.ndarray  # allowed totals, ascending
    granularity: int
    max_parts: int
    federation: bool
    rate: np.ndarray  # [T] per card-hour, 0 where ineligible (type or memory or stack)
    region_ok: np.ndarray  # [R]
    read_gbps: float
    best_speed: float  # the fastest any placement could run it: max total x best rate (one pool)

    @property
    def pure_hours(self) -> float:
        """Its run time alone on the best cards: a lower bound on its completion time."""
        return self.work0 / self.best_speed if self.best_speed > 0 else float("inf")


def _work_type(fleet: Instance) -> int:
    if WORK_CARD in fleet.type_index:
        return fleet.type_index[WORK_CARD]
    order = np.argsort(fleet.type_tflops, kind="stable")
    return int(order[len(order) // 2])  # the median card by peak compute


def _data_ok(fleet: Instance, job: dict) -> np.ndarray:
    """Regions that can reach every dataset the job reads."""
    ok = np.ones(len(fleet.region_ids), dtype=bool)
    for read in job.get("data", []):
        ok &= fleet.data_source[fleet.dataset_ids.index(read["dataset"])] >= 0
    return ok


def map_jobs(fleet: Instance, arrival_h, duration_h, cards, rng: np.random.Generator) -> list[JobSpec]:
    """The stream's jobs as model-v1 jobs on this fleet (mirrors :func:`fedopt.generate.generate`).

    No tenants: the traces' virtual clusters carry no quotas here, so every job is tenant-free.
    """
    doc = fleet.doc
    types = [t.model_dump(exclude_none=True) for t in doc.card_types]
    specs = _specs(types)
    ref = fleet.reference_type
    n_t = len(types)
    stacks = np.array([t["stack"] for t in types], dtype=object)
    memory = np.array([t["memory_gb"] for t in types], dtype=float)
    wtype = _work_type(fleet)
    se = doc.settings.span_efficiency
    datasets = fleet.dataset_ids

    def reachable(job: dict) -> list[str]:
        """Regions a region limit may name: those that can read the job's data."""
        return [fleet.region_ids[r] for r in np.flatnonzero(_data_ok(fleet, job))]

    rate_cache: dict[tuple[str, bool], np.ndarray] = {}
    jobs: list[JobSpec] = []
    for i in range(len(arrival_h)):
        size = int(cards[i])
        wl, w = pick_workload(rng, size)
        key = (wl, size > 1)
        if key not in rate_cache:
            rate_cache[key] = np.array(
                [round(profile_rate(w["tflop"], w["gb"], w["comm"] * (size > 1), w["mem"], s, specs[ref]), 4) for s in specs]
            )
        rates = rate_cache[key]
        job: dict = {
            "id": f"j{i:06d}",
            "priority": float(rng.choice([1, 1, 1, 2, 2, 4])),
            "kind": w["kind"],
            "cards": size,
            "memory_gb": float(w["mem"]),
            "throughput": {types[t]["id"]: float(rates[t]) for t in range(n_t) if rates[t] > 0},
        }
        sample_job_traits(rng, job, size, datasets, reachable)
        g = job.get("granularity", 1)
        region_ok = _data_ok(fleet, job)
        if "regions" in job:
            region_ok &= np.isin(np.array(fleet.region_ids, dtype=object), job["regions"])
        ok = rates > 0
        ok &= memory >= w["mem"]
        if "stack" in job:
            ok &= stacks == job["stack"]
        rate = np.where(ok, rates, 0.0)
        cards_doc = job["cards"]
        if isinstance(cards_doc, dict):
            totals = np.arange(cards_doc["min"], cards_doc["max"] + 1, cards_doc["step"], dtype=np.int64)
        else:
            totals = np.array([cards_doc], dtype=np.int64)
        work_rate = rates[wtype] if rates[wtype] > 0 else float(np.median(rates[rates > 0])) if (rates > 0).any() else 1.0
        work = max(float(duration_h[i]), 1.0 / 3600) * size * float(work_rate)
        split = job.get("split", {})
        jobs.append(
            JobSpec(
                index=i,
                doc=job,
                arrival=float(arrival_h[i]),
                duration=float(duration_h[i]),
                work0=work,
                priority=job["priority"],
                totals=totals,
                granularity=g,
                max_parts=int(split.get("max_parts", 1)),
                federation=split.get("scope", "region") == "federation",
                rate=rate,
                region_ok=region_ok,
                read_gbps=float(sum(d["gbps"] for d in job.get("data", []))),
                best_speed=float(se.cluster * totals[-1] * rate.max()) if rate.max() > 0 else 0.0,
            )
        )
    return jobs
