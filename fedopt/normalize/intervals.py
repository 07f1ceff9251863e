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
    """Rows ``source, kind, basis, log_error`` of every held-out prediction (module docstring);
    ``data`` defaults to every real measurement. About 3 minutes on the ~1,400 real rows."""
    from fedopt.normalize.calibrate import fit_settings
    from fedopt.normalize.cards import CardResolver
    from fedopt.normalize.data import calibration_measurements
    from fedopt.normalize.evaluate import leave_one_card_out, random_cells

    data = calibration_measurements() if data is None else data
    resolver = CardResolver()
    parts = []
    for src, part in data.groupby("source", sort=True):
        part = part.reset_index(drop=True)
        fit = fit_settings(exclude=(str(src),))
        for kind in KINDS:
            if progress:
                progress(f"intervals: {src}, {kind} held out")
            if kind == "cells":
                res = random_cells(part, resolver=resolver, **fit)
            else:
                res = leave_one_card_out(part, baselines=False, resolver=resolver, unit=kind, **fit)
            res = res[(res["pred"] > 0) & (res["throughput"] > 0)]
            err = np.abs(np.log(res["pred"].to_numpy(float) / res["throughput"].to_numpy(float)))
            parts.append(pd.DataFrame({"source": str(src), "kind": kind, "basis": res["basis"].to_numpy(), "log_error": err}))
    return pd.concat(parts, ignore_index=True)


def _weighted_quantiles(x: np.ndarray, w: np.ndarray, levels) -> list[float]:
    order = np.argsort(x)
    x, cw = x[order], np.cumsum(w[order])
    cw = cw / cw[-1]
    return [float(x[min(np.searchsorted(cw, q), len(x) - 1)]) for q in levels]


def quantile_table(errors: pd.DataFrame, levels=LEVELS) -> dict[str, dict[str, float]]:
    """basis -> {level: quantile of |ln(pred / measured)|}, each source weighing the same."""
    out = {}
    for basis in BASES:
        e = errors[errors["basis"] == basis]
        if e.empty:
            continue
        w = 1.0 / e.groupby("source")["log_error"].transform("size").to_numpy(float)
        qs = _weighted_quantiles(e["log_error"].to_numpy(float), w, levels)
        out[basis] = {level_key(q): v for q, v in zip(levels, qs, strict=True)}
    return out


def coverage(errors: pd.DataFrame, levels=LEVELS) -> pd.DataFrame:
    """Leave-one-set-out: each source's share of held-out rows inside the intervals that the
    other sources' errors give (rows whose basis the others never saw are left out)."""
    rows = []
    for src in sorted(set(errors["source"])):
        table = quantile_table(errors[errors["source"] != src], levels)
        mine = errors[(errors["source"] == src) & errors["basis"].isin(list(table))]
        row = {"source": src, "rows": len(mine)}
        for key in map(level_key, levels):
            bound = mine["basis"].map({b: t[key] for b, t in table.items()}).to_numpy(float)
            row[key] = float(np.mean(mine["log_error"].to_numpy(float) <= bound)) if len(mine) else float("nan")
        rows.append(row)
    return pd.DataFrame(rows)


def write_intervals(path: Path = INTERVALS_PATH, progress: Callable[[str], None] | None = None) -> dict:
    """Evaluate, tabulate and write the intervals file (atomically)."""
    from fedopt.atomic import write_atomic

    errors = held_out_errors(progress=progress)
    cov = coverage(errors)
    doc = {
        "about": "quantiles of |ln(predicted / measured)| of held-out predictions by basis "
        "(fedopt.normalize.intervals; python -m fedopt normalize --calibrate-intervals)",
        "written": datetime.date.today().isoformat(),
        "levels": [level_key(q) for q in LEVELS],
        "log_error_quantiles": quantile_table(errors),
        "rows": {b: int((errors["basis"] == b).sum()) for b in BASES},
        "sources": sorted(set(errors["source"])),
        "coverage_leave_one_set_out": {
            r["source"]: {"rows": int(r["rows"]), **{k: round(r[k], 3) for k in map(level_key, LEVELS)}}
            for _, r in cov.iterrows()
        },
    }
    write_atomic(path, json.dumps(doc, indent=1) + "\n")
    return doc


def load_intervals(path: Path = INTERVALS_PATH) -> dict:
    """The shipped quantile table (basis -> level -> log error), {} when the file is missing."""
    try:
        return json.loads(Path(path).read_text())["log_error_quantiles"]
    except FileNotFoundError:
        return {}


def bounds(pred: np.ndarray, basis: np.ndarray, level: float, table: dict | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(low, high) around each prediction at ``level`` (one of ``LEVELS``): a measured cell is its
    own bound, a basis with no evaluated errors (no specs, workload unmeasured) gets NaN."""
    table = load_intervals() if table is None else table
    key = check_level(level)
    pred = np.asarray(pred, float)
    basis = np.asarray(basis, dtype=object)
    width = np.full(len(pred), np.nan)
    width[basis == "measured"] = 0.0
    for b, t in table.items():
        if key in t:
            width[basis == b] = float(t[key])
    return pred * np.exp(-width), pred * np.exp(width)


def predict_with_bounds(model, query: pd.DataFrame, level: float = 0.8) -> pd.DataFrame:
    """The notebook form of ``--interval``: ``query`` plus ``throughput``, ``throughput_low``,
    ``throughput_high`` and ``basis`` from a fitted ``ThroughputModel``."""
    pred, basis = model.predict(query), model.basis(query)
    low, high = bounds(pred, basis, level)
    return query.assign(throughput=pred, throughput_low=low, throughput_high=high, basis=basis)
