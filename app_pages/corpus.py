"""Corpus: ask many documents at once, as a RAG index over a whole docs site would be asked.

The page reads top to bottom: the documents (bundled samples, the evaluation documents, uploads,
a folder on this machine), their overview, the question and its evidence, the hits grouped by
document (each opens its document at the hit on the Explore page), and the retrieval map of a
query set: the text no question reaches and the chunks that many unrelated questions retrieve.

Every document is chunked under the sidebar's configuration, by the session's workspace (a
document the Explore page read is not read again); one ranking runs over all their chunks
(:class:`explorer.Corpus`). While the embeddings are computed, the BM25 answer is shown.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import plotly.graph_objects as go
import streamlit as st

from explorer import resources
from explorer.answer import CorpusAnswer
from explorer.chunking.diagnostics import Diagnosis, diagnose
from explorer.chunking.measures import get_measure
from explorer.chunking.splitters import Chunk
from explorer.documents.folder import Loaded
from explorer.documents.model import SUPPORTED_SUFFIXES, Document, document_name
from explorer.errors import ExplorerError
from explorer.evaluation.coverage import evaluate
from explorer.evaluation.queries import load_queries
from explorer.evaluation.reach import DocumentReach, retrieval_map
from explorer.preparing import Pending
from ui import corpus_uploads, corpus_view, frame, render, render_markdown, widgets
from ui.answers import evidence_phrases, first_words, n_of
from ui.document_view import highlights_key
from ui.places import allowed_folder, named_folders
from ui.safe import md_escape, md_text
from ui.settings import BUDGET_HELP, BUDGETS, TOP_K_MAX, budget_label, describe_config
from ui.sources import UPLOAD_TYPES, remember, sample_paths

state = st.session_state
ws = frame.workspace()
EXPLORE = "app_pages/explore.py"
SAMPLES = {p.name: p for p in sample_paths()}
EVAL_DOCS_DIR = resources.query_sets_dir() / "docs"
EVAL_DOCS = {
    p.name: p
    for p in sorted(EVAL_DOCS_DIR.iterdir() if EVAL_DOCS_DIR.is_dir() else [])
    if p.suffix.lower() in SUPPORTED_SUFFIXES
}
UPLOAD_LIMIT_MB = int(st.get_option("server.maxUploadSize"))

# --------------------------------------------------------------------------- cached work


@st.cache_resource(max_entries=256, show_spinner=False)
def check(doc_key: str, settings_key: str, _doc: Document, _chunks: list[Chunk]) -> Diagnosis:
    return diagnose(_doc, _chunks, model_measure=get_measure("model-tokens"))


@st.cache_data(max_entries=16, show_spinner="Drawing the document…")
def document_html(
    doc_key: str, view_key: str, _doc: Document, _highlights: list[render.Highlight]
) -> str:
    window = render.Window(0, len(_doc.text), len(_doc.text))
    if _doc.kind == "markdown":
        return render_markdown.render_markdown(_doc, _highlights, window=window)
    return render.render_text(_doc, _highlights, window=window)


state.setdefault("cp_uploads", {})  # name -> (file name, sha256, bytes)
state.setdefault("cp_upload_errors", [])
state.setdefault("cp_to_read", {})  # name -> bytes: uploads taken and not read yet
state.setdefault("cp_map", None)


def on_upload() -> None:
    """Take the uploaded files within the limits (read on this run, under a bar); list the
    others, each with its reason."""
    fresh, refused = corpus_uploads.take(
        corpus_uploads.uploaded_files(state), state.cp_uploads, limit_mb=UPLOAD_LIMIT_MB
    )
    state.cp_to_read = {**state.cp_to_read, **fresh}
    state.cp_upload_errors = refused


def uploaded(name: str) -> None:
    if name not in state.cp_uploaded:
        state.cp_uploaded = [*state.cp_uploaded, name]


def open_hit(view: Any, entry: tuple[str, str, bytes] | None) -> None:
    """Show the hit's document on the Explore page at the hit (:func:`corpus_view.open_at_hit`)."""
    if entry is not None:  # the Explore page opens samples and the session's uploads
        remember(state.setdefault("uploads", {}), view.source, entry)
    view.apply(state)
    state.cp_open = True


# --------------------------------------------------------------------------- documents

st.title("Ask a corpus", anchor=False)
st.caption(
    "Many documents, one index: every question competes with every chunk of every document, as "
    "it does in a RAG index over a whole docs site."
)
with frame.page_slot():
    st.header("Documents", anchor=False)
    st.multiselect("Bundled samples", list(SAMPLES), key="cp_samples")
    st.multiselect(
        "Evaluation documents",
        list(EVAL_DOCS),
        key="cp_eval_docs",
        help="The documents the bundled query sets ask about (public documents and samples).",
    )
    corpus_uploads.uploaders(on_upload, UPLOAD_TYPES)
    if state.cp_to_read:
        state.cp_upload_errors = [
            *state.cp_upload_errors,
            *corpus_uploads.read_pending(ws, state.cp_to_read, state.cp_uploads, on_read=uploaded),
        ]
    if state.cp_uploads:
        state.cp_uploaded = [n for n in state.cp_uploaded if n in state.cp_uploads]
        st.multiselect(
            "Uploaded files",
            list(state.cp_uploads),
            key="cp_uploaded",
            help="Files uploaded in this session; take one out of the corpus here.",
        )
    if named_folders():  # only where the person running the app named folders it may read
        st.text_input(
            "Folder on this machine",
            key="cp_folder",
            placeholder=str(named_folders()[0]),
            help="Every PDF, Markdown and text file in it (not the folders inside), inside the "
            "folders the app was started with (`--docs FOLDER` or CHUNK_EXPLORER_DOCS).",
        )

raw: dict[str, tuple[str, str, bytes]] = {}  # name -> (file name, sha256, bytes)
for name in state.cp_samples:
    if name in SAMPLES:
        data = SAMPLES[name].read_bytes()
        raw[name] = (name, frame.content_sha(data), data)
for name in state.cp_eval_docs:
    if name in EVAL_DOCS and name not in raw:
        data = EVAL_DOCS[name].read_bytes()
        raw[name] = (name, frame.content_sha(data), data)
for name in state.cp_uploaded:
    if name in state.cp_uploads:
        raw.setdefault(name, state.cp_uploads[name])
skipped: list[str] = list(state.cp_upload_errors)
folder_docs: dict[str, Document] = {}
folder_paths: dict[str, Path] = {}
if named_folders() and state.get("cp_folder", "").strip():
    loaded: Loaded | None = None
    try:
        folder = allowed_folder(state.cp_folder)
        if ws.folder_is_read(folder):
            loaded = ws.load_folder(folder)
        else:  # a documentation site's folder takes a while: a bar, and Cancel
            loaded = widgets.cancellable(
                f"Reading the folder {folder.name or folder}",
                lambda progress: ws.load_folder(folder, progress=progress),
                key="cp_folder",
                request=str(folder),
                meanwhile="The corpus is shown without it.",
                again="Read it now",
            )
    except ExplorerError as exc:
        widgets.message("error", str(exc))
    if loaded is not None:
        skipped += [s.reason for s in loaded.skipped]
        for d, path in zip(loaded.documents, loaded.paths, strict=True):
            if d.name not in raw:
                folder_docs[d.name], folder_paths[d.name] = d, path

docs: dict[str, Document] = {}
seen: dict[str, str] = {}  # content -> first name
for name, (file_name, _sha, data) in raw.items():
    try:
        doc = ws.load(data, name=file_name)
    except ExplorerError as exc:
        skipped.append(str(exc))
        continue
    if doc.sha256 in seen:
        skipped.append(f"{name}: a duplicate of {seen[doc.sha256]} (the same bytes); left out")
        continue
    seen[doc.sha256] = name
    docs[name] = doc
for name, doc in folder_docs.items():
    if doc.sha256 in seen:
        skipped.append(f"{name}: a duplicate of {seen[doc.sha256]} (the same bytes); left out")
        continue
    seen[doc.sha256] = name
    docs[name] = doc

if skipped:
    with st.expander(f"{n_of(len(skipped), 'file')} left out", expanded=True):
        for reason in skipped:
            st.markdown(f"- {md_text(reason)}")
if not docs:
    st.info("Choose documents in the sidebar: samples, evaluation documents, uploads or a folder.")
    st.stop()

config = widgets.configuration() or widgets.stop()
st.caption(f"Configuration (sidebar): {md_text(describe_config(config))}")
corpus = ws.view(documents=docs)  # this corpus's names, over the session's workspace
try:
    chunks = {n: corpus.chunks(n, config) for n in docs}
except ExplorerError as exc:
    widgets.message("error", str(exc))
    st.stop()
settings_key = config.chunking.key()
diagnoses = {n: check(d.key, settings_key, d, chunks[n]) for n, d in docs.items()}

# --------------------------------------------------------------------------- overview

rows = corpus_view.overview_rows(docs, chunks, diagnoses)
cols = st.columns(4)
cols[0].metric("Documents", len(docs))
cols[1].metric("Chunks", sum(r["chunks"] for r in rows))
cols[2].metric("Flagged chunks", sum(r["flagged"] for r in rows))
cols[3].metric("Characters", f"{sum(r['characters'] for r in rows):,}")
table_col, plot_col = st.columns([1, 1], gap="large")
table_col.dataframe(rows, hide_index=True, key="cp_overview")
figure = go.Figure(
    [
        go.Bar(
            y=[r["document"] for r in rows],
            x=[r["chunks"] - r["flagged"] for r in rows],
            name="chunks",
            orientation="h",
            marker_color="#4e79a7",
        ),
        go.Bar(
            y=[r["document"] for r in rows],
            x=[r["flagged"] for r in rows],
            name="flagged",
            orientation="h",
            marker_color="#e15759",
        ),
    ]
)
figure.update_layout(
    barmode="stack",
    height=max(180, 28 * len(rows) + 80),
    margin={"l": 0, "r": 0, "t": 10, "b": 0},
    yaxis={"autorange": "reversed"},
    xaxis_title="chunks",
    legend={"orientation": "h"},
)
plot_col.plotly_chart(figure, key="cp_overview_plot")

# --------------------------------------------------------------------------- the question

st.subheader("Ask the corpus", anchor=False)
ask_col, evidence_col = st.columns([3, 2], gap="large")
with ask_col:
    st.text_input("Question", key="cp_question", placeholder="What would a user ask?")
    left, right = st.columns(2)
    left.slider("Top k", 1, TOP_K_MAX, key="cp_k")
    right.selectbox(
        "Token budget", BUDGETS, key="cp_budget", format_func=budget_label, help=BUDGET_HELP
    )
with evidence_col:
    st.text_area("Required evidence (one phrase per line)", key="cp_evidence", height=110)

question = state.cp_question.strip()
phrases = evidence_phrases(state.cp_evidence)
count = get_measure("tokens").count


def draw_early(early: CorpusAnswer, pending: Pending) -> None:
    """The BM25 answer shown while the model loads or embeds."""
    with placeholder.container(border=True, key="cp_early"):
        st.caption(
            f"**BM25 answer** while the model embeds {pending.texts:,} texts; the "
            f"{config.retriever} answer replaces it when they are done."
        )
        widgets.verdict_box(early.verdict)
        st.dataframe(
            [{"rank": h.rank, "document": h.doc, "chunk": h.index} for h in early.hits],
            hide_index=True,
            key="cp_early_hits",
        )


answer: CorpusAnswer | None = None
placeholder = st.empty()
if question:
    answer = widgets.answer_bm25_first(
        corpus, list(docs), config, question, phrases, k=state.cp_k, budget=state.cp_budget,
        early=draw_early,
    )  # fmt: skip
    if answer is not None:
        placeholder.empty()
else:
    st.caption("Type a question to see which chunks of which documents a retriever returns.")

if answer is not None:
    if answer.verdict:
        widgets.verdict_box(answer.verdict)
        st.dataframe(corpus_view.evidence_rows(answer), hide_index=True, key="cp_evidence_table")
    groups = corpus_view.group_hits(answer)
    st.markdown(
        f"**Top {len(answer.hits)} of {len(answer.ranking):,} chunks** in "
        f"{sum(1 for g in groups if g.hits)} of {len(docs)} documents ({config.retriever}); an "
        f"LLM would receive **{answer.tokens:,} tokens** (cl100k)."
    )
    for group in groups:
        with st.container(border=True, key=f"cp_doc_{frame.content_sha(group.doc.encode())[:8]}"):
            best = f"best hit #{group.best}, " if group.hits else "no hit, "
            st.markdown(
                f"**{md_escape(group.doc)}** · {n_of(len(group.hits), 'hit')}"
                f" · {best}"
                f"{group.tokens:,} tokens of context"
            )
            if group.hits:
                st.dataframe(
                    corpus_view.hit_rows(group, chunks[group.doc], count=count),
                    hide_index=True,
                    key=f"cp_hits_{group.doc}",
                )
            with st.container(horizontal=True):
                for h in group.hits:
                    target = corpus_view.open_at_hit(
                        answer,
                        h,
                        chunks[h.doc],
                        config=config,
                        k=state.cp_k,
                        budget=state.cp_budget,
                        evidence=state.cp_evidence,
                        uploaded=h.doc not in SAMPLES,
                    )
                    entry = raw.get(h.doc)
                    if entry is None and h.doc in folder_paths:
                        data = folder_paths[h.doc].read_bytes()
                        entry = (document_name(folder_paths[h.doc]), frame.content_sha(data), data)
                    page = chunks[h.doc][h.index].page_start
                    st.button(
                        f"Open at #{h.rank}" + (f" (page {page})" if page else ""),
                        key=f"cp_open_{h.rank}",
                        on_click=open_hit,
                        args=(target, None if h.doc in SAMPLES else entry),
                        help=f"Show {md_text(h.doc)} on the main page with chunk {h.index} "
                        "selected",
                    )
if state.pop("cp_open", False):
    st.switch_page(EXPLORE)

# --------------------------------------------------------------------------- retrieval map

st.subheader("What a query set never reaches", anchor=False)
st.caption(
    "Every question of a query set asked of the whole corpus: the text no question's context "
    "reaches (grey), and the chunks that turn up among the top k of many questions they do not "
    "answer (red, with the count of those questions)."
)
sets = {p.name: p for p in sorted(resources.query_sets_dir().glob("*.json"))}
set_col, run_col = st.columns([3, 1], vertical_alignment="bottom")
set_col.selectbox(
    "Query set", [None, *sets], key="cp_set", format_func=lambda s: "—" if s is None else s
)
queries = []
if state.get("cp_set") in sets:
    try:
        queries = [q for q in load_queries(sets[state.cp_set]) if q.doc in docs]
    except ExplorerError as exc:
        widgets.message("error", str(exc))
corpus_key = tuple((n, d.key) for n, d in docs.items())
map_key = (corpus_key, config.to_spec(), state.get("cp_set"), state.cp_k)
widgets.cancelled_note("cp_map_cancelled")
if run_col.button(
    f"Run {len(queries)} questions", key="cp_map_run", disabled=not queries, type="primary"
):
    progress, bar = widgets.progress_bar("Answering the query set", cancel="cp_map_cancelled")
    try:
        report = evaluate(
            queries, corpus, config, ks=(state.cp_k,), budgets=(), progress=progress,
            scope="corpus",
        )  # fmt: skip
        state.cp_map = (map_key, report.coverage_at_k[state.cp_k], retrieval_map(report, corpus))
    except ExplorerError as exc:
        widgets.message("error", str(exc))
    finally:
        bar.empty()
if state.get("cp_set") and not queries:
    st.caption("None of its questions asks about a document of this corpus.")
elif state.cp_map is not None and state.cp_map[0] == map_key:
    _, coverage, reach = state.cp_map
    reach = {n: r for n, r in reach.items() if n in docs}
    st.markdown(
        f"Coverage@{state.cp_k} over the corpus: **{coverage:.0%}** of {len(queries)} questions."
    )
    st.dataframe(corpus_view.reach_rows(reach), hide_index=True, key="cp_reach")
    names = list(reach)
    if state.get("cp_map_doc") not in names:
        state.cp_map_doc = names[0]
    st.selectbox("Show on the page", names, key="cp_map_doc")
    shown: DocumentReach = reach[state.cp_map_doc]
    shown_doc = docs[state.cp_map_doc]
    if shown.always:
        st.dataframe(
            [
                {
                    "chunk": c.index,
                    "questions": c.questions,
                    "unrelated": c.unrelated,
                    "first words": first_words(chunks[shown.doc][c.index].text),
                }
                for c in shown.always
            ],
            hide_index=True,
            key="cp_always",
        )
    highlights = corpus_view.reach_highlights(shown, chunks[shown.doc])
    st.html(document_html(shown_doc.key, highlights_key(highlights), shown_doc, highlights))
