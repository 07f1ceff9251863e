"""Scale-out evaluations: systems past one node predicted from other workloads' scale-out rows,
or from one-node rows alone, against linear scaling from the same card's one-node throughput."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from fedopt.normalize.cards import CardResolver
from fedopt.normalize.model import Hyper, ThroughputModel
from fedopt.normalize.scores import errors, markdown_table

# Scale-out priors that have not seen MLPerf's multi-node systems (the defaults were fitted on them)
UNINFORMED_SCALEOUT = {"psi_prior": -2.0, "beta_prior": 1.0}


def leave_one_workload_scaleout(
    data: pd.DataFrame,
    resolver: CardResolver | None = None,
    workloads: list[str] | None = None,
    progress: Callable[[str], None] | None = None,
) -> pd.DataFrame:
    """Scale-out rows (past one node) of each workload predicted with all of that workload's
    scale-out rows hidden: from its own rows on one node and the other workloads' scale-out rows.
    Workloads never measured on one node (GPT-3) are left out: their units are unknown.

    ``data`` holds the one-node rows and the scale-out rows (``source == "mlperf-scaleout"``).
    ``base_linear`` is the workload's one-node throughput on the same card times n / 8 (the
    model without its scale-out term would be near it). The priors are uninformed.
    ``workloads`` limits which workloads are hidden in turn (default: all).
    """
    resolver = resolver or CardResolver()
    hyper = Hyper(**UNINFORMED_SCALEOUT)
    out0 = data.iloc[:0].assign(pred=0.0, base_linear=0.0)
    scale = data["source"].eq("mlperf-scaleout").to_numpy()
    key = np.array([ThroughputModel(resolver=resolver).card_key(c) for c in data["card_type"]])
    one_node = ~scale & (data["cards"] == 8).to_numpy()
    rows = [out0]
    measured = set(data.loc[~scale & (data["throughput"] > 0).to_numpy(), "workload"])  # else its units are unknown
    turns = sorted(set(data.loc[scale, "workload"]) & measured & set(workloads or data["workload"]))
    for i, w in enumerate(turns, 1):
        if progress:
            progress(f"scale-out: workload {i}/{len(turns)}, {w}")
        hide = scale & (data["workload"] == w).to_numpy()
        model = ThroughputModel(resolver=resolver, hyper=hyper).fit(data[~hide])
        test = data[hide].copy()
        test["pred"] = model.predict(test)
        mine = one_node & (data["workload"] == w).to_numpy()
        node = dict(zip(key[mine], data.loc[mine, "throughput"], strict=True))
        test["base_linear"] = [node.get(k, np.nan) * n / 8 for k, n in zip(key[hide], test["cards"], strict=True)]
        rows.append(test)
    return pd.concat(rows, ignore_index=True)


def scaleout_from_one_node(
    one_node: pd.DataFrame,
    multi: pd.DataFrame,
    hyper: Hyper | None = None,
    resolver: CardResolver | None = None,
    **priors: dict,
) -> pd.DataFrame:
    """Rows past one node (``multi``) predicted by a model fitted on ``one_node`` rows only: what a
    user whose file holds single-node runs gets when asking about a large system (the slowdown
    comes from the prior alone). Workloads without one-node rows are left out (their units are
    unknown). Columns as :func:`leave_one_workload_scaleout`; ``base_linear`` is the same card's
    8-accelerator throughput times n / 8."""
    model = ThroughputModel(resolver=resolver, hyper=hyper, **priors).fit(one_node)
    test = multi[multi["workload"].isin(set(one_node.loc[one_node["throughput"] > 0, "workload"]))].copy()
    test = test[test["throughput"] > 0]
    test["pred"] = model.predict(test)
    eight = one_node[(one_node["cards"] == 8) & (one_node["throughput"] > 0)]
    node = {(w, model.card_key(c)): t for w, c, t in zip(eight["workload"], eight["card_type"], eight["throughput"], strict=True)}
    test["base_linear"] = [
        node.get((w, model.card_key(c)), np.nan) * n / 8
        for w, c, n in zip(test["workload"], test["card_type"], test["cards"], strict=True)
    ]
    return test.reset_index(drop=True)


def scaleout_summary(res: pd.DataFrame) -> pd.DataFrame:
    """Median and mean errors of the scale-out evaluation by system size, model against linear
    scaling (columns ``accelerators, rows, model_median, model_mean, linear_median, linear_mean``)."""
    res = res.assign(model=errors(res, "pred"), linear=errors(res, "base_linear"))
    res = res[res["linear"].notna()]
    bins = [(9, 64), (65, 512), (513, 10**9)]
    out = []
    for name, lo, hi in [(f"{a}-{b}" if b < 10**9 else f">= {a}", a, b) for a, b in bins] + [("all", 9, 10**9)]:
        g = res[(res["cards"] >= lo) & (res["cards"] <= hi)]
        if not g.empty:
            out.append(
                {
                    "accelerators": name,
                    "rows": len(g),
                    "model_median": float(g["model"].median()),
                    "model_mean": float(g["model"].mean()),
                    "linear_median": float(g["linear"].median()),
                    "linear_mean": float(g["linear"].mean()),
                }
            )
    return pd.DataFrame(out)


def format_scaleout(tab: pd.DataFrame) -> str:
    """A :func:`scaleout_summary` table as markdown."""
    columns = [("accelerators", "accelerators", "text"), ("rows", "rows", "count")]
    columns += [(f"{m} {s}", f"{m}_{s}", "pct") for m in ("model", "linear") for s in ("median", "mean")]
    return markdown_table(tab, columns)
