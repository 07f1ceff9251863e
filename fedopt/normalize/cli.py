"""``python -m fedopt normalize``: predict throughputs, evaluate the model, print an instance's rate table.

normalize --measurements M.csv --query Q.csv --out P.csv [--cards cards.json] [--interval 0.8] [--replicas [PATTERNS]]
normalize --evaluate [--measurements M.csv | --held-out [--sets SET,...]] ...   (cli_evaluate.py)
normalize --measurements M.csv --speedups H100,A100,H20 [--count N] [--json]
normalize --measurements M.csv --shares [--json]
normalize --table instance.json [--by-job] [--json]
normalize --catalog [--cards cards.json] [--json]   (cli_cards.py)
normalize --resolve [NAME ...] [--measurements M.csv] [--query Q.csv] [--cards cards.json] [--json]   (cli_cards.py)
normalize --calibrate | --calibrate-intervals
"""

from __future__ import annotations

import argparse
import io
import sys

from fedopt.atomic import check_writable
from fedopt.errors import InputError


def _out(text: str, to_stderr: bool = False) -> None:
    print(text, file=sys.stderr if to_stderr else sys.stdout, flush=True)


def _progress(args):
    """A status printer for long fits and evaluations: on stderr when it is a terminal and not --quiet
    (as ``solve`` shows its rounds), else None."""
    if args.quiet or not sys.stderr.isatty():
        return None
    return lambda line: _out(f"fedopt: {line}", True)


def _resolver(args):
    from fedopt.normalize.cards import CardResolver
    from fedopt.normalize.cards_file import load_cards_file

    extra = load_cards_file(args.cards) if args.cards else []
    return CardResolver(extra=extra)


def _read_measurements(args, extra: tuple[str, ...] = ()):
    """--measurements, checked; a note names the rows skipped for a blank throughput. ``extra``:
    other columns to keep where the file has them."""
    from fedopt.normalize.data import MEASUREMENT_COLUMNS, read_table

    meas = read_table(args.measurements, MEASUREMENT_COLUMNS, "--measurements")
    skipped = meas.attrs.get("unmeasured_lines", [])
    if skipped and not args.quiet:
        shown = ", ".join(map(str, skipped[:5])) + (f" and {len(skipped) - 5} more" if len(skipped) > 5 else "")
        lines = "lines" if len(skipped) > 1 else "line"
        what = f"{len(skipped)} row(s) with a blank or NA throughput skipped ({lines} {shown})"
        _out(f"fedopt: note: {args.measurements}: {what}", True)
    if not (meas["throughput"] > 0).any():
        raise InputError("throughput", "no positive throughput to calibrate on", str(args.measurements))
    return meas[list(MEASUREMENT_COLUMNS) + [c for c in extra if c in meas.columns]]


def _fit_settings(args, exclude: tuple[str, ...] | None = None) -> dict:
    """How the command fits a user's file: calibrated card and architecture priors (unless
    --no-priors) and the calibrated scale-out slowdown as the prior of how jobs slow past one node;
    ``exclude``: data sets the priors must not have seen (calibrated afresh without them);
    --replicas: jobs whose named model fits on one card pay no all-reduce overhead."""
    from fedopt.normalize.calibrate import fit_settings

    return fit_settings(priors=not args.no_priors, exclude=exclude, replicas=args.replicas)


def _fit(args, meas, resolver):
    from fedopt.normalize.model import ThroughputModel

    return ThroughputModel(resolver=resolver, **_fit_settings(args)).fit(meas, progress=_progress(args))


def _predict(args) -> int:
    import numpy as np

    from fedopt.atomic import write_atomic
    from fedopt.normalize.data import QUERY_COLUMNS, read_table

    resolver = _resolver(args)
    meas = _read_measurements(args)
    query, raw = read_table(args.query, QUERY_COLUMNS, "--query", raw=True)
    model = _fit(args, meas, resolver)
    pred = model.predict(query)
    if not np.isfinite(pred).all():  # the model guarantees it; never write a broken file
        raise RuntimeError("non-finite prediction")
    raw["throughput"] = [f"{v:.6g}" for v in pred]
    basis = model.basis(query) if args.interval is not None or not args.quiet else None
    if args.interval is not None:
        from fedopt.normalize.intervals import bounds, scale_for

        scale = 1.0
        if not args.fixed_intervals:  # the file's own leave-one-card-out says how hard it is
            scale, level, rows = scale_for(meas, progress=_progress(args), resolver=resolver, **_fit_settings(args))
            if not args.quiet:
                said = (
                    f"mean |ln(pred / measured)| {level:.3f} over {rows} rows"
                    if rows
                    else "no workload on two card types, nothing to hide: the calibrated widening of such files"
                )
                _out(
                    f"fedopt: note: interval widths x{scale:.2f} the calibrated table's, from M.csv's own "
                    f"leave-one-card-out ({said}); --fixed-intervals: the table's",
                    True,
                )
        low, high = bounds(pred, basis, args.interval, scale=scale)
        raw["throughput_low"] = ["" if v != v else f"{v:.6g}" for v in low]  # NaN: no evaluated error to go by
        raw["throughput_high"] = ["" if v != v else f"{v:.6g}" for v in high]
    buf = io.StringIO()
    raw.to_csv(buf, index=False, lineterminator="\n")
    write_atomic(args.out, buf.getvalue())
    if not args.quiet:
        _basis_notes(basis, query, resolver, meas, one_card_type=model.one_card_type(), priors=not args.no_priors)
        _out(f"wrote {args.out}: {len(raw)} predictions from {int((meas['throughput'] > 0).sum())} measurements", True)
    return 0


def _basis_notes(basis, query, resolver, meas, one_card_type: bool = False, priors: bool = True) -> None:
    """The query rows whose predictions rest on the least (``basis``: ThroughputModel.basis of
    each row), the card names of either file read as a related card, and a file where no workload
    ran on two card types (its ratios between cards cannot come from it), on stderr."""
    from fedopt.normalize.cards import missing_variant

    if one_card_type:  # ThroughputModel.one_card_type: no workload of the fit on two card types
        how = (
            "the card specs and calibrated priors, moved toward the calibration's ratios (at most 1.5x toward its "
            "benchmark of the workload's name, else 1.2x toward all its workloads')"
            if priors
            else "the card specs and common time shares (--no-priors)"
        )
        _out(
            "fedopt: note: no workload of --measurements ran on two card types, so the file cannot show how its jobs "
            f"split their time: the ratios between cards rest on {how} (such files: 21% median error on the held-out "
            "sets; docs/normalize.md, A file of one card type)",
            True,
        )

    unknown = sorted(c for c in set(query["card_type"]) if resolver.resolve(c) is None)
    if unknown:
        names = ", ".join(map(repr, unknown))
        _out(
            f"fedopt: note: no specs for card type(s) {names}: a typical card, scaled by its own measurements if any "
            "(normalize --resolve says why; --cards FILE gives a card's figures)",
            True,
        )
    names = sorted(set(meas["card_type"].astype(str)) | set(query["card_type"].astype(str)))
    approx = [f"{n!r} as {card.id}" for n in names if missing_variant(n, card := resolver.resolve(n))]
    if approx:
        _out(
            f"fedopt: note: no specs of their own for {', '.join(approx)}: read as that card (a SUPER or Ti has "
            "more SMs or bandwidth; another memory size, other memory for the fit and often bandwidth; another form, "
            "NVL, PCIe or SXM, other links and power); --cards FILE "
            "gives a card's own figures",
            True,
        )
    new = sorted(set(query.loc[basis == "new architecture", "card_type"].astype(str)))
    if new:
        _out(
            f"fedopt: note: {', '.join(map(repr, new))}: no card of the same architecture measured; predicted from "
            "specs with an efficiency inferred from the other architectures, the least certain case "
            "(docs/normalize.md, New architectures)",
            True,
        )
    unmeasured = sorted(set(query.loc[basis == "workload unmeasured", "workload"].astype(str)))
    if unmeasured:
        _out(
            f"fedopt: note: workload(s) {', '.join(map(repr, unmeasured))} not measured: the measured ones' "
            "average level, so only their ratios across cards mean something",
            True,
        )


def _evaluate(args) -> int:
    from fedopt.normalize.cli_evaluate import run

    return run(args)


def _speedups(args) -> int:
    if not args.measurements:
        raise InputError("--speedups", "needs --measurements M.csv (the workloads to compare)")
    cards = [c.strip() for c in args.speedups.split(",") if c.strip()]
    if not cards:
        raise InputError("--speedups", "a comma-separated list of card types, the first the reference")
    if args.count < 1:
        raise InputError("--count", f"a whole number of cards >= 1, got {args.count}")
    meas = _read_measurements(args)
    model = _fit(args, meas, _resolver(args))
    workloads = list(dict.fromkeys(meas["workload"]))
    tab = model.speedups(cards, workloads=workloads, n=args.count)
    if args.json:
        from fedopt.normalize.table import table_json

        tab.attrs["reference"] = cards[0]
        _out(table_json(tab.fillna(0.0)))  # JSON has no NaN: 0 where the reference card does not fit either
        return 0
    _out(f"throughput on {args.count} card(s) of each type over {cards[0]}'s, per workload (0: does not fit)")
    _out(tab.to_string(float_format=lambda v: f"{v:.3f}", na_rep="-"))
    return 0


def _shares(args) -> int:
    if not args.measurements:
        raise InputError("--shares", "needs --measurements M.csv (the workloads to describe)")
    meas = _read_measurements(args)
    model = _fit(args, meas, _resolver(args))
    tab = model.share_table(list(dict.fromkeys(meas["workload"])))
    if args.json:
        _out(tab.to_json(orient="index", double_precision=6, indent=1))
        return 0
    _out(
        "per workload: time shares on the reference card (an H100 SXM: compute, mem, host), the share of\n"
        "compute on matrix units (tensor), that matrix time's shares by number format (tf32: FP32 work, bf16, fp8, fp4),\n"
        "and the serial fraction of one card's time that more cards do not shorten (serial)"
    )
    _out(tab.to_string(float_format=lambda v: f"{v:.3f}"))
    return 0


def _table(args) -> int:
    from fedopt.instance import load_instance
    from fedopt.normalize.table import format_table, rate_table, table_json

    if args.fill:
        check_writable(args.fill, "--fill")
        return _fill(args)
    inst = load_instance(args.table)
    df = rate_table(inst, by="job" if args.by_job else "class", calibrated=not args.no_priors)
    _out(table_json(df) if args.json else format_table(df))
    return 0


def _fill(args) -> int:
    """--table INSTANCE --fill OUT: the instance with the table's rates written into it."""
    import json

    from fedopt.atomic import write_atomic
    from fedopt.instance import parse_instance
    from fedopt.instance.io import read_bytes
    from fedopt.normalize.table import fill_rates, rate_table

    data = read_bytes(args.table)  # once: it may be standard input
    inst = parse_instance(data, str(args.table))
    df = rate_table(inst, by="job", calibrated=not args.no_priors)
    doc, filled, zeros = fill_rates(json.loads(data), df)
    text = json.dumps(doc, indent=1) + "\n"
    parse_instance(text, args.fill)  # the written file loads, or nothing is written
    write_atomic(args.fill, text)
    if not args.quiet:
        jobs = len(doc.get("jobs", []))
        _out(
            f"wrote {args.fill}: {filled} rates filled in for {jobs} jobs x {len(df.columns)} card types "
            f"({zeros} of them 0: the job does not fit or nothing predicts it); measured rates kept",
            True,
        )
    return 0


def _catalog(args) -> int:
    from fedopt.normalize.cli_cards import catalog

    return catalog(args)


def _resolve_names(args) -> int:
    from fedopt.normalize.cli_cards import resolve_names

    return resolve_names(args)


def _calibrate(args) -> int:
    from fedopt.normalize import calibrate

    params = calibrate.write_params(calibrate.PARAMS_PATH, progress=_progress(args))
    _out(f"wrote {calibrate.PARAMS_PATH}: {len(params['cards'])} cards calibrated on {params['rows']} measurements", True)
    ref, where = params["reference"], calibrate.reference_path(calibrate.PARAMS_PATH)
    _out(f"wrote {where}: {len(ref['workloads'])} workloads on {len(ref['cards'])} cards", True)
    return 0


def _calibrate_intervals(args) -> int:
    from fedopt.normalize import intervals

    doc = intervals.write_intervals(intervals.INTERVALS_PATH, progress=_progress(args))
    n = sum(doc["rows"].values())
    _out(f"wrote {intervals.INTERVALS_PATH}: error quantiles from {n} held-out predictions", True)
    for title, key in (
        ("leave-one-set-out coverage (each set's held-out rows inside the other sets' bounds)", "coverage_leave_one_set_out"),
        ("test sets (never in the table)", "coverage_test_sets"),
    ):
        _out(f"{title}, scaled by each file's own error [the table's bounds unscaled]:")
        for src, row in doc[key].items():
            plain = doc[key + "_unscaled"][src]
            cells = "  ".join(f"{lv}: {row[lv]:.2f} [{plain[lv]:.2f}]" for lv in doc["levels"])
            _out(f"  {src:20} {row['rows']:5} rows  {cells}")
    return 0


def cmd_normalize(args: argparse.Namespace) -> int:
    from fedopt.normalize.folds import use_cores

    use_cores()  # the command's folds (evaluations, calibrations, --interval's scale) on every core
    modes = [
        m for m in ("evaluate", "table", "calibrate", "calibrate_intervals", "speedups", "shares", "catalog") if getattr(args, m)
    ]
    modes += ["resolve"] if args.resolve is not None else []
    if args.evaluate and args.table:  # --evaluate --table INSTANCE: leave-one-card-out on the instance's measured rates
        if args.fill:
            raise InputError("--fill", "goes with --table alone, not with --evaluate")
        modes.remove("table")
    predicting = (args.query is not None and args.resolve is None) or args.out is not None
    if len(modes) + predicting > 1:
        raise InputError(
            "normalize",
            "choose one of --query/--out, --evaluate, --speedups, --shares, --table, --catalog, --resolve, --calibrate, "
            "--calibrate-intervals",
        )
    if args.interval is not None and not predicting:
        raise InputError("--interval", "goes with --query/--out (bounds around each prediction)")
    if args.fixed_intervals and args.interval is None:
        raise InputError("--fixed-intervals", "goes with --interval (how its bounds are scaled)")
    if args.fill and not args.table:
        raise InputError("--fill", "goes with --table INSTANCE (the instance whose rates it fills in)")
    if args.profiles and not args.evaluate:
        raise InputError("--profiles", "goes with --evaluate (how well the profiles predict measured ratios)")
    if args.cells and not args.evaluate:
        raise InputError("--cells", "goes with --evaluate (cells of the measurements hidden at random)")
    if args.as_rates and not args.evaluate:
        raise InputError("--as-rates", "goes with --evaluate (the measurements scored as an instance's per-card rates)")
    if args.one_card_type and not args.evaluate:
        raise InputError("--one-card-type", "goes with --evaluate (each card type kept alone as the whole file)")
    if args.rows is not None:
        if not args.evaluate:
            raise InputError("--rows", "goes with --evaluate (the evaluated rows it writes)")
        check_writable(args.rows, "--rows")
    if predicting or not modes:
        missing = [f"--{k}" for k in ("measurements", "query", "out") if getattr(args, k) is None]
        if missing:
            raise InputError("normalize", f"missing {', '.join(missing)} (or use --evaluate, --table, --calibrate)")
        check_writable(args.out, "--out")
        return _predict(args)
    run = {
        "evaluate": _evaluate,
        "table": _table,
        "calibrate": _calibrate,
        "calibrate_intervals": _calibrate_intervals,
        "speedups": _speedups,
        "shares": _shares,
        "catalog": _catalog,
        "resolve": _resolve_names,
    }
    return run[modes[0]](args)


def _level(text: str) -> float:
    from fedopt.normalize.intervals import check_level

    try:
        v = float(text)
    except ValueError:
        v = float("nan")
    try:
        check_level(v, text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return v


def add_normalize(sub) -> None:
    p = sub.add_parser(
        "normalize",
        help="predict job throughput on every card type, calibrated on measurements",
        description="Predict each workload's throughput on any card type from the card's specs and the "
        "workload's measurements on other cards (a roofline with fitted shares, per-card efficiencies and "
        "a low-rank correction; docs/normalize.md). CSV columns: workload,card_type,cards,throughput.",
    )
    p.add_argument("--measurements", metavar="M.csv", help="measured throughputs: workload,card_type,cards,throughput")
    p.add_argument("--query", metavar="Q.csv", help="rows to predict: workload,card_type,cards (other columns kept)")
    p.add_argument("--out", metavar="P.csv", help="Q's rows, same order and columns, plus throughput (written atomically)")
    p.add_argument(
        "--cards", metavar="cards.json", help="card types [{id, bf16_tflops, mem_bw_gbs, memory_gb, ...}], before the catalog"
    )
    p.add_argument("--evaluate", action="store_true", help="leave-one-card-out errors (shared measurements, or --measurements)")
    p.add_argument(
        "--held-out",
        action="store_true",
        help="with --evaluate: on the sets of data/ (MLPerf, Lambda), pooled and alone, priors calibrated without them",
    )
    p.add_argument(
        "--sets",
        metavar="SET[,SET]",
        help="with --held-out: only these sets (inference-v4.0, lambda-pytorch, training-v6.0 ...; a wrong name lists them)",
    )
    p.add_argument(
        "--profiles",
        metavar="P.csv",
        help="with --evaluate: how well job profiles (workload,tflop_per_unit,gb_per_unit,...,precision) predict "
        "the measured ratios between cards",
    )
    p.add_argument("--by-card", action="store_true", help="with --evaluate: errors per held-out card")
    p.add_argument(
        "--cells",
        action="store_true",
        help="with --evaluate: also cells (workload, card, count) hidden at random, 5 folds: filling the gaps of a "
        "job x card matrix",
    )
    p.add_argument(
        "--architectures", action="store_true", help="with --evaluate: also hide one architecture (all its cards) at a time"
    )
    p.add_argument(
        "--rows",
        metavar="FILE.csv",
        help="with --evaluate: write every evaluated row (its table, measured and predicted throughput, the baselines' "
        "predictions) to FILE.csv, atomically",
    )
    p.add_argument(
        "--as-rates",
        action="store_true",
        help="with --evaluate: the measurements as an instance holds them: each workload at one card count (the one "
        "measured on the most card types), a rate per card, as --table's model fits them",
    )
    p.add_argument(
        "--one-card",
        action="store_true",
        help="with --evaluate: also workloads seen on one card only (~3 min on shared data; with --held-out each "
        "set alone, ~7 min)",
    )
    p.add_argument(
        "--one-card-type",
        action="store_true",
        help="with --evaluate: also a file of one card type (each card type with 3 workloads or more kept alone, "
        "its workloads' other cards predicted; with --held-out each set alone, ~16 min)",
    )
    p.add_argument(
        "--plot", metavar="FILE.png", help="with --evaluate: the error distribution and per-card medians (.png/.svg/.pdf)"
    )
    p.add_argument(
        "--speedups",
        metavar="CARD,CARD,...",
        help="with --measurements: each workload's predicted throughput on these card types over the first's",
    )
    p.add_argument("--count", type=int, default=1, metavar="N", help="with --speedups: cards per job (default 1)")
    p.add_argument(
        "--shares",
        action="store_true",
        help="with --measurements: what the fit read per workload (time shares, tensor fraction, number formats)",
    )
    p.add_argument(
        "--table",
        metavar="instance.json",
        help="print the instance's rate table (job class x card type); with --evaluate: leave-one-card-out on its measured rates",
    )
    p.add_argument("--by-job", action="store_true", help="with --table: one row per job")
    p.add_argument(
        "--fill",
        metavar="OUT.json",
        help="with --table: write the instance with every job's missing throughput entries set to the table's rates "
        "(measured ones kept), for `fedopt solve` (written atomically)",
    )
    p.add_argument("--catalog", action="store_true", help="print every known card type's figures (the catalog, then --cards)")
    p.add_argument(
        "--resolve",
        nargs="*",
        metavar="NAME",
        help="what card names resolve to, how, and each figure's source; no NAME: the card names of --measurements and --query",
    )
    p.add_argument(
        "--json", action="store_true", help="with --evaluate, --table, --speedups, --shares, --catalog or --resolve: JSON"
    )
    p.add_argument(
        "--calibrate",
        action="store_true",
        help="refit models/normalize_params.json (and its reference table beside it) on every real set",
    )
    p.add_argument(
        "--calibrate-intervals",
        action="store_true",
        help="re-measure models/normalize_intervals.json: held-out error quantiles by basis and the one-card-type "
        "widening (~12 min on 2 cores)",
    )
    p.add_argument(
        "--interval",
        type=_level,
        metavar="LEVEL",
        help="with --query: also throughput_low, throughput_high, the bounds the held-out errors give at LEVEL "
        "(0.5, 0.8, 0.9 or 0.95); empty where no evaluation covers the row (no specs, workload unmeasured)",
    )
    p.add_argument(
        "--fixed-intervals",
        action="store_true",
        help="with --interval: the calibrated table's bounds as they are, not scaled by how well M.csv predicts "
        "itself (which costs one fit per card type of M.csv)",
    )
    p.add_argument(
        "--no-priors",
        action="store_true",
        help="no calibrated card or architecture priors, nor the calibration's workloads as neighbours "
        "(with --table: nor calibrated efficiencies for profiles)",
    )
    p.add_argument(
        "--replicas",
        nargs="?",
        const=True,
        default=False,
        metavar="PATTERNS",
        help="multi-card jobs run as independent replicas (offline serving) wherever one card holds the model "
        "their workload name states (70b, 8x7b ...; one byte per parameter): no all-reduce overhead there; "
        "PATTERNS (comma-separated, shell style: 'serve-*,*-inf-*') limits it to the workloads they match",
    )
    p.add_argument("-q", "--quiet", action="store_true", help="no notes or progress on stderr")
    p.set_defaults(func=cmd_normalize)
