"""Constraint families, one per module, as small plugins.

Each family offers ``row_set(inst)`` (its rows, once per instance), ``matrix(cols, rows)`` (the
coefficients of any batch of columns) and ``admits(cols)`` (which columns can ever be used
alone). The checker never imports these.
"""

from fedopt.constraints.base import RowSet
from fedopt.constraints.families import FAMILIES

__all__ = ["FAMILIES", "RowSet"]
