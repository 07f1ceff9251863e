"""``fedopt report``: a plan as one self-contained HTML page (or its figures as PNG files)."""

from __future__ import annotations

import argparse
import sys


def cmd_report(args: argparse.Namespace) -> int:
    from fedopt.atomic import check_folder, check_writable, write_atomic
    from fedopt.errors import InputError
    from fedopt.instance import load_instance, load_plan

    check_writable(args.output, "--output")
    if args.png_dir:
        check_folder(args.png_dir, "--png-dir")
    inst = load_instance(args.instance)
    plan = load_plan(args.plan)
    unknown = sorted({a.job for a in plan.assignments} - set(inst.job_ids))
    if unknown:
        raise InputError("assignments", f"jobs not in {args.instance}: {', '.join(unknown[:5])}", args.plan)
    from fedopt.report import analyze, render_report

    view = analyze(inst, plan)
    write_atomic(args.output, render_report(inst, plan, title=args.title, view=view))
    if args.png_dir:
        from pathlib import Path

        from fedopt.report import plot_convergence, plot_data_reads, plot_gantt, plot_pending, plot_pool_use, plot_region_graph
        from fedopt.report._figure import png_bytes

        out = Path(args.png_dir)
        out.mkdir(parents=True, exist_ok=True)
        figures = {
            "pools": plot_pool_use(inst, plan, view),
            "links": plot_region_graph(inst, plan, view) if len(inst.link_gbps) else None,
            "data": plot_data_reads(inst, plan, view),
            "pending": plot_pending(inst, plan, view),
            "convergence": plot_convergence(plan),
            "gantt": plot_gantt(inst, plan, view),
        }
        for name, fig in figures.items():
            if fig is not None:
                write_atomic(out / f"{name}.png", png_bytes(fig))
    if not args.quiet:
        print(f"wrote {args.output}: {len(view.placed)} placed, {len(view.unplaced)} not placed", file=sys.stderr)
    return 0


def add_report(sub) -> None:
    p = sub.add_parser(
        "report",
        help="a plan as one self-contained HTML page with figures",
        description="Cards used and idle per pool, link use, data locality, unplaced jobs and why, convergence and, "
        "for horizon plans, a Gantt chart; images inline, no network. See docs/ecosystem.md.",
    )
    p.add_argument("plan", help="plan.json")
    p.add_argument("--instance", required=True, help="the plan's instance.json")
    p.add_argument("-o", "--output", required=True, help="report.html to write (atomically)")
    p.add_argument("--png-dir", help="also write each figure as a PNG into this folder")
    p.add_argument("--title", help="page title")
    p.add_argument("-q", "--quiet", action="store_true")
    p.set_defaults(func=cmd_report)
