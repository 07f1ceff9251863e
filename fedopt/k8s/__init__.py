"""Kubernetes in: clusters, pools and running jobs from ``kubectl get nodes/pods -o json`` dumps.

>>> from fedopt.k8s import ClusterDump, import_fleet, load_config
>>> result = import_fleet([ClusterDump("gpu-sh", Path("sh-nodes.json"), Path("sh-pods.json"))], load_config("fleet.yaml"))
>>> result.doc  # a model-v1 instance document; fedopt.parse_instance(result.doc) loads it
"""

from fedopt.k8s.config import FleetConfig, load_config, parse_config
from fedopt.k8s.importer import ClusterDump, ImportResult, import_fleet, parse_cluster_arg
from fedopt.k8s.products import match_product, product_of_node

__all__ = [
    "ClusterDump",
    "FleetConfig",
    "ImportResult",
    "import_fleet",
    "load_config",
    "match_product",
    "parse_cluster_arg",
    "parse_config",
    "product_of_node",
]
