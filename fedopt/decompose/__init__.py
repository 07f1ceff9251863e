"""Decomposition methods for large instances: column generation, POP partitioning."""
