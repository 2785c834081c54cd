"""The table audit in the main page's diagnostics: its figures (the audit is the workspace's,
:meth:`explorer.workspace.Workspace.table_audit`, made once per document and chunking: it costs
25–70 ms on a big file), and a filter that lists and tints only the chunks that split a table,
cut a row, or continue a table without its header row."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from explorer.chunking.tables import TABLE_PROBLEMS, TableAudit

ALL = "all chunks"
FILTERS = {
    ALL: None,
    "split a table": "splits_table",
    "cut a row": "cuts_row",
    "no header row": "no_header",
}
"""The filter's choices and the problem code each keeps (None: every chunk)."""

KEY = "table_filter"


def kept(problems: dict[int, frozenset[str]], choice: str | None) -> frozenset[int] | None:
    """The chunks the filter keeps (None: all of them)."""
    code = FILTERS.get(choice or ALL)
    if code is None:
        return None
    return frozenset(i for i, codes in problems.items() if code in codes)


def caption(tables: TableAudit) -> str:
    return (
        f"**Tables**: {tables.tables:,} in the document, {tables.split:,} split across "
        f"chunks, {tables.rows_cut:,} of {tables.rows:,} rows cut mid-row, "
        f"{tables.without_header:,} chunks with rows but without the header row, "
        f"cohesion {tables.cohesion:.2f} (1 = every table in one chunk)."
    )


def draw(tables: TableAudit, problems: dict[int, frozenset[str]]) -> None:
    """The audit's figures and the filter (only for a document with tables)."""
    if not tables.tables:
        return
    st.caption(caption(tables))
    counts = {
        label: sum(code in codes for codes in problems.values())
        for label, code in FILTERS.items()
        if code is not None
    }
    st.segmented_control(
        "Show only the chunks that…",
        list(FILTERS),
        key=KEY,
        format_func=lambda c: c if c == ALL else f"{c} ({counts[c]:,})",
        help="Lists and tints only the chunks that "
        + "; or that ".join(TABLE_PROBLEMS.values())
        + ". In the Chunks view and the table below.",
    )


DOES = {
    "splits_table": ("splits a table", "split a table"),
    "cuts_row": ("cuts a row", "cut a row"),
    "no_header": (
        "continues a table without its header row",
        "continue a table without its header row",
    ),
}
"""Each problem said of one chunk, and of several."""


def note(choice: str | None, n: int) -> str | None:
    """A line over the document when the filter is on."""
    code = FILTERS.get(choice or ALL)
    if code is None:
        return None
    one, several = DOES[code]
    if n == 0:
        return f"Table filter: no chunk {one} at these settings; nothing is highlighted."
    if n == 1:
        return f"Table filter: only the one chunk that {one} is listed and tinted."
    return f"Table filter: only the {n:,} chunks that {several} are listed and tinted."


def apply(indices: Sequence[int], keep: frozenset[int] | None) -> list[int]:
    return list(indices) if keep is None else [i for i in indices if i in keep]
