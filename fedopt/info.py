"""A readable summary of an instance: the fleet by card type and region, demand against it."""

from __future__ import annotations

import numpy as np

from fedopt.instance import Instance


def _table(header: list[str], rows: list[list], widths: list[int] | None = None) -> list[str]:
    widths = widths or [max(len(str(x)) for x in col) + 2 for col in zip(header, *rows, strict=False)]
    fmt = lambda r: "".join(str(v).rjust(w) if i else str(v).ljust(w) for i, (v, w) in enumerate(zip(r, widths, strict=False)))  # noqa: E731
    return [fmt(header)] + [fmt(r) for r in rows]


def describe(inst: Instance) -> str:
    lines = [
        f"instance {inst.name}: {len(inst.region_ids)} regions, {len(inst.doc.links)} links, "
        f"{len(inst.cluster_ids)} clusters, {inst.n_pools} pools, {len(inst.dataset_ids)} datasets, "
        f"{len(inst.tenant_ids)} tenants, {inst.n_jobs} jobs"
    ]
    if inst.horizon is not None:
        lines.append(f"horizon: {inst.horizon.slots} slots of {inst.horizon.slot_hours} h")
    # fleet: cards by type x region
    n_r = len(inst.region_ids)
    grid = np.zeros((len(inst.card_ids), n_r), dtype=np.int64)
    np.add.at(grid, (inst.pool_type, inst.cluster_region[inst.pool_cluster]), inst.pool_cards)
    held = np.zeros(len(inst.card_ids), dtype=np.int64)
    for run in inst.running:
        for _, t, n in run or []:
            held[t] += n
    demand_min = np.zeros(len(inst.card_ids))
    rows = []
    for t, cid in enumerate(inst.card_ids):
        eligible = inst.type_ok[:, t]
        demand_min[t] = sum(int(inst.job_totals[j].min()) for j in np.flatnonzero(eligible))
        rows.append([cid, *grid[t].tolist(), int(grid[t].sum()), int(held[t]), int(eligible.sum())])
    lines.append("")
    lines.append("cards by type and region (held = by running jobs; jobs = jobs that may use the type)")
    lines += _table(["type", *inst.region_ids, "total", "held", "jobs"], rows)
    total_cards = int(grid.sum())
    min_demand = int(sum(int(t.min()) for t in inst.job_totals))
    max_demand = int(sum(int(t.max()) for t in inst.job_totals))
    lines.append("")
    lines.append(
        f"demand: {min_demand} cards at least, {max_demand} at most, against {total_cards} in the fleet "
        f"({min_demand / max(total_cards, 1):.0%}); {int(inst.running_cards.sum())} held by "
        f"{sum(r is not None for r in inst.running)} running jobs, {int(inst.pinned.sum())} of them pinned"
    )
    never = [inst.job_ids[j] for j in np.flatnonzero(~inst.pool_ok.any(axis=1))]
    if never:
        lines.append(f"jobs with no eligible pool ({len(never)}): {', '.join(never[:10])}{' ...' if len(never) > 10 else ''}")
    splits = int((inst.job_max_parts > 1).sum())
    elastic = sum(len(t) > 1 for t in inst.job_totals)
    lines.append(f"splittable jobs {splits}, elastic jobs {elastic}, jobs reading data {int((inst.job_read_gbps > 0).sum())}")
    if len(inst.doc.links):
        lines.append("")
        lines.append("links")
        lines += _table(
            ["link", "Gbit/s", "ms", "egress/GB"],
            [[f"{lk.a}-{lk.b}", f"{lk.gbps:g}", f"{lk.latency_ms:g}", f"{lk.egress_per_gb:g}"] for lk in inst.doc.links],
        )
    return "\n".join(lines)
