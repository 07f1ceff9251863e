"""How well job profiles predict measured speed ratios between cards (``normalize --evaluate --profiles``).

A profile (``fedopt.instance.schema.Profile``: compute, memory traffic and collective traffic per
unit of work, memory footprint, number format) gives a job's rate on every card type relative to
the reference card (``roofline.profile_rate_calibrated``), which is what the solver uses for a job
nobody measured. Checked here as the model is: each card hidden in turn, each of its rows predicted
from the same workload's rows on the other cards (the same count where there is one, else any,
scaled linearly) times the profile's rate ratio, against the same prediction with the peak-TFLOPS
and memory-bandwidth ratios. The level of a job comes from its rows; its ratios from the profile.

A profiles CSV has a ``workload`` column and any of the profile's fields (``tflop_per_unit``,
``gb_per_unit``, ``comm_gb_per_unit``, ``memory_gb``, ``precision``); other columns are ignored. A
row without ``tflop_per_unit`` is a compute-bound job in its ``precision`` (1 TFLOP per unit, no
memory or collective traffic): only ratios between cards are checked, and those do not depend on
the compute per unit when nothing else is given.
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import numpy as np
import pandas as pd
from pydantic import ValidationError

from fedopt.errors import InputError
from fedopt.instance.schema import Profile
from fedopt.normalize.baselines import ratio_prediction
from fedopt.normalize.cards import Card, CardResolver
from fedopt.normalize.roofline import CardSpec, card_specs, profile_rate, profile_rate_calibrated
from fedopt.normalize.scores import markdown_table

REFERENCE = "H100-SXM-80GB"


def _cell(text: str) -> float | str:
    """A finite number where the cell reads as one (the schema takes no strings for numbers; "inf"
    and "nan" stay text, which the schema then rejects)."""
    text = str(text).strip()
    try:
        value = float(text)
    except ValueError:
        return text
    return value if math.isfinite(value) else text


def read_profiles(path: str | Path) -> dict[str, Profile]:
    """workload -> ``Profile`` from a CSV; ``InputError`` names the line and column of a bad cell."""
    src = str(path)
    try:
        df = pd.read_csv(path, dtype=str, keep_default_na=False, skipinitialspace=True, encoding="utf-8-sig")
    except FileNotFoundError:
        raise InputError("--profiles", f"no such file: {src}") from None
    except (OSError, UnicodeDecodeError, pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        raise InputError("--profiles", f"cannot read {src} as CSV: {exc}") from None
    df.columns = [str(c).strip() for c in df.columns]
    if "workload" not in df.columns:
        raise InputError("line 1", f"missing column workload (found {', '.join(df.columns)})", src)
    fields = [f for f in Profile.model_fields if f in df.columns]
    out: dict[str, Profile] = {}
    for i, row in enumerate(df.to_dict("records")):
        workload = str(row["workload"]).strip()
        if not workload:
            raise InputError(f"line {i + 2}, column workload", "empty", src)
        if workload in out:
            raise InputError(f"line {i + 2}, column workload", f"{workload!r} has a profile already", src)
        cells = {"tflop_per_unit": 1.0} | {f: _cell(row[f]) for f in fields if str(row[f]).strip() != ""}
        try:
            out[workload] = Profile(**cells)
        except ValidationError as exc:
            err = exc.errors()[0]
            col = ".".join(str(p) for p in err["loc"]) or "(row)"
            raise InputError(f"line {i + 2}, column {col}", err["msg"], src) from None
    return out


def _spec(card: Card) -> CardSpec:
    """The roofline's view of a catalog card, its narrow-format peaks included (a card without a
    memory figure fits any job: the rows ran there)."""
    spec = card_specs([card], cards=[card])[0]
    return dataclasses.replace(spec, memory_gb=spec.memory_gb or math.inf)


def profile_rates(data: pd.DataFrame, profiles: dict[str, Profile], resolver: CardResolver, params: dict | None) -> np.ndarray:
    """Each row's profile rate on its card type in reference-card units (NaN: no profile or no
    specs). ``params``: calibrated efficiencies (``calibrate.load_params``); None: every card at
    its peaks."""
    ref = _spec(resolver.resolve(REFERENCE))
    memo: dict[tuple[str, str], float] = {}
    out = np.full(len(data), np.nan)
    for i, (w, name) in enumerate(zip(data["workload"], data["card_type"], strict=True)):
        p = profiles.get(w)
        if p is None:
            continue
        if (w, name) not in memo:
            card = resolver.resolve(name)
            if card is None:
                memo[(w, name)] = np.nan
            else:
                args = (p.tflop_per_unit, p.gb_per_unit, p.comm_gb_per_unit, 0.0, _spec(card), ref)
                plain = params is None
                rate = profile_rate(*args, p.precision) if plain else profile_rate_calibrated(*args, params, p.precision)
                memo[(w, name)] = rate if rate > 0 else np.nan
        out[i] = memo[(w, name)]
    return out


def profile_leave_one_card_out(
    data: pd.DataFrame, profiles: dict[str, Profile], resolver: CardResolver | None = None, params: dict | None = None
) -> pd.DataFrame:
    """Rows of ``data`` (measured > 0, with a profile and a card with specs) with ``pred`` (the
    profile's ratios), ``base_bf16_tflops`` and ``base_mem_bw_gbs`` (the spec ratios), each card
    hidden in turn."""
    resolver = resolver or CardResolver()
    df = data[data["throughput"] > 0].copy()
    df["profile"] = profile_rates(df, profiles, resolver, params)
    cards = [resolver.resolve(n) for n in df["card_type"]]
    df["bf16"] = [c.bf16_tflops if c else np.nan for c in cards]
    df["mem"] = [c.mem_bw_gbs if c else np.nan for c in cards]
    df["card"] = [c.id if c else "?" for c in cards]
    df = df[df["profile"].notna()]
    parts = [df.iloc[:0].assign(pred=0.0, base_bf16_tflops=0.0, base_mem_bw_gbs=0.0)]
    for card in sorted(set(df["card"])):
        train, test = df[df["card"] != card], df[df["card"] == card].copy()
        for out, col in (("pred", "profile"), ("base_bf16_tflops", "bf16"), ("base_mem_bw_gbs", "mem")):
            test[out] = ratio_prediction(train, test, train[col], test[col])
        parts.append(test[test["pred"].notna()])
    return pd.concat(parts, ignore_index=True).drop(columns=["profile", "bf16", "mem"])


def profile_summary(res: pd.DataFrame) -> pd.DataFrame:
    """Median absolute relative errors, all and per source: profile ratios (``profile_median``),
    peak-TFLOPS and memory-bandwidth ratios; NaN where a column has no row."""

    def med(g: pd.DataFrame, col: str) -> float:
        e = ((g[col] - g["throughput"]).abs() / g["throughput"]).dropna()
        return float(e.median()) if len(e) else float("nan")

    groups = [("all", res)] + ([(str(s), g) for s, g in res.groupby("source", sort=True)] if "source" in res else [])
    return pd.DataFrame(
        [
            {
                "data": name,
                "rows": len(g),
                "cards": g["card"].nunique(),
                "workloads": g["workload"].nunique(),
                "profile_median": med(g, "pred"),
                "peak_tflops_median": med(g, "base_bf16_tflops"),
                "mem_bw_median": med(g, "base_mem_bw_gbs"),
            }
            for name, g in groups
        ]
    )


def format_profile_summary(tab: pd.DataFrame) -> str:
    """A :func:`profile_summary` table as markdown."""
    columns = [("data", "data", "text"), *((c, c, "count") for c in ("rows", "cards", "workloads"))]
    columns += [("profile median", "profile_median", "pct"), ("peak-TFLOPS median", "peak_tflops_median", "pct")]
    return markdown_table(tab, [*columns, ("mem-BW median", "mem_bw_median", "pct")])
