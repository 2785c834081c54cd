"""Churn in the version comparison: for a set of splitters (ours and other libraries'), the share
of this version's chunks an index would embed again after the edit from the earlier version
(:mod:`explorer.chunking.churn`), each at the sidebar's size, unit and overlap."""

from __future__ import annotations

from typing import Any

import streamlit as st

from explorer.chunking.adapters import LIBRARY_SPLITTERS
from explorer.chunking.records import SPLITTERS
from explorer.config import Config
from explorer.documents.model import Document
from explorer.errors import ExplorerError
from explorer.workspace import Workspace
from ui import widgets
from ui.safe import md_text

KEY = "churn_splitters"
DEFAULT = ("fixed", "sentence", "recursive", "structure")
CHOICES = tuple(s for s in SPLITTERS if s != "semantic") + LIBRARY_SPLITTERS
"""The semantic splitter embeds each version's sentences to cut: it is left out here."""


def churn_rows(
    ws: Workspace, old: Document, new: Document, config: Config, splitters: list[str]
) -> list[dict[str, Any]]:
    """A row per splitter: its chunks in both versions, those to embed again, and their share."""
    return [
        {
            "splitter": name,
            "old chunks": c.old_chunks,
            "new chunks": c.new_chunks,
            "unchanged": c.unchanged,
            "re-embedded": c.reembedded,
            "share": round(100 * c.share, 1),
        }
        for name, c in ws.churn(old, new, config, splitters).items()
    ]


def draw(ws: Workspace, old: Document, new: Document, config: Config, *, label: str) -> None:
    """The splitters to compare and their churn table."""
    st.session_state.setdefault(KEY, [*DEFAULT])
    st.markdown("**Churn by splitter**: the share of this version's chunks an index re-embeds")
    chosen = st.multiselect(
        "Splitters",
        CHOICES,
        key=KEY,
        help="Each at the sidebar's size, unit and overlap. A chunk is re-embedded when the text "
        "embedded for it is not among the earlier version's.",
    )
    if not chosen:
        return
    try:
        rows = churn_rows(ws, old, new, config, list(chosen))
    except ExplorerError as exc:
        widgets.message("warning", f"The churn cannot be measured: {exc}")
        return
    st.dataframe(
        rows,
        hide_index=True,
        key="churn_table",
        column_config={"share": st.column_config.NumberColumn("share (%)", format="%.1f")},
    )
    st.caption(
        md_text(
            f"From {label} to this version. Fixed windows cut at offsets counted from the "
            "start, so text inserted near the top moves every later window; a splitter that "
            "cuts at headings and paragraphs re-cuts only the section that changed."
        )
    )
