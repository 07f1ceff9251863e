"""``fedopt simulate``: replay a trace on a fleet under one or more policies."""

from __future__ import annotations

import argparse
import json
import re
import sys

from fedopt.errors import InputError

_UNITS = {"s": 1 / 60, "m": 1.0, "min": 1.0, "h": 60.0, "d": 1440.0}


def parse_minutes(text: str) -> float:
    """``5m``, ``30s``, ``1h``, ``0.5d`` or a bare number of minutes."""
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*([a-z]*)\s*", text or "")
    if not m or m.group(2) not in ("", *_UNITS):
        raise InputError("--interval", f"not a duration like 5m, 30s, 1h: {text!r}")
    value = float(m.group(1)) * _UNITS.get(m.group(2) or "m", 1.0)
    if value <= 0:
        raise InputError("--interval", f"must be positive: {text!r}")
    return value


def _progress(every_hours: float):
    state = {"next": 0.0}

    def report(sim) -> None:
        if sim.t + 1e-9 < state["next"]:
            return
        state["next"] = sim.t + every_hours
        r = sim.replans[-1] if sim.replans else {}
        print(
            f"  [{sim.policy.name}] t={sim.t:7.1f}h running {len(sim.running):>6} pending {len(sim.pending):>6} "
            f"finished {int((sim.finish == sim.finish).sum()):>7}  last re-plan {r.get('seconds', 0):.2f}s",
            file=sys.stderr,
            flush=True,
        )

    return report


def cmd_simulate(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from fedopt.atomic import check_folder, check_writable, write_atomic
    from fedopt.simulate.policies import POLICIES
    from fedopt.simulate.report import format_table, plot
    from fedopt.simulate.run import SimConfig, prepare, simulate

    policies = [p.strip() for p in args.policy.split(",") if p.strip()]
    if not policies:
        raise InputError("--policy", "no policy given")
    for p in policies:
        if p not in POLICIES:
            raise InputError("--policy", f"unknown policy {p!r}; choose from {', '.join(POLICIES)}")
    cfg = SimConfig(
        trace=args.trace,
        fleet=args.fleet,
        policy=policies[0],
        interval_minutes=parse_minutes(args.interval),
        days=args.days,
        seed=args.seed,
        load=args.load,
        drain_days=None if args.drain_days is not None and args.drain_days < 0 else args.drain_days,
        max_moves=args.max_moves,
        move_candidates=args.move_candidates,
        max_pending=args.max_pending,
        replan_time_limit=args.replan_time_limit,
        method=args.method,
        weighting=args.weighting,
        check=args.check,
    )
    cfg.validate()
    if args.json:
        check_writable(args.json, "--json")
    if args.plots:
        check_folder(args.plots, "--plots")
    setup = prepare(cfg)
    n_cards = int(setup.fleet_inst.pool_cards.sum())
    if not args.quiet:
        print(
            f"fleet {args.fleet}: {n_cards} cards in {len(setup.fleet_inst.cluster_ids)} clusters; "
            f"{len(setup.jobs)} jobs from {setup.stream.copies} window(s) of {args.trace} over {args.days:g} days",
            file=sys.stderr,
            flush=True,
        )
    reports, sims = {}, {}
    for p in policies:
        report, sim = simulate(replace(cfg, policy=p), setup, progress=None if args.quiet else _progress(args.progress_hours))
        reports[p] = report
        sims[p] = sim
    print(format_table(reports))
    if args.json:
        doc = reports[policies[0]] if len(policies) == 1 else {"policies": reports}
        write_atomic(args.json, json.dumps(doc, indent=1, allow_nan=False) + "\n")
    if args.plots:
        for path in plot(sims, args.plots):
            if not args.quiet:
                print(f"wrote {path}", file=sys.stderr)
    bad = [p for p, r in reports.items() if r["capacity_violations"] or r["check_violations"]]
    if bad:
        print(f"fedopt: error: capacity or rule violations under {', '.join(bad)} (see the JSON report)", file=sys.stderr)
        return 1
    return 0


def add_simulate(sub) -> None:
    p = sub.add_parser(
        "simulate",
        help="replay a job trace on a fleet under a re-planning policy; JCT, queueing, utilization, traffic, moves",
        description="Replays job arrivals from a real trace (windows overlaid to the requested load) on a fleet, "
        "re-plans every interval with each policy given, and reports average and p95 completion time, queueing "
        "delay, utilization (raw and normalized by rate), makespan, cross-region traffic and egress cost, "
        "migrations and preemptions. See docs/simulate.md.",
    )
    p.add_argument("--trace", default="philly", help="philly | alibaba | a CSV (arrival, duration or end, cards columns)")
    p.add_argument(
        "--fleet", default="l", help="generator preset (s, m, l, xl) or a model-v1 instance file (its jobs are ignored)"
    )
    p.add_argument(
        "--policy", default="fedopt", help="fedopt | greedy | fifo-backfill, or several comma-separated to compare them"
    )
    p.add_argument("--interval", default="5m", help="re-planning interval, e.g. 5m, 30s, 1h (default 5m)")
    p.add_argument("--days", type=float, default=1.0, help="days of arrivals (default 1)")
    p.add_argument("--seed", type=int, default=0, help="seed of the fleet, the trace windows and the job mapping")
    p.add_argument("--load", type=float, default=0.7, help="card-hours asked / fleet card-hours over the window (default 0.7)")
    p.add_argument(
        "--drain-days",
        type=float,
        default=30.0,
        help="after the last arrival, run until every job ends but at most this long (default 30; negative: no limit)",
    )
    p.add_argument("--max-moves", type=int, default=None, help="fedopt: at most N running jobs moved or preempted per re-plan")
    p.add_argument(
        "--move-candidates",
        type=int,
        default=None,
        help="fedopt: running jobs offered for moves per re-plan (default 3 x max-moves, at least 8; 64 without a budget)",
    )
    p.add_argument(
        "--max-pending", type=int, default=None, help="pending jobs considered per re-plan (default 400 fedopt, 2000 others)"
    )
    p.add_argument(
        "--replan-time-limit",
        type=float,
        default=3.0,
        help="fedopt: seconds per re-plan solve (default 3); a run is reproducible when no re-plan reaches it "
        "('replans at limit' 0)",
    )
    p.add_argument("--method", default="auto", help="fedopt: solve method (auto, exact, colgen, pop)")
    p.add_argument(
        "--weighting",
        default="srpt",
        help="fedopt: srpt (priority / remaining work: short jobs first) or throughput (the jobs' own priorities)",
    )
    p.add_argument("--plots", default=None, metavar="DIR", help="write utilization.png and completion_cdf.png here")
    p.add_argument("--json", default=None, metavar="OUT", help="write the full report(s) as JSON (atomically)")
    p.add_argument("--check", action="store_true", help="check the whole fleet's plan at every re-plan (slow)")
    p.add_argument("--progress-hours", type=float, default=6.0, help="simulated hours between progress lines on stderr")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress lines")
    p.set_defaults(func=cmd_simulate)
