"""The column pool: candidate placements of jobs as a struct of arrays.

A column is one placement of one job: a card type, and parts ``(cluster, count)`` stored in
CSR form (``part_ptr``). Everything a constraint family or the objective needs is derived
from these arrays with vectorized numpy/scipy, cached on first use.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import scipy.sparse as sp

from fedopt.instance.model import Instance


@dataclass(eq=False)
class ColumnPool:
    inst: Instance
    job: np.ndarray  # int [n]
    ctype: np.ndarray  # int [n]
    total: np.ndarray  # int [n]
    part_ptr: np.ndarray  # int [n+1]
    part_cluster: np.ndarray  # int [m]
    part_count: np.ndarray  # int [m]
    complete: bool = True  # every valid placement of every job is present
    notes: list[str] = field(default_factory=list)
    incomplete_jobs: frozenset[int] = frozenset()  # jobs some of whose valid placements are missing

    # ------------------------------------------------------------------ construction
    @classmethod
    def concat(cls, inst: Instance, pools: list[ColumnPool]) -> ColumnPool:
        given = pools
        pools = [p for p in pools if p.size] or pools[:1]
        if not pools:
            return cls.empty(inst)
        complete = all(p.complete for p in given)  # an empty pool can still say what is missing
        notes = [n for p in given for n in p.notes]
        incomplete = frozenset().union(*(p.incomplete_jobs for p in given))
        offsets = np.cumsum([0] + [len(p.part_cluster) for p in pools])
        ptr = np.concatenate([pools[0].part_ptr[:1]] + [p.part_ptr[1:] + off for p, off in zip(pools, offsets, strict=False)])
        return cls(
            inst,
            np.concatenate([p.job for p in pools]),
            np.concatenate([p.ctype for p in pools]),
            np.concatenate([p.total for p in pools]),
            ptr,
            np.concatenate([p.part_cluster for p in pools]),
            np.concatenate([p.part_count for p in pools]),
            complete=complete,
            notes=notes,
            incomplete_jobs=incomplete,
        )

    @classmethod
    def empty(cls, inst: Instance) -> ColumnPool:
        z = np.zeros(0, dtype=np.int64)
        return cls(inst, z, z, z, np.zeros(1, dtype=np.int64), z, z)

    def subset(self, keep: np.ndarray) -> ColumnPool:
        """The columns where ``keep`` (bool mask or index array) holds, in order."""
        idx = np.flatnonzero(keep) if keep.dtype == bool else np.asarray(keep, dtype=np.int64)
        starts, ends = self.part_ptr[idx], self.part_ptr[idx + 1]
        lens = ends - starts
        ptr = np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)
        gather = np.repeat(starts - ptr[:-1], lens) + np.arange(ptr[-1])
        return ColumnPool(
            self.inst,
            self.job[idx],
            self.ctype[idx],
            self.total[idx],
            ptr,
            self.part_cluster[gather],
            self.part_count[gather],
            self.complete,
            list(self.notes),
            self.incomplete_jobs,
        )

    # ------------------------------------------------------------------ derived arrays
    @property
    def size(self) -> int:
        return len(self.job)

    @cached_property
    def nparts(self) -> np.ndarray:
        return np.diff(self.part_ptr)

    @cached_property
    def part_col(self) -> np.ndarray:
        return np.repeat(np.arange(self.size), self.nparts)

    @cached_property
    def part_region(self) -> np.ndarray:
        return self.inst.cluster_region[self.part_cluster]

    @cached_property
    def part_frac(self) -> np.ndarray:
        return self.part_count / self.total[self.part_col]

    @cached_property
    def part_pool(self) -> np.ndarray:
        """Pool index of each part; a pool of the column's type exists by construction."""
        inst = self.inst
        lookup = np.full((len(inst.cluster_ids), len(inst.card_ids)), -1, dtype=np.int64)
        lookup[inst.pool_cluster, inst.pool_type] = np.arange(inst.n_pools)
        return lookup[self.part_cluster, self.ctype[self.part_col]]

    @cached_property
    def region_cards(self) -> sp.csr_matrix:
        """[n, R]: cards each column holds in each region."""
        n_r = len(self.inst.region_ids)
        return sp.csr_matrix((self.part_count.astype(float), (self.part_col, self.part_region)), shape=(self.size, n_r))

    @cached_property
    def nregions(self) -> np.ndarray:
        rc = self.region_cards
        return np.diff(rc.indptr)  # csr sums duplicates, so nnz per row = regions used

    @cached_property
    def single_region(self) -> np.ndarray:
        """Region of each column lying in one region, -1 for the others."""
        out = np.full(self.size, -1, dtype=np.int64)
        one = self.nregions == 1
        out[one] = self.region_cards.indices[self.region_cards.indptr[:-1][one]]
        return out

    @cached_property
    def efficiency(self) -> np.ndarray:
        se = self.inst.doc.settings.span_efficiency
        return np.where(self.nparts == 1, se.cluster, np.where(self.nregions == 1, se.region, se.federation))

    @cached_property
    def anchor(self) -> np.ndarray:
        """Region holding most of the column's cards (ties: smaller id); -1 for one region."""
        inst = self.inst
        out = np.full(self.size, -1, dtype=np.int64)
        multi = np.flatnonzero(self.nregions > 1)
        if len(multi):
            dense = self.region_cards[multi].toarray()
            # order regions by id so argmax's first maximum is the smallest id
            order = np.argsort(inst.region_rank)
            out[multi] = order[np.argmax(dense[:, order], axis=1)]
        return out

    @cached_property
    def speed(self) -> np.ndarray:
        """Useful work per hour: eff * total * rate."""
        return self.efficiency * self.total * self.inst.rate[self.job, self.ctype]

    @cached_property
    def pool_usage(self) -> sp.csr_matrix:
        """[n, P] cards taken from each pool."""
        return sp.csr_matrix(
            (self.part_count.astype(float), (self.part_col, self.part_pool)),
            shape=(self.size, self.inst.n_pools),
        )

    @cached_property
    def cluster_use(self) -> sp.csr_matrix:
        """[n, C] 0/1: the column has a part in the cluster."""
        return sp.csr_matrix(
            (np.ones(len(self.part_col)), (self.part_col, self.part_cluster)),
            shape=(self.size, len(self.inst.cluster_ids)),
        )

    @cached_property
    def storage_usage(self) -> sp.csr_matrix:
        """[n, C] data read rate (Gbit/s) in each cluster."""
        reads = self.inst.job_read_gbps[self.job[self.part_col]] * self.part_frac
        return sp.csr_matrix((reads, (self.part_col, self.part_cluster)), shape=(self.size, len(self.inst.cluster_ids)))

    @cached_property
    def link_usage(self) -> sp.csr_matrix:
        """[n, L] traffic (Gbit/s) on each link: remote data reads plus sync between regions."""
        inst = self.inst
        n_r = len(inst.region_ids)
        rows = self.job[self.part_col] * n_r + self.part_region
        scale = sp.csr_matrix(
            (self.part_frac, (self.part_col, np.arange(len(self.part_col)))),
            shape=(self.size, len(self.part_col)),
        )
        data = scale @ inst.remote_links[rows]
        multi = np.flatnonzero((self.nregions > 1) & (inst.job_sync_gbps[self.job] > 0))
        if len(multi):
            rc = self.region_cards[multi].tocoo()
            col = multi[rc.row]
            anchor = self.anchor[col]
            other = rc.col != anchor
            col, src, dst = col[other], anchor[other], rc.col[other]
            pick = sp.csr_matrix(
                (inst.job_sync_gbps[self.job[col]], (col, src * n_r + dst)),
                shape=(self.size, n_r * n_r),
            )
            data = data + pick @ inst.routes.incidence
        return sp.csr_matrix(data)

    @cached_property
    def egress_per_hour(self) -> np.ndarray:
        """Egress price per hour of the column's remote reads (not yet weighted)."""
        per_part = self.part_frac * self.inst.remote_egress[self.job[self.part_col], self.part_region]
        return np.bincount(self.part_col, weights=per_part, minlength=self.size)

    @cached_property
    def is_running(self) -> np.ndarray:
        """The column is exactly the job's running placement (order of parts aside)."""
        inst = self.inst
        key = (
            np.bincount(self.part_col, weights=_part_key(self.part_cluster, self.part_count), minlength=self.size)
            + self.ctype * 7919.0
            + self.nparts * 104729.0
        )
        run_key = np.full(inst.n_jobs, np.nan)
        for j, run in enumerate(inst.running):
            if run:
                cl = np.array([p[0] for p in run])
                ct = np.array([p[2] for p in run])
                run_key[j] = _part_key(cl, ct).sum() + run[0][1] * 7919.0 + len(run) * 104729.0
        out = np.zeros(self.size, dtype=bool)
        for c in np.flatnonzero(np.isclose(key, run_key[self.job], rtol=0, atol=1e-6)):
            out[c] = sorted(self.parts_of(c)) == sorted(inst.running[self.job[c]])
        return out

    def parts_of(self, c: int) -> list[tuple[int, int, int]]:
        """(cluster, type, count) of column ``c``."""
        s, e = self.part_ptr[c], self.part_ptr[c + 1]
        t = int(self.ctype[c])
        return [(int(k), t, int(n)) for k, n in zip(self.part_cluster[s:e], self.part_count[s:e], strict=True)]


def _part_key(cluster: np.ndarray, count: np.ndarray) -> np.ndarray:
    """An order-free fingerprint term of a part; equal sums are confirmed exactly."""
    return np.sin(cluster * 12.9898 + count * 78.233) * 43758.5453 + cluster * 0.001 + count
