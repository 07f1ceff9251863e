"""The calibrated throughput model: a job's speed on any card from the card's specs and the job's
measurements on other cards (docs/normalize.md has the derivation and the evaluation).

For workload ``w`` on ``n`` cards of type ``c`` the time of one unit of work per card is a sum of
resource times, each the workload's share of time on the reference card (an H100 SXM) times the
card's inverse capacity relative to it:

    tau(w, c) = s_compute * x_compute + s_mem * x_mem + s_host
      x_compute = x_matrix^rho_w * (67 / fp32_tflops)^(1 - rho_w) / e_c
      x_matrix  = (494.5 / tf32)^(1 - u16_w) * (989 / bf16)^(u16_w - u8_w) * (1979 / p8)^(u8_w - u4_w) * (1979 / p4)^u4_w
      x_mem     = 3350 / mem_bw_gbs
      (s_host: time no accelerator shortens: input pipeline, host, kernel launches)

    throughput(w, c, n) = n * exp(a_w) / tau(w, c) / (1 + o_w(c, n)) / (1 + sigma_w (min(n, 8) - 1)) * exp(u_c . v_w)
      o_w(c, n) = exp(k_w) * 2 (n - 1) / n * (900 / B_c(n))^gamma    multi-card overhead
                + exp(psi_w) * ln(n / 8)^beta  (n > 8)               scale-out past one node
      B_c(n): scale-up bandwidth (PCIe past 2 cards for NVLink-bridge cards; <= 50 GB/s past 8,
              past 72 on NVL72 racks, whose NVLink domain spans 72 cards)
              (within a node, at most the narrowest link the fit's multi-card rows saw: a file of
              NVLink cards does not say how a PCIe ring slows a job)

``s_w = softmax(theta_w)`` are the workload's time shares, ``rho_w`` the share of its compute on
matrix (tensor) units (FP32 vector peak at 0, matrix peaks at 1), ``u16_w``, ``u8_w``, ``u4_w`` the
shares of its matrix time at 16 bits or fewer (the rest is FP32 work: TF32 where the card has it,
its FP32 vector peak where not: V100, Turing), at 8 bits or fewer (FP8, or INT8 on cards without
FP8) and at 4 bits (FP4) (p8 is the BF16 peak on a card with nothing narrower, p4 the 8-bit one:
INT8 inference gains on an A100 over a V100, FP4 decoding on a B200 over an H100, BF16 training
on neither), ``a_w`` its scale, ``k_w``
its all-reduce overhead (ring traffic 2 (n-1)/n; past one node of 8 cards the scale-out network,
<= 50 GB/s per card; none with ``Hyper.replicas`` where one card holds the job's named model),
``psi_w`` and ``beta`` how much a job slows as it grows past one node
(synchronization, larger batches that need more steps: MLPerf's 1024-card systems train at ~1/5
of 128 8-card nodes' speed), ``sigma_w`` in [0, 1] the serial fraction of one card's time that
more cards do not shorten (Amdahl; 1: a job split by layers that decodes one token at a time gets
no faster), ``e_c = exp(eta_c)`` the card's compute efficiency and ``u_c . v_w`` a
low-rank (collaborative filtering) correction of the job x card matrix.

Fit: least soft-L1 error in log throughput (errors past ~15% count linearly), with shrinkage:
theta_w, rho_w, k_w toward their group's (a group: a connected set of workloads and cards), those
weakly toward global ones; u8_w, u4_w firmly and u16_w weakly toward a fixed prior (15%, 1%, 98%), not a group's: a
job's number formats are its recipe's, shown only where several cards show them; sigma_w toward 0
or 1 (a double well: a job scales with cards or does not; only its own rows at several counts move
it, from where those rows alone put it); the shares'
strength set per group from how much its workloads agree
(empirical Bayes, a second fit); eta_c toward its architecture's efficiency (lowered by the
architecture's calibrated miss, ``Hyper.arch_bias_in_fit``, where there is one), two cards of one
die at one power (``cards.same_die``: H100 and H200 SXM) toward one offset from their centres
(``Hyper.lam_die``), the architecture toward its vendor's, that toward a common mu (~0); u, v
toward 0. A workload measured only on cards without matrix units has rho_w = 0 (nothing shows it
uses them). Predicting: a card not in the fit takes
its architecture's (else vendor's, else the common) efficiency and u = 0, so it is predicted from
its specs, and half of what the fit leaves of its measured siblings (``residuals.py``: the median
over the same architecture's cells of the workload, else over all of its cells); a workload
measured on one card keeps its scale and, on other cards, the median ratio of its neighbours
(``neighbours.py``); a workload never measured takes the average scale and the global shares.

Memory fit (``memory_fit.py``): a measured 0 means the job could not run there (out of memory); a
card with no more memory than the largest card the job failed on (and less than the smallest it
ran on) is predicted 0: ineligible.
"""

from __future__ import annotations

import contextlib
import ctypes
import glob
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy.optimize import minimize

from fedopt.normalize.capacity import (
    FORMATS,
    MATRIX_COLUMNS,
    REF,
    RESOURCES,
    card_logs,
    comm_factor,
    has_tensor,
    matrix_logs,
    scaleout_shape,
)
from fedopt.normalize.cards import NODE_CARDS, Card, CardResolver, arch_vendor, catalog_twin, same_die, silicon_sibling
from fedopt.normalize.footprint import fits_one_card, replica_workloads
from fedopt.normalize.memory_fit import MemoryFit
from fedopt.normalize.mig import mig_share
from fedopt.normalize.neighbours import OneCardRatios, ReferenceRatios
from fedopt.normalize.objective import Objective, Pools, Rows, connected_groups, sigmoid, softmax
from fedopt.normalize.residuals import SiblingResiduals

REPLICA_BYTES_PER_PARAM = 1.0  # FP8/INT8 weights, the usual serving recipe (Hyper.replicas)
NO_TENSOR = -30.0  # logit of rho for a workload with no evidence of matrix-unit use


@contextlib.contextmanager
def _one_blas_thread():
    """Run L-BFGS-B's small dense algebra on one thread: OpenBLAS threads cost 10x here on 2 cores."""
    import numpy as _np
    import scipy as _sp

    setters = []
    for pkg in (_sp, _np):
        for path in glob.glob(os.path.join(os.path.dirname(pkg.__file__), os.pardir, f"{pkg.__name__}.libs", "*openblas*.so*")):
            try:
                fn = ctypes.CDLL(path).openblas_set_num_threads_local
            except (OSError, AttributeError):
                continue
            fn.restype, fn.argtypes = ctypes.c_int, [ctypes.c_int]
            setters.append((fn, fn(1)))
    try:
        yield
    finally:
        for fn, old in setters:
            fn(old)


PROGRESS_EVERY_S = 5.0  # a long fit's status lines, at most this often


class _FitWatch:
    """L-BFGS-B callback: a status line to ``progress`` at most every ``PROGRESS_EVERY_S`` seconds."""

    def __init__(self, progress: Callable[[str], None] | None, what: str, passes: int):
        self.progress, self.what, self.passes, self.every = progress, what, passes, PROGRESS_EVERY_S
        self.start = self.last = time.perf_counter()
        self.pass_no, self.iteration = 1, 0

    def next_pass(self) -> None:
        self.pass_no, self.iteration = self.pass_no + 1, 0

    def __call__(self, intermediate_result) -> None:
        self.iteration += 1
        now = time.perf_counter()
        if self.progress is None or now - self.last < self.every:
            return
        self.last = now
        self.progress(
            f"fitting {self.what}: pass {self.pass_no}/{self.passes}, iteration {self.iteration}, "
            f"loss {float(intermediate_result.fun):.6g}, {now - self.start:.0f} s"
        )


@dataclass
class Hyper:
    """Shrinkage strengths (1 / prior variance, in log units) and priors of the fit."""

    rank: int = 2
    # the user's word that multi-card jobs run as independent replicas wherever one card holds the
    # model their name states (offline serving; footprint.py, one byte per parameter): no
    # all-reduce overhead there. Off by default: llama.cpp splits models that fit, and pays.
    # True: every workload; a string: comma-separated shell patterns of the workloads it covers
    replicas: bool | str = False
    # the all-reduce overhead grows no further than at the narrowest link among the fit's rows of
    # 2-8 cards: a file of NVLink cards says nothing of a PCIe ring (H200 NVL, docs/normalize.md)
    clip_links: bool = True
    lam_theta: float = 0.03  # share logits toward the common logits
    lam_share: float = 0.3  # shares toward the common shares (share space: a share can reach 0)
    adapt_shrink: bool = True  # scale both by share_spread / the group's spread of shares (refit)
    share_spread: float = 0.002
    shrink_min: float = 0.01
    lam_rho: float = 0.3  # tensor-fraction logit toward the common one
    lam_eta: float = 10.0  # card efficiency toward its architecture's
    lam_arch: float = 10.0  # an architecture's efficiency toward its vendor's
    lam_vendor: float = 10.0  # a vendor's efficiency toward the common one
    lam_mu: float = 1.0  # the common efficiency toward 1 (it trades with the compute shares)
    # two cards of one die at one power (cards.same_die: H100 SXM and H200 SXM) toward one offset
    # from their centres (their calibrated offsets, power deficits): their compute is one, so a gain
    # of one over the other is its memory's. Untied (0) a file of one compute peak credits the H200's
    # gain to its efficiency and keeps the compute share high, which mispredicts every card of less
    # compute (TensorRT-LLM v0.13 alone 26.2% -> 24.1% tied; docs/normalize.md)
    lam_die: float = 100.0
    lam_eta_unknown: float = 0.01  # efficiency of a card without specs (its only speed parameter)
    lam_uv: float = 1.0  # low-rank terms toward 0
    lam_k: float = 0.1  # all-reduce overhead toward the common one
    lam_group: float = 0.1  # a component's common shares, tensor fraction, overhead toward the global ones
    lam_gamma: float = 1.0
    lam_psi: float = 0.02  # scale-out slowdown toward the group's
    # the serial fraction of a job's time that more cards do not shorten (Amdahl): a double-well
    # prior lam_serial * 16 s^2 (1 - s)^2 (inf: no serial term). Jobs either scale with cards (data
    # parallel: s ~ 0) or do not (llama.cpp's layer split decodes one token at a time: s ~ 1); both
    # ends are free, the middle costs lam_serial. A job starts where its own rows at several counts
    # within a node put it (serial_moments), the others at 0. Near 0 it pulls as the quadratic
    # 8 s^2 (10 s^2 until 2026-12-04: that held llama.cpp's non-scaling jobs near 0 too, and 1 or 3
    # let Gavel's irregular counts read a serial fraction; docs/normalize.md)
    lam_serial: float = 0.5
    # the share of an architecture's calibrated miss (ThroughputModel.arch_bias: CDNA3's and
    # Blackwell's, agreed across calibration sets) that also moves its efficiency centre when its
    # cards are in the file: a card's few rows move its efficiency little, so one MI325X row does
    # not show what the calibration saw of CDNA3 (0: the miss only for an architecture not in the fit)
    arch_bias_in_fit: float = 0.5
    # the share of what the fit leaves of a card's measured siblings (same architecture, in the file)
    # that carries to a card the file lacks: the median log(measured / fitted) of the sibling cells of
    # the same workload (at the same count when there are any), else of all the architecture's. The robust loss
    # caps each row's pull against the efficiency prior, so a card with few rows keeps a level miss
    # (MI325X over-predicted in its own file), which its unmeasured sibling then shared in full (0: off)
    sibling_residual: float = 0.5
    lam_beta: float = 0.05
    # power-limited clocks: how much of a card's power deficit (cards.POWER_FLAGSHIP) shows in its
    # efficiency (0: none, 1: the cube-root law), fitted toward this prior
    kappa_prior: float = 0.5
    # shares of a workload's matrix-unit time at TF32 (FP32 work), BF16, 8-bit (FP8/INT8) and 4-bit (FP4) peaks:
    # FP32 training ~(1, 0, 0, 0), BF16 training ~(0, 1, 0, 0), FP8 training and INT8 inference ~(0, 0, 1, 0),
    # FP4 LLM decoding on Blackwell ~(0, 0, 0, 1)
    format_prior: tuple[float, float, float, float] = (0.02, 0.83, 0.14, 0.01)
    lam_format: float = 1.0  # toward the prior: FP4 only where several cards show it (a recipe, not a card, picks it)
    # the FP32 (TF32) share, weakly: FP32 training jobs exist (Lambda's FP32 benchmarks: 0.1 reads them,
    # 1 held them at BF16 and over-predicted V100 and Turing by 50-100%; 0.03 and weaker let Gavel's
    # 2019 jobs read TF32 into cards they never ran on: 21.9% -> 25-27%)
    lam_tf32: float = 0.1
    lam_kappa: float = 0.01  # weak: training data show ~0, saturating inference ~2
    # scale-out priors: MLPerf Training v3.1-v4.1 closed systems of 16-3584 accelerators
    # (calibrate.py refits them; these are that fit's values, used when no file is at hand)
    psi_prior: float = -3.16
    beta_prior: float = 3.05
    robust_scale: float = 0.15  # soft-L1 in log space: ~15% errors count as squares, larger ones linearly
    share_prior: tuple[float, float, float] = (0.45, 0.45, 0.1)  # compute, mem, host: where theta_0 is pulled (weakly)
    lam_theta0: float = 0.01  # theta_0 toward the share prior
    rho_prior: float = 0.9
    k_prior: float = -2.0  # log overhead per unit of all-reduce traffic on an H100 node
    gamma_prior: float = 0.5  # log-log slope of the overhead in 1 / scale-up bandwidth
    eff_all: bool = False  # the card's efficiency scales memory time too, not only compute
    host: float = 1.0  # inverse capacity of the host resource (0: no host time)
    seed: int = 0
    max_iter: int = 3000
    ftol: float = 1e-8


@dataclass
class Fitted:
    workloads: list[str]
    cards: list[str]  # card keys
    a: np.ndarray
    theta: np.ndarray  # [W, R]
    theta0: np.ndarray
    phi: np.ndarray  # tensor-fraction logits (NO_TENSOR added where there is no evidence)
    phi0: float
    eta: np.ndarray
    mu: float
    k: np.ndarray
    k0: float
    gamma: float
    psi: np.ndarray  # scale-out slowdown per workload (log)
    psi0: float
    beta: float
    U: np.ndarray
    V: np.ndarray
    eta_arch: dict[str, float]
    eta_vendor: dict[str, float]
    loss: float = 0.0
    info: dict = field(default_factory=dict)
    kappa: float = 0.0  # share of a card's power deficit in its efficiency
    formats: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))  # [W, 3] matrix time at <= 16, <= 8, 4 bits
    formats0: np.ndarray = field(default_factory=lambda: np.zeros(3))  # the prior's: an unmeasured workload's
    serial: np.ndarray = field(default_factory=lambda: np.zeros(0))  # [W] Amdahl serial fraction (0: scales with cards)


class ThroughputModel:
    """Fit on measurements (``workload, card_type, cards, throughput``), predict any rows."""

    def __init__(
        self,
        resolver: CardResolver | None = None,
        hyper: Hyper | None = None,
        card_priors: dict | None = None,
        arch_priors: dict | None = None,
        arch_bias: dict | None = None,
        reference: dict | None = None,
    ):
        self.resolver = resolver or CardResolver()
        self.hyper = hyper or Hyper()
        # card id -> efficiency offset (log) from its architecture's, for cards not in the fit (optional)
        self.card_priors = card_priors or {}
        # architecture -> (calibrated log efficiency, vendor): an architecture not in the fit takes
        # its calibrated differences from the ones that are (optional)
        self.arch_priors = arch_priors or {}
        # architecture -> log throughput correction for a card whose architecture is not in the fit:
        # what such predictions missed in the calibration data (optional)
        self.arch_bias = arch_bias or {}
        # the calibration's workloads on every catalog card (calibrate.reference_rates): the neighbours
        # of a one-card workload whose group has none of its own (optional)
        self.reference = reference
        self.fitted: Fitted | None = None
        self._one_card: OneCardRatios | None = None  # workloads measured on one card only
        self.memory: MemoryFit | None = None  # cards too small for a workload, from measured zeros
        self._lc_max: float | None = None  # log(900 / GB/s) of the narrowest link the fit's 2-8 card rows saw
        self._prior_cards: dict[str, Card | None] | None = None  # the calibrated cards, for same-silicon priors
        self._fitted_cards: dict[str, Card | None] | None = None  # the fit's cards, most measured first
        self._siblings: dict[str, str | None] = {}  # card not in the fit -> its fitted same-silicon sibling
        self._residuals: SiblingResiduals | None = None  # what the fit leaves of each architecture's cells

    # ------------------------------------------------------------------ cards
    def card_key(self, name: str) -> str:
        """The card's catalog (or --cards) id; ``?name`` for a card with no specs."""
        card = self.resolver.resolve(name)
        return card.id if card is not None else "?" + " ".join(str(name).lower().split())

    def _catalog_id(self, key: str) -> str:
        """The catalog id a card key stands for: a user's card (``--cards``) its catalog twin's, if any."""
        card = self.resolver.extra.get(key)
        if card is None:
            return key
        twin = catalog_twin(card)
        return key if twin is None else twin.id

    def _card_prior(self, key: str) -> float:
        """The card's calibrated efficiency offset; a user's card (``--cards``, an instance's card
        types) takes its catalog twin's, as the calibration measured that hardware under its catalog id;
        a card the calibration did not measure, its same-silicon sibling's (an H800 the H100 SXM's:
        ``cards.same_silicon``)."""
        cid = self._catalog_id(key)
        if cid not in self.card_priors:
            if self._prior_cards is None:
                self._prior_cards = {k: self.resolver.catalog.get(k) for k in sorted(self.card_priors)}
            cid = silicon_sibling(self.resolver.catalog.get(cid), self._prior_cards) or cid
        return float(self.card_priors.get(cid, 0.0))

    def _fitted_siblings(self, unseen: set[str]) -> dict[str, str]:
        """Each card not in the fit whose chip, clock and memory a fitted card shares
        (``cards.same_silicon``: an H800 beside a measured H100 SXM) -> that card (the one with the
        most measured cells): it takes the card's fitted efficiency and low-rank factors, and its
        measured cells anchor the prediction (``_predict_keys``)."""
        out = {}
        for k in unseen:
            if k not in self._siblings:
                if self._fitted_cards is None:
                    cells = pd.Series([c for _, c, _ in self.measured]).value_counts()
                    order = sorted(self._ci, key=lambda c: (-int(cells.get(c, 0)), c))
                    self._fitted_cards = {c: self._card(c) for c in order}
                self._siblings[k] = silicon_sibling(self._card(k), self._fitted_cards)
            if self._siblings[k] is not None:
                out[k] = self._siblings[k]
        return out

    def _card(self, key: str) -> Card | None:
        if key.startswith("?"):
            return None
        return self.resolver.resolve(key)

    def _arch_of(self, key: str) -> str:
        return arch_vendor(self._card(key), key)[0]

    def _replica_rows(self, wl: np.ndarray, keys: list[str]) -> np.ndarray:
        """Per row, 1 where the job runs as replicas that never talk (``Hyper.replicas`` covers the
        workload and one card holds its named model), else 0."""
        if not self.hyper.replicas:
            return np.zeros(len(keys))
        codes, uniq = pd.factorize(np.asarray(keys, dtype=object))  # one card lookup per card type
        memory = np.array([getattr(self._card(k), "memory_gb", None) or np.nan for k in uniq], dtype=float)
        return fits_one_card(wl, memory[codes], REPLICA_BYTES_PER_PARAM) * replica_workloads(wl, self.hyper.replicas)

    def _host_rows(self, keys: list[str]) -> np.ndarray:
        """Per row, the host time's multiple: 1 on a whole card, 1 / its share on a MIG slice. MLPerf
        Inference's one-slice runs (v2.1, v3.0: 1g.10gb of an A100) go at 1/6.3-1/7.7 of their
        card, as if every share of the card's time, host included, took g/7 of the card: the host
        part of a card's time is serving that card's rate, which a slice does not need."""
        codes, uniq = pd.factorize(np.asarray(keys, dtype=object))
        share = np.array([mig_share(c.id) if (c := self._card(k)) is not None else 1.0 for k in uniq])
        return 1.0 / share[codes]

    def _rows(self, keys: list[str], n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Log inverse capacities [N, 7] (``card_logs``) and efficiency masks [N, 2] (compute, mem) of rows."""
        L = np.empty((len(keys), 7))
        m = np.empty((len(keys), 2))
        codes, uniq = pd.factorize(np.asarray(keys, dtype=object))  # integer codes: cheap to compare
        for j, key in enumerate(uniq):
            idx = np.flatnonzero(codes == j)
            card = self._card(key)
            if card is None:  # no specs: a typical card whose efficiency scales it all
                L[idx] = card_logs(Card(key, 1.0, 1.0), n[idx])
                L[idx, :3] = self._typical
                L[idx, 4:6] = self._typical[0] + np.log(
                    REF["fp8"] / REF["bf16"] / 2
                )  # 8-/4-bit peaks 2x BF16, as on the reference
                L[idx, 6] = self._typical[0]  # TF32 half of BF16, as on the reference
                m[idx] = 1.0
            else:
                L[idx] = card_logs(card, n[idx])
                m[idx] = (1.0, 1.0 if self.hyper.eff_all else 0.0)
        return L, m

    # ------------------------------------------------------------------ fit
    def fit(self, df: pd.DataFrame, progress: Callable[[str], None] | None = None) -> ThroughputModel:
        """Fit on measurement rows. ``progress`` (optional) gets a short status line every few
        seconds of a long fit (thousands of workloads take minutes)."""
        h = self.hyper
        keys_all = [self.card_key(n) for n in df["card_type"]]
        tp = df["throughput"].to_numpy(dtype=float)
        n_all = df["cards"].to_numpy(dtype=float)
        wl_all = df["workload"].astype(str).to_numpy()

        self.memory = MemoryFit(wl_all, keys_all, n_all, tp, self._card)  # ineligible cards, from zeros

        pos = tp > 0
        keys = [k for k, p in zip(keys_all, pos, strict=True) if p]
        wl = wl_all[pos]
        n = n_all[pos]
        y = np.log(tp[pos])
        # measured cells (geometric mean of repeats) are returned as they are
        cells = pd.DataFrame({"w": wl, "k": keys, "n": n.astype(int), "y": y}).groupby(["w", "k", "n"])["y"].mean()
        self.measured = {key: float(np.exp(v)) for key, v in cells.items()}

        workloads = sorted(set(wl))
        cards = sorted(set(keys))
        known = [card_logs(c, 1)[0, :3] for k in cards if (c := self._card(k)) is not None]
        self._typical = np.mean(known, axis=0) if known else np.log([989 / 312, 67 / 19.5, 3350 / 2039])
        self._wi = wi = {w: i for i, w in enumerate(workloads)}
        self._ci = ci = {c: i for i, c in enumerate(cards)}
        iw = np.array([wi[w] for w in wl], dtype=np.int64)
        ic = np.array([ci[c] for c in keys], dtype=np.int64)
        L, mask = self._rows(keys, n)
        lf, lm, lc = L.T[1:4]
        multi = (n > 1) & (n <= NODE_CARDS)
        self._lc_max = float(lc[multi].max()) if multi.any() else None
        LF = L[:, MATRIX_COLUMNS]  # matrix-unit formats: BF16, 8-bit, 4-bit
        mc, mm = mask.T
        hn = comm_factor(n) * (1.0 - self._replica_rows(wl, keys))
        W, C = len(workloads), len(cards)

        # efficiency prior: card -> architecture -> vendor -> common
        av = [arch_vendor(self._card(c), c) for c in cards]
        archs = sorted({a for a, _ in av})
        vendors = sorted({v for _, v in av})
        c_arch = np.array([archs.index(a) for a, _ in av], dtype=np.int64)
        vendor_of = dict(av)
        a_vend = np.array([vendors.index(vendor_of[a]) for a in archs], dtype=np.int64)
        arch_off = np.array([self._arch_offset(a) for a in archs])
        lam_eta = np.array([h.lam_eta_unknown if c.startswith("?") else h.lam_eta for c in cards])
        prior_off = np.array([self._card_prior(c) for c in cards])
        deficit = np.array([self.resolver.power_deficit(self._card(c)) for c in cards])

        # a workload measured only on cards without matrix units (K80, P100) shows no use of them
        tensor_w = np.zeros(W, dtype=bool)
        known_w = np.zeros(W, dtype=bool)
        for w, c in set(zip(iw.tolist(), ic.tolist(), strict=True)):
            card = self._card(cards[c])
            tensor_w[w] |= has_tensor(card)
            known_w[w] |= card is not None
        tensor_w |= ~known_w  # no card with specs: no evidence either way
        phi_off = np.where(tensor_w, 0.0, NO_TENSOR)

        G, wg = connected_groups(iw, ic, W, C)
        rows = Rows(iw, ic, y, n, LF, lf, lm, lc, mc, mm, h.host * self._host_rows(keys), hn)
        specs = [self._card(c) for c in cards]
        die_pairs = np.array(
            [(i, j) for i in range(C) for j in range(i + 1, C) if specs[i] and specs[j] and same_die(specs[i], specs[j])],
            dtype=np.int64,
        ).reshape(-1, 2)
        pools = Pools(wg, G, c_arch, a_vend, len(vendors), arch_off, lam_eta, prior_off, deficit, tensor_w, phi_off, die_pairs)
        f = Objective(h, rows, pools)
        p0 = f.start(np.random.default_rng(h.seed))
        with _one_blas_thread():
            opts = {"maxiter": h.max_iter, "maxfun": 2 * h.max_iter, "ftol": h.ftol, "gtol": 1e-6}
            first = opts | {"ftol": 1e-6} if h.adapt_shrink else opts  # only the shares' spread is read from it
            bounds = f.bounds()
            passes = 2 if h.adapt_shrink else 1
            watch = _FitWatch(progress, f"{len(y):,} measurements, {W:,} workloads, {C} cards", passes)
            res = minimize(f, p0, jac=True, method="L-BFGS-B", options=first, bounds=bounds, callback=watch)
            if h.adapt_shrink:  # then refit from the first fit, each group's shares as firmly as they agree
                f.weigh_shares(res.x)
                watch.next_pass()
                res = minimize(f, res.x, jac=True, method="L-BFGS-B", options=opts, bounds=bounds, callback=watch)
        self._objective, self._solution = f, res.x  # loss and gradient, for tests and diagnostics
        a, th, th0, ph, ph0, eta, ea, ev, mu, k, k0, gam, U, V, _, _, _, ps, ps0, bet, _, kap, fm, sr = f.unpack(res.x)
        # workloads measured on one card only: their ratios across cards come from their group's
        # workloads measured on two or more (neighbours.py)
        reference = None if self.reference is None else ReferenceRatios(self.reference, self._catalog_id)
        self._one_card = OneCardRatios(self.measured, {w: int(wg[wi[w]]) for w in workloads}, reference)
        self.fitted = Fitted(
            workloads,
            cards,
            a,
            th,
            th0,
            ph + phi_off,
            float(ph0),
            eta,
            float(mu),
            k,
            float(k0),
            float(gam),
            ps,
            float(ps0),
            float(bet),
            U,
            V,
            dict(zip(archs, ea.tolist(), strict=True)),
            dict(zip(vendors, ev.tolist(), strict=True)),
            float(res.fun),
            {"nit": int(res.nit), "converged": bool(res.success)},
            float(kap),
            fm,
            f.fmt_prior,
            sr,
        )
        self._residuals = self._sibling_residuals() if h.sibling_residual else None
        return self

    def _sibling_residuals(self) -> SiblingResiduals:
        """What the fit leaves of every measured cell, for the cards the file lacks."""
        cells = list(self.measured)
        wl = np.array([c[0] for c in cells], dtype=object).astype(str)
        n = np.array([c[2] for c in cells], dtype=float)
        fitted = self._predict_keys(wl, [c[1] for c in cells], n, False, None)
        measured = np.array([self.measured[c] for c in cells])
        return SiblingResiduals.from_cells(cells, measured, fitted, self._arch_of)

    # ------------------------------------------------------------------ parameters
    def _need(self) -> Fitted:
        if self.fitted is None:
            raise RuntimeError("fit the model first")
        return self.fitted

    def __getstate__(self) -> dict:
        # the fit's objective (its copy of every row) stays behind: a fitted model pickles small (worker processes, notebooks)
        return {**self.__dict__, "_objective": None}

    def one_card_type(self) -> bool:
        """True when no workload of the fit ran on two card types: its ratios between cards cannot
        come from the file (``neighbours.py``; the command says so, and its bounds widen)."""
        self._need()
        return self._one_card is None or not any(self._one_card.neighbours.values())

    def shares(self, workload: str) -> dict[str, float]:
        """Time shares on the reference card, tensor fraction, the matrix time's shares by number
        format (``tf32``: FP32 work, ``bf16``, ``fp8``, ``fp4``) and the serial fraction (``serial``:
        the share of one card's time more cards do not shorten); the common ones if unmeasured."""
        fz = self._need()
        i = self._wi.get(workload)
        t = fz.theta[i] if i is not None else fz.theta0
        out = dict(zip(RESOURCES, softmax(t).tolist(), strict=True))
        out["tensor"] = float(sigmoid(fz.phi[i] if i is not None else fz.phi0))
        u = [1.0, *(float(v) for v in (fz.formats[i] if i is not None else fz.formats0)), 0.0]
        out |= {f: max(u[j] - u[j + 1], 0.0) for j, f in enumerate(FORMATS)}
        out["serial"] = float(fz.serial[i]) if i is not None and len(fz.serial) else 0.0
        return out

    def share_table(self, workloads: list[str] | None = None) -> pd.DataFrame:
        """[workloads x shares]: ``shares`` of each workload (default: the fitted ones), a frame for
        notebooks and ``normalize --shares``: what the fit read from each job's measurements."""
        workloads = list(self._need().workloads) if workloads is None else list(workloads)
        out = pd.DataFrame([self.shares(w) for w in workloads], index=pd.Index(workloads, name="workload"))
        out.columns.name = "share"
        return out

    def efficiency(self, name: str) -> float:
        """exp(eta): the card's achieved share of its compute peaks relative to the reference card."""
        fz = self._need()
        key = self.card_key(name)
        return float(np.exp(fz.eta[self._ci[key]] if key in self._ci else self._eta_prior(key)))

    def _eta_prior(self, key: str) -> float:
        """Efficiency of a card not in the fit: its architecture's, else its calibrated gap to the
        fitted architectures, else its vendor's, else the common one; plus its calibrated offset."""
        fz = self._need()
        arch, vendor = arch_vendor(self._card(key), key)
        base = fz.eta_arch.get(arch)
        if base is None:
            base = self._eta_arch_from_priors(arch, vendor)
        if base is None:
            base = fz.eta_vendor.get(vendor, fz.mu)
        return base + self._card_prior(key) - fz.kappa * self.resolver.power_deficit(self._card(key))

    def _arch_offset(self, arch: str) -> float:
        """How far an architecture's calibrated miss moves its efficiency centre in a fit (log)."""
        return self.hyper.arch_bias_in_fit * float(self.arch_bias.get(arch, 0.0))

    def _new_arch_bias(self, key: str) -> float:
        """The calibrated correction of a card whose architecture no card of the fit shares (0 else)."""
        arch, _ = arch_vendor(self._card(key), key)
        return 0.0 if arch in self._need().eta_arch else float(self.arch_bias.get(arch, 0.0))

    def _eta_arch_from_priors(self, arch: str, vendor: str) -> float | None:
        """An architecture not in the fit, from the calibrated differences to the fitted ones
        (the same vendor's when there are any): each fitted architecture's efficiency plus the
        calibrated gap, averaged. None without a calibrated figure for it or for a fitted one."""
        fz = self._need()
        pri = self.arch_priors
        if arch not in pri:
            return None
        anchors = [a for a in fz.eta_arch if a in pri]
        anchors = [a for a in anchors if pri[a][1] == vendor] or anchors
        if not anchors:
            return None
        # an anchor's own calibrated miss moved its fitted level (arch_bias_in_fit): not a gap to carry
        level = {a: fz.eta_arch[a] - self._arch_offset(a) for a in anchors}
        return float(np.mean([level[a] + pri[arch][0] - pri[a][0] for a in anchors]))

    # ------------------------------------------------------------------ predict
    def predict(self, df: pd.DataFrame, use_measured: bool = True, scaleout: tuple[float, float] | None = None) -> np.ndarray:
        """Throughput of every row (``workload, card_type, cards``): finite, 0 = ineligible.
        ``scaleout = (psi, beta)`` replaces every workload's fitted scale-out slowdown."""
        codes, names = pd.factorize(df["card_type"].astype(str))  # one lookup per distinct name
        keys = np.asarray([self.card_key(c) for c in names] or [""], dtype=object)[codes].tolist()
        n = df["cards"].to_numpy(dtype=float)
        wl = df["workload"].astype(str).to_numpy()
        out = self._predict_keys(wl, keys, n, use_measured, scaleout)
        if scaleout is None and self._one_card is not None:
            self._one_card.apply(self._predict_keys, wl, keys, n, out, use_measured)
        return out

    def basis(self, df: pd.DataFrame) -> np.ndarray:
        """What each row's prediction rests on, for warnings and notebooks (most trusted first):
        ``measured``; ``card measured`` (the workload on this card at another count, or other
        workloads on it); ``architecture measured`` (a sibling card's efficiency, and half the
        siblings' miss in the fit); ``new architecture`` (the calibrated gaps to the measured ones:
        the widest errors in the evaluation); ``no specs`` (a typical card); ``workload unmeasured`` (the measured
        workloads' average level: its ratios across cards mean something, its throughput not);
        ``ineligible`` (predicted 0: the workload failed on a card with as much memory or more)."""
        fz = self._need()
        codes, names = pd.factorize(df["card_type"].astype(str))  # one lookup per distinct name
        dkeys = [self.card_key(c) for c in names]
        per_card = np.array(
            [
                "no specs" if k.startswith("?")
                else "card measured" if k in self._ci or self._fitted_siblings({k})
                else "architecture measured" if arch_vendor(self._card(k), k)[0] in fz.eta_arch
                else "new architecture"
                for k in dkeys
            ],
            dtype=object,
        )  # fmt: skip
        out = per_card[codes]
        wl = df["workload"].astype(str)
        keys = np.asarray(dkeys, dtype=object)[codes]
        cells = list(zip(wl, keys, df["cards"].astype(int), strict=True))
        measured = np.fromiter((c in self.measured for c in cells), bool, len(df))
        out[measured] = "measured"
        out[~wl.isin(self._wi).to_numpy()] = "workload unmeasured"
        if self.memory is not None and self.memory.says_anything:  # 0 from a measured failure, whatever else is known
            out[~measured & np.fromiter((self.memory.ineligible(*c) for c in cells), bool, len(df))] = "ineligible"
        return out

    def speedups(
        self, cards: list[str], workloads: list[str] | None = None, n: int = 1, reference: str | None = None
    ) -> pd.DataFrame:
        """[workloads x cards]: each workload's predicted throughput on ``n`` cards of each type over
        its throughput on ``n`` of ``reference`` (default: the first of ``cards``): how many
        reference cards one card is worth for that job (0: it does not fit). Workloads default to
        the fitted ones. The notebook form of the "equivalent card" table, from measurements."""
        fz = self._need()
        workloads = list(fz.workloads) if workloads is None else list(workloads)
        reference = cards[0] if reference is None else reference
        names = list(dict.fromkeys([*cards, reference]))
        grid = pd.DataFrame(
            {"workload": np.repeat(workloads, len(names)), "card_type": np.tile(names, len(workloads)), "cards": n}
        )
        tp = self.predict(grid).reshape(len(workloads), len(names))
        ref = tp[:, names.index(reference)]
        with np.errstate(divide="ignore", invalid="ignore"):
            rel = np.where(ref[:, None] > 0, tp / ref[:, None], np.nan)
        out = pd.DataFrame(rel[:, [names.index(c) for c in cards]], index=pd.Index(workloads, name="workload"), columns=cards)
        out.columns.name = f"vs {reference} (n={n})"
        return out

    def _predict_keys(self, wl: np.ndarray, keys: list[str], n: np.ndarray, use_measured: bool, scaleout) -> np.ndarray:
        fz = self._need()
        N, K = len(keys), fz.U.shape[1]
        L, mask = self._rows(keys, n)
        lf, lm, lc = L.T[1:4]
        if self.hyper.clip_links and self._lc_max is not None:
            lc = np.where(n <= NODE_CARDS, np.minimum(lc, self._lc_max), lc)
        mc, mm = mask.T
        iw = np.array([self._wi.get(w, -1) for w in wl], dtype=np.int64)
        unseen = set(keys) - set(self._ci)  # once per card, not per row
        sibling = self._fitted_siblings(unseen)
        # a card, or the fitted card of its chip: its efficiency (less their power deficits' gap) and factors
        ic = np.array([self._ci.get(sibling.get(k, k), -1) for k in keys], dtype=np.int64)
        kw, kc = iw >= 0, ic >= 0
        W, C = len(fz.workloads), len(fz.cards)
        a = fz.a[iw] if W else np.zeros(N)
        a = np.where(kw, a, float(np.mean(fz.a)) if W else 0.0)
        th = np.where(kw[:, None], fz.theta[iw] if W else 0.0, fz.theta0[None, :])
        ph = np.where(kw, fz.phi[iw] if W else 0.0, fz.phi0)
        fm = np.where(kw[:, None], fz.formats[iw] if W else 0.0, fz.formats0[None, :])
        lt_ = matrix_logs(fm, L[:, MATRIX_COLUMNS])
        kk = np.where(kw, fz.k[iw] if W else 0.0, fz.k0)
        V = np.where(kw[:, None], fz.V[iw] if W else 0.0, 0.0).reshape(N, K)
        prior = {k: self._eta_prior(k) for k in unseen - set(sibling)}
        deficit = self.resolver.power_deficit
        gap = {k: fz.kappa * (deficit(self._card(k)) - deficit(self._card(s))) for k, s in sibling.items()}
        eta = np.where(
            kc, (fz.eta[ic] if C else 0.0) - np.array([gap.get(k, 0.0) for k in keys]), [prior.get(k, 0.0) for k in keys]
        )
        bias = {k: self._new_arch_bias(k) for k in unseen} if self.arch_bias else {}
        lb = np.array([bias.get(k, 0.0) for k in keys]) if bias else 0.0
        U = np.where(kc[:, None], fz.U[ic] if C else 0.0, 0.0).reshape(N, K)
        sh = softmax(th)
        rr = sigmoid(ph)
        xc = np.exp(rr * lt_ + (1 - rr) * lf - eta * mc)
        tau = sh[:, 0] * xc + sh[:, 1] * np.exp(lm - eta * mm) + sh[:, 2] * self.hyper.host * self._host_rows(keys)
        ps = np.where(kw, fz.psi[iw] if W else 0.0, fz.psi0)
        beta = fz.beta
        if scaleout is not None:
            ps, beta = np.full(N, float(scaleout[0])), float(scaleout[1])
        hn = comm_factor(n) * (1.0 - self._replica_rows(wl, keys))
        ov = np.exp(kk + fz.gamma * lc) * hn + np.exp(ps) * scaleout_shape(n, beta)[0]
        sr = np.where(kw, fz.serial[iw] if len(fz.serial) else 0.0, 0.0)
        serial_slow = np.log1p(sr * (np.minimum(n, NODE_CARDS) - 1))  # the serial fraction, within a node
        if use_measured and self._residuals is not None:  # a card the file lacks, by its measured siblings' misses
            lb = lb + self.hyper.sibling_residual * self._residuals.shift(wl, keys, n, unseen - set(sibling), self._arch_of)
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            out = np.exp(np.log(n) + a - np.log(tau) - np.log1p(ov) - serial_slow + (U * V).sum(axis=1) + lb)
        if use_measured and sibling:
            self._anchor_to_siblings(wl, keys, n, out, sibling, scaleout)
        for i, (w, k, c) in enumerate(zip(wl, keys, n.astype(int), strict=True)):
            if use_measured and (w, k, c) in self.measured:
                out[i] = self.measured[(w, k, c)]
            elif self.memory.ineligible(w, k, c):
                out[i] = 0.0
        out[~np.isfinite(out)] = 0.0
        return out

    def _anchor_to_siblings(self, wl, keys: list[str], n: np.ndarray, out: np.ndarray, sibling: dict, scaleout) -> None:
        """A row on a card whose same-silicon sibling measured the workload at that count: the
        sibling's measurement times the model's ratio of the two (their links, power, memory), as a
        measured row of a card stands for itself."""
        rows = [
            i for i, (w, k, c) in enumerate(zip(wl, keys, n.astype(int), strict=True)) if (w, sibling.get(k), c) in self.measured
        ]
        if not rows:
            return
        sib_keys = [sibling[keys[i]] for i in rows]
        model = self._predict_keys(wl[rows], sib_keys, n[rows], False, scaleout)
        got = np.array([self.measured[(wl[i], s, int(n[i]))] for i, s in zip(rows, sib_keys, strict=True)])
        with np.errstate(divide="ignore", invalid="ignore"):
            out[rows] = np.where(model > 0, out[rows] * got / model, out[rows])
