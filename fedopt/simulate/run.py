"""One simulated run from a configuration: trace, fleet, stream, policy, loop, report."""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass

import numpy as np

from fedopt.errors import InputError
from fedopt.instance import parse_instance
from fedopt.simulate.engine import Simulation
from fedopt.simulate.fleet import fleet_document, map_jobs
from fedopt.simulate.policies import POLICIES, make_policy
from fedopt.simulate.report import summarize
from fedopt.simulate.trace import arrival_stream, load_trace


@dataclass(frozen=True)
class SimConfig:
    trace: str = "philly"
    fleet: str = "s"
    policy: str = "fedopt"
    interval_minutes: float = 5.0
    days: float = 1.0
    seed: int = 0
    load: float = 0.7  # card-hours the window's jobs ask (on the trace's cards) / fleet card-hours over the window
    drain_days: float | None = 30.0  # keep going after the last arrival until every job ends, at most this long
    max_moves: int | None = None
    move_candidates: int | None = None
    max_pending: int | None = None
    replan_time_limit: float = 3.0
    method: str = "auto"
    weighting: str = "srpt"
    check: bool = False  # check the whole fleet's plan at every re-plan (slow: tests)

    def validate(self) -> None:
        if self.policy not in POLICIES:
            raise InputError("--policy", f"unknown policy {self.policy!r}; choose from {', '.join(POLICIES)}")
        if not self.interval_minutes > 0:
            raise InputError("--interval", f"must be positive, got {self.interval_minutes:g} minutes")
        if not self.days > 0:
            raise InputError("--days", f"must be positive, got {self.days:g}")
        if not self.load > 0:
            raise InputError("--load", f"must be positive, got {self.load:g}")
        if self.max_moves is not None and self.max_moves < 0:
            raise InputError("--max-moves", f"must be >= 0, got {self.max_moves}")
        if self.max_pending is not None and self.max_pending < 1:
            raise InputError("--max-pending", f"must be >= 1, got {self.max_pending}")
        if not self.replan_time_limit > 0:
            raise InputError("--replan-time-limit", f"must be positive, got {self.replan_time_limit:g}")
        if self.drain_days is not None and self.drain_days < 0:
            raise InputError("--drain-days", f"must be >= 0, got {self.drain_days:g}")
        if self.weighting not in ("srpt", "throughput"):
            raise InputError("--weighting", f"choose srpt or throughput, got {self.weighting!r}")


@dataclass
class Setup:
    """What every policy of one comparison shares: the fleet and the mapped job stream."""

    fleet_doc: dict
    fleet_inst: object
    jobs: list
    stream: object
    trace_jobs: int


def prepare(cfg: SimConfig) -> Setup:
    """The fleet and the job stream of a configuration (the same for every policy)."""
    cfg.validate()
    fleet_doc = fleet_document(cfg.fleet, cfg.seed)
    trace = load_trace(cfg.trace)
    fleet_inst = parse_instance(fleet_doc, source=None)
    rng = np.random.default_rng([cfg.seed, 1])
    stream = arrival_stream(trace, cfg.days, int(fleet_inst.pool_cards.sum()), cfg.load, rng)
    jobs = map_jobs(fleet_inst, stream.arrival_h, stream.duration_h, stream.cards, np.random.default_rng([cfg.seed, 2]))
    return Setup(fleet_doc, fleet_inst, jobs, stream, len(trace))


def simulate(cfg: SimConfig, setup: Setup | None = None, progress=None) -> tuple[dict, Simulation]:
    """Run one policy; the report (a JSON-ready dict) and the finished simulation."""
    cfg.validate()
    setup = setup or prepare(cfg)
    policy = make_policy(
        cfg.policy,
        seed=cfg.seed,
        method=cfg.method,
        time_limit=cfg.replan_time_limit,
        max_pending=cfg.max_pending,
        max_moves=cfg.max_moves,
        move_candidates=cfg.move_candidates,
        weighting=cfg.weighting,
    )
    interval = cfg.interval_minutes / 60.0
    end = cfg.days * 24.0 + (1e9 if cfg.drain_days is None else cfg.drain_days * 24.0)
    sim = Simulation(
        setup.fleet_inst,
        setup.jobs,
        policy,
        interval_h=interval,
        arrival_hours=cfg.days * 24.0,
        end_hours=end,
        check=cfg.check,
        progress=progress,
        fleet_doc=setup.fleet_doc,
    )
    t0 = time.perf_counter()
    sim.run()
    wall = time.perf_counter() - t0
    report = summarize(sim, asdict(cfg), setup.stream, wall)
    return report, sim
