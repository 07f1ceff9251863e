"""The rate table of an instance: every job (or job class) on every card type, in reference-card
units (spec section 3: the reference card is ``settings.reference_card`` or the type with the
highest ``bf16_tflops``; a compute-bound job on it runs at 1.0 per card-hour).

Each cell, first that applies:

1. the job's measured ``throughput`` on that type;
2. when the job is measured on two or more types: the throughput model fitted on all the
   instance's measured rates (its shares come from its own measurements), as ``normalize
   --measurements`` fits a user's file: calibrated priors, each card type under its catalog twin;
3. when the job has a ``profile``: the roofline rate of the profile with calibrated per-card
   efficiencies (``roofline.profile_rate_calibrated``), scaled to the job's measured rates when
   it has any;
4. when the job is measured on one type only: the throughput model (its neighbours' ratios, or the
   calibration's workloads' when no job of the instance was measured on two types);
5. otherwise 0 (no way to run it: ineligible, as the instance loader treats it).

A job whose memory (``memory_gb`` or ``profile.memory_gb``) exceeds a type's memory gets 0 there.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from fedopt.normalize.calibrate import fit_settings
from fedopt.normalize.cards import CardResolver, from_card_type
from fedopt.normalize.model import ThroughputModel
from fedopt.normalize.roofline import calibrated_specs, card_specs, profile_rate


def _class_label(job) -> str:
    p = job.profile
    if p is None:
        return job.id
    fmt = "" if p.precision == "bf16" else f" {p.precision}"
    return (
        f"{job.kind} {p.params_b:g}B {p.tflop_per_unit:g}TF/{p.gb_per_unit:g}GB/{p.comm_gb_per_unit:g}GB mem{p.memory_gb:g}{fmt}"
    )


def instance_cards(instance) -> list:
    """The instance's card types as the model's cards (``--cards`` form; catalog twins' figures)."""
    catalog = CardResolver()
    return [from_card_type(t, catalog) for t in instance.doc.card_types]


def measured_rows(instance) -> pd.DataFrame:
    """The rates the table's model fits on: each job's positive measured ``throughput`` per card type,
    one card each (rates per card-hour, reference-card units), in ``normalize --measurements`` columns."""
    ids = {t.id for t in instance.doc.card_types}
    rows = [(j.id, t, 1, r) for j in instance.doc.jobs for t, r in j.throughput.items() if t in ids and r > 0]
    return pd.DataFrame(rows, columns=["workload", "card_type", "cards", "throughput"])


def rate_table(instance, by: str = "job", calibrated: bool = True) -> pd.DataFrame:
    """Rates [jobs x card types] (``by="job"``) or [job classes x card types] (``by="class"``: jobs
    with the same kind and profile; each cell the geometric mean of the class's positive rates,
    ``attrs["jobs"]`` the class sizes). The throughput model fits as ``normalize --measurements``
    fits a user's file (``calibrate.fit_settings``: calibrated card and architecture priors, the
    calibration's workloads as neighbours), so a card type no job of the instance was measured on
    gets its calibrated efficiency, not the specs' alone. ``calibrated=False`` (``--no-priors``):
    no priors, and the plain roofline for profiles."""
    doc = instance.doc
    types = list(doc.card_types)
    ids = [t.id for t in types]
    cards = instance_cards(instance)
    resolver = CardResolver(extra=cards)
    jobs = list(doc.jobs)
    specs = card_specs(types, cards=cards)  # with the 8-/4-bit peaks the catalog twins give
    ref = specs[instance.reference_type]
    table = np.zeros((len(jobs), len(ids)))
    # the specs profiles run on: with calibrated efficiencies (as roofline.profile_rate_calibrated),
    # worked out once per card type, not once per job and type
    prof_specs, prof_ref = calibrated_specs(specs, ref) if calibrated else (specs, ref)

    meas = measured_rows(instance)
    model = None
    if len(meas):
        model = ThroughputModel(resolver=resolver, **fit_settings(priors=calibrated)).fit(meas)

    for j, job in enumerate(jobs):
        measured = {t: r for t, r in job.throughput.items() if t in ids}
        pos = [t for t, r in measured.items() if r > 0]
        if model is not None and pos:
            q = pd.DataFrame({"workload": job.id, "card_type": ids, "cards": 1})
            from_model = model.predict(q)
        else:
            from_model = None
        from_profile = None
        if job.profile is not None:
            p = job.profile
            work = (p.tflop_per_unit, p.gb_per_unit, p.comm_gb_per_unit, p.memory_gb)
            from_profile = np.array([profile_rate(*work, s, prof_ref, precision=p.precision) for s in prof_specs])
            known = [(from_profile[ids.index(t)], measured[t]) for t in pos if from_profile[ids.index(t)] > 0]
            if known:
                from_profile = from_profile * float(np.exp(np.mean([np.log(m / f) for f, m in known])))
        for t, tid in enumerate(ids):
            if tid in measured:
                v = measured[tid]
            elif from_model is not None and len(pos) >= 2:
                v = from_model[t]
            elif from_profile is not None:
                v = from_profile[t]
            elif from_model is not None:
                v = from_model[t]
            else:
                v = 0.0
            mem = job.memory_gb if job.memory_gb is not None else (job.profile.memory_gb if job.profile else 0.0)
            if mem and mem > types[t].memory_gb:
                v = 0.0
            table[j, t] = v if np.isfinite(v) else 0.0

    df = pd.DataFrame(table, index=pd.Index([j.id for j in jobs], name="job"), columns=pd.Index(ids, name="card_type"))
    df.attrs["reference"] = ids[instance.reference_type]
    if by == "job":
        return df
    if by != "class":
        raise ValueError(f"by must be 'job' or 'class', not {by!r}")
    labels = [_class_label(j) for j in jobs]
    out, counts = {}, {}
    for label in dict.fromkeys(labels):
        sel = df.to_numpy()[[i for i, lab in enumerate(labels) if lab == label]]
        with np.errstate(divide="ignore"):
            logs = np.where(sel > 0, np.log(np.where(sel > 0, sel, 1.0)), np.nan)
        pos = (sel > 0).sum(axis=0)
        gm = np.exp(np.nansum(logs, axis=0) / np.maximum(pos, 1))
        out[label] = np.where(pos > 0, gm, 0.0)
        counts[label] = len(sel)
    cls = pd.DataFrame.from_dict(out, orient="index", columns=ids)
    cls.index.name = "job class"
    cls.columns.name = "card_type"
    cls.attrs["reference"] = df.attrs["reference"]
    cls.attrs["jobs"] = counts
    return cls


def fill_rates(doc: dict, df: pd.DataFrame) -> tuple[dict, int, int]:
    """``doc`` (an instance's JSON) with each job's missing ``throughput`` entries taken from
    ``df`` (``rate_table(..., by="job")`` of it); measured entries stay as they are. Returns (the new
    document, rates filled, of them 0: ineligible). The rates then sit in the instance itself, so
    ``solve`` uses them and any checker recomputes the same objective from the file alone (the
    loader would give a type without an entry the plain roofline of the profile, or nothing)."""
    out = dict(doc)
    jobs, filled, zeros = [], 0, 0
    for job in doc.get("jobs", []):
        job = dict(job)
        have = dict(job.get("throughput") or {})
        for card, value in df.loc[str(job["id"])].items():
            if card not in have:
                have[card] = float(f"{float(value):.6g}")  # six digits; a tiny rate stays above 0 (0 = ineligible)
                filled += 1
                zeros += have[card] == 0
        job["throughput"] = have
        jobs.append(job)
    out["jobs"] = jobs
    return out, filled, zeros


def format_table(df: pd.DataFrame) -> str:
    """The table as aligned text, with the reference card named."""
    ref = df.attrs.get("reference", "")
    head = f"rate per card-hour in reference-card units (reference: {ref} = 1.0 for a compute-bound job)"
    shown = df.copy()
    if "jobs" in df.attrs:
        shown.insert(0, "jobs", [df.attrs["jobs"][i] for i in df.index])
    with pd.option_context("display.width", 250, "display.max_columns", 100, "display.max_rows", 10_000):
        return head + "\n" + shown.to_string(float_format=lambda v: f"{v:.3f}")


def table_json(df: pd.DataFrame) -> str:
    return json.dumps(
        {
            "reference": df.attrs.get("reference"),
            "rows": {str(i): {c: round(float(v), 6) for c, v in r.items()} for i, r in df.iterrows()},
            "jobs": df.attrs.get("jobs"),
        },
        indent=1,
    )
