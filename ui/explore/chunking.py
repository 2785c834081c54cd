"""The Explore page's chunking of its document, asked of the workspace: the semantic splitter
(which embeds the document's sentences) under a progress bar with a Cancel button, and the
what-if edits, which are cleared with a warning when they do not fit the chunking. Edits a link
brought are first read against the document shown (:func:`explorer.chunking.edits.reapply`):
on another version only those whose text still stands apply, and a note says so while they do."""

from __future__ import annotations

import streamlit as st

from explorer.chunking.edits import (
    Edit,
    LinkEdits,
    anchor_edits,
    encode_edits,
    encode_link,
    reapply,
)
from explorer.config import Config
from explorer.documents.model import Document
from explorer.errors import EditError
from explorer.workspace import Chunking, Workspace
from ui import widgets
from ui.view_state import edit_state, reapplied_note

EDITS_NOTE = "edits_note"
"""Session key of the note on a link's edits: ``(the edits it speaks of, kind, text)``, shown
while those edits stand."""


def chunk(
    ws: Workspace,
    doc: Document,
    config: Config,
    edits: tuple[Edit, ...],
    *,
    link: LinkEdits | None = None,
) -> tuple[Chunking, tuple[Edit, ...]]:
    """The chunking of ``doc`` under ``config`` after ``edits``, and the edits it was made with
    (none when they do not fit it). ``link``: the edits came with a link and are read against
    ``doc`` first. A cancelled semantic chunking ends the run."""
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
    state = st.session_state
    if link is not None:
        placed = reapply(doc, made.chunks, link)
        edits = placed.edits
        state.edits = edit_state(state.source, config, encode_edits(edits))
        state.edits_from = None
        note = reapplied_note(doc.name, placed)
        kind = "warning" if placed.left_out else "info"
        state[EDITS_NOTE] = (state.edits, kind, note) if note else None
    noted = state.get(EDITS_NOTE)
    if noted is not None and noted[0] == state.get("edits"):
        widgets.message(noted[1], noted[2])
    if edits:
        try:
            made = ws.chunking(doc, config, edits=edits)
        except EditError as exc:
            widgets.message(
                "warning", f"The what-if edits do not fit this chunking ({exc}); they are cleared."
            )
            st.session_state.edits, edits = None, ()
    return made, edits


def link_edits(ws: Workspace, doc: Document, config: Config, edits: tuple[Edit, ...]) -> str:
    """``edits`` as a link carries them: each with the anchor of the text it touches in this
    version (the splitter's chunking is the workspace's, made already)."""
    return encode_link(edits, anchor_edits(doc, ws.chunking(doc, config).chunks, edits))
