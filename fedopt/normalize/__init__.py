"""Multi-card compute normalization: a job's rate on every card type, in reference-card units."""

from fedopt.normalize.roofline import CardSpec, profile_rate

__all__ = ["CardSpec", "profile_rate"]
