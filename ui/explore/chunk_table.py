"""The Explore page's chunk table (a row selected selects its chunk) and the export: the chunks
as JSONL and the manifest that says how they were made."""

from __future__ import annotations

import json
from collections.abc import Sequence

import streamlit as st

from explorer.chunking.diagnostics import Diagnosis
from explorer.chunking.edits import Edit
from explorer.chunking.records import Chunk
from explorer.config import Config
from explorer.documents.model import Document
from explorer.export import manifest, records, to_jsonl
from ui import chunk_view
from ui.explore import moves


def draw(
    doc: Document,
    chunks: list[Chunk],
    *,
    config: Config,
    diagnosis: Diagnosis,
    edits: Sequence[Edit],
    only_flagged: bool,
    keep: frozenset[int] | None,
    k: int,
    budget: int | None,
) -> None:
    """The table of ``doc``'s ``chunks`` (only the flagged ones, or those the table filter
    keeps, when on) and the two downloads (under ``config``, ``edits``, ``k`` and ``budget``)."""
    st.subheader("Chunks", anchor=False)
    shown = chunk_view.visible_indices(chunks, diagnosis, only_flagged=only_flagged, keep=keep)
    pages = [c.page_start for c in chunks]
    st.dataframe(
        chunk_view.chunk_rows(chunks, diagnosis, shown),
        key="table",
        on_select=lambda: on_table(shown, pages),
        selection_mode="single-row",
        hide_index=True,
    )
    stem = doc.name.rsplit(".", 1)[0]
    left, right, _ = st.columns([1, 1, 3])
    left.download_button(
        "Download chunks (JSONL)",
        lambda: to_jsonl(records(doc, config, chunks, edits=edits)),
        file_name=f"{stem}.chunks.jsonl",
        mime="application/jsonl",
        on_click="ignore",
    )
    right.download_button(
        "Download manifest (JSON)",
        lambda: json.dumps(
            manifest(doc, config, chunks, k=k, budget=budget, edits=edits),
            indent=2,
            ensure_ascii=False,
        ),
        file_name=f"{stem}.manifest.json",
        mime="application/json",
        on_click="ignore",
    )


def on_table(shown: list[int], pages: list[int | None]) -> None:
    """Select the chunk of the row picked (and turn to its page)."""
    picked = chunk_view.chunk_from_table(st.session_state.table.selection.rows, shown)
    if picked is not None:
        moves.go_to_hit(picked, pages[picked])
