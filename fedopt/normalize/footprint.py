"""Whether a job's model fits on one card, read from the size its name states ('llama2-70b',
'mixtral-8x7b', '70B q4_0').

A model that fits on one card can be served as replicas, one per card, that never talk: MLPerf
Inference's offline runs of Llama 2 70B on 8 MI350P or RTX PRO 6000 (96-144 GB) scale with the
card count, while the same model on 32 GB RTX PRO 4500 or Arc Pro B70 cards must be split across
them and runs at a third of what its specs give. A CSV row does not say how a job was run, and
llama.cpp splits models that fit on one GPU and pays for it: the rule is the user's to state
(``normalize --replicas``, ``Hyper.replicas``), at one byte per parameter (FP8/INT8 weights, the
usual serving recipe)."""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Sequence

import numpy as np
import pandas as pd

# '70b', '8x7b' (experts x size), 'a14b' (active parameters of an MoE: a lower bound), '405B';
# not inside a word or a number ('gptj', 'b200', 'v5.1b')
_SIZE = re.compile(r"(?<![a-z0-9.])(?:(\d+)x)?a?(\d+(?:\.\d+)?)b(?![a-z0-9])")
USABLE_MEMORY = 0.9  # of a card's memory for weights: the rest for activations, KV cache, runtime


def parameters_billion(workload: str) -> float | None:
    """Billions of parameters the workload's name states (the largest size in it), else None."""
    name = str(workload).lower().replace("_", "-")
    sizes = [float(m.group(1) or 1) * float(m.group(2)) for m in _SIZE.finditer(name)]
    return max(sizes) if sizes else None


def fits_one_card(workloads: Sequence[str], memory_gb: Sequence[float | None], bytes_per_param: float) -> np.ndarray:
    """Per row, 1.0 where the workload's named model at ``bytes_per_param`` fits in 90% of the
    row's card memory, else 0.0 (no size in the name, no memory figure, or too big)."""
    codes, names = pd.factorize(np.asarray(workloads, dtype=object))  # one name parsed per workload
    sizes = np.array([np.nan if (b := parameters_billion(w)) is None else b for w in names], dtype=float)
    gb = sizes[codes] * bytes_per_param if len(names) else np.zeros(0)
    mem = pd.to_numeric(pd.Series(memory_gb, dtype=object), errors="coerce").to_numpy(dtype=float)
    with np.errstate(invalid="ignore"):
        return (np.isfinite(gb) & np.isfinite(mem) & (gb <= USABLE_MEMORY * mem)).astype(float)


def replica_workloads(workloads: Sequence[str], which: bool | str) -> np.ndarray:
    """Per row, 1.0 where ``normalize --replicas`` covers the workload: every one for ``True``, none
    for ``False``, else those whose name matches one of the comma-separated shell patterns of
    ``which`` (``"mlperf-inf*,*serve*"``): a file that mixes serving and training jobs names its
    serving ones, so a training job whose name states a model size is not read as replicas."""
    if which is True or which is False:
        return np.full(len(workloads), float(which))
    patterns = [p.strip() for p in str(which).split(",") if p.strip()]
    codes, names = pd.factorize(np.asarray(workloads, dtype=object))
    hit = np.array([any(fnmatch.fnmatchcase(str(w), p) for p in patterns) for w in names], dtype=float)
    return hit[codes] if len(names) else np.zeros(0)
