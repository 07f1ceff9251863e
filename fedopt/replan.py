"""The re-planning cron job (``fedopt replan``): state in, plan and the operator's diff out.

Cron-safe: an exclusive lock (a second run exits with status 4 at once), every output written
atomically (a crash or a bad state leaves the previous plan as it was), one JSON log line per run.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

from fedopt.atomic import check_writable
from fedopt.errors import FedoptError
from fedopt.instance.model import Instance
from fedopt.plan import Result

EXIT_LOCKED = 4


class LockedError(FedoptError):
    exit_status = EXIT_LOCKED


@contextlib.contextmanager
def exclusive_lock(path: str | os.PathLike) -> Iterator[None]:
    """Hold ``path`` locked (flock) for the run; raise LockedError if another run holds it."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise LockedError(f"another replan holds the lock {path}; this run does nothing") from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        yield
    finally:
        os.close(fd)  # closing releases the lock


def _parts_text(inst: Instance, parts) -> str:
    return " + ".join(f"{inst.cluster_ids[c]}/{inst.card_ids[t]} x{n}" for c, t, n in parts)


def diff(result: Result) -> list[dict]:
    """What an operator acts on: start, keep, migrate (from -> to), preempt, pending; with reasons."""
    inst = result.inst
    w = inst.doc.settings.weights
    out = []
    never = ~inst.pool_ok.any(axis=1)
    for j, job_id in enumerate(inst.job_ids):
        run = inst.running[j]
        new = result.placements.get(j)
        row: dict = {"job": job_id}
        if new is not None and run is None:
            row |= {"action": "start", "to": _parts_text(inst, new), "reason": "placed by the plan"}
            if j in result.start_slots and result.start_slots[j] > 0:
                row |= {"action": "reserve", "start_slot": result.start_slots[j], "reason": "reserved for a later slot"}
        elif new is not None and sorted(new) == sorted(run):
            row |= {"action": "keep", "at": _parts_text(inst, run), "reason": "its placement is still part of the best plan"}
        elif new is not None:
            old_speed = sum(n * inst.rate[j, t] for _, t, n in run)
            new_speed = sum(n * inst.rate[j, t] for _, t, n in new)
            row |= {
                "action": "migrate",
                "from": _parts_text(inst, run),
                "to": _parts_text(inst, new),
                "reason": f"raw rate {old_speed:.3g} -> {new_speed:.3g} per hour, worth its migration cost "
                f"{w.migration * inst.running_penalty[j]:.3g}, or its cards serve more valuable jobs",
            }
        elif run is not None:
            row |= {
                "action": "preempt",
                "from": _parts_text(inst, run),
                "reason": "its placement is no longer valid"
                if never[j]
                else "its cards serve more valuable jobs, worth its stop cost",
            }
        else:
            row |= {
                "action": "pending",
                "reason": "no eligible pool" if never[j] else "capacity, quota or bandwidth taken by more valuable jobs",
            }
        out.append(row)
    return out


def log_line(path: str | None, record: dict) -> None:
    """Append one JSON line (to ``path``, or stderr)."""
    record = {"time": datetime.now(UTC).isoformat(timespec="seconds")} | record
    text = json.dumps(record, sort_keys=False)
    if path:
        with open(path, "a") as fh:
            fh.write(text + "\n")
    else:
        print(text, file=sys.stderr, flush=True)


def replan(
    state: str,
    output: str,
    *,
    previous: str | None = None,
    max_moves: int | None = None,
    method: str = "auto",
    time_limit: float | None = None,
    seed: int = 0,
    diff_path: str | None = None,
    should_stop=None,
) -> tuple[Result, list[dict]]:
    from fedopt.atomic import write_atomic
    from fedopt.instance.io import read_bytes
    from fedopt.instance.load import load_plan, parse_instance
    from fedopt.solve import solve

    data = json.loads(read_bytes(state)) if max_moves is not None else read_bytes(state)
    if max_moves is not None:
        if not isinstance(data, dict):
            parse_instance(read_bytes(state), state)  # raises the right path error
        data.setdefault("settings", {})["max_moves"] = max_moves
    inst = parse_instance(data, state)
    prev = load_plan(previous) if previous and Path(previous).exists() else None
    result = solve(inst, method=method, time_limit=time_limit, seed=seed, previous=prev, should_stop=should_stop)
    changes = diff(result)
    result.stats["diff"] = {
        a: sum(1 for r in changes if r["action"] == a) for a in ("start", "reserve", "keep", "migrate", "preempt", "pending")
    }
    write_atomic(output, result.to_json() + "\n")
    write_atomic(diff_path_for(output, diff_path), json.dumps(changes, indent=1) + "\n")
    return result, changes


def diff_path_for(output: str, diff_path: str | None = None) -> str:
    """Where the diff goes: ``--diff``, else the plan's name with ``.diff.json``."""
    return diff_path or str(Path(output).with_suffix(".diff.json"))


def run_cron(args) -> int:
    """The command's body: lock, replan, log; every failure logged with its exit status."""
    t0 = time.perf_counter()
    lock = args.lock or f"{args.output}.lock"
    record: dict = {"state": args.state, "output": args.output}
    from fedopt.errors import EXIT_INTERRUPTED
    from fedopt.signals import graceful_stop

    try:
        check_writable(args.output, "--output")
        check_writable(diff_path_for(args.output, args.diff), "--diff")
        check_writable(lock, "--lock")
        with exclusive_lock(lock), graceful_stop() as stop:
            result, _ = replan(
                args.state,
                args.output,
                previous=args.previous or (args.output if Path(args.output).exists() else None),
                max_moves=args.max_moves,
                method=args.method,
                time_limit=args.time_limit,
                seed=args.seed,
                diff_path=args.diff,
                should_stop=stop,
            )
        code = EXIT_INTERRUPTED if stop() else 0
        record |= {
            "exit": code,
            "status": result.status,
            "objective": result.objective,
            "bound": result.bound,
            "gap": result.gap,
            "actions": result.stats["diff"],
            "seconds": round(time.perf_counter() - t0, 3),
        }
        log_line(args.log, record)
        if not args.quiet:
            print(result.summary())
        return code
    except FedoptError as exc:
        record |= {"exit": exc.exit_status, "error": str(exc), "seconds": round(time.perf_counter() - t0, 3)}
        log_line(args.log, record)
        raise
