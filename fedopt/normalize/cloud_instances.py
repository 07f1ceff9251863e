"""Cloud instance and machine types (``p4d.24xlarge``, ``a3-highgpu-8g``) read as the card they carry,
from ``models/cloud_instances.csv``."""

from __future__ import annotations

import csv
import functools
import re
from typing import NamedTuple

from fedopt.normalize.catalog import MODELS_DIR


class CloudInstance(NamedTuple):
    card: str  # catalog id
    provider: str  # aws, gcp, azure
    source: str  # the provider's page that says which card the type carries


@functools.cache
def _cloud_instances() -> tuple[tuple[re.Pattern, CloudInstance], ...]:
    """Each cloud instance type's pattern and card, from ``models/cloud_instances.csv``."""
    with open(MODELS_DIR / "cloud_instances.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    return tuple((re.compile(r["instance"]), CloudInstance(r["card"], r["provider"], r["source"])) for r in rows)


def cloud_instance(name: str) -> CloudInstance | None:
    """The card of a cloud instance or machine type (``p4d.24xlarge``, ``a3-highgpu-8g``,
    ``Standard_ND96isr_H100_v5``, ``v5litepod-8``): what cloud benchmarks and node labels name
    instead of the card; read as a card name, ``a2-highgpu-1g`` (eight A100s) would be an NVIDIA A2."""
    s = re.sub(r"^(?:standard_|ml\.)", "", name.strip().lower())  # Azure's size prefix, SageMaker's instance prefix
    return next((hit for rx, hit in _cloud_instances() if rx.fullmatch(s)), None)
