"""Scores of an evaluation's rows: errors, summaries by data set and by card, the targets, and how
far a median could move with other workloads (a cluster bootstrap)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from fedopt.normalize.baselines import SPEC_FEATURES


def errors(res: pd.DataFrame, col: str) -> pd.Series:
    """|predicted - measured| / measured of each row, the predictions in column ``col``."""
    p = res[col]
    return (p - res["throughput"]).abs() / res["throughput"]


def summary(res: pd.DataFrame) -> pd.DataFrame:
    """Median and mean absolute relative error by source (and all), model and baselines."""
    cols = {"model": "pred"} | {f: "base_" + f for f in SPEC_FEATURES if "base_" + f in res}
    groups = [("all", res)]
    if "source" in res:
        groups += [(s, g) for s, g in res.groupby("source", sort=True)]
    best = None
    if len(cols) > 1:
        med = {f: float(np.nanmedian(errors(res, c))) for f, c in cols.items() if f != "model"}
        best = min(med, key=med.get)
    out = []
    for name, g in groups:
        row: dict = {"data": name, "rows": len(g), "cards": g["card"].nunique()}
        e = errors(g, "pred")
        row["model_median"], row["model_mean"] = float(e.median()), float(e.mean())
        if best is not None:
            e = errors(g, "base_bf16_tflops")
            row["peak_tflops_median"], row["peak_tflops_mean"] = float(e.median()), float(e.mean())
            e = errors(g, "base_" + best)
            row["best_spec"] = best
            row["best_spec_median"], row["best_spec_mean"] = float(e.median()), float(e.mean())
        out.append(row)
    return pd.DataFrame(out)


def pct(value) -> str:
    """A share as a percentage with one decimal; "-" when missing (NaN or None)."""
    return f"{100 * value:.1f}%" if value is not None and value == value else "-"


def markdown_table(tab: pd.DataFrame, columns: list[tuple[str, str, str]]) -> str:
    """``tab`` as a markdown table: ``columns`` are (header, column, kind), kind ``text`` (left
    aligned), ``count`` or ``pct`` (right aligned, :func:`pct`); a missing cell reads "-"."""

    def cell(row: dict, key: str, kind: str) -> str:
        v = row.get(key)
        if kind == "pct":
            return pct(v)
        return "-" if v is None or v != v else str(v)

    lines = [
        "| " + " | ".join(h for h, _, _ in columns) + " |",
        "|" + "|".join("---" if kind == "text" else "---:" for _, _, kind in columns) + "|",
    ]
    lines += ["| " + " | ".join(cell(r, k, kind) for _, k, kind in columns) + " |" for r in tab.to_dict("records")]
    return "\n".join(lines)


SUMMARY_COLUMNS = [
    ("data", "data", "text"),
    ("rows", "rows", "count"),
    ("cards", "cards", "count"),
    ("model median", "model_median", "pct"),
    ("model mean", "model_mean", "pct"),
    ("peak-TFLOPS median", "peak_tflops_median", "pct"),
    ("peak-TFLOPS mean", "peak_tflops_mean", "pct"),
    ("best spec", "best_spec", "text"),
    ("best median", "best_spec_median", "pct"),
    ("best mean", "best_spec_mean", "pct"),
]


def format_summary(tab: pd.DataFrame) -> str:
    """A :func:`summary` table as markdown."""
    return markdown_table(tab, SUMMARY_COLUMNS)


def by_card(res: pd.DataFrame) -> pd.DataFrame:
    """Median errors per held-out card: model, peak-TFLOPS ratio, memory-bandwidth ratio; and the
    model's signed bias (``model_bias``: its median predicted / measured, less 1; + = too fast), as
    an error of 30% may be a card the model over-predicts everywhere or one it misses both ways."""
    g = res.assign(model=errors(res, "pred"), model_bias=np.log(res["pred"] / res["throughput"]))
    cols = {"model": ("model", "median"), "model_bias": ("model_bias", "median")}
    for name, col in (("peak_tflops", "base_bf16_tflops"), ("mem_bw", "base_mem_bw_gbs")):
        if col in res:
            g[name] = errors(res, col)
            cols[name] = (name, "median")
    out = g.groupby("card").agg(rows=("pred", "size"), **cols)
    out["model_bias"] = np.expm1(out["model_bias"])
    return out


def oracle_medians(res: pd.DataFrame) -> dict[str, float]:
    """The oracle ratio's median error, all and per source ({} without it)."""
    if "oracle" not in res or res["oracle"].isna().all():
        return {}
    out = {"all": float(np.nanmedian(errors(res, "oracle")))}
    if "source" in res:
        out |= {str(s): float(np.nanmedian(errors(g, "oracle"))) for s, g in res.groupby("source", sort=True)}
    return out


def oracle_line(res: pd.DataFrame) -> str | None:
    """The oracle ratio's median error (all and per source), or None without it."""
    medians = oracle_medians(res)
    if not medians:
        return None
    return (
        "oracle ratio (each hidden card's true median speed-up at each count, read from the hidden rows; "
        "what is left is each workload's own deviation and the noise): median "
        + ", ".join(f"{name} {100 * m:.1f}%" for name, m in medians.items())
    )


def median_interval(
    res: pd.DataFrame, col: str = "pred", level: float = 0.9, draws: int = 2000, seed: int = 0
) -> tuple[float, float]:
    """How far the median error could move with other workloads of the same kind: the ``level``
    interval of the median over ``draws`` resamples of whole workloads (a workload's rows share its
    shares and its errors, so rows are not independent; a cluster bootstrap). Tells a real gap
    from one set's luck: most model changes tried move the median by less than this width."""
    e = errors(res, col).to_numpy(dtype=float)
    ok = np.isfinite(e)
    e = e[ok]
    if len(e) == 0:
        return float("nan"), float("nan")
    wl = pd.factorize(res["workload"].astype(str).to_numpy()[ok])[0]
    order = np.argsort(e, kind="stable")
    e, wl = e[order], wl[order]
    n_wl = int(wl.max()) + 1
    rng = np.random.default_rng(seed)
    counts = rng.multinomial(n_wl, np.full(n_wl, 1.0 / n_wl), size=draws)  # each draw: how often each workload is taken
    cum = np.cumsum(counts[:, wl], axis=1)  # each draw's rows, in error order, counted with repeats
    total = cum[:, -1:]

    def at(k):  # the k-th (0-based) error of each draw's multiset
        return e[(cum < k + 1).sum(axis=1)]

    medians = 0.5 * (at((total - 1) // 2) + at(total // 2))  # as pandas' median of the resampled rows
    lo, hi = np.quantile(medians, [(1 - level) / 2, (1 + level) / 2])
    return float(lo), float(hi)


def target_records(tab: pd.DataFrame, limit: float = 0.15, res: pd.DataFrame | None = None) -> list[dict]:
    """Per data set of ``tab`` (:func:`summary`): its median, whether it meets ``limit``
    (``within_limit``) and half the peak-TFLOPS baseline's (``within_half_peak``); with ``res`` (the
    rows ``tab`` summarizes) the median's ``median_interval`` too (``interval_low``, ``interval_high``)."""
    out = []
    for r in tab.to_dict("records"):
        if "peak_tflops_median" not in r:
            continue
        rec = {
            "data": r["data"],
            "median": r["model_median"],
            "limit": limit,
            "within_limit": bool(r["model_median"] <= limit),
            "half_peak": 0.5 * r["peak_tflops_median"],
            "within_half_peak": bool(r["model_median"] <= 0.5 * r["peak_tflops_median"]),
        }
        if res is not None:
            part = res if r["data"] == "all" or "source" not in res else res[res["source"] == r["data"]]
            rec["interval_low"], rec["interval_high"] = median_interval(part)
        out.append(rec)
    return out


def targets(tab: pd.DataFrame, limit: float = 0.15, res: pd.DataFrame | None = None) -> list[str]:
    """One line per data set: does the median meet ``limit`` and half the peak-TFLOPS baseline's?
    With ``res`` (the rows ``tab`` summarizes) each median also gets its ``median_interval``."""
    out = []
    for r in target_records(tab, limit, res):
        a, b = r["within_limit"], r["within_half_peak"]
        width = ""
        if "interval_low" in r:
            width = f" (90% {100 * r['interval_low']:.1f}-{100 * r['interval_high']:.1f}% over resampled workloads)"
        out.append(
            f"{r['data']}: median {100 * r['median']:.1f}%{width} "
            f"{'<=' if a else '>'} {100 * limit:.0f}% ({'met' if a else 'NOT met'}); "
            f"{'<=' if b else '>'} half the peak-TFLOPS baseline's {100 * r['half_peak']:.1f}% "
            f"({'met' if b else 'NOT met'})"
        )
    return out
