"""Leave-one-card-out evaluation of the throughput model against spec-ratio baselines.

For each card type: hide all its measurements, fit on the rest, predict the hidden ones (each
workload from its own measurements on the other cards). Rows measured 0 (the job could not run)
are left out of the errors. Error = |predicted - measured| / measured.

Baselines predict a hidden row from the same workload's rows on other cards at the same card
count (any count, scaled linearly, when there is none), times the ratio of one spec figure
(hidden card / other card), averaged geometrically over the other cards:

- ``peak-TFLOPS``: dense BF16 peak;
- ``best spec``: whichever single figure (bf16, fp32, memory bandwidth, memory size, scale-up
  bandwidth, power) gives the lowest median error on these data, chosen after the fact.

A reference, not a baseline: the ``oracle ratio`` predicts a hidden row the same way with the
hidden card's own median speed-up over each other card at that card count, read from the hidden
rows themselves. No predictor can know that figure; its error is what remains once a card's
level at each count is exactly right: each workload's own deviation from it (and the
measurements' noise), which a model can only read from the workload's rows on other cards.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from fedopt.normalize.baselines import SPEC_FEATURES, oracle_ratio, ratio_prediction, spec_ratio_baseline
from fedopt.normalize.cards import Card, CardResolver, arch_vendor
from fedopt.normalize.folds import available_cores, fold_workers, run_folds, use_cores
from fedopt.normalize.model import Hyper, ThroughputModel

# the scores and scale-out evaluations live in their own modules; their names stay importable from here
from fedopt.normalize.scaleout_evaluate import (
    UNINFORMED_SCALEOUT,
    format_scaleout,
    leave_one_workload_scaleout,
    scaleout_from_one_node,
    scaleout_summary,
)
from fedopt.normalize.scores import (
    by_card,
    errors,
    format_summary,
    median_interval,
    oracle_line,
    oracle_medians,
    summary,
    target_records,
    targets,
)


def leave_one_card_out(
    data: pd.DataFrame,
    hyper: Hyper | None = None,
    baselines: bool = True,
    resolver: CardResolver | None = None,
    unit: str = "card",
    progress: Callable[[str], None] | None = None,
    only: set[str] | None = None,
    workers: int = 1,
    **priors: dict,
) -> pd.DataFrame:
    """Rows of ``data`` measured > 0 with their held-out predictions (``pred`` and one column per baseline).
    ``unit="architecture"`` hides all cards of one architecture at a time (a new generation:
    its efficiency cannot come from a sibling); the ``card`` column then names the architecture.
    ``priors`` (``card_priors``, ``arch_priors``, ``arch_bias`` of ``calibrate.fit_settings``, passed
    to every fit) must be calibrated without ``data``: else they leak the hidden card. ``progress`` gets a line per fit;
    ``only`` limits which cards (architectures) are hidden in turn. ``workers`` > 1 runs the fits in
    that many processes (the same figures: each fit is seeded)."""
    resolver = resolver or CardResolver()
    model0 = ThroughputModel(resolver=resolver, hyper=hyper)
    cards = data.assign(card_key=[model0.card_key(n) for n in data["card_type"]])  # for the oracle
    keys = cards["card_key"].to_numpy()
    if unit == "architecture":
        keys = np.array([arch_vendor(model0._card(k), k)[0] for k in keys])
    elif unit != "card":
        raise ValueError(f"unit: card or architecture, not {unit!r}")
    rows = [data.iloc[:0].assign(card="", pred=0.0, basis="")]
    folds = []
    for key in sorted(set(keys) if only is None else set(keys) & set(only)):
        train = data[keys != key]
        seen = set(train.loc[train["throughput"] > 0, "workload"])
        hidden = (keys == key) & (data["throughput"] > 0) & data["workload"].isin(seen)
        if hidden.any() and not train.empty:
            folds.append((key, train, hidden))
    settings = {"resolver": resolver, "hyper": hyper, **priors}
    jobs = [(settings, train, data[hidden], baselines) for _, train, hidden in folds]
    for i, ((key, train, hidden), (model, res)) in enumerate(zip(folds, run_folds(jobs, workers), strict=True), 1):
        if progress:
            progress(f"leave-one-{unit}-out: fit {i}/{len(folds)}, {key} hidden")
        res["card"] = key
        if baselines:
            test = data[hidden]
            for fname, feat in SPEC_FEATURES.items():
                res["base_" + fname] = spec_ratio_baseline(train, test, feat, model)
            res["oracle"] = oracle_ratio(cards[keys != key], cards[hidden])
        rows.append(res)
    return pd.concat(rows, ignore_index=True)


def each_set_alone(
    data: pd.DataFrame,
    unit: str = "card",
    priors: bool = True,
    resolver: CardResolver | None = None,
    progress: Callable[[str], None] | None = None,
    workers: int = 1,
    replicas: bool | str = False,
) -> pd.DataFrame:
    """:func:`leave_one_card_out` (``unit`` "card" or "architecture"), :func:`random_cells` with
    the baselines (``unit="cells"``), :func:`keep_one_card_type` (``unit="card_type_file"``) or
    :func:`keep_one_card` (``unit="one_card"``), on
    each ``source`` of ``data`` fitted alone, as a user's file of that set would be, with the priors
    calibrated on every other set (never on itself, nor on a set of the same systems:
    ``calibrate.fit_settings``); ``workers`` processes for the fits; ``replicas``: fitted as
    ``normalize --replicas`` fits (``Hyper.replicas``)."""
    from fedopt.normalize.calibrate import fit_settings

    parts = []
    for src, part in data.groupby("source", sort=True):
        if progress:
            progress(f"{src}: calibrating the priors without it")
        fit = fit_settings(priors=priors, exclude=(str(src),), replicas=replicas)
        if unit == "cells":
            parts.append(random_cells(part, resolver=resolver, baselines=True, workers=workers, **fit))
        elif unit == "card_type_file":
            parts.append(keep_one_card_type(part, resolver=resolver, progress=progress, **fit))
        elif unit == "one_card":
            parts.append(keep_one_card(part, resolver=resolver, progress=progress, **fit))
        else:
            parts.append(leave_one_card_out(part, resolver=resolver, unit=unit, progress=progress, workers=workers, **fit))
    return pd.concat(parts, ignore_index=True)


def keep_one_card(
    data: pd.DataFrame,
    hyper: Hyper | None = None,
    resolver: CardResolver | None = None,
    workloads: list[str] | None = None,
    progress: Callable[[str], None] | None = None,
    **priors: dict,
) -> pd.DataFrame:
    """Workloads seen on one card: each workload measured on two cards or more keeps the rows of
    one card in turn (all counts), the rest of its rows are hidden and predicted from those and
    the other workloads' rows. Columns as :func:`leave_one_card_out` (``card``: the hidden rows'
    card) plus ``kept``. ``workloads`` limits which workloads take a turn (default: all)."""
    resolver = resolver or CardResolver()
    keys = np.array([ThroughputModel(resolver=resolver).card_key(n) for n in data["card_type"]])
    positive = (data["throughput"] > 0).to_numpy()
    rows = [data.iloc[:0].assign(card="", kept="", pred=0.0, basis="")]
    turns = sorted(set(data.loc[positive, "workload"]) & set(workloads or data["workload"]))
    for i, w in enumerate(turns, 1):
        if progress:
            progress(f"one card kept: workload {i}/{len(turns)}, {w}")
        mine = (data["workload"] == w).to_numpy()
        for key in sorted(set(keys[mine & positive])):
            keep = mine & (keys == key)
            test_mask = mine & ~keep & positive
            if not test_mask.any():
                continue
            rows.append(_kept_fit(data[~mine | keep], data[test_mask], keys[test_mask], key, resolver, hyper, priors))
    return pd.concat(rows, ignore_index=True)


def _kept_fit(train, test, test_keys, kept: str, resolver, hyper, priors: dict) -> pd.DataFrame:
    """``test`` predicted by a fit on ``train`` (what was kept), what each prediction rests on
    (``ThroughputModel.basis``, as the command's intervals read it) and the spec-ratio baselines."""
    model = ThroughputModel(resolver=resolver, hyper=hyper, **priors).fit(train)
    res = test.assign(card=test_keys, kept=kept, pred=model.predict(test), basis=model.basis(test))
    for fname, feat in SPEC_FEATURES.items():
        res["base_" + fname] = spec_ratio_baseline(train, test, feat, model)
    return res


MIN_WORKLOADS_KEPT = 3  # a card type kept alone needs this many workloads to make a file


def keep_one_card_type(
    data: pd.DataFrame,
    hyper: Hyper | None = None,
    resolver: CardResolver | None = None,
    progress: Callable[[str], None] | None = None,
    **priors: dict,
) -> pd.DataFrame:
    """A file of one card type: each card type with ``MIN_WORKLOADS_KEPT`` workloads or more keeps
    its rows alone (all counts) as the whole file, and those workloads' rows on every other card are
    predicted from it. No workload then has neighbours of its own (``neighbours.py``): its ratios come
    from the specs and priors and, given the calibrated ``reference`` among ``priors``, the calibration's
    workloads: the cold start of a fleet that has measured one card type. Columns
    as :func:`keep_one_card` (``kept``: the card type of the file)."""
    resolver = resolver or CardResolver()
    keys = np.array([ThroughputModel(resolver=resolver).card_key(n) for n in data["card_type"]])
    positive = (data["throughput"] > 0).to_numpy()
    rows = [data.iloc[:0].assign(card="", kept="", pred=0.0, basis="")]
    count = pd.Series(data.loc[positive, "workload"].to_numpy()).groupby(keys[positive]).nunique()
    turns = sorted(count[count >= MIN_WORKLOADS_KEPT].index)
    for i, key in enumerate(turns, 1):
        if progress:
            progress(f"one card type kept: {i}/{len(turns)}, {key}")
        keep = keys == key
        test_mask = ~keep & positive & data["workload"].isin(set(data.loc[keep, "workload"])).to_numpy()
        if not test_mask.any():
            continue
        rows.append(_kept_fit(data[keep], data[test_mask], keys[test_mask], key, resolver, hyper, priors))
    return pd.concat(rows, ignore_index=True)


def random_cells(
    data: pd.DataFrame,
    folds: int = 5,
    seed: int = 0,
    hyper: Hyper | None = None,
    resolver: CardResolver | None = None,
    baselines: bool = False,
    workers: int = 1,
    **priors: dict,
) -> pd.DataFrame:
    """Cells missing at random: the measured cells (workload, card, count) fall into ``folds``
    random folds, each hidden in turn and predicted from the rest (what filling the gaps of a
    user's job x card matrix is like; a cell's repeats fall in one fold, else the others would give
    it away). Columns ``pred``, ``basis`` (:meth:`ThroughputModel.basis` of each hidden row) and
    ``card`` (its card); with ``baselines`` one column per spec-ratio baseline, from the same
    workload's rows on the other cards at the same count, as in :func:`leave_one_card_out`.
    ``workers`` processes for the fits (the same figures)."""
    resolver = resolver or CardResolver()
    model0 = ThroughputModel(resolver=resolver, hyper=hyper)
    keys = np.array([model0.card_key(n) for n in data["card_type"]], dtype=object)
    cells = pd.MultiIndex.from_arrays([data["workload"].astype(str).to_numpy(), keys, data["cards"].to_numpy()])
    codes, uniq = pd.factorize(cells)
    fold = np.random.default_rng(seed).integers(0, folds, len(uniq))[codes]
    rows = [data.iloc[:0].assign(pred=0.0, basis="", card="")]
    positive = (data["throughput"] > 0).to_numpy()
    parts = []
    for f in range(folds):
        train = data[fold != f]
        test_mask = (fold == f) & positive & data["workload"].isin(train["workload"]).to_numpy()
        if test_mask.any():
            parts.append((train, test_mask))
    settings = {"resolver": resolver, "hyper": hyper, **priors}
    jobs = [(settings, train, data[mask], baselines) for train, mask in parts]
    for (train, mask), (model, res) in zip(parts, run_folds(jobs, workers), strict=True):
        res["card"] = keys[mask]
        if baselines:
            for fname, feat in SPEC_FEATURES.items():
                res["base_" + fname] = spec_ratio_baseline(train, data[mask], feat, model)
        rows.append(res)
    return pd.concat(rows, ignore_index=True)


__all__ = [
    "UNINFORMED_SCALEOUT",
    "Card",
    "available_cores",
    "by_card",
    "each_set_alone",
    "errors",
    "fold_workers",
    "format_scaleout",
    "format_summary",
    "keep_one_card",
    "keep_one_card_type",
    "leave_one_card_out",
    "leave_one_workload_scaleout",
    "median_interval",
    "oracle_line",
    "oracle_medians",
    "oracle_ratio",
    "random_cells",
    "ratio_prediction",
    "scaleout_from_one_node",
    "scaleout_summary",
    "summary",
    "target_records",
    "targets",
    "use_cores",
]
