"""What the fleet holds between re-plans: placements, their flows, and the capacity left.

A placement's flows follow spec section 2 exactly (the checker's rules 4, 6 and 7): its cards in
each pool, the storage it reads in each cluster, the sync and remote-read traffic on each link,
and the egress it pays per hour. The simulator keeps their sums up to date as jobs start, move,
stop and finish, so that a re-plan can hand the policy the capacity that the jobs it may not
touch leave free.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fedopt.instance.model import BYTES_PER_GBIT_HOUR, Instance
from fedopt.simulate.fleet import JobSpec

Parts = tuple[tuple[int, int, int], ...]  # (cluster, card type, count), sorted


@dataclass(frozen=True)
class Flow:
    """A placement's use of shared capacity and what it costs per hour."""

    pools: tuple[tuple[int, int], ...]  # (pool, cards)
    storage: tuple[tuple[int, float], ...]  # (cluster, Gbit/s)
    links: tuple[tuple[int, float], ...]  # (link, Gbit/s)
    cards: int
    speed: float  # work per hour: eff x sum(count x rate)
    egress_per_hour: float  # money per hour of remote reads
    cross_region_gbps: float  # sync to other regions + remote reads


class Fleet:
    """The fleet's capacities and the flows of placements on it."""

    def __init__(self, inst: Instance):
        self.inst = inst
        self.n_pools = inst.n_pools
        self.pool_cards = inst.pool_cards.astype(np.int64)
        self.storage_cap = inst.cluster_storage.astype(float)
        self.link_cap = inst.link_gbps.astype(float)
        self.pool_index = inst.pool_index
        self.pool_type = inst.pool_type
        self.pool_region = inst.cluster_region[inst.pool_cluster]
        self.cards = int(self.pool_cards.sum())
        se = inst.doc.settings.span_efficiency
        self.eff = (se.cluster, se.region, se.federation)
        self.dataset_index = {d: i for i, d in enumerate(inst.dataset_ids)}

    def flow(self, spec: JobSpec, parts: Parts) -> Flow:
        inst = self.inst
        regions: dict[int, int] = {}
        for c, _, n in parts:
            q = int(inst.cluster_region[c])
            regions[q] = regions.get(q, 0) + n
        eff = self.eff[0] if len(parts) == 1 else self.eff[1] if len(regions) == 1 else self.eff[2]
        total = sum(n for _, _, n in parts)
        speed = eff * sum(n * float(spec.rate[t]) for _, t, n in parts)
        links: dict[int, float] = {}
        storage: dict[int, float] = {}
        egress = 0.0
        cross = 0.0
        sync = float(spec.doc.get("split", {}).get("sync_gbps", 0.0))
        if len(regions) > 1 and sync > 0:
            anchor = min(regions, key=lambda r: (-regions[r], inst.region_ids[r]))
            for r in regions:
                if r != anchor:
                    for k in inst.routes.links[anchor][r]:
                        links[k] = links.get(k, 0.0) + sync
                    cross += sync
        for c, _, n in parts:
            q = int(inst.cluster_region[c])
            frac = n / total
            for read in spec.doc.get("data", []):
                g = read["gbps"] * frac
                storage[c] = storage.get(c, 0.0) + g
                src = int(inst.data_source[self.dataset_index[read["dataset"]], q])
                if src != q and src >= 0:
                    for k in inst.routes.links[src][q]:
                        links[k] = links.get(k, 0.0) + g
                    egress += BYTES_PER_GBIT_HOUR * g * float(inst.routes.egress_per_gb[src, q])
                    cross += g
        pools = tuple((self.pool_index[(c, t)], n) for c, t, n in parts)
        return Flow(pools, tuple(storage.items()), tuple(links.items()), total, speed, egress, cross)


class Usage:
    """Sums of the flows of the placements that hold capacity now."""

    def __init__(self, fleet: Fleet):
        self.fleet = fleet
        self.pools = np.zeros(fleet.n_pools, dtype=np.int64)
        self.storage = np.zeros(len(fleet.storage_cap))
        self.links = np.zeros(len(fleet.link_cap))

    def add(self, f: Flow, sign: int = 1) -> None:
        for p, n in f.pools:
            self.pools[p] += sign * n
        for c, g in f.storage:
            self.storage[c] += sign * g
        for k, g in f.links:
            self.links[k] += sign * g

    def copy(self) -> Usage:
        out = Usage(self.fleet)
        out.pools = self.pools.copy()
        out.storage = self.storage.copy()
        out.links = self.links.copy()
        return out

    def over(self, tol: float = 1e-6) -> list[str]:
        """Capacities exceeded: empty when the placements fit."""
        fl = self.fleet
        inst = fl.inst
        out = []
        for p in np.flatnonzero(self.pools > fl.pool_cards):
            c, t = int(inst.pool_cluster[p]), int(inst.pool_type[p])
            out.append(f"pool {inst.cluster_ids[c]}/{inst.card_ids[t]} {self.pools[p]} > {fl.pool_cards[p]}")
        for c in np.flatnonzero(self.storage > fl.storage_cap * (1 + tol) + tol):
            out.append(f"cluster {inst.cluster_ids[c]} storage {self.storage[c]:g} > {fl.storage_cap[c]:g}")
        for k in np.flatnonzero(self.links > fl.link_cap * (1 + tol) + tol):
            out.append(f"link {k} {self.links[k]:g} > {fl.link_cap[k]:g}")
        return out

    def fits(self, f: Flow, tol: float = 1e-9) -> bool:
        fl = self.fleet
        for p, n in f.pools:
            if self.pools[p] + n > fl.pool_cards[p]:
                return False
        for c, g in f.storage:
            if self.storage[c] + g > fl.storage_cap[c] + tol:
                return False
        return all(self.links[k] + g <= fl.link_cap[k] + tol for k, g in f.links)
