"""The region graph: regions with their cards, links with the traffic the plan puts on them."""

from __future__ import annotations

import networkx as nx
import numpy as np
from matplotlib import colormaps
from matplotlib.cm import ScalarMappable
from matplotlib.colors import Normalize
from matplotlib.figure import Figure

from fedopt.report._figure import new_figure
from fedopt.report.analysis import PlanView, analyze


def plot_region_graph(inst, plan, view: PlanView | None = None) -> Figure:
    """Regions as nodes (cards used/total), links as edges labelled ``use/capacity Gbit/s``.

    Edge colour is the share of the link's capacity in use (peak over the slots for horizons);
    edge width grows with capacity.
    """
    view = view or analyze(inst, plan)
    n_r = len(inst.region_ids)
    g = nx.Graph()
    g.add_nodes_from(range(n_r))
    g.add_edges_from((int(a), int(b)) for a, b in inst.link_ends)
    pos = nx.circular_layout(g) if n_r <= 4 else nx.spring_layout(g, seed=0)
    if n_r == 1:
        pos = {0: np.array([0.0, 0.0])}
    fig = new_figure(7.5, 5.5)
    ax = fig.add_subplot()
    cmap = colormaps["RdYlGn_r"]
    norm = Normalize(0, 1)
    max_gbps = float(inst.link_gbps.max()) if len(inst.link_gbps) else 1.0
    for k, (a, b) in enumerate(inst.link_ends):
        (x0, y0), (x1, y1) = pos[int(a)], pos[int(b)]
        cap, use = float(inst.link_gbps[k]), float(view.link_use[k])
        share = use / cap if cap > 0 else (1.0 if use > 0 else 0.0)
        ax.plot(
            [x0, x1],
            [y0, y1],
            color=cmap(norm(min(share, 1.0))),
            lw=1.5 + 6 * cap / max(max_gbps, 1e-9),
            zorder=1,
            solid_capstyle="round",
        )
        ax.text(
            (x0 + x1) / 2,
            (y0 + y1) / 2,
            f"{use:.3g}/{cap:.3g} Gbit/s",
            ha="center",
            va="center",
            fontsize=8,
            bbox={"boxstyle": "round,pad=0.2", "fc": "white", "ec": "none", "alpha": 0.85},
            zorder=3,
        )
    used_r = np.zeros(n_r, dtype=np.int64)
    cards_r = np.zeros(n_r, dtype=np.int64)
    for p in range(inst.n_pools):
        r = int(inst.cluster_region[inst.pool_cluster[p]])
        used_r[r] += view.pool_use[p]
        cards_r[r] += inst.pool_cards[p]
    sizes = 400 + 1600 * cards_r / max(int(cards_r.max()), 1)
    xy = np.array([pos[r] for r in range(n_r)])
    ax.scatter(xy[:, 0], xy[:, 1], s=sizes, c="#4c72b0", alpha=0.85, zorder=2, edgecolors="white")
    for r in range(n_r):
        ax.annotate(
            f"{inst.region_ids[r]}\n{used_r[r]}/{cards_r[r]} cards",
            xy[r],
            xytext=(0, -26),
            textcoords="offset points",
            ha="center",
            va="top",
            fontsize=9,
            zorder=4,
        )
    fig.colorbar(ScalarMappable(norm, cmap), ax=ax, label="link use / capacity")
    ax.set_title("Regions and links: traffic against capacity" + (" (peak slot)" if view.horizon else ""))
    ax.set_axis_off()
    ax.margins(0.25)
    return fig
