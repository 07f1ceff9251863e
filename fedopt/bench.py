"""Benchmarks side by side (``fedopt bench``): each method and seed in a fresh process.

Wall time and peak memory are those of the whole ``fedopt solve`` process (load included; memory
with its relaxation child added, sampled);
the verdict is the independent checker's on the written plan.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path


@dataclass
class BenchRow:
    preset: str
    seed: int
    method: str
    objective: float | None
    bound: float | None
    gap: float | None
    seconds: float
    peak_mib: float
    verdict: str
    status: str


def _tree_rss_mib(pid: int) -> float:
    """Resident memory of a process and its descendants (Linux /proc; 0 elsewhere)."""
    total, todo = 0.0, [pid]
    while todo:
        p = todo.pop()
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += float(line.split()[1]) / 1024.0
            for task in Path(f"/proc/{p}/task").iterdir():
                todo += [int(c) for c in (task / "children").read_text().split()]
        except (OSError, ValueError):
            continue
    return total


def _run(cmd: list[str]) -> tuple[int, float, float, str]:
    """Exit status, wall seconds, peak MiB and stderr of ``cmd``. Peak memory: the larger of the
    process's own peak and the sum over it and its children (the relaxation solves in one),
    sampled every 0.2 s."""
    t = time.perf_counter()
    with tempfile.TemporaryFile("w+") as err_file:
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err_file, text=True)
        tree_peak = 0.0
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            tree_peak = max(tree_peak, _tree_rss_mib(proc.pid))
            time.sleep(0.2)
        err_file.seek(0)
        err = err_file.read()
    proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, time.perf_counter() - t, max(usage.ru_maxrss / 1024.0, tree_peak), err


def run_bench(
    preset: str,
    seeds: list[int],
    methods: list[str],
    time_limit: float,
    workdir: Path | None = None,
    extra: list[str] | None = None,
    horizon: int | None = None,
) -> list[BenchRow]:
    from fedopt.check import check_plan
    from fedopt.generate import generate
    from fedopt.instance import load_instance, load_plan

    work = Path(workdir or tempfile.mkdtemp(prefix="fedopt-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    rows = []
    for seed in seeds:
        inst_path = work / (f"{preset}-{seed}.json" if horizon is None else f"{preset}-{seed}-h{horizon}.json")
        if not inst_path.exists():
            inst_path.write_text(json.dumps(generate(preset, seed=seed, horizon=horizon)))
        inst = load_instance(inst_path)
        for method in methods:
            plan_path = work / f"{preset}-{seed}.{method}.plan.json"
            cmd = [
                sys.executable,
                "-m",
                "fedopt",
                "solve",
                str(inst_path),
                "-o",
                str(plan_path),
                "--method",
                method,
                "--time-limit",
                str(time_limit),
                "--seed",
                str(seed),
                "-q",
                *(extra or []),
            ]
            code, secs, peak, err = _run(cmd)
            if code != 0 or not plan_path.exists():
                rows.append(
                    BenchRow(preset, seed, method, None, None, None, secs, peak, f"exit {code}: {err.strip()[-80:]}", "error")
                )
                continue
            plan = load_plan(plan_path)
            verdict = check_plan(inst, plan)
            rows.append(
                BenchRow(
                    preset,
                    seed,
                    method,
                    plan.objective,
                    plan.bound,
                    plan.gap,
                    secs,
                    peak,
                    "ok" if verdict.ok else f"{len(verdict.violations)} violations",
                    plan.status,
                )
            )
            plan_path.unlink()
    return rows


def format_table(rows: list[BenchRow]) -> str:
    head = f"{'preset':<7}{'seed':>5}  {'method':<8}{'objective':>12}{'bound':>12}{'gap':>9}"
    head += f"{'time s':>9}{'peak MiB':>10}  {'status':<9}check"
    lines = [head, "-" * len(head)]
    for r in rows:
        f = lambda v: "-" if v is None else f"{v:.6g}"  # noqa: E731
        gap = "-" if r.gap is None else f"{r.gap:.3%}"
        lines.append(
            f"{r.preset:<7}{r.seed:>5}  {r.method:<8}{f(r.objective):>12}{f(r.bound):>12}{gap:>9}{r.seconds:>9.1f}"
            f"{r.peak_mib:>10.0f}  {r.status:<9}{r.verdict}"
        )
    return "\n".join(lines)
