"""Corpus: ask many documents at once, as a RAG index over a whole docs site would be asked.

The page reads top to bottom: the documents (bundled samples, the evaluation documents, uploads,
a folder on this machine), the question and its evidence, the hits grouped by document (each
opens its document at the hit on the Explore page), their overview (the problems first, a page
at a time), and the retrieval map of a query set: the text no question reaches and the chunks
that many unrelated questions retrieve.
Each part is a panel of :mod:`ui.corpus`.

Every document is chunked under the sidebar's configuration, by the session's workspace (a
document the Explore page read is not read again), which keeps each one's diagnosis too; one
ranking runs over all their chunks (:class:`explorer.Corpus`). While the embeddings are
computed, the BM25 answer is shown.
"""

from __future__ import annotations

import streamlit as st

from explorer.answer import CorpusAnswer
from explorer.errors import ExplorerError
from ui import corpus_view, frame, widgets
from ui.answers import evidence_phrases
from ui.corpus import documents, overview, question_panel, reach_map
from ui.safe import md_text
from ui.settings import describe_config
from ui.widget_keys import CORPUS_WIDGETS

state = st.session_state
ws = frame.workspace()
UPLOAD_LIMIT_MB = int(st.get_option("server.maxUploadSize"))
documents.start()

# --------------------------------------------------------------------------- documents

st.title("Ask a corpus", anchor=False)
st.caption(
    "Many documents, one index: every question competes with every chunk of every document, as "
    "it does in a RAG index over a whole docs site."
)
with frame.page_slot():
    documents.controls(ws, limit_mb=UPLOAD_LIMIT_MB)
    st.button(
        "Reset to recommended",
        key="cp_reset_recommended",
        icon=":material/restart_alt:",
        on_click=frame.reset_to_recommended,
        kwargs={
            "values": {"cp_k": CORPUS_WIDGETS["cp_k"], "cp_budget": CORPUS_WIDGETS["cp_budget"]}
        },
        help="The recommended configuration (the sidebar's), k and budget.",
    )
gathered = documents.gather(ws)
docs = gathered.docs
documents.left_out(gathered.skipped)
if not docs:
    st.info("Choose documents in the sidebar: samples, evaluation documents, uploads or a folder.")
    st.stop()

config = widgets.configuration() or widgets.stop()
st.caption(f"Configuration (sidebar): {md_text(describe_config(config))}")
corpus = ws.view(documents=docs)  # this corpus's names, over the session's workspace

# --------------------------------------------------------------------------- the question

question_panel.inputs()  # drawn before a site's chunks are gathered: the first thing to see
try:
    chunks = {n: corpus.chunks(n, config) for n in docs}
except ExplorerError as exc:
    widgets.message("error", str(exc))
    st.stop()
question = state.cp_question.strip()
phrases = evidence_phrases(state.cp_evidence)
answer: CorpusAnswer | None = None
placeholder = st.empty()  # the BM25 answer, while the model embeds
if question:
    answer = widgets.answer_bm25_first(
        corpus, list(docs), config, question, phrases, k=state.cp_k, budget=state.cp_budget,
        early=question_panel.early_answer(placeholder, config=config),
    )  # fmt: skip
    if answer is not None:
        placeholder.empty()
else:
    st.caption("Type a question to see which chunks of which documents a retriever returns.")
if answer is not None:
    question_panel.answer_panel(
        answer, gathered=gathered, chunks=chunks, config=config, k=state.cp_k,
        budget=state.cp_budget, evidence=state.cp_evidence,
    )  # fmt: skip
question_panel.go_if_asked()

# --------------------------------------------------------------------------- overview

overview.draw(
    docs,
    chunks,
    corpus_view.Made(docs, lambda n: corpus.diagnosis(n, config)),
    reach_map.current(docs, config, state.cp_k),
    made_for=corpus_view.figures_key(docs, config),
)

# --------------------------------------------------------------------------- retrieval map

reach_map.draw(corpus, docs, chunks, config=config, k=state.cp_k)
