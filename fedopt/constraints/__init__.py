"""Constraint families, one per module, as small plugins.

Each family offers ``admits(cols)`` (which columns can ever be used alone) and
``rows(cols)`` (its rows of the master problem). The checker never imports these.
"""

from fedopt.constraints.base import RowBlock
from fedopt.constraints.families import FAMILIES

__all__ = ["FAMILIES", "RowBlock"]
