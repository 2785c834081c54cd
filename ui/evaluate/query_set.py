"""The Evaluate page's Query set tab: the bundled boundary questions or an uploaded JSON file
(replacing the set, or adding its new ids), edited in a table and downloaded again. The set lives
in ``st.session_state["query_set"]`` (the Explore page adds to it)."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

import pandas as pd
import streamlit as st

from explorer.errors import ExplorerError
from explorer.evaluation.queries import dumps, merge, read_query_set
from ui import evaluate_view
from ui.answers import n_of
from ui.evaluate.questions import REPO
from ui.safe import md_text
from ui.sources import QUERY_SET

BUNDLED = QUERY_SET
DEFAULT_DOCS = "queries/docs"


@st.cache_data(show_spinner=False)
def bundled_set(mtime: float) -> list[dict[str, Any]]:
    return evaluate_view.bundled_query_set(BUNDLED)


def the_bundled_set() -> list[dict[str, Any]]:
    """The project's query set (empty when the file is missing or broken), a fresh list."""
    try:
        return list(bundled_set(BUNDLED.stat().st_mtime))
    except OSError:
        return []


def set_query_set(loaded: list[dict[str, Any]], source: str) -> None:
    """Replace the query set, or add the new ids to it when "add" is on."""
    state = st.session_state
    if state.qs_merge:
        state.query_set, skipped = merge(state.query_set, loaded)
        note = f"Added {n_of(len(loaded) - len(skipped), 'question')} from {source}."
        if skipped:
            note += f" Skipped {len(skipped)} whose id is already in the set: {', '.join(skipped)}."
    else:
        state.query_set = loaded
        note = f"Loaded {n_of(len(loaded), 'question')} from {source}."
    state.qs_notice, state.qs_error = note, None


def on_bundled() -> None:
    loaded = the_bundled_set()
    if not loaded:
        st.session_state.qs_error = f"The bundled query set is missing or unreadable: {BUNDLED}"
        return
    set_query_set(loaded, BUNDLED.name)


def on_upload() -> None:
    """Read an uploaded query set; on failure keep the current set and remember one message."""
    state = st.session_state
    file = state.qs_upload
    state.qs_error = state.qs_notice = None
    if file is None:
        return
    try:
        loaded = read_query_set(file.getvalue(), name=file.name)
    except ExplorerError as exc:
        state.qs_error = str(exc)
        return
    set_query_set(loaded, file.name)


def draw(*, doc_options: Sequence[str]) -> None:
    """The tab: load or upload a set, edit it (a question's document is one of
    ``doc_options``), download it."""
    state = st.session_state
    left, mid, right = st.columns([2, 3, 2], vertical_alignment="bottom")
    left.button(
        f"Load the bundled boundary questions ({len(the_bundled_set())})",
        on_click=on_bundled,
        key="qs_bundled",
        help=f"{BUNDLED.relative_to(REPO)}; its documents are in {DEFAULT_DOCS}/",
    )
    mid.file_uploader(
        "Or upload a query set (JSON)", type=["json"], key="qs_upload", on_change=on_upload
    )
    right.toggle(
        "Add to the current set",
        key="qs_merge",
        help="Off: a loaded set replaces the questions below. On: its new ids are added.",
    )
    if state.qs_error:
        st.error(md_text(state.qs_error))
    elif state.qs_notice:
        st.success(md_text(state.qs_notice))

    # the editor starts from a snapshot; it is rebuilt when the set changed elsewhere (a load,
    # or the main page's "add this query") or when its edits were dropped
    editor_key = f"qs_editor_{state.qs_version}"
    if state.get("qs_seen") != state.query_set or editor_key not in state:
        state.qs_version += 1
        editor_key = f"qs_editor_{state.qs_version}"
        state.qs_base = evaluate_view.editor_rows(state.query_set)
    edited = st.data_editor(
        pd.DataFrame(state.qs_base, columns=list(evaluate_view.EDITOR_COLUMNS)),
        key=editor_key,
        num_rows="dynamic",
        hide_index=True,
        height=420,
        column_config={
            "id": st.column_config.TextColumn("id", width="small", required=True),
            "doc": st.column_config.SelectboxColumn(
                "document", options=list(doc_options), width=170, required=True
            ),
            "query": st.column_config.TextColumn("question", width=300, required=True),
            "evidence": st.column_config.ListColumn(
                "evidence phrases",
                width="large",
                help="The exact phrases a complete answer needs, one item each (type a "
                "phrase and press Enter to add it). Each must occur in the document; case, "
                "white space, quote and dash styles are ignored.",
            ),
            "kind": st.column_config.TextColumn("kind", width="small"),
        },
    )
    updated = evaluate_view.from_editor(edited.to_dict("records"), state.query_set)
    if updated != state.query_set:
        state.query_set = updated
    state.qs_seen = copy.deepcopy(state.query_set)
    n_phrases = sum(len(i.get("evidence") or []) for i in state.query_set)
    st.caption(
        f"{n_of(len(state.query_set), 'question')}, {n_of(n_phrases, 'evidence phrase')}. "
        "Add a row at the bottom of the table; select rows and press Delete to remove them."
    )
    st.download_button(
        "Download the query set (JSON)",
        dumps(state.query_set),
        file_name="query-set.json",
        mime="application/json",
        on_click="ignore",
        key="qs_download",
    )
