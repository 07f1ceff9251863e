"""What the time model reads of a card: its log inverse capacities (matrix peaks per number
format, FP32 vector, memory bandwidth, the collective bandwidth at a card count) relative to an
H100 SXM, and how a job's overheads grow with the count (``model.py``'s docstring)."""

from __future__ import annotations

import numpy as np

from fedopt.normalize.cards import NODE_CARDS, Card

RESOURCES = ("compute", "mem", "host")
# H100 SXM: x = 1 on it
REF = {"bf16": 989.0, "fp32": 67.0, "mem": 3350.0, "comm": 900.0, "fp8": 1979.0, "fp4": 1979.0, "tf32": 494.5}
FORMATS = ("tf32", "bf16", "fp8", "fp4")  # matrix number formats, widest first (fp8: 8 bits, FP8 or INT8)
MATRIX_COLUMNS = [6, 0, 4, 5]  # card_logs' columns of the formats' peaks
SCALEOUT_GBS = 50.0  # per card between nodes (400 Gb/s)


def has_tensor(card: Card | None) -> bool:
    """Matrix units: dense BF16/FP16 peak well above the FP32 one (K80, P100, P40 have none)."""
    return card is not None and (card.fp32_tflops is None or card.bf16_tflops >= 2.5 * card.fp32_tflops)


def comm_factor(n: np.ndarray | int) -> np.ndarray:
    """Ring all-reduce traffic per card relative to the message: 2 (n-1) / n."""
    n = np.asarray(n, dtype=float)
    return 2.0 * (n - 1.0) / n


def card_logs(card: Card, n: np.ndarray | int) -> np.ndarray:
    """[len(n), 6]: log inverse capacities (bf16, fp32, mem, collective bandwidth at n cards, 8-bit and
    4-bit matrix peaks), 0 = an H100 SXM."""
    n = np.atleast_1d(np.asarray(n, dtype=float))
    domain = card.domain
    counts, at = np.unique(np.minimum(n, domain), return_inverse=True)
    node = np.array([card.ring_gbs(int(k)) for k in counts])[at.reshape(-1)]
    bw = np.where(n <= domain, node, np.minimum(node, SCALEOUT_GBS))
    out = np.empty((len(n), 7))
    out[:, 0] = np.log(REF["bf16"] / card.bf16_tflops)
    out[:, 1] = np.log(REF["fp32"] / card.fp32)
    out[:, 2] = np.log(REF["mem"] / card.mem_bw_gbs)
    out[:, 3] = np.log(REF["comm"] / bw)
    out[:, 4] = np.log(REF["fp8"] / card.p8)
    out[:, 5] = np.log(REF["fp4"] / card.p4)
    out[:, 6] = np.log(REF["tf32"] / card.tf32)
    return out


def scaleout_shape(n: np.ndarray | float, beta: float) -> tuple[np.ndarray, np.ndarray]:
    """How a job's slowdown grows past one node: ``ln(n / 8) ** beta`` (0 up to 8 cards), and its
    derivative in ``beta``. A power of the log, not of n: MLPerf's systems slow little up to 64
    cards, steeply to 512 and little past 1,024; a power of n missed the middle by ~40%."""
    x = np.log(np.maximum(np.asarray(n, dtype=float), NODE_CARDS) / NODE_CARDS)
    pos = x > 0
    lx = np.log(np.where(pos, x, 1.0))
    g = np.where(pos, np.exp(beta * lx), 0.0)
    return g, g * lx


def matrix_logs(u: np.ndarray, LF: np.ndarray) -> np.ndarray:
    """Log inverse matrix capacity [N] from the TF32, BF16, 8-bit, 4-bit columns ``LF`` [N, 4] and
    the shares ``u`` [N, 3] or [3] of matrix time at 16 bits or fewer, at 8 bits or fewer and at 4
    bits: the blend (1 - u16) TF32 + (u16 - u8) BF16 + (u8 - u4) 8-bit + u4 4-bit. Linear in ``u``
    (box-bounded in the fit): a share of 1% can still grow when the data call for it, where a
    softmax logit there barely moves."""
    return LF[:, 0] + (np.diff(LF, axis=1) * u).sum(axis=1)
