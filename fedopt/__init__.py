"""fedopt: optimal placement of AI jobs on federations of heterogeneous GPU/NPU clusters.

>>> import fedopt
>>> inst = fedopt.load_instance("instances/tiny/capacity.json")
>>> result = fedopt.solve(inst)
>>> result.summary(); result.to_frame(); result.to_json()
"""

from fedopt.check import CheckResult, check_plan
from fedopt.errors import FedoptError, InfeasibleError, InputError, TooLargeError
from fedopt.instance import Instance, load_instance, parse_instance
from fedopt.plan import Result
from fedopt.solve import solve

__version__ = "0.1.0"

__all__ = [
    "CheckResult",
    "FedoptError",
    "InfeasibleError",
    "InputError",
    "Instance",
    "Result",
    "TooLargeError",
    "check_plan",
    "load_instance",
    "parse_instance",
    "solve",
]
