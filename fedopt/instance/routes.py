"""Routes between regions, exactly as model-v1 defines them.

The route from ``s`` to ``t`` is the path of least total latency; ties go to fewer hops, then to
the lexicographically smaller sequence of region ids (read from ``s`` to ``t``). Latencies are
summed as exact decimals so that 0.1 + 0.2 ties with 0.3, as a person reading the file expects.
"""

from __future__ import annotations

import heapq
import itertools
from dataclasses import dataclass
from fractions import Fraction

import networkx as nx
import numpy as np
import scipy.sparse as sp


def _exact(x: float) -> Fraction:
    return Fraction(repr(float(x)))


@dataclass(frozen=True)
class Routes:
    """All-pairs routes over ``n`` regions (indexed as in the instance)."""

    reachable: np.ndarray  # bool [n, n]
    latency_ms: np.ndarray  # float [n, n]; inf where unreachable
    egress_per_gb: np.ndarray  # float [n, n]: sum of the route's links' prices
    hops: np.ndarray  # int [n, n]
    links: tuple[tuple[tuple[int, ...], ...], ...]  # links[s][t] = link indices on the route
    paths: tuple[tuple[tuple[int, ...], ...], ...]  # paths[s][t] = region indices s .. t
    incidence: sp.csr_matrix  # [n*n, n_links]: row s*n+t has 1 on each link of route s->t


def graph_of(region_ids: list[str], links: list[tuple[int, int, float]]) -> nx.Graph:
    """The region graph; edge attribute ``link`` is the link's index, ``lat`` its latency."""
    g = nx.Graph()
    g.add_nodes_from(range(len(region_ids)))
    for k, (a, b, lat) in enumerate(links):
        g.add_edge(a, b, link=k, lat=_exact(lat))
    return g


def _from_source(g: nx.Graph, s: int, ids: list[str]) -> dict[int, tuple]:
    """Label-setting search with key (latency, hops, id sequence): the spec's total order.

    The order is consistent with extension (equal-latency, equal-hop prefixes compare the same
    way whatever is appended), so the first time a node is popped its route is the best one.
    """
    best: dict[int, tuple] = {}
    heap: list[tuple] = [(Fraction(0), 0, (ids[s],), (s,))]
    while heap:
        lat, hops, names, path = heapq.heappop(heap)
        node = path[-1]
        if node in best:
            continue
        best[node] = (lat, hops, path)
        for nbr, attrs in g[node].items():
            if nbr not in best:
                heapq.heappush(heap, (lat + attrs["lat"], hops + 1, (*names, ids[nbr]), (*path, nbr)))
    return best


def compute_routes(
    region_ids: list[str],
    links: list[tuple[int, int, float]],
    link_egress: list[float],
) -> Routes:
    n = len(region_ids)
    g = graph_of(region_ids, links)
    reach = np.zeros((n, n), dtype=bool)
    lat = np.full((n, n), np.inf)
    egress = np.zeros((n, n))
    hops = np.zeros((n, n), dtype=np.int64)
    all_links: list[list[tuple[int, ...]]] = [[() for _ in range(n)] for _ in range(n)]
    all_paths: list[list[tuple[int, ...]]] = [[() for _ in range(n)] for _ in range(n)]
    rows: list[int] = []
    cols: list[int] = []
    for s in range(n):
        for t, (lt, hp, path) in _from_source(g, s, region_ids).items():
            on_route = tuple(g[u][v]["link"] for u, v in itertools.pairwise(path))
            reach[s, t] = True
            lat[s, t] = float(lt)
            hops[s, t] = hp
            egress[s, t] = float(sum(_exact(link_egress[k]) for k in on_route))
            all_links[s][t] = on_route
            all_paths[s][t] = path
            rows.extend([s * n + t] * len(on_route))
            cols.extend(on_route)
    inc = sp.csr_matrix(
        (np.ones(len(rows)), (np.array(rows, dtype=np.int64), np.array(cols, dtype=np.int64))),
        shape=(n * n, len(links)),
    )
    return Routes(
        reachable=reach,
        latency_ms=lat,
        egress_per_gb=egress,
        hops=hops,
        links=tuple(tuple(r) for r in all_links),
        paths=tuple(tuple(r) for r in all_paths),
        incidence=inc,
    )
