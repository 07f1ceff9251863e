"""Instances: the model-v1 format, its validation and its array view."""

from fedopt.instance.load import load_instance, load_plan, parse_instance
from fedopt.instance.model import Instance

__all__ = ["Instance", "load_instance", "load_plan", "parse_instance"]
