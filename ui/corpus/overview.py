"""The Corpus page's overview, for a corpus of ten documents or ten thousand: the corpus's figures,
then its documents a page of rows at a time — found by name, the problems first (text no
question of the query set reaches, flagged chunks, tables cut from their header) — as a table
the page's width (names whole) and, below it, the same rows' chunks (flagged ones apart) as a
stacked bar."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import plotly.graph_objects as go
import streamlit as st

from explorer.chunking.diagnostics import Diagnosis
from explorer.chunking.records import Chunk
from explorer.documents.model import Document
from explorer.evaluation.reach import DocumentReach
from ui import corpus_view
from ui.answers import n_of
from ui.safe import md_text, plot_text


def draw(
    docs: Mapping[str, Document],
    chunks: Mapping[str, Sequence[Chunk]],
    diagnoses: Mapping[str, Diagnosis],
    reach: Mapping[str, DocumentReach] | None = None,
    *,
    made_for: str | None = None,
) -> None:
    """The figures of ``docs`` with their ``chunks`` and diagnoses (and, once a query set's
    retrieval map is made, the text it never reaches), then one page of their rows. With
    ``made_for`` (:func:`ui.corpus_view.figures_key`) the rows are made once for every session
    and run: a site of 10,000 pages is not looked over again on each."""
    state = st.session_state
    if made_for is None:
        rows = corpus_view.overview_rows(docs, chunks, diagnoses, reach)
    else:
        rows = corpus_view.with_reach(_rows(made_for, docs, chunks, diagnoses), reach)
    st.caption("**The whole corpus**")
    cols = st.columns(5)
    cols[0].metric("Documents", f"{len(docs):,}")
    cols[1].metric("Chunks", f"{sum(r['chunks'] for r in rows):,}")
    cols[2].metric("Flagged chunks", f"{sum(r['flagged'] for r in rows):,}")
    cols[3].metric("Cut tables", f"{sum(r['cut tables'] for r in rows):,}")
    cols[4].metric("Characters", f"{sum(r['characters'] for r in rows):,}")

    find_col, order_col, page_col = st.columns([3, 2, 1], vertical_alignment="bottom")
    find = find_col.text_input(
        "Find a document", key="cp_ov_find", placeholder="words of its name", on_change=_first
    ).strip()
    order = order_col.selectbox(
        "Order",
        corpus_view.ORDERS,
        key="cp_ov_order",
        on_change=_first,
        help="Problems first: the text no question of the query set below reaches (once it is "
        "run), then flagged chunks, then tables cut from their header.",
    )
    shown = corpus_view.sorted_rows(corpus_view.matching(rows, find), order)
    pages = corpus_view.pages_of(len(shown))
    if state.get("cp_ov_page", 1) > pages:
        state.cp_ov_page = pages
    page = page_col.number_input("Page", 1, pages, key="cp_ov_page", step=1)
    part = corpus_view.page_of(shown, int(page))
    first = (int(page) - 1) * corpus_view.PAGE_ROWS + 1
    found = f" whose name holds “{md_text(find)}”" if find else ""
    if not shown:
        st.caption(f"No document{found}.")
        return
    st.caption(
        f"Documents {first:,}–{first + len(part) - 1:,} of {n_of(len(shown), 'document')}"
        f"{found}, {order}; one row per document (its own chunks and flags)."
    )
    st.dataframe(
        [{k: v for k, v in r.items() if not k.startswith("_")} for r in part],
        hide_index=True,
        key="cp_overview",
        column_config={"document": st.column_config.TextColumn("document", width="large")},
    )
    st.plotly_chart(figure(part), key="cp_overview_plot")


@st.cache_resource(max_entries=4, show_spinner=False)
def _rows(
    made_for: str,
    _docs: Mapping[str, Document],
    _chunks: Mapping[str, Sequence[Chunk]],
    _diagnoses: Mapping[str, Diagnosis],
) -> list[dict[str, Any]]:
    """The rows of a corpus's overview, kept for the process (never changed: each run copies
    them) as its documents, chunking and diagnoses are (``made_for``)."""
    return corpus_view.overview_rows(_docs, _chunks, _diagnoses)


def _first() -> None:
    st.session_state.cp_ov_page = 1


def figure(rows: Sequence[Mapping[str, Any]]) -> go.Figure:
    """Each row's chunks as a bar, flagged ones apart; names kept readable on the axis (start
    and file name) and whole in the hover."""
    names = [str(r["document"]) for r in rows]
    whole = [plot_text(n, width=10_000, lines=1) for n in names]  # plotly reads markup in its texts
    where = list(range(len(rows)))
    hover = "%{customdata}<br>%{x} %{fullData.name} chunks<extra></extra>"
    figure = go.Figure(
        [
            go.Bar(
                y=where,
                x=[r["chunks"] - r["flagged"] for r in rows],
                name="not flagged",
                orientation="h",
                marker_color="#4e79a7",
                customdata=whole,
                hovertemplate=hover,
            ),
            go.Bar(
                y=where,
                x=[r["flagged"] for r in rows],
                name="flagged",
                orientation="h",
                marker_color="#e15759",
                customdata=whole,
                hovertemplate=hover,
            ),
        ]
    )
    figure.update_layout(
        barmode="stack",
        height=max(180, 18 * len(rows) + 90),
        margin={"l": 0, "r": 0, "t": 30, "b": 0},
        yaxis={
            "autorange": "reversed",
            "tickvals": where,
            "ticktext": [plot_text(corpus_view.short_name(n), width=200, lines=1) for n in names],
        },
        xaxis_title="chunks",
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.0},
    )
    return figure
