"""Speed and memory of ``fedopt normalize`` at scale (``fedopt bench --normalize 200,2000``).

Real measurement tables hold a few hundred rows; a fleet that logs every job's speed holds tens of
thousands. The benchmark writes a synthetic table of that size, runs the command as a user does
(``normalize --measurements M.csv --query Q.csv --out P.csv`` in a fresh process) and reports wall
time, peak memory and the error on the rows it hid.

The synthetic jobs follow the model's own form (time shares of compute, memory and host on real
catalog cards, a per-card efficiency, an all-reduce overhead at 8 cards, 10% noise): the error
says whether the fit still recovers that structure at scale, not how well the model predicts real
jobs (``normalize --evaluate`` does that on real measurements).
"""

from __future__ import annotations

import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

# Cards a large fleet's log would show (catalog names), and the card counts of its jobs.
CARDS = (
    "H100-SXM-80GB", "H200-SXM-141GB", "H20-96GB", "H800-SXM-80GB", "A100-SXM4-80GB", "A800-SXM4-80GB",
    "L40S", "L20", "L4", "A10", "T4", "V100-SXM2-32GB", "B200-SXM-180GB", "MI300X", "Ascend-910B",
)  # fmt: skip
COUNTS = (1, 8)
NOISE = 0.10  # log-normal measurement noise
HIDDEN = 0.2  # share of measured cells held back as the query


@dataclass
class NormalizeBenchRow:
    workloads: int
    seed: int
    rows: int
    query_rows: int
    seconds: float
    peak_mib: float
    median_error: float | None
    peak_tflops_median_error: float | None
    status: str


def synthetic_tables(workloads: int, seed: int = 1) -> tuple[pd.DataFrame, pd.DataFrame, np.ndarray, np.ndarray]:
    """(measurements, query, true query throughputs, peak-TFLOPS-ratio predictions of the query).

    Each job runs on 2-7 random cards at 1 and 8 cards; a fifth of its cells go to the query."""
    from fedopt.normalize.cards import CardResolver

    rng = np.random.default_rng(seed)
    res = CardResolver()
    cards = [res.resolve(c) for c in CARDS]
    bf16 = np.array([c.bf16_tflops for c in cards])
    mem = np.array([c.mem_bw_gbs for c in cards])
    ring = np.array([c.ring_gbs(8) for c in cards])
    eff = np.exp(rng.normal(0.0, 0.1, len(cards)))  # each card's achieved share of peak
    shares = rng.dirichlet((1.0, 1.0, 0.3), workloads)  # compute, memory, host on the reference card
    scale = np.exp(rng.normal(0.0, 1.0, workloads))
    overhead = np.exp(rng.normal(-2.0, 0.5, workloads))  # all-reduce cost per unit of traffic at 900 GB/s
    per_job = rng.integers(2, 8, workloads)
    w = np.repeat(np.arange(workloads), per_job * len(COUNTS))
    c = np.concatenate([np.repeat(rng.choice(len(cards), k, replace=False), len(COUNTS)) for k in per_job])
    n = np.tile(np.array(COUNTS, dtype=float), int(per_job.sum()))
    tau = shares[w, 0] * 989.0 / bf16[c] / eff[c] + shares[w, 1] * 3350.0 / mem[c] + shares[w, 2]
    slow = 1.0 + overhead[w] * 2.0 * (n - 1.0) / n * np.sqrt(900.0 / ring[c])
    truth = n * scale[w] / tau / slow
    measured = truth * np.exp(rng.normal(0.0, NOISE, len(truth)))
    names = np.array([f"job-{i:05d}" for i in range(workloads)])
    table = pd.DataFrame({"workload": names[w], "card_type": np.array(CARDS)[c], "cards": n.astype(int)})
    hide = rng.random(len(table)) < HIDDEN
    hide &= pd.Series(~hide).groupby(w).transform("sum").to_numpy() > 0  # every job keeps a measured cell
    meas = table[~hide].assign(throughput=measured[~hide])
    query = table[hide].reset_index(drop=True)
    # the baseline: the job's measured cells on other cards at the same count, times the BF16 peak ratio
    kept = meas.assign(c=c[~hide], per_peak=measured[~hide] / bf16[c[~hide]])
    mean_log = np.log(kept["per_peak"]).groupby([kept["workload"], kept["cards"]]).mean()
    key = pd.MultiIndex.from_arrays([query["workload"], query["cards"]])
    base = np.exp(mean_log.reindex(key).to_numpy()) * bf16[c[hide]]
    return meas.reset_index(drop=True), query, truth[hide], base


def run_normalize_bench(sizes: list[int], seeds: list[int], workdir: Path | None = None) -> list[NormalizeBenchRow]:
    """One ``fedopt normalize`` process per size and seed; error on the hidden cells. A run that
    fails keeps its files in ``workdir`` for a look; the others are removed."""
    from fedopt.bench import _run

    work = Path(workdir or tempfile.mkdtemp(prefix="fedopt-bench-normalize-"))
    work.mkdir(parents=True, exist_ok=True)
    rows = []
    for size in sizes:
        for seed in seeds:
            meas, query, truth, base = synthetic_tables(size, seed)
            m, q, p = (work / f"{x}-{size}-{seed}.csv" for x in ("M", "Q", "P"))
            meas.to_csv(m, index=False)
            query.to_csv(q, index=False)
            cmd = [sys.executable, "-m", "fedopt", "normalize", "-q"]
            cmd += ["--measurements", str(m), "--query", str(q), "--out", str(p)]
            code, secs, peak, err = _run(cmd)
            if code != 0 or not p.exists():
                status = f"exit {code}: {err.strip()[-80:]}"
                rows.append(NormalizeBenchRow(size, seed, len(meas), len(query), secs, peak, None, None, status))
                continue
            pred = pd.read_csv(p)["throughput"].to_numpy(dtype=float)
            err_model = float(np.median(np.abs(pred / truth - 1.0)))
            ok = np.isfinite(base)
            err_base = float(np.median(np.abs(base[ok] / truth[ok] - 1.0))) if ok.any() else None
            status = "ok" if np.isfinite(pred).all() and len(pred) == len(query) else "bad output"
            rows.append(NormalizeBenchRow(size, seed, len(meas), len(query), secs, peak, err_model, err_base, status))
            for f in (m, q, p):
                f.unlink()
    return rows


def format_normalize_table(rows: list[NormalizeBenchRow]) -> str:
    head = f"{'workloads':>9}{'seed':>5}{'rows':>8}{'query':>7}{'time s':>9}{'peak MiB':>10}"
    head += f"{'median err':>12}{'peak-TFLOPS':>13}  status"
    lines = [head, "-" * len(head)]
    for r in rows:
        pct = lambda v: "-" if v is None else f"{v:.1%}"  # noqa: E731
        lines.append(
            f"{r.workloads:>9}{r.seed:>5}{r.rows:>8}{r.query_rows:>7}{r.seconds:>9.1f}{r.peak_mib:>10.0f}"
            f"{pct(r.median_error):>12}{pct(r.peak_tflops_median_error):>13}  {r.status}"
        )
    return "\n".join(lines)
