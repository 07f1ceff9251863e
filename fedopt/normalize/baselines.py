"""Spec-ratio baselines and the oracle ratio the throughput model is scored against.

Each predicts a hidden row from the same workload's rows on other cards times a ratio (hidden
card / other card), averaged geometrically. The spec baselines take the ratio of one figure of
:data:`SPEC_FEATURES` (the peak-TFLOPS baseline is ``bf16_tflops``) from rows at the same card
count (any count, scaled linearly, when there is none); the oracle takes the hidden card's own
median speed-up at that count, read from the hidden rows, so it needs rows at the same count
(what it measures: :mod:`fedopt.normalize.evaluate`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from fedopt.normalize.model import ThroughputModel

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
    tr = tr.loc[tr["throughput"] > 0, ["workload", "cards", "throughput", "value"]]
    te = pd.DataFrame(
        {"workload": test["workload"].to_numpy(), "cards": test["cards"].to_numpy(), "fc": np.asarray(test_values, dtype=float)}
    )
    pairs = te.assign(row=np.arange(len(te))).merge(tr, on="workload", suffixes=("", "_o"))
    out = np.full(len(test), np.nan)
    if pairs.empty:
        return out
    same = pairs["cards"].eq(pairs["cards_o"])
    pairs = pairs[same | ~same.groupby(pairs["row"]).transform("any")]  # the same count where there is one
    fc, f = pairs["fc"].to_numpy(), pairs["value"].to_numpy()
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(np.isnan(fc) | np.isnan(f), 1.0, fc / f)
        logs = np.log(pairs["throughput"].to_numpy() * ratio * pairs["cards"].to_numpy() / pairs["cards_o"].to_numpy())
    pred = pd.Series(logs).groupby(pairs["row"].to_numpy()).mean()
    out[pred.index.to_numpy()] = np.exp(pred.to_numpy())
    return out


def spec_ratio_baseline(train: pd.DataFrame, test: pd.DataFrame, feature, model: ThroughputModel) -> np.ndarray:
    """:func:`ratio_prediction` with ``feature`` of each row's card (NaN for a card without specs or
    without that figure), looked up once per card name."""
    res = model.resolver

    def feat(name) -> float:
        card = res.resolve(name)
        v = feature(card) if card is not None else None
        return float(v) if v else np.nan

    values = {name: feat(name) for name in pd.unique(pd.concat([train["card_type"], test["card_type"]]))}
    return ratio_prediction(train, test, train["card_type"].map(values), test["card_type"].map(values))


def oracle_ratio(train: pd.DataFrame, test: pd.DataFrame) -> np.ndarray:
    """Each hidden row from the same workload's rows at the same count on every other card, times
    the hidden card's median ratio to that card at that count over the hidden rows themselves
    (an oracle: see :mod:`fedopt.normalize.evaluate`), averaged geometrically; NaN without such rows. Both
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
