"""Prediction intervals: how far a predicted rate may be off, by what it rests on.

A planner that trusts an H20 rate read from its Hopper siblings as much as a measured one plans
too tightly. The errors the model made on data it had not seen say how much to widen: quantiles
of |ln(predicted / measured)| in three held-out evaluations of every real set, each set fitted
alone with priors calibrated without it (as the command fits a user's file): cells missing at
random (5 folds), one card type hidden at a time, one architecture hidden at a time. Each hidden
row is grouped by :meth:`ThroughputModel.basis`; every set weighs the same, so Gavel's 245 rows
do not outvote a round of 24. ``normalize --calibrate-intervals`` writes the table to
``models/normalize_intervals.json`` with its leave-one-set-out coverage (quantiles from the other
sets, share of this set's rows inside them): the honest figure of what a level delivers.

Sets differ more than one table can say (an 80% interval held 65-92% of a new set's rows), so
the bounds are scaled by how hard the user's own file is: the mean |ln(pred / measured)| of its
leave-one-card-out (:func:`file_scale`) against the calibration sets' typical level, shrunk toward
1 when the file has few rows to say it. The table holds quantiles of errors divided by the same
scale of their own set (computed without the hidden card or architecture), so the two agree.

Measured cells are returned as measured (no interval); a card with no specs or a workload never
measured gets none either (NaN bounds): its error has no evaluation behind it.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

from fedopt.normalize.catalog import MODELS_DIR

INTERVALS_PATH = MODELS_DIR / "normalize_intervals.json"
LEVELS = (0.5, 0.8, 0.9, 0.95)
BASES = ("card measured", "architecture measured", "new architecture")
KINDS = ("cells", "card", "architecture")
# the file scale: rows of a file's own held-out errors that weigh as much as the calibration's
# typical level, and the power of the level ratio (chosen on the calibration sets' leave-one-set-out
# coverage, docs/normalize.md "Prediction intervals")
SCALE_ROWS = 20.0
SCALE_POWER = 1.0
# a file where no workload ran on two card types (one card type) cannot say how hard it is, and its
# ratios rest on the priors and the calibration's workloads: its bounds take the scale that made the
# calibration sets' such files (evaluate.keep_one_card_type) hold this level's share of their rows
ONE_CARD_TYPE_LEVEL = 0.8


def level_key(level: float) -> str:
    """A level as the intervals file writes it (``0.8`` -> ``"0.8"``)."""
    return f"{level:g}"


def check_level(level: float, written: str | None = None) -> str:
    """``level``'s key, or ValueError naming the levels the file has (and ``written``, the text
    the level came from, when there is one)."""
    if level not in LEVELS:
        shown = written if written is not None else level
        raise ValueError(f"one of {', '.join(map(level_key, LEVELS))}, not {shown!r}")
    return level_key(level)


def held_out_errors(data: pd.DataFrame | None = None, progress: Callable[[str], None] | None = None) -> pd.DataFrame:
    """Rows ``source, kind, basis, log_error, hidden, card, arch, level, level_rows`` of every
    held-out prediction (module docstring; ``hidden``: the card or architecture hidden, ``level``:
    :func:`with_file_levels`); ``data`` defaults to every real measurement. About 3 minutes on the ~1,400 real rows."""
    from fedopt.normalize.calibrate import fit_settings
    from fedopt.normalize.cards import CardResolver, arch_vendor
    from fedopt.normalize.data import calibration_measurements
    from fedopt.normalize.evaluate import leave_one_card_out, random_cells
    from fedopt.normalize.folds import fold_workers
    from fedopt.normalize.model import ThroughputModel

    data = calibration_measurements() if data is None else data
    resolver = CardResolver()
    keys = ThroughputModel(resolver=resolver)
    parts = []
    for src, part in data.groupby("source", sort=True):
        part = part.reset_index(drop=True)
        fit = fit_settings(exclude=(str(src),))
        for kind in KINDS:
            if progress:
                progress(f"intervals: {src}, {kind} held out")
            if kind == "cells":
                res = random_cells(part, resolver=resolver, **fit).assign(card="")
            else:
                res = leave_one_card_out(part, baselines=False, resolver=resolver, unit=kind, workers=fold_workers(), **fit)
            res, err = _log_errors(res)
            # one lookup per card name, not per row
            card = res["card_type"].map({n: keys.card_key(n) for n in res["card_type"].unique()})
            arch = card.map({k: arch_vendor(keys._card(k), k)[0] for k in card.unique()})
            parts.append(
                pd.DataFrame(
                    {"source": str(src), "kind": kind, "basis": res["basis"].to_numpy(), "log_error": err,
                     "hidden": res["card"].to_numpy(), "card": card.to_numpy(), "arch": arch.to_numpy()}
                )
            )  # fmt: skip
    return with_file_levels(pd.concat(parts, ignore_index=True))


def one_card_type_errors(data: pd.DataFrame, progress: Callable[[str], None] | None = None) -> pd.DataFrame:
    """Rows ``source, basis, log_error`` of every set's files of one card type
    (``evaluate.keep_one_card_type``, each set alone with priors calibrated without it; ``basis``
    as the command's: ``ThroughputModel.basis`` of the fit on the kept card type)."""
    from fedopt.normalize.calibrate import fit_settings
    from fedopt.normalize.cards import CardResolver
    from fedopt.normalize.evaluate import keep_one_card_type

    resolver = CardResolver()
    parts = []
    for src, part in data.groupby("source", sort=True):
        if progress:
            progress(f"intervals: {src}, one card type kept")
        res = keep_one_card_type(part.reset_index(drop=True), resolver=resolver, **fit_settings(exclude=(str(src),)))
        res, err = _log_errors(res)
        parts.append(pd.DataFrame({"source": str(src), "basis": res["basis"].to_numpy(), "log_error": err}))
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=["source", "basis", "log_error"])


def one_card_type_scale(errors: pd.DataFrame, table: dict, level: float = ONE_CARD_TYPE_LEVEL) -> float:
    """The widening that makes ``level`` of ``errors`` (:func:`one_card_type_errors`) fall inside the
    table's bounds, each source weighing the same; never below 1."""
    key = level_key(level)
    rows = errors[errors["basis"].isin([b for b in table if key in table[b]])]
    if rows.empty:
        return 1.0
    ratio = rows["log_error"].to_numpy(float) / rows["basis"].map({b: t[key] for b, t in table.items()}).to_numpy(float)
    w = 1.0 / rows.groupby("source")["log_error"].transform("size").to_numpy(float)
    return max(1.0, _weighted_quantiles(ratio, w, [level])[0])


def _one_card_type_coverage(errors: pd.DataFrame, table: dict, scale: float, levels=LEVELS) -> dict:
    """Per source, the share of its one-card-type rows inside the table's bounds times ``scale``."""
    out = {}
    for src, mine in errors.groupby("source", sort=True):
        mine = mine[mine["basis"].isin(list(table))]
        row: dict = {"rows": len(mine)}
        for key in map(level_key, levels):
            row[key] = round(_share_inside(mine, table, key, scale), 3) if len(mine) else None
        out[str(src)] = row
    return out


def _share_inside(mine: pd.DataFrame, table: dict, key: str, scale) -> float:
    """The share of ``mine``'s rows whose log error is inside the table's bound at ``key`` times ``scale``."""
    bound = mine["basis"].map({b: t[key] for b, t in table.items()}).to_numpy(float) * scale
    return float(np.mean(mine["log_error"].to_numpy(float) <= bound))


def _log_errors(res: pd.DataFrame) -> tuple[pd.DataFrame, np.ndarray]:
    """The rows of a held-out evaluation with both figures positive, and their |ln(pred / measured)|."""
    res = res[(res["pred"] > 0) & (res["throughput"] > 0)]
    return res, np.abs(np.log(res["pred"].to_numpy(float) / res["throughput"].to_numpy(float)))


def with_file_levels(errors: pd.DataFrame) -> pd.DataFrame:
    """``errors`` plus ``level`` and ``level_rows``: for each held-out row, the mean leave-one-card-out
    error of its set without the hidden card (architecture), over that many rows: what the file
    the row was hidden from would have said of itself (cells missing at random: the whole set's)."""
    level = np.full(len(errors), np.nan)
    rows = np.zeros(len(errors))
    for _, s in errors.groupby("source", sort=False):
        loco = s[s["kind"] == "card"]
        for (kind, hidden), h in s.groupby(["kind", "hidden"], sort=False):
            own = loco["card"] if kind == "card" else loco["arch"] if kind == "architecture" else None
            x = loco["log_error"].to_numpy(float) if own is None else loco.loc[own != hidden, "log_error"].to_numpy(float)
            pos = errors.index.get_indexer(h.index)
            level[pos] = x.mean() if len(x) else np.nan
            rows[pos] = len(x)
    return errors.assign(level=level, level_rows=rows)


def reference_level(errors: pd.DataFrame) -> float:
    """The typical set's level: the median over sets of each one's mean leave-one-card-out error."""
    loco = errors[errors["kind"] == "card"]
    return float(loco.groupby("source")["log_error"].mean().median()) if len(loco) else float("nan")


def file_scale(level, rows, reference: float, n0: float = SCALE_ROWS, power: float = SCALE_POWER) -> np.ndarray:
    """How much wider (or narrower) than the table a file's intervals are: ``(level / reference) ^
    power``, the exponent shrunk by ``rows / (rows + n0)`` (a file of few held-out rows says
    little of itself); 1 where the file has no level (one card type: nothing to hide; :func:`scale_for`
    then takes the calibrated ``one_card_type`` widening instead)."""
    level, rows = np.asarray(level, float), np.asarray(rows, float)
    ok = np.isfinite(level) & (level > 0) & (rows > 0) & np.isfinite(reference) & (reference > 0)
    ratio = np.where(ok, level / np.where(ok, reference, 1.0), 1.0)
    return np.exp(power * rows / (rows + n0) * np.log(ratio))


def _plain(errors: pd.DataFrame) -> pd.DataFrame:
    """``errors`` without their file levels: the table's bounds unscaled."""
    return errors.drop(columns=["level", "level_rows"], errors="ignore")


def _scales(errors: pd.DataFrame, reference: float) -> np.ndarray:
    if "level" not in errors:
        return np.ones(len(errors))
    return file_scale(errors["level"], errors["level_rows"], reference)


def _weighted_quantiles(x: np.ndarray, w: np.ndarray, levels) -> list[float]:
    order = np.argsort(x)
    x, cw = x[order], np.cumsum(w[order])
    cw = cw / cw[-1]
    return [float(x[min(np.searchsorted(cw, q), len(x) - 1)]) for q in levels]


def quantile_table(errors: pd.DataFrame, levels=LEVELS, reference: float | None = None) -> dict[str, dict[str, float]]:
    """basis -> {level: quantile of |ln(pred / measured)| / file scale}, each source weighing the
    same (scale 1 when ``errors`` has no ``level`` column)."""
    reference = reference_level(errors) if reference is None else reference
    scaled = errors["log_error"].to_numpy(float) / _scales(errors, reference)
    out = {}
    for basis in BASES:
        pick = (errors["basis"] == basis).to_numpy()
        if not pick.any():
            continue
        w = 1.0 / errors[pick].groupby("source")["log_error"].transform("size").to_numpy(float)
        qs = _weighted_quantiles(scaled[pick], w, levels)
        out[basis] = {level_key(q): v for q, v in zip(levels, qs, strict=True)}
    return out


def coverage(errors: pd.DataFrame, levels=LEVELS, scaled: bool = True) -> pd.DataFrame:
    """Leave-one-set-out: each source's share of held-out rows inside the intervals that the
    other sources' errors give (rows whose basis the others never saw are left out); with
    ``scaled`` each row's bound times its file scale, without it the plain table's."""
    errors = errors if scaled else _plain(errors)
    return pd.DataFrame([_coverage_of(errors[errors["source"] == src], errors[errors["source"] != src], levels)
                         for src in sorted(set(errors["source"]))])  # fmt: skip


def _coverage_of(mine: pd.DataFrame, others: pd.DataFrame, levels=LEVELS) -> dict:
    """``mine``'s share of rows inside the bounds that ``others``' errors give."""
    reference = reference_level(others)
    table = quantile_table(others, levels, reference)
    mine = mine[mine["basis"].isin(list(table))]
    scale = _scales(mine, reference)
    row = {"source": ", ".join(sorted(set(mine["source"]))), "rows": len(mine)}
    for key in map(level_key, levels):
        row[key] = _share_inside(mine, table, key, scale) if len(mine) else float("nan")
    return row


def write_intervals(path: Path = INTERVALS_PATH, progress: Callable[[str], None] | None = None) -> dict:
    """Evaluate, tabulate and write the intervals file (atomically), with the leave-one-set-out
    coverage and the test sets' (``data.TEST_ONLY_SOURCES``, never in the table) under it."""
    from fedopt.atomic import write_atomic
    from fedopt.normalize.data import TEST_ONLY_SOURCES, calibration_measurements, held_out_measurements

    errors = held_out_errors(progress=progress)
    held = held_out_measurements()
    test_data = held[held["source"].isin(TEST_ONLY_SOURCES)]
    tests = held_out_errors(test_data, progress=progress)
    reference = reference_level(errors)
    table = quantile_table(errors, reference=reference)
    one_type = one_card_type_errors(calibration_measurements(), progress=progress)
    one_type_tests = one_card_type_errors(test_data, progress=progress)
    one_type_scale = one_card_type_scale(one_type, table)
    by_test = [t for _, t in tests.groupby("source", sort=True)]

    def shares(rows: list[dict]) -> dict:
        return {r["source"]: {"rows": int(r["rows"]), **{k: round(r[k], 3) for k in map(level_key, LEVELS)}} for r in rows}

    doc = {
        "about": "quantiles of |ln(predicted / measured)| / file scale of held-out predictions by basis "
        "(fedopt.normalize.intervals; python -m fedopt normalize --calibrate-intervals)",
        "written": datetime.date.today().isoformat(),
        "levels": [level_key(q) for q in LEVELS],
        "log_error_quantiles": table,
        "file_scale": {
            "about": "bounds times (level / reference) ^ (power * rows / (rows + rows_prior)); level: the mean "
            "|ln(pred / measured)| of the user's file's leave-one-card-out over rows; a file where no workload ran "
            "on two card types: times one_card_type (its calibration sets' files of one card type held "
            f"{ONE_CARD_TYPE_LEVEL:g} of their rows so)",
            "reference": reference,
            "rows_prior": SCALE_ROWS,
            "power": SCALE_POWER,
            "one_card_type": round(one_type_scale, 4),
        },
        "rows": {b: int((errors["basis"] == b).sum()) for b in BASES},
        "sources": sorted(set(errors["source"])),
        "coverage_leave_one_set_out": shares(coverage(errors).to_dict("records")),
        "coverage_leave_one_set_out_unscaled": shares(coverage(errors, scaled=False).to_dict("records")),
        "coverage_test_sets": shares([_coverage_of(t, errors) for t in by_test]),
        "coverage_test_sets_unscaled": shares([_coverage_of(_plain(t), _plain(errors)) for t in by_test]),
        "coverage_one_card_type_calibration_sets": _one_card_type_coverage(one_type, table, one_type_scale),
        "coverage_one_card_type_test_sets": _one_card_type_coverage(one_type_tests, table, one_type_scale),
        "coverage_one_card_type_test_sets_unscaled": _one_card_type_coverage(one_type_tests, table, 1.0),
    }  # fmt: skip
    write_atomic(path, json.dumps(doc, indent=1) + "\n")
    return doc


def _shipped(path: Path) -> dict:
    try:
        return json.loads(Path(path).read_text())
    except FileNotFoundError:
        return {}


def load_intervals(path: Path = INTERVALS_PATH) -> dict:
    """The shipped quantile table (basis -> level -> log error), {} when the file is missing."""
    return _shipped(path).get("log_error_quantiles", {})


def load_reference(path: Path = INTERVALS_PATH) -> float:
    """The calibration sets' typical leave-one-card-out level (NaN when the file has none: scale 1)."""
    return float(_shipped(path).get("file_scale", {}).get("reference", float("nan")))


def load_one_card_type_scale(path: Path = INTERVALS_PATH) -> float:
    """The widening of a file where no workload ran on two card types (1 when the file has none)."""
    return float(_shipped(path).get("file_scale", {}).get("one_card_type", 1.0))


def own_level(data: pd.DataFrame, progress: Callable[[str], None] | None = None, **fit) -> tuple[float, int]:
    """(mean |ln(pred / measured)|, rows) of ``data``'s own leave-one-card-out, fitted as ``fit``
    says (``ThroughputModel`` keywords): what the file says of how hard it is. (nan, 0) for a file
    of one card type. One fit per card type, in ``folds.fold_workers()`` processes (every core
    once the command, or a caller, has asked with ``use_cores``)."""
    from fedopt.normalize.evaluate import leave_one_card_out
    from fedopt.normalize.folds import fold_workers

    _, err = _log_errors(leave_one_card_out(data, baselines=False, progress=progress, workers=fold_workers(), **fit))
    return (float(err.mean()), len(err)) if len(err) else (float("nan"), 0)


def bounds(
    pred: np.ndarray, basis: np.ndarray, level: float, table: dict | None = None, scale: float = 1.0
) -> tuple[np.ndarray, np.ndarray]:
    """(low, high) around each prediction at ``level`` (one of ``LEVELS``), the table's width times
    ``scale`` (:func:`file_scale`): a measured cell is its own bound (an ineligible one 0), a basis with no evaluated
    errors (no specs, workload unmeasured) gets NaN."""
    table = load_intervals() if table is None else table
    key = check_level(level)
    pred = np.asarray(pred, float)
    basis = np.asarray(basis, dtype=object)
    width = np.full(len(pred), np.nan)
    width[(basis == "measured") | (basis == "ineligible")] = 0.0  # a measurement, or 0 from a measured failure
    for b, t in table.items():
        if key in t:
            width[basis == b] = float(t[key]) * scale
    return pred * np.exp(-width), pred * np.exp(width)


def scale_for(data: pd.DataFrame, progress: Callable[[str], None] | None = None, **fit) -> tuple[float, float, int]:
    """(scale, level, rows): the file scale of ``data`` against the shipped reference; for a file
    with nothing to hide (no workload on two card types) the calibrated scale of such files."""
    level, rows = own_level(data, progress=progress, **fit)
    if rows == 0:
        return load_one_card_type_scale(), level, rows
    return float(file_scale(level, rows, load_reference())), level, rows


def predict_with_bounds(model, query: pd.DataFrame, level: float = 0.8, scale: float = 1.0) -> pd.DataFrame:
    """The notebook form of ``--interval``: ``query`` plus ``throughput``, ``throughput_low``,
    ``throughput_high`` and ``basis`` from a fitted ``ThroughputModel``; ``scale`` from
    :func:`scale_for` on the measurements the model was fitted on (the command does that)."""
    pred, basis = model.predict(query), model.basis(query)
    low, high = bounds(pred, basis, level, scale=scale)
    return query.assign(throughput=pred, throughput_low=low, throughput_high=high, basis=basis)
