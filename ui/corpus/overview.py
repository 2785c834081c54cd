"""The Corpus page's overview: documents, chunks, flagged chunks and characters, a row per
document, and each document's chunks (flagged ones apart) as a stacked bar."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import plotly.graph_objects as go
import streamlit as st

from explorer.chunking.diagnostics import Diagnosis
from explorer.chunking.records import Chunk
from explorer.documents.model import Document
from ui import corpus_view
from ui.safe import plot_text


def draw(
    docs: Mapping[str, Document],
    chunks: Mapping[str, Sequence[Chunk]],
    diagnoses: Mapping[str, Diagnosis],
) -> None:
    """The figures, the table and the bars of ``docs`` with their ``chunks`` and diagnoses."""
    rows = corpus_view.overview_rows(docs, chunks, diagnoses)
    cols = st.columns(4)
    cols[0].metric("Documents", len(docs))
    cols[1].metric("Chunks", sum(r["chunks"] for r in rows))
    cols[2].metric("Flagged chunks", sum(r["flagged"] for r in rows))
    cols[3].metric("Characters", f"{sum(r['characters'] for r in rows):,}")
    table_col, plot_col = st.columns([1, 1], gap="large")
    table_col.dataframe(rows, hide_index=True, key="cp_overview")
    names = [plot_text(r["document"], width=60, lines=1) for r in rows]  # plotly reads markup
    figure = go.Figure(
        [
            go.Bar(
                y=names,
                x=[r["chunks"] - r["flagged"] for r in rows],
                name="chunks",
                orientation="h",
                marker_color="#4e79a7",
            ),
            go.Bar(
                y=names,
                x=[r["flagged"] for r in rows],
                name="flagged",
                orientation="h",
                marker_color="#e15759",
            ),
        ]
    )
    figure.update_layout(
        barmode="stack",
        height=max(180, 28 * len(rows) + 80),
        margin={"l": 0, "r": 0, "t": 10, "b": 0},
        yaxis={"autorange": "reversed"},
        xaxis_title="chunks",
        legend={"orientation": "h"},
    )
    plot_col.plotly_chart(figure, key="cp_overview_plot")
