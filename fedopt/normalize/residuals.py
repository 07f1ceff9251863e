"""What a fit leaves of its measured cells, carried to cards the file lacks (``Hyper.sibling_residual``).

The fit's robust loss caps how far each row pulls a card's efficiency against its prior, so a card
measured on a few rows keeps a level miss in its own file (an MI325X over-predicted by a fifth).
Its unmeasured sibling of the same architecture took that miss in full: its efficiency comes from
the architecture's. Measured on every held-out set fitted alone (docs/normalize.md, *A card the
file lacks*), half of the siblings' miss on the same workload, else the architecture's, lowers the
median error of such cards. Medians throughout: one sibling that misses alone (GB300's FP4 recipe,
36% faster than the model says) must not move the others."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd


@dataclass(frozen=True)
class SiblingResiduals:
    """log(measured / fitted) of a fit's cells, by workload, architecture and count."""

    at_count: pd.DataFrame  # columns w, a, n, r: median over the architecture's cells at that count
    any_count: pd.DataFrame  # columns w, a, r: median over all its cells of the workload
    by_arch: dict[str, float]  # median over all the architecture's cells

    @staticmethod
    def from_cells(
        cells: list[tuple[str, str, int]], measured: np.ndarray, fitted: np.ndarray, arch_of: Callable
    ) -> SiblingResiduals:
        """``cells`` (workload, card key, count) measured ``measured`` and fitted ``fitted`` (the
        model without its measured cells); a cell fitted 0 (ineligible) says nothing."""
        with np.errstate(divide="ignore", invalid="ignore"):
            r = np.log(measured / fitted)
        df = pd.DataFrame(
            {"w": [c[0] for c in cells], "a": [arch_of(c[1]) for c in cells], "n": [int(c[2]) for c in cells], "r": r}
        )
        df = df[np.isfinite(df["r"])]
        return SiblingResiduals(
            df.groupby(["w", "a", "n"], as_index=False)["r"].median(),
            df.groupby(["w", "a"], as_index=False)["r"].median(),
            df.groupby("a")["r"].median().to_dict(),
        )

    def shift(self, wl: np.ndarray, keys: list[str], n: np.ndarray, cards: set[str], arch_of: Callable) -> np.ndarray:
        """Per row, the log miss its card's measured siblings show: rows on ``cards`` (cards the fit
        lacks, with specs) whose architecture the fit has; 0 elsewhere."""
        out = np.zeros(len(keys))
        archs = {k: a for k in cards if not k.startswith("?") and (a := arch_of(k)) in self.by_arch}
        if not archs:
            return out
        key = pd.Series(keys, dtype=object)
        hit = key.isin(archs).to_numpy()  # ``cards`` come from ``keys``: some rows always hit
        rows = np.flatnonzero(hit)
        q = pd.DataFrame(
            {"w": np.asarray(wl)[hit].astype(str), "a": key[hit].map(archs).to_numpy(), "n": np.asarray(n)[hit].astype(int)}
        )
        same = q.merge(self.at_count, on=["w", "a", "n"], how="left")["r"].to_numpy()
        other = q.merge(self.any_count, on=["w", "a"], how="left")["r"].to_numpy()
        whole = q["a"].map(self.by_arch).to_numpy(dtype=float)
        out[rows] = np.where(np.isfinite(same), same, np.where(np.isfinite(other), other, whole))
        return out
