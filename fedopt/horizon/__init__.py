"""Horizon scheduling (spec section 4): placements with start slots over a time grid."""
