"""Charts of chunk sizes (plotly, imported lazily): a histogram and sizes along the document.

Figures are built from NumPy arrays and plain layout dicts (the limit line is a layout shape,
not ``add_hline``): plotly validates lists element by element, which costs tens of
milliseconds per rerun for a thousand chunks.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ui.safe import plot_text

LIMIT_COLOUR = "#d62728"
BAR_COLOUR = "#4c78a8"
FLAG_COLOUR = "#f58518"
_MARGIN = {"l": 50, "r": 20, "t": 50, "b": 45}


def _limit_line(limit: int, *, axis: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """A dashed line at ``limit`` across the plot, and its label."""
    if axis == "x":
        shape = {"type": "line", "xref": "x", "yref": "paper", "x0": limit, "x1": limit}
        shape |= {"y0": 0, "y1": 1}
        note = {"x": limit, "y": 1, "xref": "x", "yref": "paper", "xanchor": "left"}
    else:
        shape = {"type": "line", "xref": "paper", "yref": "y", "x0": 0, "x1": 1}
        shape |= {"y0": limit, "y1": limit}
        note = {"x": 0, "y": limit, "xref": "paper", "yref": "y", "xanchor": "left"}
    shape["line"] = {"color": LIMIT_COLOUR, "dash": "dash", "width": 2}
    shape["layer"] = "above"
    note |= {"text": f"limit {limit}", "showarrow": False, "yanchor": "bottom"}
    note["font"] = {"color": LIMIT_COLOUR}
    return shape, note


def size_histogram(sizes: Sequence[int], *, limit: int, unit: str) -> Any:
    """How chunk sizes are spread, with the size limit as a dashed line."""
    import numpy as np
    import plotly.graph_objects as go

    unit = plot_text(unit, lines=1)
    shape, note = _limit_line(limit, axis="x")
    right = max(limit, max(sizes, default=0)) * 1.08  # room to the right of the limit line
    return go.Figure(
        data=[go.Histogram(x=np.asarray(sizes), marker={"color": BAR_COLOUR}, name="chunks")],
        layout={
            "title": {"text": "Chunk sizes"},
            "xaxis": {"title": {"text": f"size ({unit})"}, "range": [0, right]},
            "yaxis": {"title": {"text": "chunks"}},
            "bargap": 0.05,
            "height": 320,
            "margin": _MARGIN,
            "showlegend": False,
            "shapes": [shape],
            "annotations": [note],
        },
    )


def size_along(sizes: Sequence[int], *, limit: int, unit: str, flagged: Sequence[int] = ()) -> Any:
    """Each chunk's size by its position in the document; flagged chunks in orange."""
    import numpy as np
    import plotly.graph_objects as go

    unit = plot_text(unit, lines=1)
    ys = np.asarray(sizes)
    xs = np.arange(len(ys))
    marked = np.zeros(len(ys), dtype=bool)
    marked[np.asarray(flagged, dtype=int)] = True
    hover = "chunk %{x}<br>size %{y}<extra></extra>"
    shape, note = _limit_line(limit, axis="y")
    return go.Figure(
        data=[
            go.Scatter(
                x=xs, y=ys, mode="lines", line={"color": "#9ecae9", "width": 1}, hoverinfo="skip"
            ),
            go.Scatter(
                x=xs[~marked],
                y=ys[~marked],
                mode="markers",
                marker={"color": BAR_COLOUR, "size": 7},
                name="chunk",
                hovertemplate=hover,
            ),
            go.Scatter(
                x=xs[marked],
                y=ys[marked],
                mode="markers",
                marker={"color": FLAG_COLOUR, "size": 8},
                name="flagged",
                hovertemplate=hover,
            ),
        ],
        layout={
            "title": {"text": "Size along the document (orange: flagged)"},
            "xaxis": {"title": {"text": "chunk"}},
            "yaxis": {"title": {"text": f"size ({unit})"}, "rangemode": "tozero"},
            "height": 320,
            "margin": _MARGIN,
            "showlegend": False,
            "shapes": [shape],
            "annotations": [note],
        },
    )
