"""Explore a document: its chunks on the page, a question and the evidence it needs.

The page reads top to bottom as it is drawn: the sidebar's own controls (lessons, the document,
an earlier version, how the document is shown), the title, the lesson, then side by side the
question (its evidence, k and budget, the verdict, the ranking cut where k or the budget stopped
it) and the document with its chunks (a fragment: :mod:`ui.document_view`); below them the map of
the embedding space, the chunking's overview and diagnostics, another library's audit, what
changed since another version, the size charts, the chunk table and the export. Each part is a
panel of :mod:`ui.explore` that takes what it draws as arguments.

Every piece of work — reading, chunking, the diagnosis, the table audit, the version diff,
ranking, embedding — is the session's workspace's (:func:`ui.frame.workspace`); the answer is
:func:`explorer.answer.answer`'s, as everywhere.
"""

from __future__ import annotations

import streamlit as st

from explorer.budget import budget_use
from explorer.chunking.edits import Edit, LinkEdits, decode_edits, decode_link
from explorer.errors import ExplorerError
from explorer.evaluation.lessons import Setting
from ui import embedding_map, frame, table_filter, widgets
from ui.answers import evidence_phrases
from ui.document_view import Shown, document_panel
from ui.explore import (
    chunk_table,
    chunking,
    edits_bar,
    lesson_panel,
    moves,
    overview,
    question_panel,
    ranking,
    sidebar,
    uploads,
    versions,
)
from ui.lessons import (
    LESSON_PROBLEMS,
    LESSONS,
    PAGE_CSS,
    PRESENTATION_CSS,
    lesson_step,
    opening_view,
    starting_query,
)
from ui.safe import md_escape
from ui.sources import SAMPLES_DIR, sample_paths
from ui.view_state import View, edits_of, query_keys

state = st.session_state
ws = frame.workspace()
UPLOAD_LIMIT_MB = int(st.get_option("server.maxUploadSize"))

# --------------------------------------------------------------------------- sidebar

samples = {p.name: p for p in sample_paths()}
uploads.open_upload(ws, set(samples), limit_mb=UPLOAD_LIMIT_MB)
sources = [*samples, *state.uploads]
if not sources:
    st.error(f"No sample documents found in {SAMPLES_DIR.name}/ — upload a file to start.")
if state.get("source") not in sources and sources:
    opening = opening_view().source
    state.source = opening if opening in sources else sources[0]
lesson = LESSONS.get(state.get("lesson") or "")
if lesson is not None and lesson.doc != state.get("source"):  # never name a lesson not shown
    state.lesson, lesson = None, None
with frame.page_slot():
    sidebar.draw(
        ws=ws,
        sources=sources,
        source=state.get("source"),
        lessons=LESSONS,
        problems=LESSON_PROBLEMS,
        comparing=state.get("version") is not None,
        limit_mb=UPLOAD_LIMIT_MB,
    )
if state.upload_error:
    widgets.message("error", state.upload_error)
widgets.cancelled_note(uploads.READING_CANCELLED)
if state.get("link_note"):
    widgets.message("warning", state.link_note)
if not sources:
    st.stop()

# each document has its own question and evidence boxes (a run cut short by a document switch
# cannot carry one document's text into another's); what was typed is kept in state.queries
question_key, evidence_key = query_keys(state.source)
typed = state.queries.get(state.source) or starting_query(state.source)
state.setdefault(question_key, typed[0])
state.setdefault(evidence_key, typed[1])
try:
    doc, data = frame.document_of(state.source)
except ExplorerError as exc:
    widgets.message("error", str(exc))
    st.stop()
config = widgets.configuration() or widgets.stop()
uploaded = state.source in state.uploads

# --------------------------------------------------------------------------- title & chunking

st.html(PAGE_CSS)
if state.present:
    st.html(PRESENTATION_CSS)
pages_note = f" · {len(doc.pages):,} pages" if doc.pages else ""
with st.container(key="ce_title"):
    st.markdown(
        f"**Chunk Explorer** · **{md_escape(doc.name)}** · {doc.kind} · "
        f"{len(doc.text):,} characters{pages_note}"
    )
held, made_on = edits_of(state, state.source, config), state.get("edits_from")
link: LinkEdits | None = None
try:
    edits: tuple[Edit, ...] = decode_edits(held)
    if held and made_on is not None:  # a link's: read against this document first
        link = decode_link(held, version=made_on)
except ExplorerError:  # the link's edits are checked as it is read: only a bug lands here
    edits = ()
try:
    made, edits = chunking.chunk(ws, doc, config, edits, link=link)
    chunks = made.chunks
    diagnosis = ws.diagnosis(doc, config, edits=edits)
    tables, table_problems = ws.table_audit(doc, config, edits=edits)
    table_keep = table_filter.kept(table_problems, state.get(table_filter.KEY))
except ExplorerError as exc:
    widgets.message("error", str(exc))
    st.stop()

question = state[question_key].strip()
phrases = evidence_phrases(state[evidence_key])
step = None  # where the view stands in the lesson (None: changed by hand, or no lesson)
if lesson is not None:
    step = lesson_step(lesson, source=state.source, question=question, evidence=phrases,
                       setting=Setting(config, state.k, state.budget))  # fmt: skip
lesson_box = st.container(key="ce_lesson") if lesson is not None else None

# --------------------------------------------------------------------------- question & lesson

ask_col, doc_col = st.columns([2, 3], gap="medium")
answer = None
with ask_col:
    question_panel.inputs(question_key, evidence_key)
    placeholder = st.empty()  # the BM25 answer, while the model embeds
    if question and chunks:
        early = question_panel.EarlyAnswer(placeholder, doc=doc, chunks=chunks, config=config)
        whole = widgets.answer_bm25_first(
            ws, [doc], config, question, phrases, k=state.k, budget=state.budget, early=early,
            edits={doc.name: edits},
        )  # fmt: skip
        if whole is not None:
            placeholder.empty()  # the full answer replaces the BM25 one
            answer = whole.answers[doc.name]
        else:
            early.stands()  # the BM25 answer stands: its verdict with it
    elif not question:
        st.caption("Type a question to see which chunks a retriever would return for it.")
    if answer is not None:
        question_panel.turn_to_hits(answer, chunks, asked=f"{state.source}\n{question}")
        question_panel.verdict(
            ws, answer, doc=doc, chunks=chunks, config=config, edits=edits, question=question,
            phrases=phrases, k=state.k, budget=state.budget, present=state.present,
        )  # fmt: skip
if lesson is not None and lesson_box is not None:  # drawn above the question, once it is asked
    lesson_panel.draw(
        lesson_box, lesson, step, edits=edits, present=state.present, url=st.context.url
    )
with ask_col:
    if answer is not None and not state.present:
        use = budget_use(ws.corpus(config, [doc], edits={doc.name: edits}), answer)
        ranking.draw(answer, doc=doc, chunks=chunks, config=config, phrases=phrases, budget=use)
    if not state.present:
        question_panel.add_to_query_set(state.source, question_key, evidence_key)

# --------------------------------------------------------------------------- document

compared = None
if state.get("version") is not None and config.chunking.splitter != "semantic":
    compared = versions.compare(ws, state.version, doc, config, edits=edits)
view = View.of(state, config=config, uploaded=uploaded).replace(
    lesson=lesson.name if lesson is not None and step is not None else None, repair=step or None
)
if edits:  # the link carries the edits with the text they touch, and this version
    view = view.replace(edits=chunking.link_edits(ws, doc, config, edits), edits_from=doc.version)
with doc_col:
    if edits and not state.present:
        edits_bar.draw(edits)
    document_panel(
        Shown(
            doc=doc,
            data=data,
            chunks=chunks,
            chunking_key=ws.chunking_key(config, edits=edits),
            diagnosis=diagnosis,
            config=config,
            answer=answer,
            view=view,
            passages=lambda: ws.passages(doc),
            changes=compared.changes if compared is not None else None,
            url=st.context.url,
            edits=edits,
            table_keep=table_keep,
        )
    )
if state.present:  # presentation mode: the lesson, its verdict and the document only
    st.stop()

# --------------------------------------------------------------------------- below

embedding_map.draw(ws, doc, config, question, chunks=chunks, k=state.k, budget=state.budget,
                   edits=edits, select=moves.go_to_hit)  # fmt: skip
overview.draw(
    made, doc=doc, config=config, diagnosis=diagnosis, edits=edits, tables=tables,
    table_problems=table_problems, only_flagged=state.only_flagged,
    table_choice=state.get(table_filter.KEY),
)  # fmt: skip
if compared is not None:
    versions.draw(
        ws, compared, doc=doc, config=config, k=state.k, budget=state.budget,
        questions=versions.asked(doc, question, phrases, state.get("query_set") or []),
    )  # fmt: skip
chunk_table.draw(
    doc, chunks, config=config, diagnosis=diagnosis, edits=edits, only_flagged=state.only_flagged,
    keep=table_keep, k=state.k, budget=state.budget,
)  # fmt: skip
