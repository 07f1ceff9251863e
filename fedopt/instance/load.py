"""Loading an instance file: parse, check references, build arrays."""

from __future__ import annotations

import os

from fedopt.instance.io import parse_document, read_bytes
from fedopt.instance.model import Instance, build_instance
from fedopt.instance.schema import InstanceDoc, PlanDoc
from fedopt.instance.validate import validate_references


def parse_instance(data: bytes | str | dict, source: str | None = None) -> Instance:
    """An Instance from JSON text or an already-parsed dict."""
    if isinstance(data, dict):
        import json

        data = json.dumps(data)
    doc = parse_document(data, InstanceDoc, source)
    validate_references(doc, source)
    return build_instance(doc, source)


def load_instance(path: str | os.PathLike) -> Instance:
    """Load and validate ``instance.json``; raises InputError naming the JSON path."""
    return parse_instance(read_bytes(path), str(path))


def load_plan(path: str | os.PathLike) -> PlanDoc:
    """Load ``plan.json`` (spec section 5); raises InputError naming the JSON path."""
    return parse_document(read_bytes(path), PlanDoc, str(path))
