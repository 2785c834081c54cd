"""The Corpus page's overview, for a corpus of ten documents or ten thousand: the corpus's figures,
then its documents a page of rows at a time — found by name, the problems first (text no
question of the query set reaches, flagged chunks, tables cut from their header) — as a table
the page's width, names whole, each row's chunks and flagged chunks drawn as bars on one scale in
the table itself (no chart library to load before the page is read: a site's overview paints as
soon as its table does)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import streamlit as st

from explorer.chunking.diagnostics import Diagnosis
from explorer.chunking.records import Chunk
from explorer.documents.model import Document
from explorer.evaluation.reach import DocumentReach
from ui import corpus_view
from ui.answers import n_of
from ui.safe import md_text


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
    most = max((int(r["chunks"]) for r in part), default=0) or 1  # one scale for both bars
    st.dataframe(
        [{k: v for k, v in r.items() if not k.startswith("_")} for r in part],
        hide_index=True,
        key="cp_overview",
        column_config={
            "document": st.column_config.TextColumn("document", width="large"),
            **{
                name: st.column_config.ProgressColumn(
                    name, min_value=0, max_value=most, format="%d", color=color, help=what
                )
                for name, color, what in BARS
            },
        },
    )


BARS = (
    ("chunks", "blue", "The document's chunks; the bar is on one scale for the page's rows."),
    ("flagged", "red", "Its chunks with an issue (see the Explore page), on the same scale."),
)
"""The overview's columns drawn as bars: name, colour, what the header's help says."""


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
