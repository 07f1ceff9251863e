"""One Kubernetes object to write, where it goes (control plane or a member cluster) and in what order."""

from __future__ import annotations

from dataclasses import dataclass

import yaml


@dataclass
class Manifest:
    obj: dict
    target: str = ""  # "" = the control plane (Karmada) or manager (MultiKueue); else a member cluster id
    order: int = 30  # files sort by it: flavors and queues before the objects that use them

    @property
    def kind(self) -> str:
        return self.obj["kind"]

    @property
    def name(self) -> str:
        return self.obj["metadata"]["name"]

    @property
    def namespace(self) -> str | None:
        return self.obj["metadata"].get("namespace")

    def filename(self) -> str:
        ns = f"{self.namespace}-" if self.namespace else ""
        name = f"{self.order:02d}-{self.kind.lower()}-{ns}{self.name}.yaml"
        return f"{self.target}/{name}" if self.target else name

    def to_yaml(self) -> str:
        return yaml.safe_dump(self.obj, sort_keys=False, default_flow_style=False, allow_unicode=True)


def dump_all(manifests: list[Manifest]) -> str:
    """Every manifest in one multi-document YAML stream."""
    return "".join(f"---\n{m.to_yaml()}" for m in manifests)
