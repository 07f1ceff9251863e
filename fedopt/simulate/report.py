"""Figures of a simulated run, their text table, and the PNG plots.

Every figure but those under ``timing`` depends only on the configuration (same seed, same
figures); ``timing`` holds wall-clock seconds.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np


def _stats(x: np.ndarray) -> dict:
    if not len(x):
        return {"mean": None, "p50": None, "p95": None, "max": None}
    return {
        "mean": float(np.mean(x)),
        "p50": float(np.percentile(x, 50)),
        "p95": float(np.percentile(x, 95)),
        "max": float(np.max(x)),
    }


def _window_average(sim, until: float) -> tuple[float, float]:
    """Time-averaged (raw, normalized) utilization over [0, until]."""
    busy = work = hours = 0.0
    for row in sim.timeline:
        if row.t >= until or row.hours <= 0:
            continue
        share = min(1.0, (until - row.t) / row.hours)
        busy += row.busy_card_hours * share
        work += row.work * share
        hours += row.hours * share
    if hours <= 0:
        return 0.0, 0.0
    return busy / (sim.fleet.cards * hours), work / (sim.peak_work_per_hour * hours)


def summarize(sim, config: dict, stream, wall_seconds: float) -> dict:
    jobs = sim.jobs
    arrival = np.array([j.arrival for j in jobs])
    pure = np.array([j.pure_hours for j in jobs])
    finished = ~np.isnan(sim.finish)
    started = ~np.isnan(sim.start)
    considered = ~sim.never_fits & (arrival <= sim.t + 1e-9)
    jct = (sim.finish - arrival)[finished]
    queue = (sim.start - arrival)[started]
    slowdown = jct / pure[finished]
    days_h = config["days"] * 24.0
    raw, norm = _window_average(sim, days_h)
    end = float(np.nanmax(sim.finish)) if finished.any() else 0.0
    raw_all, norm_all = _window_average(sim, max(end, sim.t))
    unfinished = int((considered & ~finished).sum())
    moves = np.array([r["migrated"] + r["preempted"] for r in sim.replans]) if sim.replans else np.zeros(1)
    seconds = np.array([r["seconds"] for r in sim.replans]) if sim.replans else np.zeros(1)
    statuses: dict[str, int] = {}
    for r in sim.replans:
        if "status" in r:
            statuses[r["status"]] = statuses.get(r["status"], 0) + 1
    return {
        "config": config,
        "fleet": {
            "cards": sim.fleet.cards,
            "pools": sim.fleet.n_pools,
            "regions": len(sim.fleet.inst.region_ids),
            "clusters": len(sim.fleet.inst.cluster_ids),
        },
        "stream": {
            "jobs": len(jobs),
            "trace_windows": stream.copies,
            "offered_card_hours": stream.offered_card_hours,
            "never_fit": int(sim.never_fits.sum()),
        },
        "jobs": {
            "finished": int(finished.sum()),
            "unfinished": unfinished,
            "never_started": int((considered & ~started).sum()),
        },
        "completion_hours": _stats(jct),
        "queueing_hours": _stats(queue),
        "slowdown": _stats(slowdown),
        "min_completion_over_pure_run": float(slowdown.min()) if len(slowdown) else None,
        "utilization": {"raw": raw, "normalized": norm, "raw_until_end": raw_all, "normalized_until_end": norm_all},
        "makespan_hours": end if unfinished == 0 and finished.any() else None,
        "simulated_hours": sim.t,
        "traffic": {"cross_region_tb": sim.cross_region_gb / 1000.0, "egress_cost": sim.egress_cost},
        "moves": {
            "migrations": int(sim.migrations.sum()),
            "preemptions": int(sim.preemptions.sum()),
            "max_per_replan": int(moves.max()),
            "budget_per_replan": config.get("max_moves"),
        },
        "replans": {
            "count": len(sim.replans),
            "statuses": statuses,
            "considered_mean": float(np.mean([r.get("considered", 0) for r in sim.replans])) if sim.replans else 0.0,
        },
        "capacity_violations": sim.capacity_violations[:20],
        "check_violations": sim.check_violations[:20] if sim.check else None,
        "timing": {
            "wall_seconds": wall_seconds,
            "replan_seconds_mean": float(seconds.mean()),
            "replan_seconds_p95": float(np.percentile(seconds, 95)),
            "replan_seconds_max": float(seconds.max()),
        },
    }


def _f(x, fmt: str = ".2f") -> str:
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else format(x, fmt)


def format_table(reports: dict[str, dict]) -> str:
    """Policies side by side: one row per figure."""
    names = list(reports)
    rows = [
        ("jobs finished", lambda r: str(r["jobs"]["finished"])),
        ("jobs unfinished", lambda r: str(r["jobs"]["unfinished"])),
        ("completion mean h", lambda r: _f(r["completion_hours"]["mean"])),
        ("completion p95 h", lambda r: _f(r["completion_hours"]["p95"])),
        ("queueing mean h", lambda r: _f(r["queueing_hours"]["mean"])),
        ("queueing p95 h", lambda r: _f(r["queueing_hours"]["p95"])),
        ("slowdown mean", lambda r: _f(r["slowdown"]["mean"])),
        ("utilization raw", lambda r: _f(r["utilization"]["raw"], ".1%")),
        ("utilization norm.", lambda r: _f(r["utilization"]["normalized"], ".1%")),
        ("makespan h", lambda r: _f(r["makespan_hours"], ".1f")),
        ("cross-region TB", lambda r: _f(r["traffic"]["cross_region_tb"], ".1f")),
        ("egress cost", lambda r: _f(r["traffic"]["egress_cost"], ".0f")),
        ("migrations", lambda r: str(r["moves"]["migrations"])),
        ("preemptions", lambda r: str(r["moves"]["preemptions"])),
        ("max moves/replan", lambda r: str(r["moves"]["max_per_replan"])),
        ("replans", lambda r: str(r["replans"]["count"])),
        # a re-plan stopped by the clock takes what it had: runs are reproducible only without them
        ("replans at limit", lambda r: str(r["replans"]["statuses"].get("timeout", 0))),
        ("replan s mean", lambda r: _f(r["timing"]["replan_seconds_mean"], ".3f")),
        ("replan s p95", lambda r: _f(r["timing"]["replan_seconds_p95"], ".3f")),
        ("wall s", lambda r: _f(r["timing"]["wall_seconds"], ".0f")),
        ("capacity violations", lambda r: str(len(r["capacity_violations"]))),
    ]
    width = max(14, *(len(n) + 2 for n in names))
    lines = [f"{'':<20}" + "".join(f"{n:>{width}}" for n in names)]
    for label, get in rows:
        lines.append(f"{label:<20}" + "".join(f"{get(reports[n]):>{width}}" for n in names))
    return "\n".join(lines)


def plot(sims: dict, out_dir: str | Path) -> list[Path]:
    """utilization.png (raw and normalized over time) and completion_cdf.png, one line per policy."""
    import io

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from fedopt.atomic import write_atomic

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = []

    fig, axes = plt.subplots(2, 1, figsize=(10, 6), sharex=True)
    for name, sim in sims.items():
        t = np.array([r.t for r in sim.timeline])
        h = np.array([r.hours for r in sim.timeline])
        ok = h > 0
        raw = np.array([r.busy_card_hours for r in sim.timeline])[ok] / (sim.fleet.cards * h[ok])
        norm = np.array([r.work for r in sim.timeline])[ok] / (sim.peak_work_per_hour * h[ok])
        axes[0].step(t[ok], raw, where="post", label=name, linewidth=0.8)
        axes[1].step(t[ok], norm, where="post", label=name, linewidth=0.8)
    axes[0].set_ylabel("cards busy")
    axes[1].set_ylabel("work / peak work")
    axes[1].set_xlabel("hours")
    for ax in axes:
        ax.set_ylim(0, 1.02)
        ax.grid(alpha=0.3)
        ax.legend(loc="lower right")
    fig.suptitle("Utilization over time")
    fig.tight_layout()
    written.append(_save(fig, out / "utilization.png", io, write_atomic, plt))

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for name, sim in sims.items():
        arrival = np.array([j.arrival for j in sim.jobs])
        done = ~np.isnan(sim.finish)
        jct = np.sort((sim.finish - arrival)[done])
        if len(jct):
            ax.step(np.maximum(jct, 1e-3), np.arange(1, len(jct) + 1) / len(jct), where="post", label=name)
    ax.set_xscale("log")
    ax.set_xlabel("job completion time, hours (log)")
    ax.set_ylabel("share of finished jobs")
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right")
    fig.suptitle("CDF of completion times")
    fig.tight_layout()
    written.append(_save(fig, out / "completion_cdf.png", io, write_atomic, plt))
    return written


def _save(fig, path: Path, io, write_atomic, plt) -> Path:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110)
    plt.close(fig)
    write_atomic(path, buf.getvalue())
    return path
