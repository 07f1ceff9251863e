"""Calibrated parameters (``models/normalize_params.json``): the throughput model fitted on every
real measurement the project has (the shared Gavel and MLPerf Training measurements and the
MLPerf Inference / Training and Lambda benchmark sets of ``data/``, see ``fedopt.normalize.data``).

``python -m fedopt normalize --calibrate`` rewrites the file. It holds each measured card's compute
efficiency (its achieved share of peak relative to the H100 reference of the model), the
architectures' and vendors' efficiencies, and the common workload shares. Callers opt in:

- ``fedopt.normalize.roofline.calibrated(spec, reference)`` sets a ``CardSpec``'s efficiency for
  ``profile_rate`` (profile-only prediction);
- ``normalize --measurements`` (``fit_settings``) uses a card's calibrated deviation from its
  architecture, halved, as the prior of a card that is not in the user's measurements, the
  calibrated gaps between architectures for an architecture that is not in them (an MI355X
  query on a file of Hopper and CDNA3 cards sits at CDNA3's fitted level plus the calibrated
  CDNA4-CDNA3 gap) and, where two calibration sets or more agree, half of what the model missed
  for such an architecture when it was hidden in the calibration data (``architecture_bias``),
  and the calibrated scale-out slowdown (how a job slows past one node, from MLPerf's multi-node
  systems) as the prior of the user's workloads (``--no-priors`` turns all but the last off),
  and the calibration's workloads on every catalog card (``reference_rates``, written beside as
  ``normalize_params.reference.json``) as the neighbours of a user's workload whose group has none.

An evaluation must not use priors calibrated on the set it evaluates: ``fit_settings(exclude=...)``
calibrates without the named sets (~16 s on 2 cores, cached per process); the evaluation of the shared
measurements uses no card or architecture priors at all.
"""

from __future__ import annotations

import dataclasses
import functools
import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

from fedopt.normalize.capacity import FORMATS, RESOURCES
from fedopt.normalize.catalog import MODELS_DIR
from fedopt.normalize.model import Hyper, ThroughputModel
from fedopt.normalize.objective import sigmoid

PARAMS_PATH = MODELS_DIR / "normalize_params.json"
REFERENCE_COUNT = 8  # the calibration's workloads are tabled at this many cards: one node (411 of its 1,437 rows)
PRIOR_SHRINK = 0.5  # share of a card's calibrated deviation from its architecture used as its prior
ARCH_PRIOR_SHRINK = 1.0  # share of the calibrated gap between two architectures used for an unmeasured one
ARCH_BIAS_SHRINK = 0.5  # share of the calibrated miss of an unmeasured architecture corrected for


def calibrate(
    data: pd.DataFrame | None = None, hyper: Hyper | None = None, progress: Callable[[str], None] | None = None
) -> dict:
    """The parameters file's content, fitted on ``data`` (default: every real measurement);
    ``progress`` gets a line per fit (the full fit, then one per architecture hidden for
    :func:`architecture_bias`: eleven, on every core; ~16 s in all on every set with 2)."""
    from fedopt.normalize.cards import arch_vendor
    from fedopt.normalize.data import calibration_measurements, mlperf

    data = calibration_measurements() if data is None else data
    sources = sorted(set(data["source"])) if "source" in data.columns else []
    if progress:
        progress(f"calibrating on {len(data)} measurements")
    model = ThroughputModel(hyper=hyper).fit(data[["workload", "card_type", "cards", "throughput"]])
    psi, beta, so_err = fit_scaleout_prior(model, mlperf(scaleout=True))
    fz = model.fitted
    assert fz is not None
    keys = [model.card_key(c) for c in data["card_type"]]
    rows = pd.Series(keys)[data["throughput"].to_numpy() > 0].value_counts().to_dict()
    cards = {}
    for key, eta in zip(fz.cards, fz.eta, strict=True):
        arch, vendor = arch_vendor(model._card(key), key)
        cards[key] = {
            "efficiency": round(float(np.exp(eta)), 4),
            "architecture": arch,
            "vendor": vendor,
            # what the architecture and the card's power deficit do not explain
            "log_offset_from_architecture": round(
                float(eta - fz.eta_arch.get(arch, fz.mu) + fz.kappa * model.resolver.power_deficit(model._card(key))), 4
            ),
            "measurements": int(rows.get(key, 0)),
        }
    return {
        "about": "fedopt.normalize.calibrate: the throughput model fitted on every real measurement of the "
        "project (Gavel physical throughputs, stanford-futuredata/gavel @ c4fa400; MLPerf Training v3.1-v4.1 "
        "closed division at 8 accelerators, mlcommons/training_results_*; data/: MLPerf Inference v4.1 and "
        "v5.1 Offline, MLPerf Training v5.1 and v6.0 at 8 accelerators, Lambda's PyTorch training benchmarks, "
        "lambdal/deeplearning-benchmark @ 0551cb7, and TensorFlow CNN benchmarks, "
        "LambdaColdStorage/lambda-tensorflow-benchmark @ 080a6b7); the scale-out slowdown from "
        "MLPerf Training v3.1-v4.1 systems past one node (16-3584 accelerators). Efficiencies are achieved "
        "shares of peak compute relative to the model's H100-SXM reference (1.0 = as efficient as it).",
        "sources": sources,
        "rows": int((data["throughput"] > 0).sum()),
        "hyper": dataclasses.asdict(model.hyper),
        "common": {
            "efficiency": round(float(np.exp(fz.mu)), 4),
            "shares": {r: round(v, 4) for r, v in zip(RESOURCES, model.shares("").values(), strict=False)},
            "tensor_fraction": round(float(sigmoid(np.array(fz.phi0))), 4),
            "formats": {f: round(v, 4) for f, v in model.shares("").items() if f in FORMATS},
            "overhead_log_k": round(fz.k0, 4),
            "overhead_gamma": round(fz.gamma, 4),
            "power_kappa": round(fz.kappa, 4),
            "scaleout_log_psi": round(psi, 4),
            "scaleout_beta": round(beta, 4),
            "scaleout_median_error": round(so_err, 4) if np.isfinite(so_err) else None,
        },
        "architectures": {a: round(float(np.exp(v)), 4) for a, v in sorted(fz.eta_arch.items())},
        "architecture_bias": architecture_bias(data, hyper, progress),
        "vendors": {v: round(float(np.exp(e)), 4) for v, e in sorted(fz.eta_vendor.items())},
        "cards": dict(sorted(cards.items())),
        "reference": reference_rates(model, data),
    }


def reference_rates(model: ThroughputModel, data: pd.DataFrame) -> dict:
    """The calibrated model's log throughput (per ``REFERENCE_COUNT`` cards; None: predicted not
    to fit) of each workload of ``data`` on every catalog card, and the cards it was measured on:
    the neighbours of a user's workload whose group has none (``neighbours.ReferenceRatios``).
    Predicted rather than measured, so every pair of cards has a ratio; the measured cards choose
    which workloads speak for a pair."""
    fz = model.fitted
    assert fz is not None
    cards = sorted({model.card_key(c) for c in model.resolver.catalog} | {k for k in fz.cards if not k.startswith("?")})
    grid = pd.DataFrame(
        {
            "workload": np.repeat(np.asarray(fz.workloads, dtype=object), len(cards)),
            "card_type": np.tile(np.asarray(cards, dtype=object), len(fz.workloads)),
            "cards": REFERENCE_COUNT,
        }
    )
    rate = model.predict(grid, use_measured=False).reshape(len(fz.workloads), len(cards))
    with np.errstate(divide="ignore"):
        logs = np.where(rate > 0, np.log(np.maximum(rate, 1e-300)), np.nan)
    measured = data.assign(key=[model.card_key(c) for c in data["card_type"]])
    measured_on = measured[measured["throughput"] > 0].groupby("workload")["key"].agg(lambda k: sorted(set(k)))
    return {
        "count": REFERENCE_COUNT,
        "cards": cards,
        "workloads": {
            str(w): {
                "measured_on": measured_on.get(w, []),
                "log_rate": [None if not np.isfinite(v) else round(float(v), 4) for v in row],
            }
            for w, row in zip(fz.workloads, logs, strict=True)
        },
    }


def architecture_bias(
    data: pd.DataFrame, hyper: Hyper | None = None, progress: Callable[[str], None] | None = None
) -> dict[str, dict]:
    """What the model misses for an architecture no card of the fit shares: each architecture of
    ``data`` measured in two sets or more (``source``; a miss one set shows is never used, see
    :func:`arch_bias`) hidden in turn (leave-one-architecture-out, no priors), the median
    log(measured / predicted) of its rows in each set, then the median over sets (a set counts once)."""
    from fedopt.normalize.cards import arch_vendor
    from fedopt.normalize.evaluate import leave_one_card_out
    from fedopt.normalize.folds import fold_workers

    model0 = ThroughputModel()
    sets = data.get("source", pd.Series("", index=data.index))
    archs = pd.Series([arch_vendor(model0._card(k), k)[0] for k in map(model0.card_key, data["card_type"])], index=data.index)
    seen = archs[data["throughput"] > 0].groupby(sets[data["throughput"] > 0]).unique()
    count = pd.Series([a for per_set in seen for a in set(per_set)]).value_counts()
    only = set(count[count >= 2].index)
    res = leave_one_card_out(
        data, hyper=hyper, unit="architecture", baselines=False, progress=progress, only=only, workers=fold_workers()
    )
    res = res.assign(lr=np.log(res["throughput"] / res["pred"]), set=res.get("source", ""))
    res = res[np.isfinite(res["lr"])]
    per_set = res.groupby(["card", "set"])["lr"].agg(["median", "size"]).reset_index()
    out = {}
    for arch, g in per_set.groupby("card", sort=True):
        out[str(arch)] = {
            "log_bias": round(float(g["median"].median()), 4),
            "rows": int(g["size"].sum()),
            "per_set": {str(k): round(float(v), 4) for k, v in zip(g["set"], g["median"], strict=True)},
        }
    return out


def write_params(path: Path = PARAMS_PATH, progress: Callable[[str], None] | None = None) -> dict:
    from fedopt.atomic import write_atomic

    params = calibrate(progress=progress)
    rest = {k: v for k, v in params.items() if k != "reference"}
    write_atomic(reference_path(path), _reference_json(params["reference"]))
    write_atomic(path, json.dumps(rest, indent=1) + "\n")
    return params


def reference_path(params_path: Path) -> Path:
    """Where the reference table of the parameters file at ``params_path`` lives, beside it
    (``models/normalize_params.reference.json``)."""
    return Path(params_path).with_suffix(".reference.json")


def _reference_json(reference: dict) -> str:
    """One line per workload: a 100 x 150 table reads (and diffs) as rows, not 15,000 lines."""
    head = {k: v for k, v in reference.items() if k != "workloads"}
    lines = [f"{json.dumps(w)}: {json.dumps(v, separators=(',', ':'))}" for w, v in reference["workloads"].items()]
    body = json.dumps(head, indent=1)[:-2] + ',\n "workloads": {\n  ' + ",\n  ".join(lines) + "\n }\n}\n"
    return body


def load_params(path: Path = PARAMS_PATH) -> dict:
    """The calibrated parameters (with the reference table when its file is there), or {} when
    the file is missing."""
    try:
        params = json.loads(Path(path).read_text())
    except FileNotFoundError:
        return {}
    reference = reference_path(path)
    if reference.exists():
        params["reference"] = json.loads(reference.read_text())
    return params


def card_priors(params: dict | None = None, shrink: float = PRIOR_SHRINK) -> dict[str, float]:
    """card id -> log efficiency offset from its architecture, shrunk: priors for cards not measured."""
    params = load_params() if params is None else params
    return {k: shrink * v["log_offset_from_architecture"] for k, v in params.get("cards", {}).items()}


def arch_priors(params: dict | None = None, shrink: float = ARCH_PRIOR_SHRINK) -> dict[str, tuple[float, str]]:
    """architecture -> (calibrated log efficiency, shrunk; its vendor): the gaps between
    architectures that place one the user did not measure (``ThroughputModel.arch_priors``)."""
    params = load_params() if params is None else params
    vendor = {v["architecture"]: v["vendor"] for v in params.get("cards", {}).values()}
    return {a: (shrink * float(np.log(e)), vendor.get(a, "?")) for a, e in params.get("architectures", {}).items()}


def arch_bias(params: dict | None = None, shrink: float = ARCH_BIAS_SHRINK) -> dict[str, float]:
    """architecture -> log throughput correction, shrunk, for a card whose architecture is not in
    the user's file (``ThroughputModel.arch_bias``). Only a miss that two sets or more show, all in
    the same direction: one set's miss may be that set's (its workloads, its other cards)."""
    params = load_params() if params is None else params
    out = {}
    for arch, v in params.get("architecture_bias", {}).items():
        per_set = list(v.get("per_set", {}).values())
        if len(per_set) >= 2 and (min(per_set) > 0 or max(per_set) < 0):
            out[arch] = shrink * float(v["log_bias"])
    return out


def fit_settings(priors: bool = True, exclude: tuple[str, ...] | None = None, replicas: bool | str = False) -> dict:
    """Keyword arguments of ``ThroughputModel`` (and the evaluations) that fit a user's file as
    the command does: the calibrated scale-out slowdown, and unless ``priors`` is False the card
    and architecture priors. ``exclude`` names data sets (``source`` values) the priors must not
    have seen: they are then calibrated afresh without them and without the sets measured on the
    same systems (``data.companion_sources``: a round's other MLPerf Inference scenarios), for
    evaluating those sets. ``replicas``: as ``normalize --replicas [PATTERNS]`` (``Hyper.replicas``;
    the priors are the same)."""
    params = load_params() if exclude is None else params_without(exclude)
    out: dict = {"hyper": Hyper(**scaleout_hyper(params), replicas=replicas)}
    if priors:
        out["card_priors"] = card_priors(params)
        out["arch_priors"] = arch_priors(params)
        out["arch_bias"] = arch_bias(params)
        out["reference"] = params.get("reference")
    return out


def params_without(exclude: tuple[str, ...]) -> dict:
    """The calibration without the named sets and the sets measured on the same systems
    (``data.companion_sources``: a round's other MLPerf Inference scenarios, which would leak the
    same submissions' cards), for evaluating those sets: every evaluation calls this one."""
    from fedopt.normalize.data import companion_sources

    every = (*exclude, *(c for src in exclude for c in companion_sources(src)))
    return _params_without(tuple(sorted(set(every))))


@functools.lru_cache(maxsize=8)
def _params_without(exclude: tuple[str, ...]) -> dict:
    from fedopt.normalize.data import calibration_measurements

    return calibrate(calibration_measurements(exclude=exclude))


def scaleout_hyper(params: dict | None = None) -> dict[str, float]:
    """Hyper overrides: the calibrated scale-out slowdown as the prior of a fit ({} without a file)."""
    params = load_params() if params is None else params
    common = params.get("common", {})
    if "scaleout_log_psi" not in common:
        return {}
    return {"psi_prior": float(common["scaleout_log_psi"]), "beta_prior": float(common["scaleout_beta"])}


def fit_scaleout_prior(model: ThroughputModel, scaleout: pd.DataFrame) -> tuple[float, float, float]:
    """(psi, beta, median error): the scale-out slowdown that best predicts ``scaleout`` (rows past
    one node) from ``model``, fitted on one-node rows only. There the term is 0 on every row, so
    its prior is all a fit on one-node measurements knows: it is chosen for exactly that use."""
    from scipy.optimize import minimize

    fz = model.fitted
    assert fz is not None
    rows = scaleout[scaleout["workload"].isin(fz.workloads) & (scaleout["throughput"] > 0)]
    if rows.empty:  # nothing past one node of the fitted workloads: the prior stays
        return model.hyper.psi_prior, model.hyper.beta_prior, float("nan")
    y = np.log(rows["throughput"].to_numpy(dtype=float))

    def err(p: np.ndarray) -> np.ndarray:
        pred = model.predict(rows, use_measured=False, scaleout=(p[0], p[1]))
        return np.log(np.maximum(pred, 1e-300)) - y

    def loss(p: np.ndarray) -> float:
        r = err(p) / 0.15
        return float(np.sum(np.sqrt(1 + r * r) - 1))  # soft-L1, as the fit

    best = minimize(loss, np.array([model.hyper.psi_prior, model.hyper.beta_prior]), method="Nelder-Mead")
    med = float(np.median(np.abs(np.expm1(err(best.x)))))
    return float(best.x[0]), float(best.x[1]), med


def efficiency(card_id: str, params: dict | None = None) -> float:
    """Calibrated efficiency of a catalog card id: its own, else a measured same-silicon sibling's (an
    H800 the H100 SXM's: ``cards.same_silicon``), else its architecture's, vendor's, common."""
    from fedopt.normalize.cards import CardResolver, arch_vendor, silicon_sibling

    params = load_params() if params is None else params
    if not params:
        return 1.0
    if card_id in params["cards"]:
        return float(params["cards"][card_id]["efficiency"])
    res = CardResolver()
    card = res.resolve(card_id)
    sibling = silicon_sibling(card, {k: res.catalog.get(k) for k in sorted(params["cards"])})
    if sibling is not None:
        return float(params["cards"][sibling]["efficiency"])
    arch, vendor = arch_vendor(card, card_id)
    if arch in params["architectures"]:
        return float(params["architectures"][arch])
    return float(params["vendors"].get(vendor, params["common"]["efficiency"]))
