"""Plans and solve results: spec section 5 JSON, pandas frames and a readable summary."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from fedopt.instance.model import Instance
from fedopt.instance.schema import Assignment, Part, PlanDoc

Parts = list[tuple[int, int, int]]  # (cluster, card type, count) indices


def gap_of(objective: float | None, bound: float | None) -> float | None:
    if objective is None or bound is None:
        return None
    return abs(bound - objective) / max(1.0, abs(objective))


@dataclass
class Result:
    """A plan with its figures: what ``fedopt.solve`` returns."""

    inst: Instance
    placements: dict[int, Parts]  # job index -> parts
    status: str
    objective: float | None
    bound: float | None
    start_slots: dict[int, int] = field(default_factory=dict)
    solver: dict[str, Any] = field(default_factory=dict)
    stats: dict[str, Any] = field(default_factory=dict)

    @property
    def gap(self) -> float | None:
        return gap_of(self.objective, self.bound)

    # ------------------------------------------------------------------ formats
    def to_doc(self) -> PlanDoc:
        inst = self.inst
        assignments = []
        for j in sorted(self.placements):
            parts = [Part(cluster=inst.cluster_ids[c], card_type=inst.card_ids[t], count=n) for c, t, n in self.placements[j]]
            assignments.append(Assignment(job=inst.job_ids[j], parts=parts, start_slot=self.start_slots.get(j)))
        return PlanDoc(
            version=1,
            instance=inst.name,
            status=self.status,
            objective=_round(self.objective),
            bound=_round(self.bound),
            gap=_round(self.gap),
            assignments=assignments,
            solver=self.solver,
            stats=self.stats,
        )

    def to_dict(self) -> dict:
        doc = self.to_doc().model_dump(mode="json")
        for a in doc["assignments"]:
            if a.get("start_slot") is None:
                a.pop("start_slot", None)
        return doc

    def to_json(self, indent: int | None = 1, reproducible: bool = False) -> str:
        """The plan file; ``reproducible`` leaves out wall-clock figures so equal plans are equal bytes."""
        doc = self.to_dict()
        if reproducible:
            doc["stats"] = {
                k: v for k, v in doc["stats"].items() if k not in ("seconds", "history") and not k.startswith("seconds")
            }
        return json.dumps(doc, indent=indent, allow_nan=False, default=_json_default)

    def to_frame(self):
        """One row per part: job, cluster, region, card type, count, and the job's status."""
        import pandas as pd

        inst = self.inst
        rows = []
        for j in range(inst.n_jobs):
            running = inst.running[j] is not None
            if j in self.placements:
                moved = running and sorted(self.placements[j]) != sorted(inst.running[j])
                status = "migrated" if moved else ("kept" if running else "started")
                for c, t, n in self.placements[j]:
                    rows.append(
                        {
                            "job": inst.job_ids[j],
                            "status": status,
                            "cluster": inst.cluster_ids[c],
                            "region": inst.region_ids[inst.cluster_region[c]],
                            "card_type": inst.card_ids[t],
                            "count": n,
                            "start_slot": self.start_slots.get(j),
                            "priority": inst.job_priority[j],
                            "rate": inst.rate[j, t],
                        }
                    )
            else:
                rows.append(
                    {
                        "job": inst.job_ids[j],
                        "status": "preempted" if running else "pending",
                        "cluster": None,
                        "region": None,
                        "card_type": None,
                        "count": 0,
                        "start_slot": None,
                        "priority": inst.job_priority[j],
                        "rate": None,
                    }
                )
        return pd.DataFrame(rows)

    def counts(self) -> dict[str, int]:
        frame = self.to_frame().drop_duplicates("job")
        return {k: int(v) for k, v in frame["status"].value_counts().items()}

    def cards_by_type(self) -> dict[str, tuple[int, int]]:
        """card type -> (cards used now, cards in the fleet); in a horizon plan, by jobs starting at slot 0."""
        inst = self.inst
        out = {t: [0, 0] for t in inst.card_ids}
        for t, n in zip(inst.pool_type, inst.pool_cards, strict=True):
            out[inst.card_ids[t]][1] += int(n)
        for j, parts in self.placements.items():
            if self.start_slots.get(j, 0) != 0:
                continue
            for _, t, n in parts:
                out[inst.card_ids[t]][0] += n
        return {k: (v[0], v[1]) for k, v in out.items() if v[1]}

    def summary(self) -> str:
        """A short table for people: jobs by status, cards by type, objective, bound, gap, time."""
        lines = [f"instance {self.inst.name}: {self.status}"]
        counts = self.counts()
        kinds = ("started", "kept", "migrated", "preempted", "pending")
        lines.append("jobs    " + "  ".join(f"{k} {counts.get(k, 0)}" for k in kinds))
        lines.append(f"{'card type':<12}{'used':>8}{'fleet':>8}{'share':>8}")
        for t, (used, total) in self.cards_by_type().items():
            lines.append(f"{t:<12}{used:>8}{total:>8}{used / total:>8.0%}")
        obj = "-" if self.objective is None else f"{self.objective:.6g}"
        bound = "-" if self.bound is None else f"{self.bound:.6g}"
        gap = "-" if self.gap is None else f"{self.gap:.4%}"
        lines.append(f"objective {obj}   bound {bound}   gap {gap}")
        t = self.stats.get("seconds", {})
        if t:
            lines.append("time    " + "  ".join(f"{k} {v:.2f}s" for k, v in t.items()))
        never = self.stats.get("unplaceable") or {}
        if never:
            shown = ", ".join(list(never)[:8]) + (" ..." if len(never) > 8 else "")
            lines.append(f"never placeable ({len(never)}): {shown}")
        for note in self.stats.get("notes", []):
            lines.append(f"note: {note}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        placed = f"{len(self.placements)}/{self.inst.n_jobs}"
        return f"Result({self.inst.name!r}, status={self.status!r}, objective={self.objective}, placed={placed})"


def _json_default(value):
    """numpy scalars in stats."""
    if hasattr(value, "item"):
        return value.item()
    raise TypeError(f"not JSON serializable: {type(value).__name__}")


def _round(x: float | None) -> float | None:
    return None if x is None else float(round(x, 9))
