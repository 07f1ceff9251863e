"""SIGINT/SIGTERM during a solve: finish with the best plan so far instead of dying.

The first signal sets a flag that the solvers poll (they stop and hand back their best plan,
which the command line then writes atomically and exits 130); a second signal ends the process
at once — still without a partial file, since every output is written by rename.
"""

from __future__ import annotations

import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager


class StopFlag:
    def __init__(self) -> None:
        self.signal: int | None = None

    def __call__(self) -> bool:
        return self.signal is not None

    def _handle(self, signum, frame) -> None:
        if self.signal is not None:
            print("fedopt: second signal, stopping now", file=sys.stderr, flush=True)
            raise SystemExit(130)
        self.signal = signum
        print(f"fedopt: {signal.Signals(signum).name} received: finishing with the best plan so far", file=sys.stderr, flush=True)


@contextmanager
def graceful_stop() -> Iterator[StopFlag]:
    flag = StopFlag()
    saved = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    for s in saved:
        signal.signal(s, flag._handle)
    try:
        yield flag
    finally:
        for s, h in saved.items():
            signal.signal(s, h)
