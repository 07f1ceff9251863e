"""``python -m fedopt normalize``: predict throughputs, evaluate the model, print an instance's rate table.

normalize --measurements M.csv --query Q.csv --out P.csv [--cards cards.json] [--interval 0.8] [--replicas [PATTERNS]]
normalize --evaluate [--measurements M.csv | --held-out [--sets SET,...]] [--cards cards.json] [--by-card] [--cells]
                     [--plot FILE.png] [--rows FILE.csv] [--json]
normalize --measurements M.csv --speedups H100,A100,H20 [--count N] [--json]
normalize --measurements M.csv --shares [--json]
normalize --table instance.json [--by-job] [--json]
normalize --catalog [--cards cards.json] [--json]
normalize --resolve [NAME ...] [--measurements M.csv] [--query Q.csv] [--cards cards.json] [--json]
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
    from fedopt.normalize.cards import CardResolver, load_cards_file

    extra = load_cards_file(args.cards) if args.cards else []
    return CardResolver(extra=extra)


def _read_measurements(args):
    from fedopt.normalize.data import MEASUREMENT_COLUMNS, read_table

    meas = read_table(args.measurements, MEASUREMENT_COLUMNS, "--measurements")
    if not (meas["throughput"] > 0).any():
        raise InputError("throughput", "no positive throughput to calibrate on", str(args.measurements))
    return meas[list(MEASUREMENT_COLUMNS)]


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
                said = f"mean |ln(pred / measured)| {level:.3f} over {rows} rows" if rows else "one card type, nothing to hide"
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
        _basis_notes(basis, query, resolver, meas)
        _out(f"wrote {args.out}: {len(raw)} predictions from {int((meas['throughput'] > 0).sum())} measurements", True)
    return 0


class _Report:
    """Where ``--evaluate``'s tables go: printed as markdown as they come, or with ``--json``
    gathered into one JSON document printed at the end (``{"sections": [{"name", "heading",
    "rows"}]}``, errors as fractions), for scripts, dashboards and a cron job's log."""

    def __init__(self, as_json: bool, rows_path: str | None = None):
        self.as_json = as_json
        self.sections: list[dict] = []
        self.rows_path = rows_path  # --rows FILE.csv: every evaluated row, written at the end
        self.frames: list = []

    def keep(self, name: str, rows) -> None:
        """An evaluation's rows (hidden row, prediction, baselines) for ``--rows``, under ``table``."""
        if self.rows_path:
            self.frames.append(rows.assign(table=name))

    def table(self, name: str, heading: str, frame, text: str, blank: bool = True) -> None:
        if self.as_json:
            self.sections.append({"name": name, "heading": heading, "rows": _records(frame)})
            return
        if blank:
            _out("")
        _out(heading)
        _out(text)

    def summary(self, name: str, heading: str, tab, res=None, blank: bool = True) -> None:
        """A :func:`evaluate.summary` table; with ``res`` its targets (and intervals) after it."""
        from fedopt.normalize.evaluate import format_summary, target_records

        self.table(name, heading, tab, format_summary(tab), blank)
        if res is None:
            return
        if self.as_json:
            self.sections.append(
                {"name": name + "_targets", "heading": "the issue's targets", "rows": target_records(tab, res=res)}
            )
        else:
            _out("")
            _out_targets(tab, res)

    def line(self, name: str, text: str, rows: list[dict]) -> None:
        if self.as_json:
            self.sections.append({"name": name, "heading": text.split(":")[0], "rows": rows})
        else:
            _out(text)

    def finish(self) -> None:
        if self.rows_path and self.frames:
            import io

            import pandas as pd

            from fedopt.atomic import write_atomic

            frame = pd.concat(self.frames, ignore_index=True)
            first = [
                "table",
                *(c for c in ("source", "workload", "card_type", "cards", "throughput", "card", "pred") if c in frame),
            ]
            buf = io.StringIO()
            frame[first + [c for c in frame.columns if c not in first]].to_csv(buf, index=False)
            write_atomic(self.rows_path, buf.getvalue())
            _out(f"wrote {len(frame):,} evaluated rows to {self.rows_path}", True)
        if self.as_json:
            import json

            _out(json.dumps({"sections": self.sections}, indent=1, allow_nan=False))


def _records(frame) -> list[dict]:
    """A frame's rows as JSON-ready dicts: numpy scalars as Python numbers, NaN as null."""
    import math

    out = []
    for rec in frame.reset_index().to_dict("records") if frame.index.name else frame.to_dict("records"):
        row = {}
        for k, v in rec.items():
            v = v.item() if hasattr(v, "item") else v
            row[str(k)] = None if isinstance(v, float) and not math.isfinite(v) else v
        out.append(row)
    return out


def _evaluate_profiles(args, data, what: str, resolver) -> int:
    """``--evaluate --profiles``: the profiles' ratios between cards against the measured ones."""
    import pandas as pd

    from fedopt.normalize.calibrate import load_params, params_without
    from fedopt.normalize.profiles import format_profile_summary, profile_leave_one_card_out, profile_summary, read_profiles

    profiles = read_profiles(args.profiles)
    ours = not args.measurements  # the project's sets: efficiencies calibrated without the set evaluated
    if args.no_priors:
        res = profile_leave_one_card_out(data, profiles, resolver, None)
    elif ours:
        parts = [
            profile_leave_one_card_out(part, profiles, resolver, params_without((str(src),)))
            for src, part in data.groupby("source")
        ]
        res = pd.concat(parts, ignore_index=True)
    else:
        res = profile_leave_one_card_out(data, profiles, resolver, load_params())
    if res.empty:
        raise InputError("--profiles", "no workload of the measurements has a profile and rows on two card types")
    eff = "every card at its peaks (--no-priors)"
    if not args.no_priors:
        eff = "efficiencies calibrated without the set evaluated" if ours else "the shipped calibrated efficiencies"
    heading = (
        f"profiles of {args.profiles} on {what}, {eff}: each card hidden in turn, its rows predicted from the same\n"
        "workload's rows on other cards times the profile's rate ratio (or a spec ratio); absolute relative error"
    )
    report = _Report(args.json, args.rows)
    report.table("profiles", heading, profile_summary(res), format_profile_summary(res), blank=False)
    report.keep("profiles", res)
    report.finish()
    return 0


def _evaluate(args) -> int:
    from fedopt.normalize.data import (
        HELD_OUT_SOURCES,
        MEASUREMENT_COLUMNS,
        TEST_ONLY_SOURCES,
        read_table,
        shared_measurements,
    )
    from fedopt.normalize.evaluate import (
        fold_workers,
        leave_one_card_out,
        oracle_line,
        oracle_medians,
        summary,
    )

    if args.plot:
        _figure_format(args.plot)  # before minutes of fitting
        check_writable(args.plot, "--plot")
    fit_as = {}
    resolver = _resolver(args)  # one catalog (and --cards file) read for every fit below
    if args.measurements and args.held_out:
        raise InputError("--held-out", "give --measurements or --held-out, not both")
    if args.sets and not args.held_out:
        raise InputError("--sets", "goes with --held-out")
    sets = _held_out_sets(args.sets) if args.held_out else ()
    if args.measurements or args.held_out:
        if args.held_out:
            from fedopt.normalize.data import held_out_measurements

            data = held_out_measurements()
            if args.sets:
                data = data[data["source"].isin(sets)].reset_index(drop=True)
                what = f"held-out sets {', '.join(sets)}, fitted together; priors calibrated on the shared data only"
            else:
                what = (  # from the lists, so a new set cannot be left out of the heading
                    f"the held-out sets of data/ ({', '.join(HELD_OUT_SOURCES)}; never calibrated on: "
                    f"{', '.join(TEST_ONLY_SOURCES)}), fitted together; priors calibrated on the shared data only"
                )
        else:
            data = read_table(args.measurements, MEASUREMENT_COLUMNS, "--measurements")
            data = data[list(MEASUREMENT_COLUMNS) + (["source"] if "source" in data.columns else [])]
            what = str(args.measurements)
        # as the command fits a user's file, with priors calibrated without these sets
        fit_as = _fit_settings(args, exclude=HELD_OUT_SOURCES if args.held_out else None)
    else:
        data = shared_measurements()
        what = "shared measurements (Gavel physical; MLPerf Training v3.1-v4.1 at 8 accelerators)"
        if args.replicas:  # no priors here (the shared evaluation never had them), only the rule
            from fedopt.normalize.model import Hyper

            fit_as = {"hyper": Hyper(replicas=args.replicas)}
    if args.profiles:
        return _evaluate_profiles(args, data, "the held-out sets of data/" if args.held_out else what, resolver)
    progress = _progress(args)
    res = leave_one_card_out(data, resolver=resolver, progress=progress, workers=fold_workers(), **fit_as)
    if res.empty:
        raise InputError("--measurements", "no card can be left out: need measurements of a workload on two card types")
    report = _Report(args.json, args.rows)
    tab = summary(res)
    heading = f"leave-one-card-out on {what}: absolute relative error of held-out throughputs"
    report.summary("leave_one_card_out", heading, tab, res, blank=False)
    report.keep("leave_one_card_out", res)
    if (line := oracle_line(res)) is not None:
        report.line("oracle", line, [{"data": k, "median": v} for k, v in oracle_medians(res).items()])
    if args.plot:
        _write_figure(res, args.plot, what)
    if args.by_card:
        _out_by_card(report, "by_card", res, what)
    if args.architectures:
        arch = leave_one_card_out(
            data, resolver=resolver, unit="architecture", progress=progress, workers=fold_workers(), **fit_as
        )
        heading = (
            f"leave-one-architecture-out on {what}: every card of one architecture hidden at a time ('cards' = architectures)"
        )
        report.summary("leave_one_architecture_out", heading, summary(arch))
        report.keep("leave_one_architecture_out", arch)
    if args.cells:
        _evaluate_cells(args, data, what, resolver, progress, fit_as, report)
    if args.one_card:
        from fedopt.normalize.evaluate import keep_one_card

        one = keep_one_card(data, resolver=resolver, progress=progress, **fit_as)
        heading = f"workloads seen on one card, on {what}: each workload keeps one card's rows in turn, its other rows predicted"
        report.summary("one_card", heading, summary(one))
        report.keep("one_card", one)
    if args.held_out:
        from fedopt.normalize.evaluate import each_set_alone

        units = ["card", "architecture"] if args.architectures else ["card"]
        for unit in units:
            alone = each_set_alone(
                data,
                unit=unit,
                priors=not args.no_priors,
                resolver=resolver,
                progress=progress,
                workers=fold_workers(),
                replicas=args.replicas,
            )
            heading = f"leave-one-{unit}-out on each held-out set fitted alone, priors calibrated on every other set"
            name = f"each_set_alone_leave_one_{unit}_out"
            report.summary(name, heading, summary(alone), alone if unit == "card" else None)
            report.keep(name, alone)
            if unit == "card" and args.by_card:
                _out_by_card(report, "each_set_alone_by_card", alone, "each held-out set fitted alone")
        if "training-v6.0" in sets:
            _held_out_scaleout(resolver, _fit_settings(args, exclude=("training-v6.0",)), report)
    if not (args.measurements or args.held_out):
        from fedopt.normalize.evaluate import format_scaleout, leave_one_workload_scaleout, scaleout_summary

        so = leave_one_workload_scaleout(shared_measurements(scaleout=True), resolver=resolver, progress=progress)
        heading = (
            "scale-out: MLPerf systems past one node, each workload's hidden and predicted from its one-node "
            "rows and the other workloads' multi-node rows (rows with the same card's 8-accelerator figure)"
        )
        report.table("scaleout", heading, scaleout_summary(so), format_scaleout(so))
        report.keep("scaleout", so)
    report.finish()
    return 0


def _out_by_card(report: _Report, name: str, res, what: str) -> None:
    """``--by-card``: each hidden card's median errors and the model's signed bias, under a heading."""
    from fedopt.normalize.evaluate import by_card

    heading = (
        f"per held-out card, {what}: median absolute relative error of the model and of the peak-TFLOPS and "
        "memory-bandwidth ratios; model_bias = median predicted / measured - 1 (+: predicted too fast)"
    )
    tab = by_card(res)
    report.table(name, heading, tab, tab.to_string(float_format=lambda v: f"{v:.3f}"))


def _evaluate_cells(args, data, what: str, resolver, progress, fit_as: dict, report: _Report) -> None:
    """``--evaluate --cells``: cells hidden at random, on the data as evaluated above (and with
    ``--held-out`` each set fitted alone, priors calibrated without it)."""
    from fedopt.normalize.evaluate import each_set_alone, fold_workers, random_cells, summary

    res = random_cells(data, resolver=resolver, baselines=True, workers=fold_workers(), **fit_as)
    heading = (
        f"cells missing at random on {what}: the measured cells (workload, card, count) in 5 random folds, each "
        "hidden in turn and predicted from the rest ('cards' = the hidden rows' card types)"
    )
    report.summary("cells", heading, summary(res))
    report.keep("cells", res)
    if args.held_out:
        alone = each_set_alone(
            data,
            unit="cells",
            priors=not args.no_priors,
            resolver=resolver,
            progress=progress,
            workers=fold_workers(),
            replicas=args.replicas,
        )
        heading = "cells missing at random on each held-out set fitted alone, priors calibrated on every other set"
        report.summary("cells_each_set_alone", heading, summary(alone))
        report.keep("cells_each_set_alone", alone)


def _held_out_sets(names: str | None) -> tuple[str, ...]:
    """The held-out sets ``--sets`` names (comma-separated), all of them without it: a quick look at
    one set (inference-v4.0 alone: seconds) instead of every set's fits (minutes)."""
    from fedopt.normalize.data import HELD_OUT_SOURCES

    if not names:
        return HELD_OUT_SOURCES
    asked = tuple(dict.fromkeys(n.strip() for n in names.split(",") if n.strip()))
    unknown = [n for n in asked if n not in HELD_OUT_SOURCES]
    if unknown or not asked:
        known = ", ".join(HELD_OUT_SOURCES)
        raise InputError("--sets", f"unknown set {', '.join(unknown) or repr(names)}; the held-out sets: {known}")
    return asked


def _out_targets(tab, res) -> None:
    """The issue's two targets per data set, each median with its interval over resampled workloads."""
    from fedopt.normalize.evaluate import targets

    _out("targets: " + "\n         ".join(targets(tab, res=res)))


def _held_out_scaleout(resolver, fit_as: dict, report: _Report) -> None:
    """MLPerf Training v6.0 systems past one node, predicted by the command fitted on the round's
    8-accelerator runs only (``fit_as``: priors calibrated without the round)."""
    from fedopt.normalize.data import TRAINING_V60_MULTI_CSV, TRAINING_V60_RUNS_CSV, mlperf_training_held_out
    from fedopt.normalize.evaluate import format_scaleout, scaleout_from_one_node, scaleout_summary

    if not TRAINING_V60_MULTI_CSV.exists():
        return
    one = mlperf_training_held_out(TRAINING_V60_RUNS_CSV)
    res = scaleout_from_one_node(one, mlperf_training_held_out(TRAINING_V60_MULTI_CSV), resolver=resolver, **fit_as)
    heading = (
        "scale-out on held-out MLPerf Training v6.0 systems past 8 accelerators, predicted from the round's "
        "8-accelerator runs only, as the command fits a file of them, priors calibrated without the round "
        "(rows with the same card's 8-accelerator figure)"
    )
    report.table("held_out_scaleout", heading, scaleout_summary(res), format_scaleout(res))
    report.keep("held_out_scaleout", res)


def _basis_notes(basis, query, resolver, meas) -> None:
    """The query rows whose predictions rest on the least (``basis``: ThroughputModel.basis of
    each row), and the card names of either file read as a related card, on stderr."""
    from fedopt.normalize.cards import missing_variant

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
            "more SMs or bandwidth; another memory size, other memory for the fit and often bandwidth); --cards FILE "
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


def _figure_format(path: str) -> str:
    from pathlib import Path

    fmt = Path(path).suffix.lower().lstrip(".")
    if fmt not in ("png", "svg", "pdf"):
        raise InputError("--plot", f"a .png, .svg or .pdf file, not {path!r}")
    return fmt


def _write_figure(res, path: str, what: str) -> None:
    from pathlib import Path

    from fedopt.atomic import write_atomic
    from fedopt.normalize.plots import plot_evaluation

    fmt = _figure_format(path)
    title = "leave-one-card-out" + ("" if what.startswith("shared") else f" ({Path(what).name})")
    buf = io.BytesIO()
    plot_evaluation(res, title=title).savefig(buf, format=fmt, dpi=110)
    write_atomic(path, buf.getvalue())
    _out(f"wrote {path}", True)


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
    from fedopt.normalize.catalog_view import card_sources, catalog_frame

    res = _resolver(args)
    tab = catalog_frame(res)
    if args.json:
        import json

        import pandas as pd

        records = [
            {
                "card": cid,
                **{k: (None if pd.isna(v) else v) for k, v in row.items()},
                "sources": card_sources(res.resolve(cid), res),
            }
            for cid, row in tab.iterrows()
        ]
        _out(json.dumps(records, indent=1))
        return 0
    _out(
        f"{len(tab)} card types: dense peaks in TFLOPS (fp8: FP8, or INT8 where the card has none), memory GB, "
        "bandwidths GB/s, power W; each figure's source: --json, or --resolve NAME"
    )
    _out(tab.to_string(float_format=lambda v: f"{v:g}", na_rep="-"))
    return 0


def _names_to_resolve(args) -> list[str]:
    """--resolve's names, else every card name of --measurements and --query, in order of appearance."""
    names = list(args.resolve)
    if not names:
        from fedopt.normalize.data import MEASUREMENT_COLUMNS, QUERY_COLUMNS, read_table

        for path, cols, what in (
            (args.measurements, MEASUREMENT_COLUMNS, "--measurements"),
            (args.query, QUERY_COLUMNS, "--query"),
        ):
            if path:
                names += [str(n) for n in read_table(path, cols, what)["card_type"]]
    if not names:
        raise InputError("--resolve", "give card names, or --measurements / --query files whose card names to resolve")
    return list(dict.fromkeys(names))


def _resolve_names(args) -> int:
    from fedopt.normalize.cards import cloud_instance, mig_parent_id
    from fedopt.normalize.catalog_view import FIGURES, card_sources, resolution_frame

    res = _resolver(args)
    tab = resolution_frame(_names_to_resolve(args), res)
    if args.json:
        import json

        records = []
        for row in tab.to_dict(orient="records"):
            card = res.resolve(row["name"])
            figures = {f: getattr(card, f) for f in FIGURES} if card is not None else {}
            record = {**row, "figures": figures, "sources": card_sources(card, res)}
            if row["how"].endswith(" instance"):
                record["instance_source"] = cloud_instance(row["name"]).source
            records.append(record)
        _out(json.dumps(records, indent=1))
        return 0
    _out("each name's card (none: no specs, predicted as a typical card of the fit), how it matched, what it lacks")
    _out(tab.to_string(index=False))
    for name in tab.loc[tab["how"].str.endswith(" instance"), "name"]:
        _out(f"  {name}: {cloud_instance(name).source}")
    for cid in dict.fromkeys(c for c in tab["card"] if c):
        card = res.resolve(cid)
        given = {f: v for f in FIGURES if (v := getattr(card, f)) is not None}
        _out(f"\n{cid}: " + ", ".join(f"{f} {v:.4g}" for f, v in given.items()))
        if mig_parent_id(cid) is not None:
            _out("  a MIG slice: its card's figures scaled to the slice (docs/normalize.md, Card names); the card's sources:")
        by_source: dict[str, list[str]] = {}
        for f, src in card_sources(card, res).items():
            by_source.setdefault(src, []).append(f)
        for src, fields in by_source.items():
            _out(f"  {', '.join(fields)}: {src}")
    return 0


def _calibrate(args) -> int:
    from fedopt.normalize import calibrate

    params = calibrate.write_params(calibrate.PARAMS_PATH, progress=_progress(args))
    _out(f"wrote {calibrate.PARAMS_PATH}: {len(params['cards'])} cards calibrated on {params['rows']} measurements", True)
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
    from fedopt.normalize.evaluate import use_cores

    use_cores()  # the command's folds (evaluations, calibrations, --interval's scale) on every core
    modes = [
        m for m in ("evaluate", "table", "calibrate", "calibrate_intervals", "speedups", "shares", "catalog") if getattr(args, m)
    ]
    modes += ["resolve"] if args.resolve is not None else []
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
        "--one-card",
        action="store_true",
        help="with --evaluate: also workloads seen on one card only (~3 min on shared data)",
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
    p.add_argument("--table", metavar="instance.json", help="print the instance's rate table (job class x card type)")
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
    p.add_argument("--calibrate", action="store_true", help="refit models/normalize_params.json on every real set")
    p.add_argument(
        "--calibrate-intervals",
        action="store_true",
        help="re-measure models/normalize_intervals.json: held-out error quantiles by basis (~4 min on 2 cores)",
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
    p.add_argument("--no-priors", action="store_true", help="no calibrated card or architecture priors")
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
