"""The fit's loss and gradient: every measured row's soft-L1 misfit in log throughput plus the
shrinkage priors of ``model.Hyper``, as one function of a flat parameter vector for L-BFGS-B
(``model.py``'s docstring has the time model). Analytic gradients over numpy arrays: a fit of
18,000 rows evaluates in ~11 ms (docs/normalize.md, *Command*)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from fedopt.normalize.capacity import FORMATS, RESOURCES, matrix_logs, scaleout_shape
from fedopt.normalize.cards import NODE_CARDS

if TYPE_CHECKING:
    from fedopt.normalize.model import Hyper


def softmax(t: np.ndarray) -> np.ndarray:
    z = np.exp(t - t.max(axis=-1, keepdims=True))
    return z / z.sum(axis=-1, keepdims=True)


def sigmoid(t: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * t))


SERIAL_GRID = np.linspace(0.0, 1.0, 21)


def serial_moments(iw: np.ndarray, ic: np.ndarray, n: np.ndarray, y: np.ndarray, W: int) -> np.ndarray:
    """Each workload's serial fraction as its own rows alone put it [W]: on every card measured at
    several counts within a node, the Amdahl law's ratios to the smallest count against the
    measured log ratios, least squares over a grid of [0, 1]; 0 for a workload with no such card.
    Only the fit's start: the fit then weighs it against the overhead and the prior."""
    rows = pd.DataFrame({"w": iw, "c": ic, "n": n, "y": y})
    rows["n0"] = rows.groupby(["w", "c"])["n"].transform("min")
    base = rows[rows["n"] == rows["n0"]].groupby(["w", "c"])["y"].mean().rename("y0")
    rows = rows.join(base, on=["w", "c"])
    rows = rows[rows["n"] > rows["n0"]]
    out = np.zeros(W)
    if rows.empty:
        return out
    nn, n0 = rows["n"].to_numpy()[:, None], rows["n0"].to_numpy()[:, None]
    law = np.log(nn / n0) + np.log1p(SERIAL_GRID * (n0 - 1)) - np.log1p(SERIAL_GRID * (nn - 1))
    sq = (law - (rows["y"] - rows["y0"]).to_numpy()[:, None]) ** 2
    w = rows["w"].to_numpy()
    cost = np.stack([np.bincount(w, sq[:, j], W) for j in range(len(SERIAL_GRID))], axis=1)
    seen = np.bincount(w, None, W) > 0
    out[seen] = SERIAL_GRID[cost[seen].argmin(axis=1)]
    return out


def connected_groups(iw: np.ndarray, ic: np.ndarray, W: int, C: int) -> tuple[int, np.ndarray]:
    """(G, workload -> group [W]): the connected components of the workload-card graph. Workloads
    that share no card share only the global priors; within a group shares, tensor fraction and
    overhead pool."""
    parent = list(range(W + C))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for w, c in set(zip(iw.tolist(), ic.tolist(), strict=True)):
        parent[root(w)] = root(W + c)
    comp_ids = sorted({root(w) for w in range(W)})
    G = len(comp_ids)
    wg = np.array([comp_ids.index(root(w)) for w in range(W)], dtype=np.int64)
    return G, wg


@dataclass(frozen=True)
class Rows:
    """The measured rows (positive throughputs) as the time model reads them; one entry per row."""

    iw: np.ndarray  # workload index
    ic: np.ndarray  # card index
    y: np.ndarray  # log throughput
    n: np.ndarray  # card count
    LF: np.ndarray  # [N, 4] log inverse matrix capacities at TF32, BF16, 8 and 4 bits (capacity.MATRIX_COLUMNS)
    lf: np.ndarray  # log inverse FP32 vector capacity
    lm: np.ndarray  # log inverse memory bandwidth
    lc: np.ndarray  # log inverse collective bandwidth at the row's count
    mc: np.ndarray  # 1 where the card's efficiency scales its compute time (every row: model._rows)
    mm: np.ndarray  # 1 where it scales memory time too (a card without specs, or Hyper.eff_all)
    hx: np.ndarray  # the host time's multiple: Hyper.host, over its share on a MIG slice
    hn: np.ndarray  # ring all-reduce traffic factor, 0 for replicas


@dataclass(frozen=True)
class Pools:
    """Who pools with whom: each workload's group, each card's architecture and its vendor, and
    each card's prior centre (calibrated offset, power deficit, and the architecture's miss)."""

    wg: np.ndarray  # workload -> group (connected_groups)
    groups: int
    c_arch: np.ndarray  # card -> architecture
    a_vend: np.ndarray  # architecture -> vendor
    vendors: int
    arch_off: np.ndarray  # architecture's calibrated miss, moving its efficiency centre
    lam_eta: np.ndarray  # per card: strength toward its architecture (weak for a card without specs)
    prior_off: np.ndarray  # per card: calibrated offset from its architecture
    deficit: np.ndarray  # per card: power deficit (cards.CardResolver.power_deficit)
    tensor_w: np.ndarray  # per workload: measured on a card with matrix units (evidence for rho)
    phi_off: np.ndarray  # per workload: 0, or model.NO_TENSOR where there is no such evidence
    # pairs of cards of one die at one power (cards.same_die), [P, 2]: their offsets from their
    # prior centres are tied (Hyper.lam_die)
    die_pairs: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), dtype=np.int64))


class Objective:
    """``f(p) -> (loss, gradient)`` over the flat parameter vector; ``unpack`` names its blocks."""

    BLOCKS = (
        "a", "theta", "theta0", "phi", "phi0", "eta", "eta_arch", "eta_vendor", "mu", "k", "k0", "gamma", "U", "V",
        "theta_group", "phi_group", "k_group", "psi", "psi0", "beta", "psi_group", "kappa", "formats", "serial",
    )  # fmt: skip

    def __init__(self, hyper: Hyper, rows: Rows, pools: Pools):
        h = self.h = hyper
        self.rows, self.pools = rows, pools
        W, C, G = len(pools.tensor_w), len(pools.c_arch), pools.groups
        A, Vn = len(pools.a_vend), pools.vendors
        K, R = h.rank, len(RESOURCES)
        F = len(FORMATS) - 1  # (share at 16 bits or fewer, at 8 bits or fewer, at 4 bits)
        self.dims = (W, C, K, R, F, G, A, Vn)
        self.sizes = [W, W * R, R, W, 1, C, A, Vn, 1, W, 1, 1, C * K, W * K, G * R, G, G, W, 1, 1, G, 1, W * F, W]
        self.offs = np.cumsum([0, *self.sizes])
        self.theta_prior = np.log(np.asarray(h.share_prior, dtype=float))
        self.phi_prior = float(np.log(h.rho_prior / (1 - h.rho_prior)))
        self.fmt_prior = np.cumsum(h.format_prior[::-1])[::-1][1:]  # (1 - tf32, fp8 + fp4, fp4)
        self.lam_fmt = np.array([h.lam_tf32, h.lam_format, h.lam_format])
        self.serial_on = bool(np.isfinite(h.lam_serial))
        self.logn = np.log(rows.n)
        # past one node the scale-out slowdown (psi, beta) says how a job slows, shared across
        # workloads; a serial fraction read from those rows would not carry to another job
        self.n_node = np.minimum(rows.n, NODE_CARDS)
        self.share_weight = np.ones(W)  # each workload's shrinkage of its shares (weigh_shares)

    def unpack(self, p: np.ndarray) -> tuple:
        """The blocks of ``p`` in ``BLOCKS`` order, shaped ([W, R] shares, [C, K] and [W, K] factors ...)."""
        W, C, K, R, F, G, _, _ = self.dims
        offs, sizes = self.offs, self.sizes
        a, th, th0, ph, ph0, eta, ea, ev, mu, k, k0, gam, U, V, thg, phg, kg, ps, ps0, bet, psg, kap, fm, sr = (
            p[offs[i] : offs[i + 1]] for i in range(len(sizes))
        )
        return (
            a, th.reshape(W, R), th0, ph, ph0[0], eta, ea, ev, mu[0], k, k0[0], gam[0], U.reshape(C, K), V.reshape(W, K),
            thg.reshape(G, R), phg, kg, ps, ps0[0], bet[0], psg, kap[0], fm.reshape(W, F), sr,
        )  # fmt: skip

    def __call__(self, p: np.ndarray) -> tuple[float, np.ndarray]:
        h, r, q = self.h, self.rows, self.pools
        iw, ic, y, n, LF, lf, lm, lc, mc, mm, hx, hn = (r.iw, r.ic, r.y, r.n, r.LF, r.lf, r.lm, r.lc, r.mc, r.mm, r.hx, r.hn)
        wg, c_arch, a_vend, arch_off, lam_eta = q.wg, q.c_arch, q.a_vend, q.arch_off, q.lam_eta
        prior_off, deficit, tensor_w, phi_off = q.prior_off, q.deficit, q.tensor_w, q.phi_off
        W, C, K, R, F, G, A, Vn = self.dims
        theta_prior, phi_prior, fmt_prior, lam_fmt = self.theta_prior, self.phi_prior, self.fmt_prior, self.lam_fmt
        logn, n_node, serial_on, shrink_w = self.logn, self.n_node, self.serial_on, self.share_weight
        s = h.robust_scale
        unpack = self.unpack
        a, th, th0, ph, ph0, eta, ea, ev, mu, k, k0, gam, U, V, thg, phg, kg, ps, ps0, bet, psg, kap, fm, sr = unpack(p)
        sw = softmax(th)
        sh = sw[iw]
        rho = sigmoid(ph + phi_off)
        rr = rho[iw]
        lt_ = matrix_logs(fm[iw], LF)
        e = eta[ic]
        xc = np.exp(rr * lt_ + (1 - rr) * lf - e * mc)
        xm = np.exp(lm - e * mm)
        sx = sh * np.stack([xc, xm, hx], axis=1)
        tau = sx.sum(axis=1)
        ovc = np.exp(k[iw] + gam * lc) * hn
        pw, dpw = scaleout_shape(n, bet)
        ovs = np.exp(ps[iw]) * pw
        ov = ovc + ovs
        amd = 1.0 + sr[iw] * (n_node - 1)  # Amdahl within a node: the serial fraction of one card's time stays
        pred = logn + a[iw] - np.log(tau) - np.log1p(ov) - np.log(amd) + (U[ic] * V[iw]).sum(axis=1)
        r = pred - y
        q = np.sqrt(1.0 + (r / s) ** 2)
        loss = 2 * s * s * (q - 1).sum()
        g = 2 * r / q  # d loss / d pred
        ga = np.bincount(iw, g, W)
        dth = g[:, None] * (sh - sx / tau[:, None])  # d pred / d theta_k = s_k (1 - x_k / tau)
        gth = np.stack([np.bincount(iw, dth[:, j], W) for j in range(R)], axis=1)
        gph = np.bincount(iw, -g * sx[:, 0] * (lt_ - lf) / tau, W) * rho * (1 - rho)
        dfm = (-g * sx[:, 0] * rr / tau)[:, None] * np.diff(LF, axis=1)
        gfm = np.stack([np.bincount(iw, dfm[:, j], W) for j in range(F)], axis=1)
        # format shares toward the prior itself, not a group's: a format is a job's own recipe
        d = fm - fmt_prior
        loss += (lam_fmt * d**2).sum()
        gfm += 2 * lam_fmt * d
        geta = np.bincount(ic, g * (sx[:, 0] * mc + sx[:, 1] * mm) / tau, C)
        dov = -g / (1 + ov)
        gk = np.bincount(iw, dov * ovc, W)
        ggam = (dov * ovc * lc).sum()
        gps = np.bincount(iw, dov * ovs, W)
        gbet = (dov * np.exp(ps[iw]) * dpw).sum()
        if serial_on:  # the double well 16 s^2 (1 - s)^2: 0 at both ends, 1 at s = 1/2
            well = sr * (1.0 - sr)
            gsr = np.bincount(iw, -g * (n_node - 1) / amd, W) + 32 * h.lam_serial * well * (1.0 - 2.0 * sr)
            loss += 16 * h.lam_serial * (well**2).sum()
        else:  # held at 0: a gradient there would still enter L-BFGS's curvature pairs
            gsr = np.zeros(W)
        gU = np.zeros((C, K))
        gV = np.zeros((W, K))
        for j in range(K):
            gU[:, j] = np.bincount(ic, g * V[iw, j], C)
            gV[:, j] = np.bincount(iw, g * U[ic, j], W)
        # shares: logits toward their component's, shares toward softmax of it; components toward
        # the global theta_0, theta_0 weakly toward the prior
        tg = thg[wg]
        d = th - tg
        lt = h.lam_theta * shrink_w[:, None]
        loss += (lt * d**2).sum()
        gth += 2 * lt * d
        gthg = -2 * np.stack([np.bincount(wg, lt[:, 0] * d[:, j], G) for j in range(R)], axis=1)
        s0 = softmax(tg)
        ds = sw - s0
        ls = h.lam_share * shrink_w[:, None]
        loss += (ls * ds**2).sum()
        gth += 2 * ls * sw * (ds - (ds * sw).sum(axis=1, keepdims=True))
        gs0 = -2 * ls * s0 * (ds - (ds * s0).sum(axis=1, keepdims=True))
        gthg += np.stack([np.bincount(wg, gs0[:, j], G) for j in range(R)], axis=1)
        d = thg - th0
        loss += h.lam_group * (d**2).sum() + h.lam_theta0 * ((th0 - theta_prior) ** 2).sum()
        gthg += 2 * h.lam_group * d
        gth0 = -2 * h.lam_group * d.sum(axis=0) + 2 * h.lam_theta0 * (th0 - theta_prior)
        # tensor fraction (only where there is evidence)
        d = (ph - phg[wg]) * tensor_w
        loss += h.lam_rho * (d**2).sum()
        gph += 2 * h.lam_rho * d
        gphg = -2 * h.lam_rho * np.bincount(wg, d, G)
        d = phg - ph0
        loss += h.lam_group * (d**2).sum() + 0.01 * (ph0 - phi_prior) ** 2
        gphg += 2 * h.lam_group * d
        gph0 = -2 * h.lam_group * d.sum() + 0.02 * (ph0 - phi_prior)
        # efficiency hierarchy; a power-limited card's centre is lowered by kappa times its deficit,
        # an architecture's by its calibrated miss (arch_off)
        de = eta - ea[c_arch] - prior_off + kap * deficit
        dea = ea - ev[a_vend] - arch_off
        dev = ev - mu
        loss += (lam_eta * de**2).sum() + h.lam_arch * (dea**2).sum() + h.lam_vendor * (dev**2).sum() + h.lam_mu * mu * mu
        geta += 2 * lam_eta * de
        gea = -2 * np.bincount(c_arch, lam_eta * de, A) + 2 * h.lam_arch * dea
        gev = -2 * h.lam_arch * np.bincount(a_vend, dea, Vn) + 2 * h.lam_vendor * dev
        gmu = -2 * h.lam_vendor * dev.sum() + 2 * h.lam_mu * mu
        loss += h.lam_kappa * (kap - h.kappa_prior) ** 2
        gkap = 2 * (lam_eta * de * deficit).sum() + 2 * h.lam_kappa * (kap - h.kappa_prior)
        if len(self.pools.die_pairs) and h.lam_die > 0:  # one die's cards: one offset from their centres
            pi, pj = self.pools.die_pairs.T
            dd = de[pi] - de[pj]
            loss += h.lam_die * (dd**2).sum()
            # no architecture gradient: one die is one architecture, so its centre cancels in dd
            geta += 2 * h.lam_die * (np.bincount(pi, dd, C) - np.bincount(pj, dd, C))
            gkap += 2 * h.lam_die * (dd * (deficit[pi] - deficit[pj])).sum()
        # all-reduce overhead
        d = k - kg[wg]
        loss += h.lam_k * (d**2).sum() + h.lam_gamma * (gam - h.gamma_prior) ** 2
        gk += 2 * h.lam_k * d
        gkg = -2 * h.lam_k * np.bincount(wg, d, G)
        d = kg - k0
        loss += h.lam_group * (d**2).sum() + 0.01 * (k0 - h.k_prior) ** 2
        gkg += 2 * h.lam_group * d
        gk0 = -2 * h.lam_group * d.sum() + 0.02 * (k0 - h.k_prior)
        ggam += 2 * h.lam_gamma * (gam - h.gamma_prior)
        # scale-out slowdown: workload toward its group's, groups toward the common one, that
        # and the exponent toward the priors (from MLPerf's multi-node systems)
        d = ps - psg[wg]
        loss += h.lam_psi * (d**2).sum()
        gps += 2 * h.lam_psi * d
        gpsg = -2 * h.lam_psi * np.bincount(wg, d, G)
        d = psg - ps0
        loss += h.lam_group * (d**2).sum() + 0.01 * (ps0 - h.psi_prior) ** 2 + h.lam_beta * (bet - h.beta_prior) ** 2
        gpsg += 2 * h.lam_group * d
        gps0 = -2 * h.lam_group * d.sum() + 0.02 * (ps0 - h.psi_prior)
        gbet += 2 * h.lam_beta * (bet - h.beta_prior)
        # low rank
        loss += h.lam_uv * ((U**2).sum() + (V**2).sum())
        gU += 2 * h.lam_uv * U
        gV += 2 * h.lam_uv * V
        parts = [ga, gth.ravel(), gth0, gph, [gph0], geta, gea, gev, [gmu], gk, [gk0], [ggam], gU.ravel(), gV.ravel()]
        grad = np.concatenate([*parts, gthg.ravel(), gphg, gkg, gps, [gps0], [gbet], gpsg, [gkap], gfm.ravel(), gsr])
        return loss, grad

    def start(self, rng: np.random.Generator) -> np.ndarray:
        """The first point: every block at its prior, each workload's scale from its rows at that
        point, the low-rank factors small and random."""
        h, r, q = self.h, self.rows, self.pools
        iw, ic, y, n, LF, lf, lm, lc, hx, hn = r.iw, r.ic, r.y, r.n, r.LF, r.lf, r.lm, r.lc, r.hx, r.hn
        prior_off, deficit, phi_off = q.prior_off, q.deficit, q.phi_off
        W, C, K, _, _, G, A, Vn = self.dims
        theta_prior, phi_prior, fmt_prior = self.theta_prior, self.phi_prior, self.fmt_prior
        logn, n_node, serial_on = self.logn, self.n_node, self.serial_on
        s_init = softmax(theta_prior)
        rr = sigmoid(phi_prior + phi_off)[iw]
        tau0 = s_init[0] * np.exp(rr * matrix_logs(fmt_prior, LF) + (1 - rr) * lf) + s_init[1] * np.exp(lm) + s_init[2] * hx
        ov0 = np.exp(h.k_prior + h.gamma_prior * lc) * hn + np.exp(h.psi_prior) * scaleout_shape(n, h.beta_prior)[0]
        resid0 = y - logn + np.log(tau0) + np.log1p(ov0)
        a_init = np.bincount(iw, resid0, W) / np.maximum(np.bincount(iw, None, W), 1)
        # the serial fraction starts where the job's own rows at several counts put it (a start in
        # the right well: from 1/2 the first steps could settle a job that does not speed up at 0
        # with a large overhead instead); elsewhere at 0
        serial_start = serial_moments(iw, ic, n_node, y, W) if serial_on else np.zeros(W)
        p0 = np.concatenate(
            [
                a_init,
                np.tile(theta_prior, W),
                theta_prior,
                np.full(W, phi_prior),
                [phi_prior],
                prior_off - h.kappa_prior * deficit,
                np.zeros(A),
                np.zeros(Vn),
                [0.0],
                np.full(W, h.k_prior),
                [h.k_prior],
                [h.gamma_prior],
                0.01 * rng.standard_normal(C * K),
                0.01 * rng.standard_normal(W * K),
                np.tile(theta_prior, G),
                np.full(G, phi_prior),
                np.full(G, h.k_prior),
                np.full(W, h.psi_prior),
                [h.psi_prior],
                [h.beta_prior],
                np.full(G, h.psi_prior),
                [h.kappa_prior],
                np.tile(fmt_prior, W),
                serial_start,
            ]
        )
        return p0

    def block(self, name: str) -> slice:
        """Where a block of ``BLOCKS`` sits in the flat parameter vector."""
        i = self.BLOCKS.index(name)
        return slice(int(self.offs[i]), int(self.offs[i + 1]))

    def bounds(self) -> list[tuple[float | None, float | None]]:
        """Box bounds of L-BFGS-B: kappa >= 0, format shares and serial fractions in [0, 1]."""
        bounds: list[tuple[float | None, float | None]] = [(None, None)] * int(self.offs[-1])
        serial_max = 1.0 if self.serial_on else 0.0  # lam_serial = inf: no serial term
        for name, (lo, hi) in {"kappa": (0.0, None), "formats": (0.0, 1.0), "serial": (0.0, serial_max)}.items():
            s = self.block(name)  # kappa: power never speeds a card up; shares and fractions in [0, 1]
            bounds[s] = [(lo, hi)] * (s.stop - s.start)
        return bounds

    def weigh_shares(self, x: np.ndarray) -> None:
        """Empirical Bayes: shrink each group's shares as much as its workloads agree at ``x`` (a
        first fit). Groups of similar workloads (Gavel's) keep a strong prior, groups of different
        ones (a pre-training and a decoding job) a weak one."""
        h, wg, G = self.h, self.pools.wg, self.pools.groups
        sw = softmax(self.unpack(x)[1])
        spread = np.array([((sw[wg == g] - sw[wg == g].mean(axis=0)) ** 2).sum(axis=1).mean() for g in range(G)])
        self.share_weight = np.clip(h.share_spread / np.maximum(spread, 1e-9), h.shrink_min, 10.0)[wg]
