"""Job arrival traces: the public Philly and Alibaba traces, or a CSV of the same shape.

A trace is a table of jobs with an arrival time, a measured duration and a card count. The
simulator replays a window of it; :func:`arrival_stream` overlays several windows of the same
trace (at different offsets) until the stream offers the requested load to the fleet, which
keeps the trace's shape (its diurnal swings, its bursts, its size and duration mix) on a fleet
larger than the one the trace was recorded on.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from fedopt.errors import InputError
from fedopt.generate import SHARED_DATA

TRACES = {
    "philly": SHARED_DATA / "philly" / "philly.csv",
    "alibaba": SHARED_DATA / "alibaba_v2023" / "openb_pod_list_default.csv",
}


@dataclass(frozen=True)
class Trace:
    """Jobs of a trace, sorted by arrival: seconds since the trace's first arrival."""

    name: str
    arrival_s: np.ndarray  # float
    duration_s: np.ndarray  # float, > 0
    cards: np.ndarray  # int >= 1
    group: np.ndarray  # str: virtual cluster / tenant ("" if the trace has none)

    @property
    def span_s(self) -> float:
        return float(self.arrival_s[-1]) if len(self.arrival_s) else 0.0

    def __len__(self) -> int:
        return len(self.arrival_s)


def _seconds(value: str, path: str) -> float:
    """A timestamp as seconds: a number, or an ISO date-time ``2017-10-09 07:01:55``."""
    try:
        return float(value)
    except ValueError:
        pass
    from datetime import datetime

    try:
        return datetime.fromisoformat(value.strip()).timestamp()
    except ValueError:
        raise InputError(path, f"not a number of seconds nor an ISO date-time: {value!r}") from None


def _number(value: str, path: str) -> float:
    try:
        x = float(value)
    except ValueError:
        raise InputError(path, f"not a number: {value!r}") from None
    if not np.isfinite(x):
        raise InputError(path, f"not a finite number: {value!r}")
    return x


# Column names understood in a trace CSV, first match wins.
ARRIVAL = ("timestamp", "submit_time", "submit", "arrival", "creation_time")
DURATION = ("duration",)
END = ("deletion_time", "end_time", "end")
CARDS = ("num_gpus", "num_gpu", "gpus", "cards")
GROUP = ("cluster", "vc", "tenant", "user")


def load_trace(name: str) -> Trace:
    """The trace ``name`` (the built-in ones are read once per process); see :func:`read_trace`."""
    if name in TRACES:
        return _builtin(name)
    return read_trace(name)


@lru_cache(maxsize=len(TRACES))
def _builtin(name: str) -> Trace:
    return read_trace(name)


def read_trace(name: str) -> Trace:
    """``philly``, ``alibaba`` or the path of a CSV with an arrival column (seconds or ISO time),
    ``duration`` (seconds) or an end column, and a card-count column (see the module's names).

    Rows with no cards (CPU-only pods) or no duration are left out; fractional-GPU pods count as
    one card.
    """
    path = TRACES.get(name, Path(name))
    source = str(path)
    if not path.exists():
        raise InputError("--trace", f"no such trace file {source!r} (or choose philly or alibaba)")
    try:
        return _read_csv(path, source, name)
    except OSError as exc:
        raise InputError("--trace", f"cannot read {source}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise InputError("--trace", f"{source}: not a text CSV file") from None


def _read_csv(path: Path, source: str, name: str) -> Trace:
    with open(path, newline="") as fh:
        reader = csv.DictReader(fh)
        header = [h.strip() for h in (reader.fieldnames or [])]

        def pick(names: tuple[str, ...]) -> str | None:
            return next((h for h in names if h in header), None)

        c_arr, c_dur, c_end, c_cards, c_group = pick(ARRIVAL), pick(DURATION), pick(END), pick(CARDS), pick(GROUP)
        if c_arr is None:
            raise InputError(f"{source}: header", f"no arrival column (one of {', '.join(ARRIVAL)})")
        if c_dur is None and c_end is None:
            raise InputError(f"{source}: header", f"no duration column (duration, or one of {', '.join(END)})")
        if c_cards is None:
            raise InputError(f"{source}: header", f"no card-count column (one of {', '.join(CARDS)})")
        arr, dur, cards, group = [], [], [], []
        for i, row in enumerate(reader, start=2):
            row = {(k or "").strip(): (v or "").strip() for k, v in row.items()}
            where = f"{source}: line {i}"
            if not row.get(c_arr) or not row.get(c_cards):
                raise InputError(where, f"empty {c_arr if not row.get(c_arr) else c_cards}")
            a = _seconds(row[c_arr], f"{where}, {c_arr}")
            n = _number(row[c_cards], f"{where}, {c_cards}")
            if n < 0 or n != int(n):
                raise InputError(f"{where}, {c_cards}", f"not a non-negative whole card count: {row[c_cards]!r}")
            d = _number(row[c_dur], f"{where}, {c_dur}") if c_dur is not None else _seconds(row[c_end], f"{where}, {c_end}") - a
            if d < 0:
                raise InputError(f"{where}, {c_dur or c_end}", f"negative duration {d:g} s")
            if n == 0 or d <= 0:
                continue
            arr.append(a)
            dur.append(d)
            cards.append(int(n))
            group.append(row.get(c_group, "") if c_group else "")
    if not arr:
        raise InputError("--trace", f"{source}: no job with cards and a positive duration")
    a = np.array(arr)
    order = np.argsort(a, kind="stable")
    a = a[order] - a[order][0]
    return Trace(
        name=name if name in TRACES else path.name,
        arrival_s=a,
        duration_s=np.array(dur)[order],
        cards=np.array(cards, dtype=np.int64)[order],
        group=np.array(group, dtype=object)[order],
    )


@dataclass(frozen=True)
class Stream:
    """Arrivals of a simulation: hours since its start, sorted."""

    arrival_h: np.ndarray
    duration_h: np.ndarray
    cards: np.ndarray
    group: np.ndarray
    copies: int  # trace windows overlaid
    offered_card_hours: float  # sum of cards x duration (measured on the trace's cards)

    def __len__(self) -> int:
        return len(self.arrival_h)


def arrival_stream(trace: Trace, days: float, fleet_cards: int, load: float, rng: np.random.Generator) -> Stream:
    """Windows of ``days`` from the trace at random offsets, overlaid until the card-hours their
    jobs ask for (cards x whole duration: the offered load of a steady stream) reach ``load`` x
    the fleet's card-hours over the window; the last window is thinned at random to land on the
    target. A trace shorter than the window is repeated end to end.
    """
    window = days * 86400.0
    target = load * fleet_cards * days * 24.0
    span = max(trace.span_s, 1.0)
    parts: list[tuple[np.ndarray, np.ndarray]] = []  # (indices, arrival seconds in the window)
    offered = 0.0
    copies = 0
    while offered < target and copies < 10_000:
        if span > window:
            off = float(rng.uniform(0, span - window))
            idx = np.flatnonzero((trace.arrival_s >= off) & (trace.arrival_s < off + window))
            t = trace.arrival_s[idx] - off
        else:  # tile the trace over the window, starting at a random phase
            phase = float(rng.uniform(0, span))
            reps = int(np.ceil((window + phase) / span)) + 1
            t_all = np.concatenate([trace.arrival_s + k * span for k in range(reps)]) - phase
            idx_all = np.tile(np.arange(len(trace)), reps)
            keep = (t_all >= 0) & (t_all < window)
            idx, t = idx_all[keep], t_all[keep]
        if not len(idx):
            copies += 1
            continue
        ask = trace.cards[idx] * trace.duration_s[idx] / 3600.0
        total = float(ask.sum())
        if offered + total > target and total > 0:  # thin the last window
            keep = rng.random(len(idx)) < (target - offered) / total
            idx, t, ask = idx[keep], t[keep], ask[keep]
            total = float(ask.sum())
        parts.append((idx, t))
        offered += total
        copies += 1
    if not parts:
        raise InputError("--trace", f"{trace.name}: no arrivals in a window of {days:g} days")
    idx = np.concatenate([p[0] for p in parts])
    t = np.concatenate([p[1] for p in parts])
    order = np.lexsort((idx, t))
    idx, t = idx[order], t[order]
    return Stream(
        arrival_h=t / 3600.0,
        duration_h=trace.duration_s[idx] / 3600.0,
        cards=trace.cards[idx],
        group=trace.group[idx],
        copies=copies,
        offered_card_hours=offered,
    )
