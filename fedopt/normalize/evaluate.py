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

from fedopt.normalize.cards import Card, CardResolver, arch_vendor
from fedopt.normalize.model import Hyper, ThroughputModel

SPEC_FEATURES = {
    "bf16_tflops": lambda c: c.bf16_tflops,
    "fp32_tflops": lambda c: c.fp32,
    "mem_bw_gbs": lambda c: c.mem_bw_gbs,
    "memory_gb": lambda c: c.memory_gb,
    "scaleup_gbs": lambda c: c.scaleup,
    "power_w": lambda c: c.power_w,
}


def ratio_prediction(train: pd.DataFrame, test: pd.DataFrame, train_values, test_values) -> np.ndarray:
    """Each test row from the same workload's train rows measured > 0 (the same count where there
    is one, else every count, scaled linearly) times the ratio of a per-row figure (test row / train
    row; 1 where either is NaN), averaged geometrically; NaN for a workload without train rows."""
    tr = train.assign(value=np.asarray(train_values, dtype=float))
    tr = tr[tr["throughput"] > 0]
    by_w: dict[str, list[tuple[float, int, float]]] = {}
    for w, f, n, t in zip(tr["workload"], tr["value"], tr["cards"], tr["throughput"], strict=True):
        by_w.setdefault(w, []).append((float(f), int(n), float(t)))
    out = np.full(len(test), np.nan)
    for i, (w, fc, n) in enumerate(zip(test["workload"], np.asarray(test_values, dtype=float), test["cards"], strict=True)):
        rows = by_w.get(w, [])
        rows = [r for r in rows if r[1] == n] or rows
        if rows:
            logs = [np.log(t * (fc / f if fc == fc and f == f else 1.0) * n / n2) for f, n2, t in rows]
            out[i] = float(np.exp(np.mean(logs)))
    return out


def _ratio_baseline(train: pd.DataFrame, test: pd.DataFrame, feature, model: ThroughputModel) -> np.ndarray:
    res = model.resolver

    def feat(name):
        card = res.resolve(name)
        v = feature(card) if card is not None else None
        return float(v) if v else np.nan

    return ratio_prediction(train, test, [feat(n) for n in train["card_type"]], [feat(n) for n in test["card_type"]])


def oracle_ratio(train: pd.DataFrame, test: pd.DataFrame) -> np.ndarray:
    """Each hidden row from the same workload's rows at the same count on every other card, times
    the hidden card's median ratio to that card at that count over the hidden rows themselves
    (an oracle: see the module's docstring), averaged geometrically; NaN without such rows. Both
    tables carry a ``card_key`` column (``ThroughputModel.card_key`` of ``card_type``)."""
    tr = train[train["throughput"] > 0]
    te = test.assign(row=np.arange(len(test)))
    pairs = te.merge(tr, on=["workload", "cards"], suffixes=("", "_o"))
    out = np.full(len(test), np.nan)
    if pairs.empty:
        return out
    pairs["log_ratio"] = np.log(pairs["throughput"] / pairs["throughput_o"])
    level = pairs.groupby(["card_key", "card_key_o", "cards"])["log_ratio"].transform("median")
    pred = (np.log(pairs["throughput_o"]) + level).groupby(pairs["row"]).mean()
    out[pred.index.to_numpy()] = np.exp(pred.to_numpy())
    return out


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
    for i, ((key, train, hidden), (model, res)) in enumerate(zip(folds, _run_folds(jobs, workers), strict=True), 1):
        if progress:
            progress(f"leave-one-{unit}-out: fit {i}/{len(folds)}, {key} hidden")
        res["card"] = key
        if baselines:
            test = data[hidden]
            for fname, feat in SPEC_FEATURES.items():
                res["base_" + fname] = _ratio_baseline(train, test, feat, model)
            res["oracle"] = oracle_ratio(cards[keys != key], cards[hidden])
        rows.append(res)
    return pd.concat(rows, ignore_index=True)


_FOLD_WORKERS = 1  # processes for the folds of the evaluations and calibrations below (use_cores)


def available_cores() -> int:
    """The cores this process may run on."""
    import os

    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def use_cores(n: int | None = None) -> None:
    """Fit the folds of later evaluations, calibrations and ``--interval`` scales in ``n``
    processes (default: every core this process may use). The command opts in; a library caller
    stays in one process unless it asks: forking a process that runs other threads (a notebook
    kernel, a server) can deadlock the child."""
    global _FOLD_WORKERS
    _FOLD_WORKERS = max(1, available_cores() if n is None else int(n))


def fold_workers() -> int:
    """How many processes the folds of an evaluation run in (:func:`use_cores`; 1 unless asked)."""
    return _FOLD_WORKERS


def _fit_fold(job: tuple) -> tuple[ThroughputModel | None, pd.DataFrame]:
    """One fold: fit on ``train``, predict ``test``; the model comes back only when the baselines need it."""
    settings, train, test, keep_model = job
    model = ThroughputModel(**settings).fit(train)
    res = test.copy()
    res["pred"] = model.predict(test)
    res["basis"] = model.basis(test)
    return (model if keep_model else None), res


def _run_folds(jobs: list[tuple], workers: int):
    """Each fold's (model, rows), in order: in this process, or in ``workers`` forked ones (where
    the platform forks: not on Windows)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    if workers <= 1 or len(jobs) <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        yield from map(_fit_fold, jobs)
        return

    with ProcessPoolExecutor(max_workers=min(workers, len(jobs)), mp_context=multiprocessing.get_context("fork")) as pool:
        yield from pool.map(_fit_fold, jobs)


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
        res["base_" + fname] = _ratio_baseline(train, test, feat, model)
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
    for (train, mask), (model, res) in zip(parts, _run_folds(jobs, workers), strict=True):
        res["card"] = keys[mask]
        if baselines:
            for fname, feat in SPEC_FEATURES.items():
                res["base_" + fname] = _ratio_baseline(train, data[mask], feat, model)
        rows.append(res)
    return pd.concat(rows, ignore_index=True)


# Scale-out priors that have not seen MLPerf's multi-node systems (the defaults were fitted on them)
UNINFORMED_SCALEOUT = {"psi_prior": -2.0, "beta_prior": 1.0}


def leave_one_workload_scaleout(
    data: pd.DataFrame,
    resolver: CardResolver | None = None,
    workloads: list[str] | None = None,
    progress: Callable[[str], None] | None = None,
) -> pd.DataFrame:
    """Scale-out rows (past one node) of each workload predicted with all of that workload's
    scale-out rows hidden: from its own rows on one node and the other workloads' scale-out rows.
    Workloads never measured on one node (GPT-3) are left out: their units are unknown.

    ``data`` holds the one-node rows and the scale-out rows (``source == "mlperf-scaleout"``).
    ``base_linear`` is the workload's one-node throughput on the same card times n / 8 (the
    model without its scale-out term would be near it). The priors are uninformed.
    ``workloads`` limits which workloads are hidden in turn (default: all).
    """
    resolver = resolver or CardResolver()
    hyper = Hyper(**UNINFORMED_SCALEOUT)
    out0 = data.iloc[:0].assign(pred=0.0, base_linear=0.0)
    scale = data["source"].eq("mlperf-scaleout").to_numpy()
    key = np.array([ThroughputModel(resolver=resolver).card_key(c) for c in data["card_type"]])
    one_node = ~scale & (data["cards"] == 8).to_numpy()
    rows = [out0]
    measured = set(data.loc[~scale & (data["throughput"] > 0).to_numpy(), "workload"])  # else its units are unknown
    turns = sorted(set(data.loc[scale, "workload"]) & measured & set(workloads or data["workload"]))
    for i, w in enumerate(turns, 1):
        if progress:
            progress(f"scale-out: workload {i}/{len(turns)}, {w}")
        hide = scale & (data["workload"] == w).to_numpy()
        model = ThroughputModel(resolver=resolver, hyper=hyper).fit(data[~hide])
        test = data[hide].copy()
        test["pred"] = model.predict(test)
        mine = one_node & (data["workload"] == w).to_numpy()
        node = dict(zip(key[mine], data.loc[mine, "throughput"], strict=True))
        test["base_linear"] = [node.get(k, np.nan) * n / 8 for k, n in zip(key[hide], test["cards"], strict=True)]
        rows.append(test)
    return pd.concat(rows, ignore_index=True)


def scaleout_from_one_node(
    one_node: pd.DataFrame,
    multi: pd.DataFrame,
    hyper: Hyper | None = None,
    resolver: CardResolver | None = None,
    **priors: dict,
) -> pd.DataFrame:
    """Rows past one node (``multi``) predicted by a model fitted on ``one_node`` rows only: what a
    user whose file holds single-node runs gets when asking about a large system (the slowdown
    comes from the prior alone). Workloads without one-node rows are left out (their units are
    unknown). Columns as :func:`leave_one_workload_scaleout`; ``base_linear`` is the same card's
    8-accelerator throughput times n / 8."""
    model = ThroughputModel(resolver=resolver, hyper=hyper, **priors).fit(one_node)
    test = multi[multi["workload"].isin(set(one_node.loc[one_node["throughput"] > 0, "workload"]))].copy()
    test = test[test["throughput"] > 0]
    test["pred"] = model.predict(test)
    eight = one_node[(one_node["cards"] == 8) & (one_node["throughput"] > 0)]
    node = {(w, model.card_key(c)): t for w, c, t in zip(eight["workload"], eight["card_type"], eight["throughput"], strict=True)}
    test["base_linear"] = [
        node.get((w, model.card_key(c)), np.nan) * n / 8
        for w, c, n in zip(test["workload"], test["card_type"], test["cards"], strict=True)
    ]
    return test.reset_index(drop=True)


def scaleout_summary(res: pd.DataFrame) -> pd.DataFrame:
    """Median and mean errors of the scale-out evaluation by system size, model against linear
    scaling (columns ``accelerators, rows, model_median, model_mean, linear_median, linear_mean``)."""
    res = res.assign(model=errors(res, "pred"), linear=errors(res, "base_linear"))
    res = res[res["linear"].notna()]
    bins = [(9, 64), (65, 512), (513, 10**9)]
    out = []
    for name, lo, hi in [(f"{a}-{b}" if b < 10**9 else f">= {a}", a, b) for a, b in bins] + [("all", 9, 10**9)]:
        g = res[(res["cards"] >= lo) & (res["cards"] <= hi)]
        if not g.empty:
            out.append(
                {
                    "accelerators": name,
                    "rows": len(g),
                    "model_median": float(g["model"].median()),
                    "model_mean": float(g["model"].mean()),
                    "linear_median": float(g["linear"].median()),
                    "linear_mean": float(g["linear"].mean()),
                }
            )
    return pd.DataFrame(out)


def format_scaleout(tab: pd.DataFrame) -> str:
    """A :func:`scaleout_summary` table as markdown."""
    lines = [
        "| accelerators | rows | model median | model mean | linear median | linear mean |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for r in tab.to_dict("records"):
        lines.append(
            f"| {r['accelerators']} | {r['rows']} | {100 * r['model_median']:.1f}% | {100 * r['model_mean']:.1f}% | "
            f"{100 * r['linear_median']:.1f}% | {100 * r['linear_mean']:.1f}% |"
        )
    return "\n".join(lines)


def errors(res: pd.DataFrame, col: str) -> pd.Series:
    p = res[col]
    return (p - res["throughput"]).abs() / res["throughput"]


def summary(res: pd.DataFrame) -> pd.DataFrame:
    """Median and mean absolute relative error by source (and all), model and baselines."""
    cols = {"model": "pred"} | {f: "base_" + f for f in SPEC_FEATURES if "base_" + f in res}
    groups = [("all", res)]
    if "source" in res:
        groups += [(s, g) for s, g in res.groupby("source", sort=True)]
    best = None
    if len(cols) > 1:
        med = {f: float(np.nanmedian(errors(res, c))) for f, c in cols.items() if f != "model"}
        best = min(med, key=med.get)
    out = []
    for name, g in groups:
        row: dict = {"data": name, "rows": len(g), "cards": g["card"].nunique()}
        e = errors(g, "pred")
        row["model_median"], row["model_mean"] = float(e.median()), float(e.mean())
        if best is not None:
            e = errors(g, "base_bf16_tflops")
            row["peak_tflops_median"], row["peak_tflops_mean"] = float(e.median()), float(e.mean())
            e = errors(g, "base_" + best)
            row["best_spec"] = best
            row["best_spec_median"], row["best_spec_mean"] = float(e.median()), float(e.mean())
        out.append(row)
    return pd.DataFrame(out)


def format_summary(tab: pd.DataFrame) -> str:
    lines = [
        "| data | rows | cards | model median | model mean | peak-TFLOPS median | peak-TFLOPS mean "
        "| best spec | best median | best mean |",
        "|---|---:|---:|---:|---:|---:|---:|---|---:|---:|",
    ]
    for r in tab.to_dict("records"):

        def pct(k, r=r):
            return f"{100 * r[k]:.1f}%" if k in r and r[k] == r[k] else "-"

        lines.append(
            f"| {r['data']} | {r['rows']} | {r['cards']} | {pct('model_median')} | {pct('model_mean')} | "
            f"{pct('peak_tflops_median')} | {pct('peak_tflops_mean')} | {r.get('best_spec', '-')} | "
            f"{pct('best_spec_median')} | {pct('best_spec_mean')} |"
        )
    return "\n".join(lines)


def by_card(res: pd.DataFrame) -> pd.DataFrame:
    """Median errors per held-out card: model, peak-TFLOPS ratio, memory-bandwidth ratio; and the
    model's signed bias (``model_bias``: its median predicted / measured, less 1; + = too fast), as
    an error of 30% may be a card the model over-predicts everywhere or one it misses both ways."""
    g = res.assign(model=errors(res, "pred"), model_bias=np.log(res["pred"] / res["throughput"]))
    cols = {"model": ("model", "median"), "model_bias": ("model_bias", "median")}
    for name, col in (("peak_tflops", "base_bf16_tflops"), ("mem_bw", "base_mem_bw_gbs")):
        if col in res:
            g[name] = errors(res, col)
            cols[name] = (name, "median")
    out = g.groupby("card").agg(rows=("pred", "size"), **cols)
    out["model_bias"] = np.expm1(out["model_bias"])
    return out


def oracle_medians(res: pd.DataFrame) -> dict[str, float]:
    """The oracle ratio's median error, all and per source ({} without it)."""
    if "oracle" not in res or res["oracle"].isna().all():
        return {}
    out = {"all": float(np.nanmedian(errors(res, "oracle")))}
    if "source" in res:
        out |= {str(s): float(np.nanmedian(errors(g, "oracle"))) for s, g in res.groupby("source", sort=True)}
    return out


def oracle_line(res: pd.DataFrame) -> str | None:
    """The oracle ratio's median error (all and per source), or None without it."""
    medians = oracle_medians(res)
    if not medians:
        return None
    return (
        "oracle ratio (each hidden card's true median speed-up at each count, read from the hidden rows; "
        "what is left is each workload's own deviation and the noise): median "
        + ", ".join(f"{name} {100 * m:.1f}%" for name, m in medians.items())
    )


def median_interval(
    res: pd.DataFrame, col: str = "pred", level: float = 0.9, draws: int = 2000, seed: int = 0
) -> tuple[float, float]:
    """How far the median error could move with other workloads of the same kind: the ``level``
    interval of the median over ``draws`` resamples of whole workloads (a workload's rows share its
    shares and its errors, so rows are not independent; a cluster bootstrap). Tells a real gap
    from one set's luck: most model changes tried move the median by less than this width."""
    e = errors(res, col).to_numpy(dtype=float)
    ok = np.isfinite(e)
    e = e[ok]
    if len(e) == 0:
        return float("nan"), float("nan")
    wl = pd.factorize(res["workload"].astype(str).to_numpy()[ok])[0]
    order = np.argsort(e, kind="stable")
    e, wl = e[order], wl[order]
    n_wl = int(wl.max()) + 1
    rng = np.random.default_rng(seed)
    counts = rng.multinomial(n_wl, np.full(n_wl, 1.0 / n_wl), size=draws)  # each draw: how often each workload is taken
    cum = np.cumsum(counts[:, wl], axis=1)  # each draw's rows, in error order, counted with repeats
    total = cum[:, -1:]

    def at(k):  # the k-th (0-based) error of each draw's multiset
        return e[(cum < k + 1).sum(axis=1)]

    medians = 0.5 * (at((total - 1) // 2) + at(total // 2))  # as pandas' median of the resampled rows
    lo, hi = np.quantile(medians, [(1 - level) / 2, (1 + level) / 2])
    return float(lo), float(hi)


def target_records(tab: pd.DataFrame, limit: float = 0.15, res: pd.DataFrame | None = None) -> list[dict]:
    """Per data set of ``tab`` (:func:`summary`): its median, whether it meets ``limit``
    (``within_limit``) and half the peak-TFLOPS baseline's (``within_half_peak``); with ``res`` (the
    rows ``tab`` summarizes) the median's ``median_interval`` too (``interval_low``, ``interval_high``)."""
    out = []
    for r in tab.to_dict("records"):
        if "peak_tflops_median" not in r:
            continue
        rec = {
            "data": r["data"],
            "median": r["model_median"],
            "limit": limit,
            "within_limit": bool(r["model_median"] <= limit),
            "half_peak": 0.5 * r["peak_tflops_median"],
            "within_half_peak": bool(r["model_median"] <= 0.5 * r["peak_tflops_median"]),
        }
        if res is not None:
            part = res if r["data"] == "all" or "source" not in res else res[res["source"] == r["data"]]
            rec["interval_low"], rec["interval_high"] = median_interval(part)
        out.append(rec)
    return out


def targets(tab: pd.DataFrame, limit: float = 0.15, res: pd.DataFrame | None = None) -> list[str]:
    """One line per data set: does the median meet ``limit`` and half the peak-TFLOPS baseline's?
    With ``res`` (the rows ``tab`` summarizes) each median also gets its ``median_interval``."""
    out = []
    for r in target_records(tab, limit, res):
        a, b = r["within_limit"], r["within_half_peak"]
        width = ""
        if "interval_low" in r:
            width = f" (90% {100 * r['interval_low']:.1f}-{100 * r['interval_high']:.1f}% over resampled workloads)"
        out.append(
            f"{r['data']}: median {100 * r['median']:.1f}%{width} "
            f"{'<=' if a else '>'} {100 * limit:.0f}% ({'met' if a else 'NOT met'}); "
            f"{'<=' if b else '>'} half the peak-TFLOPS baseline's {100 * r['half_peak']:.1f}% "
            f"({'met' if b else 'NOT met'})"
        )
    return out


__all__ = [
    "Card",
    "by_card",
    "each_set_alone",
    "errors",
    "format_scaleout",
    "format_summary",
    "keep_one_card",
    "leave_one_card_out",
    "leave_one_workload_scaleout",
    "median_interval",
    "oracle_line",
    "oracle_medians",
    "oracle_ratio",
    "random_cells",
    "ratio_prediction",
    "scaleout_summary",
    "summary",
    "target_records",
    "targets",
]
