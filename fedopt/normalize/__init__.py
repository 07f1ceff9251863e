"""Multi-card compute normalization: a job's rate on every card type, in reference-card units.

- ``roofline``: the profile-only model (``profile_rate``; ``calibrated`` opts into calibrated
  per-card efficiencies);
- ``model.ThroughputModel``: throughput on any card from its specs and the job's measurements
  on other cards (``speedups``: a workload x card table against a reference card);
  ``evaluate``: leave-one-card-out against spec-ratio baselines; ``plots``: its figure;
- ``table.rate_table``: an instance's job (class) x card type rate table; ``table.fill_rates``: an
  instance's JSON with that table's rates written into each job's ``throughput``, for ``solve``;
- ``catalog``, ``cards``: the accelerator catalog and card names matched to it; ``catalog_view``:
  both as pandas frames (``catalog_frame``, ``resolution_frame``: what each name resolves to, how).

docs/normalize.md describes the model, the profile fields and the evaluation.
"""

from fedopt.normalize.roofline import CardSpec, profile_rate


def __getattr__(name: str):
    # heavier parts load on first use (the instance loader imports this package for profile_rate)
    if name in ("rate_table", "fill_rates"):
        from fedopt.normalize import table

        return getattr(table, name)
    if name in ("catalog_frame", "resolution_frame"):
        from fedopt.normalize import catalog_view

        return getattr(catalog_view, name)
    if name == "ThroughputModel":
        from fedopt.normalize.model import ThroughputModel

        return ThroughputModel
    raise AttributeError(name)


__all__ = ["CardSpec", "ThroughputModel", "catalog_frame", "fill_rates", "profile_rate", "rate_table", "resolution_frame"]
