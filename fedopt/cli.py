"""The command line: ``python -m fedopt COMMAND ...``; ``--help`` on every command."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable

from fedopt.errors import EXIT_BAD_INPUT, EXIT_INTERRUPTED, EXIT_VIOLATIONS, FedoptError, InputError

Command = Callable[[argparse.Namespace], int]


def _out(text: str, to_stderr: bool = False) -> None:
    print(text, file=sys.stderr if to_stderr else sys.stdout, flush=True)


# ---------------------------------------------------------------------- solve
def cmd_solve(args: argparse.Namespace) -> int:
    from fedopt.atomic import check_writable, write_atomic
    from fedopt.backends import get_backend
    from fedopt.solve import solve

    try:
        get_backend(args.backend)
    except ValueError as exc:
        raise InputError("--backend", str(exc)) from None
    if args.output:
        check_writable(args.output, "--output")
    from fedopt.errors import EXIT_INTERRUPTED
    from fedopt.signals import graceful_stop

    with graceful_stop() as stop:
        result = _solve_cli(args, solve, stop)
    text = result.to_json(reproducible=args.reproducible)
    if args.output:
        write_atomic(args.output, text + "\n")
        if not args.quiet:
            _out(result.summary())
    else:
        _out(text)
        if not args.quiet:
            _out(result.summary(), to_stderr=True)
    if stop():
        _out("fedopt: interrupted: wrote the best plan found so far", to_stderr=True)
        return EXIT_INTERRUPTED
    return 0


def _solve_cli(args: argparse.Namespace, solve, stop):
    return solve(
        args.instance,
        should_stop=stop,
        method=args.method,
        backend=args.backend,
        time_limit=args.time_limit,
        seed=args.seed,
        preset=args.preset,
        threads=args.threads,
        pop_parts=args.pop_parts,
        verbose=args.verbose,
        quiet=args.quiet,
    )


def add_solve(sub) -> None:
    p = sub.add_parser(
        "solve",
        help="solve an instance into a checked plan",
        description="Solve a model-v1 instance; the plan is checked before it is written.",
    )
    p.add_argument("instance", help="instance.json (model v1); - reads standard input")
    p.add_argument("-o", "--output", help="write the plan here (atomically); default: stdout")
    p.add_argument(
        "--method",
        default="auto",
        help="auto (default: exact while small, else colgen) | exact | colgen | greedy | pop; "
        "horizon instances: auto | exact | colgen | rolling",
    )
    p.add_argument("--backend", default="highs", help="highs (default) | cpsat | pyomo | pyomo:SOLVER")
    p.add_argument("--pop-parts", type=int, default=4, help="sub-problems of --method pop (default 4)")
    p.add_argument("--time-limit", type=float, default=None, help="seconds (default: the preset's)")
    p.add_argument("--seed", type=int, default=0, help="random seed (same seed, same plan)")
    p.add_argument("--preset", default=None, help="solver preset in solvers/ (default, fast, thorough) or a .toml path")
    p.add_argument("--threads", type=int, default=None, help="solver threads (default: the preset's)")
    p.add_argument("-q", "--quiet", action="store_true", help="print no progress and no summary")
    p.add_argument(
        "--reproducible", action="store_true", help="leave wall-clock timings out of the plan (same input, same bytes)"
    )
    p.add_argument("-v", "--verbose", action="store_true", help="show the solver's log")
    p.set_defaults(func=cmd_solve)


# ---------------------------------------------------------------------- check
def cmd_check(args: argparse.Namespace) -> int:
    from fedopt.check import check_plan
    from fedopt.instance import load_instance, load_plan

    if args.instance == args.plan == "-":
        raise InputError("plan", "standard input can hold the instance or the plan, not both")
    inst = load_instance(args.instance)
    plan = load_plan(args.plan)
    verdict = check_plan(inst, plan)
    if args.json:
        _out(
            json.dumps(
                {
                    "ok": verdict.ok,
                    "objective": verdict.objective,
                    "terms": verdict.terms,
                    "violations": [{"rule": v.rule, "message": v.message} for v in verdict.violations],
                },
                indent=1,
            )
        )
    else:
        for v in verdict.violations:
            _out(str(v))
        terms = "  ".join(f"{k} {v:.6g}" for k, v in verdict.terms.items())
        verdict_word = "OK" if verdict.ok else f"{len(verdict.violations)} violation(s)"
        _out(f"{verdict_word}; objective {verdict.objective:.9g} ({terms})")
    return 0 if verdict.ok else EXIT_VIOLATIONS


def add_check(sub) -> None:
    p = sub.add_parser(
        "check",
        help="check a plan against every rule; exit 1 on violations",
        description="Recompute every rule (1-9, and horizon timing) and the objective of a plan from the instance alone.",
    )
    p.add_argument("instance", help="instance.json (model v1); - reads standard input")
    p.add_argument("plan", help="plan.json; - reads standard input (one of the two)")
    p.add_argument("--json", action="store_true", help="machine-readable verdict")
    p.set_defaults(func=cmd_check)


# ---------------------------------------------------------------------- schema / info
def cmd_schema(args: argparse.Namespace) -> int:
    from fedopt.instance.schema import InstanceDoc, PlanDoc

    if args.plan and args.cards:
        raise InputError("schema", "choose one of --plan, --cards")
    if args.cards:
        from fedopt.normalize.cards_file import cards_file_schema

        _out(json.dumps(cards_file_schema(), indent=1))
        return 0
    model = PlanDoc if args.plan else InstanceDoc
    schema = model.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "fedopt plan (model v1)" if args.plan else "fedopt instance (model v1)"
    _out(json.dumps(schema, indent=1))
    return 0


def add_schema(sub) -> None:
    p = sub.add_parser(
        "schema",
        help="print the JSON Schema of instances (or plans, or normalize --cards files)",
        description="Print the JSON Schema (draft 2020-12) of the model-v1 instance format (--plan: plans; --cards: "
        "the card types normalize --cards reads).",
    )
    p.add_argument("--plan", action="store_true", help="the plan format instead")
    p.add_argument("--cards", action="store_true", help="the format of normalize --cards files instead")
    p.set_defaults(func=cmd_schema)


def cmd_info(args: argparse.Namespace) -> int:
    from fedopt.info import describe
    from fedopt.instance import load_instance

    _out(describe(load_instance(args.instance)))
    return 0


def add_info(sub) -> None:
    p = sub.add_parser(
        "info", help="a readable summary of an instance", description="Cards by type and region, demand against capacity, links."
    )
    p.add_argument("instance")
    p.set_defaults(func=cmd_info)


# ---------------------------------------------------------------------- generate
def cmd_generate(args: argparse.Namespace) -> int:
    from fedopt.atomic import check_writable, write_atomic
    from fedopt.generate import PRESETS, generate

    if args.preset not in PRESETS:
        raise InputError("--preset", f"unknown preset {args.preset!r}; choose {', '.join(PRESETS)}")
    if args.output:
        check_writable(args.output, "--output")
    doc = generate(args.preset, seed=args.seed, name=args.name, horizon=args.horizon, calibrated=args.calibrated_rates)
    text = json.dumps(doc, indent=1 if args.indent else None)
    if args.output:
        write_atomic(args.output, text + "\n")
        n_cards = sum(p["cards"] for c in doc["clusters"] for p in c["pools"])
        _out(f"wrote {args.output}: {n_cards} cards, {len(doc['jobs'])} jobs, {len(doc['regions'])} regions", to_stderr=True)
    else:
        _out(text)
    return 0


def add_generate(sub) -> None:
    p = sub.add_parser(
        "generate",
        help="make a realistic instance from the public traces",
        description="Realistic model-v1 instances: Alibaba fleet mix, Philly job sizes and tenants, "
        "roofline rates. Same preset and seed, same file.",
    )
    p.add_argument("--preset", default="m", help="s (~128 cards), m (~1k), l (~10k), xl (~100k)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--name", default=None, help="instance name (default gen-PRESET-SEED)")
    p.add_argument("--horizon", type=int, default=None, help="add a horizon of this many one-hour slots")
    p.add_argument(
        "--calibrated-rates",
        action="store_true",
        help="job rates with the per-card efficiencies calibrated on real measurements (docs/normalize.md), not the "
        "plain roofline of the workload profiles",
    )
    p.add_argument("--indent", action="store_true", help="indent the JSON for reading")
    p.add_argument("-o", "--output", help="file to write (atomically); default stdout")
    p.set_defaults(func=cmd_generate)


# ---------------------------------------------------------------------- bench
def cmd_bench(args: argparse.Namespace) -> int:
    from fedopt.bench import format_table, run_bench
    from fedopt.generate import PRESETS
    from fedopt.methods import METHODS

    try:
        seeds = [int(s) for s in args.seeds.split(",") if s]
    except ValueError:
        raise InputError("--seeds", f"not a comma-separated list of integers: {args.seeds!r}") from None
    if args.normalize:
        return _bench_normalize(args, seeds)
    if args.preset not in PRESETS:
        raise InputError("--preset", f"unknown preset {args.preset!r}; choose {', '.join(PRESETS)}")
    methods = [m for m in args.methods.split(",") if m]
    for m in methods:
        if m not in METHODS:
            raise InputError("--methods", f"unknown method {m!r}; choose from {', '.join(METHODS)}")
    if args.horizon is not None and args.horizon < 1:
        raise InputError("--horizon", "must be a whole number of slots >= 1")
    rows = run_bench(args.preset, seeds, methods, args.time_limit, args.workdir, horizon=args.horizon)
    _out(format_table(rows))
    if args.json:
        from dataclasses import asdict

        _out(json.dumps([asdict(r) for r in rows], indent=1))
    return 0


def _bench_normalize(args: argparse.Namespace, seeds: list[int]) -> int:
    from fedopt.normalize.bench import format_normalize_table, run_normalize_bench

    try:
        sizes = [int(s) for s in args.normalize.split(",") if s.strip()]
    except ValueError:
        sizes = []
    if not sizes or min(sizes) < 1 or max(sizes) > 1_000_000:
        raise InputError("--normalize", f"a comma-separated list of workload counts (1 to 1,000,000), not {args.normalize!r}")
    rows = run_normalize_bench(sizes, seeds, args.workdir)
    _out(format_normalize_table(rows))
    if args.json:
        from dataclasses import asdict

        _out(json.dumps([asdict(r) for r in rows], indent=1))
    return 0 if all(r.status == "ok" for r in rows) else 1


def add_bench(sub) -> None:
    p = sub.add_parser(
        "bench",
        help="compare methods on generated instances (objective, bound, gap, time, memory, check)",
        description="Each method and seed runs `fedopt solve` in a fresh process; the plan is checked. "
        "With --normalize, `fedopt normalize` runs instead, on synthetic measurement tables.",
    )
    p.add_argument("--preset", default="m", help="generator preset: s | m | l | xl")
    p.add_argument("--seeds", default="1", help="comma-separated seeds, e.g. 1,2,3")
    p.add_argument("--methods", default="colgen,exact,greedy,pop", help="comma-separated methods")
    p.add_argument("--time-limit", type=float, default=60.0, help="seconds per solve")
    p.add_argument("--workdir", default=None, help="keep generated instances here (default: a temporary folder)")
    p.add_argument("--horizon", type=int, default=None, help="add a horizon of this many one-hour slots")
    p.add_argument("--json", action="store_true", help="also print the rows as JSON")
    p.add_argument(
        "--normalize",
        metavar="SIZES",
        help="instead: time and memory of `fedopt normalize` on synthetic tables of this many workloads "
        "(comma-separated, e.g. 200,2000), and its error on the cells it hid",
    )
    p.set_defaults(func=cmd_bench)


# ---------------------------------------------------------------------- replan
def cmd_replan(args: argparse.Namespace) -> int:
    from fedopt.replan import run_cron

    return run_cron(args)


def add_replan(sub) -> None:
    p = sub.add_parser(
        "replan",
        help="re-plan the fleet from its current state (cron-safe); writes the plan and the diff",
        description="Re-plan from a state (a v1 instance whose running jobs carry their parts), warm-started from the "
        "previous plan. Writes the plan and a diff (start/keep/migrate/preempt/pending, with reasons) atomically. "
        "Exit: 0 ok, 2 bad input, 3 infeasible, 4 another run holds the lock, 130 interrupted.",
    )
    p.add_argument("--state", required=True, help="state.json: the fleet now (model v1)")
    p.add_argument("--previous", default=None, help="previous plan to start from (default: the output file, if present)")
    p.add_argument("-o", "--output", required=True, help="plan.json to write (atomically)")
    p.add_argument("--diff", default=None, help="diff file (default: OUTPUT with .diff.json)")
    p.add_argument("--max-moves", type=int, default=None, help="at most N running jobs migrated or preempted")
    p.add_argument("--method", default="auto", help="auto | exact | colgen | greedy | pop")
    p.add_argument("--time-limit", type=float, default=None, help="seconds (default: the preset's)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--lock", default=None, help="lock file (default: OUTPUT.lock)")
    p.add_argument("--log", default=None, help="append one JSON line per run here (default: stderr)")
    p.add_argument("-q", "--quiet", action="store_true", help="no summary on stdout")
    p.set_defaults(func=cmd_replan)


# ---------------------------------------------------------------------- explain
def cmd_explain(args: argparse.Namespace) -> int:
    from fedopt.explain import explain, format_explanation
    from fedopt.instance import load_instance, load_plan

    inst = load_instance(args.instance)
    plan = load_plan(args.plan)
    e = explain(inst, plan, args.job)
    _out(json.dumps(e, indent=1) if args.json else format_explanation(e))
    return 0


def add_explain(sub) -> None:
    p = sub.add_parser(
        "explain",
        help="why a job is placed where it is, or not placed",
        description="The job's candidate placements with their value, reduced cost at the resources' prices, "
        "and the limits (pool, link, quota, storage, affinity) that block them given the rest of the plan.",
    )
    p.add_argument("plan")
    p.add_argument("--instance", required=True)
    p.add_argument("--job", required=True)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_explain)


# ---------------------------------------------------------------------- main
COMMANDS = [add_solve, add_check, add_schema, add_info, add_generate, add_bench, add_replan, add_explain]

# Commands that live beside the feature they drive: "module:function" adding a subparser.
FEATURE_COMMANDS = [
    "fedopt.normalize.cli:add_normalize",
    "fedopt.k8s.cli:add_import_k8s",
    "fedopt.export.cli:add_export",
    "fedopt.report.cli:add_report",
    "fedopt.simulate.cli:add_simulate",
]


def _feature_commands() -> list[Callable]:
    import importlib

    out = []
    for spec in FEATURE_COMMANDS:
        module, _, func = spec.partition(":")
        try:
            out.append(getattr(importlib.import_module(module), func))
        except ModuleNotFoundError as exc:  # a feature not built yet
            if exc.name is None or not module.startswith(exc.name):
                raise
    return out


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="fedopt",
        description="Optimal placement of AI jobs on federations of GPU/NPU clusters.",
        epilog="Exit status: 0 ok, 1 violations (check), 2 bad input, 3 infeasible, 4 locked, 5 too large, 130 interrupted.",
    )
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    for add in COMMANDS + _feature_commands():
        add(sub)
    return p


class _ArgumentParserExit(Exception):
    pass


def main(argv: list[str] | None = None) -> int:
    p = parser()
    args = p.parse_args(argv)  # argparse exits 2 on bad arguments, as our bad input does
    if not getattr(args, "func", None):
        p.print_help()
        return EXIT_BAD_INPUT
    try:
        return int(args.func(args))
    except FedoptError as exc:
        _out(f"fedopt: error: {exc}", to_stderr=True)
        return exc.exit_status
    except KeyboardInterrupt:
        _out("fedopt: interrupted", to_stderr=True)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return 0


def entry() -> None:
    """Console entry point: exit with ``main()``'s status.

    If a HiGHS solve was abandoned (it ignored an interrupt), its thread is still inside HiGHS and
    interpreter finalization would abort the process: outputs are already written and flushed,
    so leave at once with the status.
    """
    import os

    code = main()
    children = sys.modules.get("fedopt.backends.highs_process")
    if children is not None:
        children.kill_all()  # a relaxation still solving in a child process ends with us
    highs = sys.modules.get("fedopt.backends.highs")
    if highs is not None and any(t.is_alive() for t in highs.ABANDONED):
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)


if __name__ == "__main__":
    entry()
