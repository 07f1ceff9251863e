"""Progress of long solves: a line per round on stderr (on a terminal), and the same history in stats."""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field


@dataclass
class Progress:
    enabled: bool = True
    start: float = field(default_factory=time.perf_counter)
    history: list[dict] = field(default_factory=list)
    _header: bool = False

    @classmethod
    def auto(cls, quiet: bool = False) -> Progress:
        """On when stderr is a terminal and not quiet."""
        return cls(enabled=not quiet and sys.stderr.isatty())

    def elapsed(self) -> float:
        return time.perf_counter() - self.start

    def round(self, phase: str, lp: float | None, bound: float | None, incumbent: float | None, columns: int) -> None:
        gap = None
        if bound is not None and incumbent is not None:
            gap = abs(bound - incumbent) / max(1.0, abs(incumbent))
        row = {
            "round": len(self.history),
            "phase": phase,
            "seconds": round(self.elapsed(), 3),
            "lp": lp,
            "bound": bound,
            "incumbent": incumbent,
            "gap": gap,
            "columns": columns,
        }
        self.history.append(row)
        if not self.enabled:
            return
        if not self._header:
            print(
                f"{'round':>5} {'phase':<8} {'LP':>12} {'bound':>12} {'incumbent':>12} {'gap':>9} {'columns':>8} {'time':>7}",
                file=sys.stderr,
            )
            self._header = True
        f = lambda v: "-" if v is None else f"{v:.6g}"  # noqa: E731
        g = "-" if gap is None else f"{gap:.3%}"
        line = f"{row['round']:>5} {phase:<8} {f(lp):>12} {f(bound):>12} {f(incumbent):>12} {g:>9}"
        print(
            f"{line} {columns:>8} {row['seconds']:>6.1f}s",
            file=sys.stderr,
            flush=True,
        )
