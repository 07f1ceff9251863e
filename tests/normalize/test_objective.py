"""The fit's objective: its parameter layout, groups, bounds, the shares' empirical-Bayes weights,
and the serial fraction's start; the analytic gradient is checked in test_scaleout.py."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

from fedopt.normalize.model import Hyper, ThroughputModel
from fedopt.normalize.objective import Objective, connected_groups, serial_moments


def test_connected_groups_by_hand():
    # workloads 0 and 1 share card 0; workload 2 ran on card 1 alone; workload 3 on cards 1 and 2
    iw = np.array([0, 1, 1, 2, 3, 3])
    ic = np.array([0, 0, 0, 1, 1, 2])
    G, wg = connected_groups(iw, ic, 4, 3)
    assert G == 2 and list(wg) == [0, 0, 1, 1]


def _fitted(rows, **hyper) -> ThroughputModel:
    data = pd.DataFrame(rows, columns=["workload", "card_type", "cards", "throughput"])
    return ThroughputModel(hyper=Hyper(**hyper)).fit(data)


ROWS = [
    ("a", "H100", 8, 10.0),
    ("a", "A100", 8, 4.0),
    ("b", "H100", 1, 2.0),
    ("b", "L40S", 1, 0.9),
    ("c", "K80", 1, 0.1),  # a group of its own: no card in common with a and b
]


def test_every_block_unpacks_to_its_shape():
    model = _fitted(ROWS)
    f = model._objective
    assert isinstance(f, Objective) and len(f.BLOCKS) == len(f.sizes)
    W, C, K, R, F, G, _, _ = f.dims
    assert (W, C, G) == (3, 4, 2) and f.offs[-1] == len(model._solution)
    blocks = dict(zip(f.BLOCKS, f.unpack(model._solution), strict=True))
    assert blocks["theta"].shape == (W, R) and blocks["U"].shape == (C, K) and blocks["V"].shape == (W, K)
    assert blocks["formats"].shape == (W, F) and blocks["theta_group"].shape == (G, R) and np.ndim(blocks["kappa"]) == 0
    # the fitted model's efficiencies are the eta block
    assert np.array_equal(model.fitted.eta, blocks["eta"])


def test_bounds_keep_fractions_fractions():
    f = _fitted(ROWS)._objective
    bounds = f.bounds()
    W, F = f.dims[0], f.dims[4]
    assert len(bounds) == f.offs[-1] and bounds[f.block("kappa")] == [(0.0, None)]  # kappa >= 0
    assert bounds[f.block("formats")] == [(0.0, 1.0)] * (W * F) and f.block("serial").stop == f.offs[-1]
    assert bounds[f.block("serial")] == [(0.0, 1.0)] * W
    assert bounds[f.block("eta")] == [(None, None)] * f.dims[1]  # the rest are free
    off = _fitted(ROWS, lam_serial=float("inf"))._objective  # no serial term: held at 0
    assert (
        off.bounds()[off.block("serial")] == [(0.0, 0.0)] * W and (off.unpack(off.start(np.random.default_rng(0)))[-1] == 0).all()
    )


def test_shares_weigh_by_how_much_a_groups_workloads_agree():
    # regrouped by hand: workload 0 alone, workloads 1 and 2 together with far-apart shares. A group's
    # spread is its workloads' mean squared distance from their mean shares: 0 alone (the weight's cap,
    # 10), and here (0.225^2 + 0.2^2 + 0.025^2) = 0.09125, weight share_spread / spread = 0.002 / 0.09125
    f = _fitted(ROWS)._objective
    g = Objective(f.h, f.rows, dataclasses.replace(f.pools, wg=np.array([0, 1, 1])))
    x = g.start(np.random.default_rng(0))
    x[g.block("theta")] = np.log([[0.45, 0.45, 0.1], [0.45, 0.45, 0.1], [0.9, 0.05, 0.05]]).ravel()
    g.weigh_shares(x)
    assert g.share_weight[0] == 10.0
    assert g.share_weight[1] == g.share_weight[2] == pytest.approx(0.002 / 0.09125)


def test_serial_moments_read_amdahl_from_a_jobs_own_counts():
    # by hand: job 0 flat (serial 1), job 1 linear (0), job 2 at 1.5x on 2 cards, 2 / (1 + s) = 1.5,
    # s = 1/3: the grid's 0.35; job 3 seen at one count only: 0. Each card against its own smallest
    # count (job 2's second card starts at 2)
    iw = np.array([0, 0, 0, 1, 1, 2, 2, 2, 2, 3])
    ic = np.array([0, 0, 0, 0, 0, 0, 0, 1, 1, 0])
    n = np.array([1, 2, 8, 1, 4, 1, 2, 2, 4, 8])
    tp = np.array([10, 10, 10, 5, 20, 4, 6, 3, 4, 7])  # card 1: 3 -> 4 = 3 (4 / 2) (1 + s) / (1 + 3 s)
    s = serial_moments(iw, ic, n.astype(float), np.log(tp), 4)
    assert s[0] == 1.0 and s[1] == 0.0 and s[2] == pytest.approx(0.35) and s[3] == 0.0
