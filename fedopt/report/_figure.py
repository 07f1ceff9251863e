"""Figures drawn without pyplot: an Agg canvas each, nothing global, safe in servers and notebooks."""

from __future__ import annotations

import base64
import io

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure


def new_figure(width: float, height: float) -> Figure:
    fig = Figure(figsize=(max(width, 3.0), max(height, 2.0)), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def png_bytes(fig: Figure, dpi: int = 100) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    return buf.getvalue()


def png_data_uri(fig: Figure, dpi: int = 100) -> str:
    return "data:image/png;base64," + base64.b64encode(png_bytes(fig, dpi)).decode("ascii")
