"""``python -m fedopt normalize --evaluate``: the model's held-out errors against the spec-ratio
baselines, as markdown tables, one JSON document (``--json``) or every evaluated row (``--rows``).

normalize --evaluate [--measurements M.csv | --held-out [--sets SET,...] | --table INSTANCE] [--cards cards.json]
                     [--by-card] [--cells] [--architectures] [--one-card] [--one-card-type] [--plot FILE.png] [--rows FILE.csv]
                     [--profiles P.csv] [--json]
"""

from __future__ import annotations

import io

from fedopt.atomic import check_writable
from fedopt.errors import InputError
from fedopt.normalize.cli import _fit_settings, _out, _progress, _read_measurements, _resolver


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

    def table(self, name: str, heading: str, frame, fmt, blank: bool = True) -> None:
        """One table: ``frame``'s rows in the JSON, else ``fmt(frame)`` (its markdown) under ``heading``."""
        if self.as_json:
            self.sections.append({"name": name, "heading": heading, "rows": _records(frame)})
            return
        if blank:
            _out("")
        _out(heading)
        _out(fmt(frame))

    def summary(self, name: str, heading: str, tab, res=None, blank: bool = True) -> None:
        """A :func:`scores.summary` table; with ``res`` its targets (and intervals) after it."""
        from fedopt.normalize.scores import format_summary, target_records

        self.table(name, heading, tab, format_summary, blank)
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
    report.table("profiles", heading, profile_summary(res), format_profile_summary, blank=False)
    report.keep("profiles", res)
    report.finish()
    return 0


def _evaluate_one_card_type(args, data, what, resolver, progress, fit_as, report) -> None:
    """``--one-card-type``: each card type kept alone as the whole file; on the held-out sets each
    set alone, with priors calibrated without it (as ``normalize --measurements`` would fit it)."""
    from fedopt.normalize.evaluate import each_set_alone, keep_one_card_type
    from fedopt.normalize.scores import summary

    if args.held_out:
        res = each_set_alone(
            data, unit="card_type_file", priors=not args.no_priors, resolver=resolver, progress=progress, replicas=args.replicas
        )
        what = _alone(args)
    else:
        res = keep_one_card_type(data, resolver=resolver, progress=progress, **fit_as)
    heading = f"a file of one card type, on {what}: each card type with 3 workloads or more kept alone, the others predicted"
    report.summary("one_card_type", heading, summary(res))
    report.keep("one_card_type", res)


AS_RATES_NOTE = "; as per-card rates (each workload at the count measured on the most card types)"


def _alone(args) -> str:
    """What the each-set-alone tables are fitted on, for their headings."""
    priors = "no priors (--no-priors)" if args.no_priors else "priors calibrated on every other set"
    return f"each held-out set fitted alone, {priors}" + (AS_RATES_NOTE if args.as_rates else "")


def run(args) -> int:
    """``normalize --evaluate``: leave-one-card-out on the shared data, a user's file or the held-out
    sets, fitted as the command fits a user's file, then the tables the flags ask for."""
    from fedopt.normalize.data import (
        HELD_OUT_SOURCES,
        TEST_ONLY_SOURCES,
        shared_measurements,
    )
    from fedopt.normalize.evaluate import leave_one_card_out
    from fedopt.normalize.folds import fold_workers
    from fedopt.normalize.scores import oracle_line, oracle_medians, summary

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
    if args.table:
        if args.measurements or args.held_out or args.profiles:
            raise InputError("--table", "with --evaluate: the instance's rates alone (no --measurements, --held-out, --profiles)")
        if args.as_rates:
            raise InputError("--as-rates", "an instance's rates are per card already: --evaluate --table scores them as they are")
        from fedopt.instance import load_instance
        from fedopt.normalize.cards import CardResolver
        from fedopt.normalize.table import instance_cards, measured_rows

        inst = load_instance(args.table)
        data = measured_rows(inst)
        resolver = CardResolver(extra=[*resolver.extra.values(), *instance_cards(inst)])  # the instance's types win
        what = f"the measured rates of {args.table} (per card, reference-card units)"
        fit_as = _fit_settings(args)  # as its rate table fits them
    elif args.measurements or args.held_out:
        if args.held_out:
            from fedopt.normalize.data import held_out_measurements

            data = held_out_measurements()
            pooled_priors = "no priors (--no-priors)" if args.no_priors else "priors calibrated on the shared data only"
            if args.sets:
                data = data[data["source"].isin(sets)].reset_index(drop=True)
                what = f"held-out sets {', '.join(sets)}, fitted together; {pooled_priors}"
            else:
                what = (  # from the lists, so a new set cannot be left out of the heading
                    f"the held-out sets of data/ ({', '.join(HELD_OUT_SOURCES)}; never calibrated on: "
                    f"{', '.join(TEST_ONLY_SOURCES)}), fitted together; {pooled_priors}"
                )
        else:
            data = _read_measurements(args, extra=("source",))
            what = str(args.measurements)
        # as the command fits a user's file, with priors calibrated without these sets
        fit_as = _fit_settings(args, exclude=HELD_OUT_SOURCES if args.held_out else None)
    else:
        data = shared_measurements()
        what = "shared measurements (Gavel physical; MLPerf Training v3.1-v4.1 at 8 accelerators)"
        if args.replicas:  # no priors here (the shared evaluation never had them), only the rule
            from fedopt.normalize.model import Hyper

            fit_as = {"hyper": Hyper(replicas=args.replicas)}
    as_rates = ""
    if args.as_rates and not args.table:
        from fedopt.normalize.data import as_card_rates

        data = as_card_rates(data)
        as_rates = AS_RATES_NOTE
        what += as_rates
    if args.profiles:
        return _evaluate_profiles(args, data, f"the held-out sets of data/{as_rates}" if args.held_out else what, resolver)
    progress = _progress(args)
    res = leave_one_card_out(data, resolver=resolver, progress=progress, workers=fold_workers(), **fit_as)
    if res.empty:
        where = "--table" if args.table else "--measurements"
        raise InputError(where, "no card can be left out: need measurements of a workload on two card types")
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
        from fedopt.normalize.evaluate import each_set_alone, keep_one_card

        if args.held_out:  # each set as a user's file, as --one-card-type: the calibration's namesakes without it
            one = each_set_alone(
                data, unit="one_card", priors=not args.no_priors, resolver=resolver, progress=progress, replicas=args.replicas
            )
            where = _alone(args)
        else:
            one = keep_one_card(data, resolver=resolver, progress=progress, **fit_as)
            where = what
        heading = f"workloads seen on one card, on {where}: each workload keeps one card's rows in turn, its other rows predicted"
        report.summary("one_card", heading, summary(one))
        report.keep("one_card", one)
    if args.one_card_type:
        _evaluate_one_card_type(args, data, what, resolver, progress, fit_as, report)
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
            heading = f"leave-one-{unit}-out on {_alone(args)}"
            name = f"each_set_alone_leave_one_{unit}_out"
            report.summary(name, heading, summary(alone), alone if unit == "card" else None)
            report.keep(name, alone)
            if unit == "card" and args.by_card:
                _out_by_card(report, "each_set_alone_by_card", alone, "each held-out set fitted alone")
        if "training-v6.0" in sets:
            _held_out_scaleout(resolver, _fit_settings(args, exclude=("training-v6.0",)), report)
    if not (args.measurements or args.held_out or args.table):
        from fedopt.normalize.scaleout_evaluate import format_scaleout, leave_one_workload_scaleout, scaleout_summary

        so = leave_one_workload_scaleout(shared_measurements(scaleout=True), resolver=resolver, progress=progress)
        heading = (
            "scale-out: MLPerf systems past one node, each workload's hidden and predicted from its one-node "
            "rows and the other workloads' multi-node rows (rows with the same card's 8-accelerator figure)"
        )
        report.table("scaleout", heading, scaleout_summary(so), format_scaleout)
        report.keep("scaleout", so)
    report.finish()
    return 0


def _out_by_card(report: _Report, name: str, res, what: str) -> None:
    """``--by-card``: each hidden card's median errors and the model's signed bias, under a heading."""
    from fedopt.normalize.scores import by_card

    heading = (
        f"per held-out card, {what}: median absolute relative error of the model and of the peak-TFLOPS and "
        "memory-bandwidth ratios; model_bias = median predicted / measured - 1 (+: predicted too fast)"
    )
    tab = by_card(res)
    report.table(name, heading, tab, lambda t: t.to_string(float_format=lambda v: f"{v:.3f}"))


def _evaluate_cells(args, data, what: str, resolver, progress, fit_as: dict, report: _Report) -> None:
    """``--evaluate --cells``: cells hidden at random, on the data as evaluated above (and with
    ``--held-out`` each set fitted alone, priors calibrated without it)."""
    from fedopt.normalize.evaluate import each_set_alone, random_cells
    from fedopt.normalize.folds import fold_workers
    from fedopt.normalize.scores import summary

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
        heading = f"cells missing at random on {_alone(args)}"
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
    from fedopt.normalize.scores import targets

    _out("targets: " + "\n         ".join(targets(tab, res=res)))


def _held_out_scaleout(resolver, fit_as: dict, report: _Report) -> None:
    """MLPerf Training v6.0 systems past one node, predicted by the command fitted on the round's
    8-accelerator runs only (``fit_as``: priors calibrated without the round)."""
    from fedopt.normalize.data import TRAINING_V60_MULTI_CSV, TRAINING_V60_RUNS_CSV, mlperf_training_held_out
    from fedopt.normalize.scaleout_evaluate import format_scaleout, scaleout_from_one_node, scaleout_summary

    if not TRAINING_V60_MULTI_CSV.exists():
        return
    one = mlperf_training_held_out(TRAINING_V60_RUNS_CSV)
    res = scaleout_from_one_node(one, mlperf_training_held_out(TRAINING_V60_MULTI_CSV), resolver=resolver, **fit_as)
    heading = (
        "scale-out on held-out MLPerf Training v6.0 systems past 8 accelerators, predicted from the round's "
        "8-accelerator runs only, as the command fits a file of them, priors calibrated without the round "
        "(rows with the same card's 8-accelerator figure)"
    )
    report.table("held_out_scaleout", heading, scaleout_summary(res), format_scaleout)
    report.keep("held_out_scaleout", res)


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
