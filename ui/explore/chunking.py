"""The Explore page's chunking of its document, asked of the workspace: the semantic splitter
(which embeds the document's sentences) under a progress bar with a Cancel button, and the
what-if edits, which are cleared with a warning when they do not fit the chunking."""

from __future__ import annotations

import streamlit as st

from explorer.chunking.edits import Edit
from explorer.config import Config
from explorer.documents.model import Document
from explorer.errors import EditError
from explorer.workspace import Chunking, Workspace
from ui import widgets


def chunk(
    ws: Workspace, doc: Document, config: Config, edits: tuple[Edit, ...]
) -> tuple[Chunking, tuple[Edit, ...]]:
    """The chunking of ``doc`` under ``config`` after ``edits``, and the edits it was made with
    (none when they do not fit it). A cancelled semantic chunking ends the run."""
    if config.chunking.splitter == "semantic" and ws.cached_chunks(doc, config) is None:
        semantic = widgets.cancellable(  # it embeds the document's sentences: it takes a while
            f"Chunking {doc.name} by meaning",
            lambda progress: ws.chunking(doc, config, progress=progress),
            key="semantic",
            request=f"{doc.key}|{ws.chunking_key(config)}",
            meanwhile="Pick another splitter, or chunk it now.",
            again="Chunk now",
        )
        made: Chunking = semantic if semantic is not None else widgets.stop()
    else:
        with st.spinner("Chunking…"):
            made = ws.chunking(doc, config)
    if edits:
        try:
            made = ws.chunking(doc, config, edits=edits)
        except EditError as exc:
            widgets.message(
                "warning", f"The what-if edits do not fit this chunking ({exc}); they are cleared."
            )
            st.session_state.edits, edits = None, ()
    return made, edits
