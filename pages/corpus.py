"""Corpus: ask many documents at once, as a RAG index over a whole docs site would be asked.

The page reads top to bottom: the documents (bundled samples, the evaluation documents, uploads,
a folder on this machine), their overview, the question and its evidence, the hits grouped by
document (each opens its document at the hit on the main page), and the retrieval map of a query
set: the text no question reaches and the chunks that many unrelated questions retrieve.

Every document is chunked under the main page's configuration; one ranking runs over all their
chunks (:class:`explorer.Corpus`). While the embeddings are computed, the BM25 answer is shown.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import plotly.graph_objects as go
import streamlit as st

from explorer import resources
from explorer.chunking.diagnostics import Diagnosis, diagnose
from explorer.chunking.measures import get_measure
from explorer.chunking.splitters import Chunk
from explorer.config import Config
from explorer.corpus import CorpusAnswer
from explorer.documents import Document, load_document
from explorer.documents.folder import Loaded, load_folder
from explorer.errors import ExplorerError
from explorer.evaluation import queries as query_sets
from explorer.evaluation.coverage import Workspace, evaluate
from explorer.evaluation.reach import DocumentReach, retrieval_map
from explorer.progress import Progress
from ui import corpus_view as cv
from ui import render
from ui import view as pipeline

st.set_page_config(page_title="Chunk Explorer · Corpus", page_icon="🧩", layout="wide")
state = st.session_state
MAIN_PAGE = "app.py"
KEPT = "corpus_kept"
SAMPLES = {p.name: p for p in pipeline.sample_paths()}
EVAL_DOCS_DIR = resources.query_sets_dir() / "docs"
EVAL_DOCS = {
    p.name: p
    for p in sorted(EVAL_DOCS_DIR.iterdir() if EVAL_DOCS_DIR.is_dir() else [])
    if p.suffix.lower().lstrip(".") in pipeline.UPLOAD_TYPES
}
KEEP_UPLOADS = 50
"""Documents uploaded to the corpus that a session keeps."""

# --------------------------------------------------------------------------- cached work


@st.cache_resource(max_entries=64, show_spinner=False)
def load(sha256: str, name: str, _data: bytes) -> Document:
    return load_document(_data, name=name)


def listing(path: str) -> str:
    """What the folder holds now (names, sizes, times): a file added or changed reloads it."""
    try:
        entries = sorted(
            (e.name, e.stat().st_size, e.stat().st_mtime_ns) for e in Path(path).iterdir()
        )
    except OSError:
        return ""
    return hashlib.sha256(repr(entries).encode()).hexdigest()


@st.cache_resource(max_entries=4, show_spinner="Loading the folder…")
def folder(path: str, listed: str) -> tuple[Loaded, dict[str, bytes]]:
    """The folder's documents and skipped files, and each document's bytes (for its pages);
    ``listed`` is its :func:`listing`."""
    loaded = load_folder(path)
    raw = {d.name: p.read_bytes() for d, p in zip(loaded.documents, loaded.paths, strict=True)}
    return loaded, raw


@st.cache_resource(max_entries=4, show_spinner=False)
def workspace(corpus_key: str, _docs: dict[str, Document]) -> Workspace:
    """The corpus's documents with their chunks and retrievers, kept across reruns (one per
    set of documents: ``corpus_key`` names their contents)."""
    return Workspace(None, documents=_docs)


@st.cache_resource(max_entries=256, show_spinner=False)
def check(doc_key: str, settings_key: str, _doc: Document, _chunks: list[Chunk]) -> Diagnosis:
    return diagnose(_doc, _chunks, model_measure=get_measure("model-tokens"))


@st.cache_data(max_entries=16, show_spinner="Drawing the document…")
def document_html(
    doc_key: str, view_key: str, _doc: Document, _highlights: list[render.Highlight]
) -> str:
    window = render.Window(0, len(_doc.text), len(_doc.text))
    if _doc.kind == "markdown":
        return render.render_markdown(_doc, _highlights, window=window)
    return render.render_text(_doc, _highlights, window=window)


def main_config() -> Config:
    """The main page's configuration (kept across pages), else the recommended one."""
    kept = state.get("main_kept") or {}
    if "splitter" in kept:
        try:
            return pipeline.config_of(kept)
        except ExplorerError:
            pass
    return Config()


# --------------------------------------------------------------------------- state

WIDGETS: dict[str, Any] = {
    "cp_samples": list(SAMPLES),
    "cp_eval_docs": [],
    "cp_uploaded": [],
    "cp_folder": cv.docs_from_argv(),
    "cp_question": pipeline.DEMO.question,
    "cp_evidence": "\n".join(pipeline.DEMO.evidence),
    "cp_k": 5,
    "cp_budget": 1024,
    "cp_set": None,
    "cp_map_doc": None,
}
pipeline.persist(state, WIDGETS, kept=KEPT)
state.setdefault("cp_uploads", {})  # name -> (file name, sha256, bytes)
state.setdefault("cp_upload_errors", [])
state.setdefault("cp_map", None)


def on_upload() -> None:
    """Add every uploaded file that reads; list the others, each with its reason."""
    errors = []
    for file in state.cp_upload or []:
        data = file.getvalue()
        try:
            sha = hashlib.sha256(data).hexdigest()
            load(sha, file.name, data)
        except ExplorerError as exc:
            errors.append(str(exc))
            continue
        except Exception as exc:  # a bug in a reader: still one clear line, no traceback
            errors.append(f"{file.name}: could not be read ({type(exc).__name__}: {exc})")
            continue
        pipeline.remember(state.cp_uploads, file.name, (file.name, sha, data), keep=KEEP_UPLOADS)
        if file.name not in state.cp_uploaded:
            state.cp_uploaded = [*state.cp_uploaded, file.name]
    state.cp_upload_errors = errors


def open_hit(target: dict[str, Any], entry: tuple[str, str, bytes]) -> None:
    """Show the hit's document on the main page at the hit (see :func:`cv.open_at_hit`)."""
    name = target["source"]
    if name not in SAMPLES:  # the main page opens samples and uploads
        pipeline.remember(state.setdefault("uploads", {}), name, entry)
    state.setdefault("main_kept", {}).update(target)
    for key, value in target.items():
        state[key] = value
    question_key, evidence_key = pipeline.query_keys(name)
    state.queries = {**state.get("queries", {}), name: (target[question_key], target[evidence_key])}
    state.cp_open = True


# --------------------------------------------------------------------------- documents

st.title("Corpus", anchor=False)
st.caption(
    "Many documents, one index: every question competes with every chunk of every document, as "
    "it does in a RAG index over a whole docs site."
)
with st.sidebar:
    st.header("Documents")
    st.multiselect("Bundled samples", list(SAMPLES), key="cp_samples")
    st.multiselect(
        "Evaluation documents",
        list(EVAL_DOCS),
        key="cp_eval_docs",
        help="The documents the bundled query sets ask about (public documents and samples).",
    )
    st.file_uploader(
        "Upload PDF, Markdown or text files",
        type=list(pipeline.UPLOAD_TYPES),
        accept_multiple_files=True,
        key="cp_upload",
        on_change=on_upload,
    )
    if state.cp_uploads:
        state.cp_uploaded = [n for n in state.cp_uploaded if n in state.cp_uploads]
        st.multiselect(
            "Uploaded files",
            list(state.cp_uploads),
            key="cp_uploaded",
            help="Files uploaded in this session; take one out of the corpus here.",
        )
    st.text_input(
        "Folder on this machine",
        key="cp_folder",
        placeholder="/path/to/docs",
        help="Every PDF, Markdown and text file in it (not the folders inside). Also: "
        "`streamlit run app.py -- --docs FOLDER`.",
    )

raw: dict[str, tuple[str, str, bytes]] = {}  # name -> (file name, sha256, bytes)
for name in state.cp_samples:
    if name in SAMPLES:
        data = SAMPLES[name].read_bytes()
        raw[name] = (name, hashlib.sha256(data).hexdigest(), data)
for name in state.cp_eval_docs:
    if name in EVAL_DOCS and name not in raw:
        data = EVAL_DOCS[name].read_bytes()
        raw[name] = (name, hashlib.sha256(data).hexdigest(), data)
for name in state.cp_uploaded:
    if name in state.cp_uploads:
        raw.setdefault(name, state.cp_uploads[name])
skipped: list[str] = list(state.cp_upload_errors)
folder_docs: dict[str, Document] = {}
if state.cp_folder.strip():
    try:
        where = state.cp_folder.strip()
        loaded, folder_bytes = folder(where, listing(where))
    except ExplorerError as exc:
        st.error(pipeline.md_text(str(exc)))
    else:
        skipped += [s.reason for s in loaded.skipped]
        for d in loaded.documents:
            if d.name not in raw:
                data = folder_bytes[d.name]
                raw[d.name] = (d.name, hashlib.sha256(data).hexdigest(), data)
                folder_docs[d.name] = d

docs: dict[str, Document] = {}
seen: dict[str, str] = {}  # content -> first name
for name, (file_name, sha, data) in raw.items():
    if name in folder_docs:
        doc = folder_docs[name]
    else:
        try:
            doc = load(sha, file_name, data)
        except ExplorerError as exc:
            skipped.append(str(exc))
            continue
    if doc.sha256 in seen:
        skipped.append(f"{name}: a duplicate of {seen[doc.sha256]} (the same bytes); left out")
        continue
    seen[doc.sha256] = name
    docs[name] = doc

if skipped:
    with st.expander(f"{len(skipped)} files left out", expanded=True):
        for reason in skipped:
            st.markdown(f"- {pipeline.md_text(reason)}")
if not docs:
    st.info("Choose documents in the sidebar: samples, evaluation documents, uploads or a folder.")
    st.stop()

config = main_config()
st.caption(
    f"Configuration from the main page: {pipeline.md_text(pipeline.describe_config(config))}"
)
st.page_link(MAIN_PAGE, label="Change it on the main page", icon=":material/tune:")
corpus_key = hashlib.sha256(
    "\n".join(f"{n}:{d.sha256}:{d.kind}" for n, d in docs.items()).encode()
).hexdigest()
ws = workspace(corpus_key, docs)
try:
    chunks = {n: ws.chunks(n, config) for n in docs}
except ExplorerError as exc:
    st.error(pipeline.md_text(str(exc)))
    st.stop()
settings_key = config.chunking.key()
diagnoses = {n: check(f"{d.sha256}:{d.kind}", settings_key, d, chunks[n]) for n, d in docs.items()}

# --------------------------------------------------------------------------- overview

rows = cv.overview_rows(docs, chunks, diagnoses)
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
    left.slider("Top k", 1, pipeline.TOP_K_MAX, key="cp_k")
    right.selectbox(
        "Token budget",
        pipeline.BUDGETS,
        key="cp_budget",
        format_func=pipeline.budget_label,
        help=pipeline.BUDGET_HELP,
    )
with evidence_col:
    st.text_area("Required evidence (one phrase per line)", key="cp_evidence", height=110)

question = state.cp_question.strip()
phrases = pipeline.evidence_phrases(state.cp_evidence)
count = get_measure("tokens").count


def bar_progress(what: str) -> tuple[Progress, Any]:
    bar = st.progress(0.0, text=f"{what}…")

    def progress(fraction: float, message: str) -> None:
        bar.progress(min(max(fraction, 0.0), 1.0), text=f"{what}: {message}")

    return progress, bar


answer: CorpusAnswer | None = None
if question:
    early = st.empty()
    drew_early = False
    try:
        if config.needs_model and config.retriever != "bm25":
            emb = ws.embedder(config)
            texts = [t for n in docs for t in ws.retriever(n, config).index.dense_texts]
            emb.prefetch([*texts, question])
            todo = len({t for t in texts if not emb.cached(t)})
            if todo or not (emb.loaded or emb.cached(question)):
                lexical = config.replace(retriever="bm25")
                first = ws.corpus(lexical).answer(
                    question, phrases, k=state.cp_k, budget=state.cp_budget
                )
                with early.container(border=True, key="cp_early"):
                    st.caption(
                        f"**BM25 answer** while the model embeds {todo:,} texts; the "
                        f"{config.retriever} answer replaces it when they are done."
                    )
                    if first.verdict:
                        st.info(first.verdict[:1].upper() + first.verdict[1:])
                    st.dataframe(
                        [{"rank": h.rank, "document": h.doc, "chunk": h.index} for h in first.hits],
                        hide_index=True,
                        key="cp_early_hits",
                    )
                drew_early = True
            if todo or not emb.cached(question):
                progress, bar = bar_progress(f"Embedding {todo:,} texts with {config.model}")
                try:
                    ws.prepare(list(docs), config, progress)
                finally:
                    bar.empty()
        answer = ws.corpus(config).answer(question, phrases, k=state.cp_k, budget=state.cp_budget)
        early.empty()
    except ExplorerError as exc:
        st.error(
            f"{pipeline.md_text(str(exc))}  \nThe {config.retriever} retriever needs the model; "
            "bm25 works without it" + (" (its answer is shown above)." if drew_early else ".")
        )
else:
    st.caption("Type a question to see which chunks of which documents a retriever returns.")

if answer is not None:
    if answer.verdict:
        kind = pipeline.verdict_kind(answer.verdict)
        show = {"complete": st.success, "incomplete": st.error, "unchecked": st.warning}
        show.get(kind, st.info)(pipeline.md_text(answer.verdict[:1].upper() + answer.verdict[1:]))
        st.dataframe(cv.evidence_rows(answer), hide_index=True, key="cp_evidence_table")
    groups = cv.group_hits(answer)
    st.markdown(
        f"**Top {len(answer.hits)} of {len(answer.ranking):,} chunks** in "
        f"{sum(1 for g in groups if g.hits)} of {len(docs)} documents ({config.retriever}); an "
        f"LLM would receive **{answer.tokens:,} tokens** (cl100k)."
    )
    for group in groups:
        with st.container(
            border=True, key=f"cp_doc_{hashlib.sha1(group.doc.encode()).hexdigest()[:8]}"
        ):
            best = f"best hit #{group.best}, " if group.hits else "no hit, "
            st.markdown(
                f"**{pipeline.md_escape(group.doc)}** · {pipeline.n_of(len(group.hits), 'hit')}"
                f" · {best}"
                f"{group.tokens:,} tokens of context"
            )
            if group.hits:
                st.dataframe(
                    cv.hit_rows(group, chunks[group.doc], count=count),
                    hide_index=True,
                    key=f"cp_hits_{group.doc}",
                )
            with st.container(horizontal=True):
                for h in group.hits:
                    target = cv.open_at_hit(
                        answer,
                        h,
                        chunks[h.doc],
                        config=config,
                        k=state.cp_k,
                        budget=state.cp_budget,
                        evidence=state.cp_evidence,
                    )
                    page = chunks[h.doc][h.index].page_start
                    st.button(
                        f"Open at #{h.rank}" + (f" (page {page})" if page else ""),
                        key=f"cp_open_{h.rank}",
                        on_click=open_hit,
                        args=(target, raw[h.doc]),
                        help=f"Show {h.doc} on the main page with chunk {h.index} selected",
                    )
if state.pop("cp_open", False):
    st.switch_page(MAIN_PAGE)

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
        queries = [q for q in query_sets.load_queries(sets[state.cp_set]) if q.doc in docs]
    except ExplorerError as exc:
        st.error(pipeline.md_text(str(exc)))
map_key = (corpus_key, config.to_spec(), state.get("cp_set"), state.cp_k)
if run_col.button(
    f"Run {len(queries)} questions", key="cp_map_run", disabled=not queries, type="primary"
):
    progress, bar = bar_progress("Answering the query set")
    try:
        report = evaluate(
            queries, ws, config, ks=(state.cp_k,), budgets=(), progress=progress, scope="corpus"
        )
        state.cp_map = (map_key, report.coverage_at_k[state.cp_k], retrieval_map(report, ws))
    except ExplorerError as exc:
        st.error(pipeline.md_text(str(exc)))
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
    st.dataframe(cv.reach_rows(reach), hide_index=True, key="cp_reach")
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
                    "first words": pipeline.first_words(chunks[shown.doc][c.index].text),
                }
                for c in shown.always
            ],
            hide_index=True,
            key="cp_always",
        )
    highlights = cv.reach_highlights(shown, chunks[shown.doc])
    html = document_html(
        f"{shown_doc.sha256}:{shown_doc.kind}",
        hashlib.sha256(repr(highlights).encode()).hexdigest()[:16],
        shown_doc,
        highlights,
    )
    st.html(html)
