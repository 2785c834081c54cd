"""The Explore page's overview of the chunking: its figures (counts, sizes, the diagnostics),
the document's warnings and extraction notes, the table audit with its filter, another
library's audit of its own chunks, and the two size charts."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from explorer.chunking.diagnostics import ISSUES, Diagnosis
from explorer.chunking.edits import Edit, describe
from explorer.chunking.records import Chunk
from explorer.chunking.tables import TableAudit
from explorer.config import Config
from explorer.documents.model import Document
from explorer.workspace import Chunking
from ui import charts, chunk_view, settings, table_filter, widgets
from ui.safe import md_escape, md_text


def draw(
    made: Chunking,
    *,
    doc: Document,
    config: Config,
    diagnosis: Diagnosis,
    edits: Sequence[Edit],
    tables: TableAudit,
    table_problems: dict[int, frozenset[str]],
    only_flagged: bool,
    table_choice: str | None,
) -> None:
    """The overview of ``made`` (``doc``'s chunks under ``config`` and ``edits``), open when a
    library made it or a filter is on (``only_flagged``, the table filter's ``table_choice``)."""
    chunks = made.chunks
    sizes = [c.size for c in chunks]
    flagged = diagnosis.flagged()
    unit = config.chunking.unit
    head = (
        f"Chunking: {len(chunks):,} chunks, {len(flagged):,} flagged "
        f"({md_text(describe(settings.describe_config(config), edits))})"
    )
    filtering = table_filter.kept({}, table_choice) is not None
    with st.expander(head, expanded=bool(made.library) or only_flagged or filtering):
        for warning in doc.warnings:
            widgets.message("info", warning)  # warnings may quote the file name or its text
        if doc.normalisation:
            with st.expander("How the text was extracted"):
                for note in doc.normalisation:
                    st.text(note)  # plain text: notes quote the document
        figures(chunks, diagnosis, config=config)
        table_filter.draw(tables, table_problems)
        if made.library is not None:
            library_audit(made)
    left, right = st.columns(2)
    left.plotly_chart(
        charts.size_histogram(sizes, limit=config.chunking.size, unit=unit), key="hist"
    )
    right.plotly_chart(
        charts.size_along(sizes, limit=config.chunking.size, unit=unit, flagged=flagged),
        key="along",
    )


def figures(chunks: Sequence[Chunk], diagnosis: Diagnosis, *, config: Config) -> None:
    """Chunks, median and largest size, flagged chunks; then a count per issue."""
    sizes = [c.size for c in chunks]
    unit = config.chunking.unit
    cols = st.columns(4)
    cols[0].metric("Chunks", f"{len(chunks):,}")
    cols[1].metric(f"Median size ({unit})", f"{sorted(sizes)[len(sizes) // 2] if sizes else 0:,}")
    cols[2].metric(
        f"Largest ({unit})",
        f"{max(sizes, default=0):,}",
        help=f"limit {config.chunking.size:,}",
    )
    cols[3].metric(
        "Flagged chunks", f"{len(diagnosis.flagged()):,}", help="chunks with an issue below"
    )
    counts = diagnosis.counts()
    cols = st.columns(len(ISSUES))
    for col, issue in zip(cols, ISSUES, strict=True):
        col.metric(issue.label, f"{counts[issue.code]:,}", help=f"Chunks that {issue.description}.")


def library_audit(made: Chunking) -> None:
    """Another library's chunking: the integrity audit of its chunks, those not found in the
    document, the snippet that reproduces it, and the library's own notes."""
    library = made.library
    assert library is not None
    audit = library.audit
    st.markdown(
        f"**{md_escape(audit.library)} {md_escape(audit.version)}**: the integrity audit "
        "of its chunks (each placed in the document; *Show only flagged chunks* shows the "
        "flagged ones)"
    )
    cols = st.columns(6)
    for col, (label, value, tip) in zip(cols, chunk_view.audit_metrics(audit), strict=True):
        col.metric(label, value, help=tip)
    lost = [it for it in library.items if it.chunk is None]
    if lost:
        with st.expander(f"{len(lost)} chunks not found in the document, as given"):
            for it in lost:
                st.code(it.text, language=None, wrap_lines=True)
    with st.expander(f"Reproduce this chunking with {audit.library}"):
        st.caption("Parameters: " + ", ".join(f"{k}={v!r}" for k, v in library.mapping.items()))
        st.code(library.snippet, language="python")
    for note in library.messages:
        widgets.message("info", f"{audit.library}: {note}")
