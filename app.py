"""Chunk Explorer: see what chunking does to a document before you build a RAG index.

Run with ``streamlit run app.py``. The page reads top to bottom as the UI does: cached work,
callbacks, the sidebar (document, chunking, embedding, view), then the overview, the query
panel (question, evidence, hits and verdict), the document with its chunks or hits, the
selected chunk, charts, the table and the export.

The embedding model (and ``sentence_transformers``, slow to import) is loaded only when a
question is asked with the dense or hybrid retriever, or the semantic splitter is picked.
"""

from __future__ import annotations

import hashlib
import html
import json
from collections.abc import Sequence

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from explorer.answer import Answer, Retriever
from explorer.chunking.adapters import ADAPTERS, LibraryChunking, adapter_settings, split_library
from explorer.chunking.diagnostics import ISSUES, Diagnosis, diagnose
from explorer.chunking.diff import ChunkDiff, diff_chunks
from explorer.chunking.export import chunk_record, manifest, to_jsonl
from explorer.chunking.measures import (
    DEFAULT_ENCODING,
    MODEL_WINDOW,
    UNITS,
    Measure,
    Units,
    get_measure,
)
from explorer.chunking.splitters import RECURSIVE_LEVELS, Chunk, ChunkSettings, split
from explorer.chunking.splitters import embedded_text as embedded
from explorer.config import Config
from explorer.documents import Document, load_document
from explorer.errors import ExplorerError
from explorer.evaluation import queries as query_sets
from explorer.evaluation.lessons import Lesson, Setting
from explorer.progress import Progress
from explorer.retrieval import evidence
from explorer.retrieval.embeddings import BUNDLED, Embedder, shared_store
from explorer.retrieval.index import DENSE_SOURCES, RETRIEVERS, Hit
from ui import charts, evaluate_view, render
from ui import view as pipeline

st.set_page_config(page_title="Chunk Explorer", page_icon="🧩", layout="wide")

# --------------------------------------------------------------------------- cached work
# Keys are content keys (the bytes' hash and the document kind: see content_key) and settings
# keys; arguments starting with "_" are not hashed. Nothing here holds one session's state:
# uploads, questions and selections live in st.session_state.


@st.cache_resource(show_spinner=False)
def measure(unit: str, encoding: str = DEFAULT_ENCODING) -> Measure:
    return get_measure(unit, encoding)


# Documents, chunks and diagnoses are st.cache_resource, not st.cache_data: cache_data unpickles a
# fresh copy on every rerun (1.7 s for a 4-million-character document's 16,000 chunks) and keeps
# the pickled copy besides. They are frozen records, never changed after they are made, and keyed
# by content, so sharing one object between the sessions that load the same bytes reveals
# nothing: a session only reaches an entry by holding the same bytes.


@st.cache_resource(max_entries=8, show_spinner="Reading the document…")
def load(sha256: str, name: str, _data: bytes) -> Document:
    return load_document(_data, name=name)


@st.cache_resource(max_entries=16, show_spinner="Chunking…")
def chunk(doc_key: str, settings_key: str, _doc: Document, _settings: ChunkSettings) -> list[Chunk]:
    return split(_doc, _settings)


@st.cache_resource(show_spinner=False)
def embedder_of(model: str) -> Embedder:
    """One embedder per model name, its model not loaded yet: its vectors are cached by exact
    text, so a changed setting embeds only the chunks whose text changed, and kept in the
    lasting index on disk, so reopening the app embeds nothing."""
    return Embedder(model, store=shared_store())


def load_embedder(model: str) -> Embedder:
    """The model's embedder with the model loaded (under a spinner the first time). Raises
    EmbeddingError; a model that failed to load is tried again on the next run."""
    emb = embedder_of(model)
    if emb.loaded:
        return emb
    with st.spinner("Loading the embedding model (the first time takes a while)…"):
        emb.model  # noqa: B018 - load now, and fail here if it cannot load
    return emb


@st.cache_resource(show_spinner=False)
def semantic_memo() -> dict[str, list[Chunk]]:
    """Semantic chunkings by document, settings and model. Not st.cache_data: the progress bar
    drawn while embedding would be replayed from the cache."""
    return {}


@st.cache_resource(max_entries=16, show_spinner=False)
def retriever(
    doc_key: str,
    index_key: str,
    _doc: Document,
    _config: Config,
    _chunks: list[Chunk],
    _embedder: Embedder | None,
) -> Retriever:
    """The chunks ready for retrieval under one ranking (``index_key``): BM25 built on first use,
    vectors embedded on first dense use; each run takes it with its own context settings."""
    return Retriever(
        _doc, _config, chunks=_chunks, embedder=_embedder, units=doc_units(doc_key, _doc)
    )


@st.cache_resource(max_entries=8, show_spinner="Counting the document's tokens…")
def doc_units(doc_key: str, _doc: Document) -> Units:
    """cl100k token units of the whole document, to fill a context to a token budget."""
    return measure("tokens").units(_doc.text)


@st.cache_resource(max_entries=16, show_spinner=False)
def check(
    doc_key: str, settings_key: str, prefix: bool, _doc: Document, _chunks: list[Chunk]
) -> Diagnosis:
    return diagnose(_doc, _chunks, heading_prefix=prefix, model_measure=measure("model-tokens"))


@st.cache_data(max_entries=32, show_spinner="Drawing the document…")
def document_html(
    doc_key: str,
    view_key: str,
    start: int,
    end: int,
    _doc: Document,
    _highlights: list[render.Highlight],
) -> str:
    """The document's ``[start, end)`` window (all of it unless it is long) as HTML."""
    window = render.Window(start, end, len(_doc.text))
    if _doc.kind == "markdown" and not view_key.endswith("|raw"):
        return render.render_markdown(_doc, _highlights, window=window)
    return render.render_text(_doc, _highlights, window=window)


@st.cache_data(max_entries=64, show_spinner="Drawing the page…")
def page_png(
    doc_key: str,
    view_key: str,
    page: int,
    _pdf: bytes,
    _doc: Document,
    _highlights: list[render.Highlight],
) -> bytes:
    return render.render_pdf_page(_pdf, page, _doc, _highlights, zoom=2.0)


@st.cache_data(max_entries=8, show_spinner=False)
def page_count(doc_key: str, _pdf: bytes) -> int:
    return render.pdf_page_count(_pdf)


def answer_json(answer: Answer, chunks: list[Chunk], name: str) -> dict[str, object]:
    """The answer in ``explorer query``'s form, the context's text included."""
    out = answer.to_json(chunks, count=measure("tokens").count)
    out["document"] = name
    return out


@st.cache_resource(max_entries=8, show_spinner="Comparing the versions…")
def version_diff(
    old_key: str,
    new_key: str,
    chunking_key: str,
    _old: Document,
    _old_chunks: list[Chunk],
    _new: Document,
    _new_chunks: list[Chunk],
) -> ChunkDiff:
    return diff_chunks(_old, _old_chunks, _new, _new_chunks)


def check_questions(
    query_set: list[dict[str, object]] | None, name: str, question: str, phrases: list[str]
) -> list[tuple[str, str, tuple[str, ...]]]:
    """The question on the screen and the session's query-set questions about this document."""
    out = [("(this question)", question, tuple(phrases))] if question else []
    for item in query_set or []:
        needs = item.get("evidence")
        if item.get("doc") == name and isinstance(needs, list):
            out.append((str(item["id"]), str(item["query"]), tuple(str(e) for e in needs)))
    return out


@st.cache_data(max_entries=16, show_spinner="Answering the questions on both versions…")
def version_verdicts(
    old_key: str,
    new_key: str,
    config: Config,
    asked: tuple[tuple[str, str, tuple[str, ...]], ...],
    k: int,
    budget: int | None,
    _old: Document,
    _old_chunks: list[Chunk],
    _new: Document,
    _new_chunks: list[Chunk],
) -> list[dict[str, object]]:
    """Each question answered on both versions (the same answer path as the query panel);
    cached on the versions' content keys, the configuration, the questions, k and budget, so a
    rerun that changes none of them answers nothing again."""
    emb = load_embedder(config.model) if config.retriever != "bm25" else None
    before = Retriever(_old, config, chunks=_old_chunks, embedder=emb)
    after = Retriever(_new, config, chunks=_new_chunks, embedder=emb)
    rows = []
    for qid, text, needs in asked:
        was = before.answer(text, needs, k=k, budget=budget)
        now = after.answer(text, needs, k=k, budget=budget)
        rows.append(
            {
                "question": qid,
                "text": text,
                "before": (was.verdict or "").split(":", 1)[0],
                "now": (now.verdict or "").split(":", 1)[0],
                "verdict changed": was.complete != now.complete,
            }
        )
    return rows


@st.cache_resource(max_entries=8, show_spinner="Running the library's splitter…")
def library_chunking(
    doc_key: str, settings_key: str, _doc: Document, _settings: ChunkSettings
) -> LibraryChunking:
    """Another library's chunks, placed in the document and audited."""
    return split_library(_doc, adapter_settings(_settings))


def content_key(doc: Document) -> str:
    """The cache key of a loaded document: its bytes' hash and how they were read. The same
    bytes uploaded as ``.md`` and as ``.txt`` are two documents (one has Markdown structure)."""
    return f"{doc.sha256}:{doc.kind}"


def highlights_key(highlights: Sequence[render.Highlight]) -> str:
    """A cache key for drawn highlights: every field of every one (they are frozen records)."""
    return hashlib.sha256(repr(list(highlights)).encode()).hexdigest()[:16]


def embedding_progress(what: str) -> tuple[Progress, DeltaGenerator]:
    """A progress bar and the callback that moves it."""
    bar = st.progress(0.0, text=f"Embedding {what}…")

    def progress(fraction: float, message: str) -> None:
        bar.progress(fraction, text=f"Embedding {what}: {message}")

    return progress, bar


def draw_early(answer: Answer, chunks: Sequence[Chunk], *, waiting: str) -> None:
    """The BM25 answer shown while the embeddings are computed: its verdict and hits."""
    st.caption(
        f"**BM25 answer** while the model embeds {waiting}; the {state.retriever} answer "
        "replaces it when they are done."
    )
    if answer.verdict:
        kind = pipeline.verdict_kind(answer.verdict)
        show = {"complete": st.success, "incomplete": st.error, "unchecked": st.warning}
        show.get(kind, st.info)(answer.verdict[:1].upper() + answer.verdict[1:])
    if answer.hits:
        st.dataframe(
            pipeline.hit_rows(answer.hits, chunks, count=measure("tokens").count),
            hide_index=True,
            key="early_hits",
        )


def semantic_chunks(doc: Document, settings: ChunkSettings, model: str) -> list[Chunk]:
    """Semantic chunks, embedding the sentence groups (with a progress bar) the first time."""
    key = f"{content_key(doc)}|{settings.key()}|{model}"
    memo = semantic_memo()
    if key not in memo:
        emb = load_embedder(model)
        progress, bar = embedding_progress("sentence groups for the semantic splitter")
        try:
            found = split(
                doc,
                settings,
                embed=lambda texts: emb.embed(texts, progress=progress),
            )
        finally:
            bar.empty()
        pipeline.remember(memo, key, found, keep=16)
    return memo[key]


# --------------------------------------------------------------------------- state & callbacks

UPLOAD_LIMIT_MB = int(st.get_option("server.maxUploadSize"))
START = pipeline.DEMO
state = st.session_state
state.setdefault("uploads", {})  # display name -> (file name, sha256, bytes) of loaded uploads
if "link_read" not in state:  # a link opens the view it names (once, at the session's start)
    state.link_read = True
    opened = pipeline.read_link(
        st.query_params.to_dict(),
        samples={p.name for p in pipeline.sample_paths()},
        uploads=set(state.uploads),
        lessons=pipeline.LESSONS,
    )
    state.update(opened.state)
    state.link_note = opened.note
state.setdefault("upload_error", None)
state.setdefault("present", False)  # presentation mode: the lesson, its verdict, the document
WIDGETS = pipeline.state_of(START.config) | {
    "lesson": pipeline.START_LESSON,  # the lesson picked (the refund demo's first)
    "k": START.k,
    "budget": START.budget,
    "view": "Query hits",
    "source": None,
    "only_flagged": False,
    "raw": False,
    "pdf_view": "Page image",
    "page": 1,
}
"""The main page's widgets and their starting values (kept across visits to other pages)."""
pipeline.persist(state, WIDGETS, kept="main_kept")
state.setdefault("queries", {})  # document -> (question, evidence) last typed for it
state.setdefault("chunk", None)


def read_upload(key: str) -> tuple[str, str, bytes] | None:
    """The file in the uploader ``key``, loaded once: its name, sha256 and bytes; or None, with
    one clear message in ``state.upload_error`` when it cannot be read."""
    file = state[key]
    state.upload_error = None
    if file is None:
        return None
    data = file.getvalue()
    try:
        pipeline.check_upload_size(file.name, len(data), limit_mb=UPLOAD_LIMIT_MB)
        sha = hashlib.sha256(data).hexdigest()
        load(sha, file.name, data)
    except ExplorerError as exc:
        state.upload_error = str(exc)
        return None
    except Exception as exc:  # a bug in a reader: still one clear message, no traceback
        state.upload_error = f"{file.name}: could not be read ({type(exc).__name__}: {exc})"
        return None
    return file.name, sha, data


def on_upload(sample_names: set[str]) -> None:
    """Load an uploaded file; on failure keep the current document and remember the message."""
    read = read_upload("upload")
    if read is None:
        return
    file_name = read[0]
    name = file_name if file_name not in sample_names else f"{file_name} (uploaded)"
    pipeline.remember(state.uploads, name, read)
    state.source = name
    state.chunk = None
    state.page = 1


def on_version_upload() -> None:
    """An earlier version to compare with; a file that cannot be read is one message."""
    read = read_upload("version_upload")
    if read is not None:
        state.version = (f"{read[0]} (uploaded)", *read)


def on_version_pick() -> None:
    name = state.version_pick
    if name is None:
        state.version = None
    elif name in state.uploads:
        file_name, sha, data = state.uploads[name]
        state.version = (name, file_name, sha, data)
    else:
        data = (pipeline.SAMPLES_DIR / name).read_bytes()
        state.version = (name, name, hashlib.sha256(data).hexdigest(), data)


def clear_version() -> None:
    state.version = None
    state.version_pick = None


def library_options(name: str) -> None:
    """A library splitter's own options (its separators, keep_separator, …), kept in
    ``state.options`` as the configuration's flat form has them."""
    spec = ADAPTERS.get(name)
    if spec is None:
        state.options = ""
        return
    st.caption(f"{spec.title}: {spec.note}" if spec.note else spec.title)
    chosen: dict[str, object] = {}
    for opt in spec.options:
        key = f"opt_{name}_{opt.name}"
        if opt.choices:
            value = st.selectbox(opt.name, list(opt.choices), key=key, help=opt.help)
        elif isinstance(opt.default, bool):
            value = st.toggle(opt.name, value=opt.default, key=key, help=opt.help)
        elif isinstance(opt.default, int):
            value = st.number_input(opt.name, value=opt.default, step=1, key=key, help=opt.help)
        elif isinstance(opt.default, str):
            value = st.text_input(opt.name, value=opt.default, key=key, help=opt.help)
        else:
            continue  # a list option: the default
        if value != opt.default:
            chosen[opt.name] = value
    state.options = json.dumps(chosen, sort_keys=True) if chosen else ""


def on_unit() -> None:
    rng = pipeline.SIZE_RANGES[state.unit]
    state.size, state.overlap = rng.default, rng.overlap


def copy_value(src: str, dst: str) -> None:
    state[dst] = state[src]


def open_lesson(name: str | None, repair: int | None = None) -> None:
    """Show lesson ``name`` at its failing setting, or after repair ``repair`` (from 1)."""
    lesson = pipeline.LESSONS.get(name or "")
    if lesson is None:
        return
    for key, value in pipeline.lesson_state(lesson, repair).items():
        state[key] = value
    state.queries[lesson.doc] = (lesson.question, "\n".join(lesson.evidence))
    state.version = None
    state.version_pick = None


def on_lesson() -> None:
    open_lesson(state.lesson)


def set_present(on: bool) -> None:
    state.present = on


def on_source() -> None:
    state.chunk, state.page = None, 1
    state.version = None  # a comparison belongs to the document it was made for
    state.version_pick = None
    state.upload_error = None  # the message was about the file not loaded; a choice ends it


def on_chunk(pages: list[int | None], picker: str | None = None) -> None:
    """Take the picked chunk; for a PDF, turn to the page it starts on."""
    if picker is not None:
        state.chunk = pipeline.valid_chunk(state[picker], len(pages))
    if state.chunk is not None and pages[state.chunk] is not None:
        state.page = pages[state.chunk]


def on_table(shown: list[int], pages: list[int | None]) -> None:
    picked = pipeline.chunk_from_table(state.table.selection.rows, shown)
    if picked is not None:
        state.chunk = picked
        on_chunk(pages)


def turn_page(step: int, n_pages: int) -> None:
    state.page = max(1, min(n_pages, state.page + step))


def go_to_hit(index: int, page: int | None) -> None:
    """Select a hit's chunk and, for a PDF, turn to its page."""
    state.chunk = index
    if page is not None:
        state.page = page


# --------------------------------------------------------------------------- sidebar: document

samples = {p.name: p for p in pipeline.sample_paths()}
sources = [*samples, *state.uploads]
if not sources:
    st.error("No sample documents found in sample_docs/ — upload a file to start.")
if state.get("source") not in sources and sources:
    state.source = START.source if START.source in sources else sources[0]

with st.sidebar:
    if pipeline.LESSONS:
        st.header("Lessons")
        st.selectbox(
            "Boundary lesson",
            [None, *pipeline.LESSONS],
            key="lesson",
            format_func=lambda n: "— none —" if n is None else pipeline.LESSONS[n].title,
            on_change=on_lesson,
            help="Each lesson opens at a setting where the answer is incomplete, says why, and "
            "offers the moves that repair it.",
        )
    for problem in pipeline.LESSON_PROBLEMS:
        st.error(pipeline.md_text(problem))
    st.header("Document")
    st.selectbox("Sample or uploaded document", sources, key="source", on_change=on_source)
    st.file_uploader(
        f"Upload a PDF, Markdown or text file (up to {UPLOAD_LIMIT_MB} MB)",
        type=list(pipeline.UPLOAD_TYPES),
        key="upload",
        on_change=on_upload,
        args=(set(samples),),
    )
    with st.expander("Compare with another version", expanded=state.get("version") is not None):
        st.file_uploader(
            "An earlier version of this document",
            type=list(pipeline.UPLOAD_TYPES),
            key="version_upload",
            on_change=on_version_upload,
            help="What changed since that version: this page tinted unchanged / changed / new "
            "chunk by chunk, the removed chunks listed, and the questions whose verdict changes.",
        )
        st.selectbox(
            "…or one of the documents above",
            [None, *(s for s in sources if s != state.source)],
            key="version_pick",
            format_func=lambda s: "—" if s is None else s,
            on_change=on_version_pick,
        )
        if state.get("version") is not None:
            st.button("Stop comparing", key="version_clear", on_click=clear_version)

if state.upload_error:
    st.error(pipeline.md_text(state.upload_error))
if not sources:
    st.stop()

# each document has its own question and evidence boxes (a run cut short by a document switch
# cannot carry one document's text into another's); what was typed is kept in state.queries
question_key, evidence_key = pipeline.query_keys(state.source)
typed = state.queries.get(state.source) or pipeline.starting_query(state.source)
state.setdefault(question_key, typed[0])
state.setdefault(evidence_key, typed[1])

if state.source in state.uploads:
    file_name, sha, data = state.uploads[state.source]
else:
    file_name, data = state.source, samples[state.source].read_bytes()
    sha = hashlib.sha256(data).hexdigest()
try:
    doc = load(sha, file_name, data)
except ExplorerError as exc:
    st.error(pipeline.md_text(str(exc)))
    st.stop()

doc_key = content_key(doc)

# --------------------------------------------------------------------------- sidebar: settings

rng = pipeline.SIZE_RANGES[state.unit]
state.size = rng.clamp(state.size)
state.overlap = pipeline.clamp_overlap(state.overlap, state.size)
state.size_exact, state.overlap_exact = state.size, state.overlap

with st.sidebar:
    st.header("Chunking")
    st.selectbox(
        "Splitter",
        pipeline.splitter_names(),
        key="splitter",
        format_func=pipeline.splitter_label,
        help=pipeline.splitter_help(),
    )
    st.selectbox(
        "Size unit", UNITS, key="unit", format_func=pipeline.UNIT_LABELS.get, on_change=on_unit
    )
    left, right = st.columns([3, 2], vertical_alignment="bottom")
    left.slider(
        "Chunk size",
        rng.low,
        rng.high,
        key="size",
        on_change=copy_value,
        args=("size", "size_exact"),
    )
    right.number_input(
        "Exact size",
        rng.low,
        rng.high,
        key="size_exact",
        on_change=copy_value,
        args=("size_exact", "size"),
    )
    left, right = st.columns([3, 2], vertical_alignment="bottom")
    left.slider(
        "Overlap",
        0,
        state.size - 1,
        key="overlap",
        on_change=copy_value,
        args=("overlap", "overlap_exact"),
    )
    right.number_input(
        "Exact overlap",
        0,
        state.size - 1,
        key="overlap_exact",
        on_change=copy_value,
        args=("overlap_exact", "overlap"),
    )
    if state.splitter == "recursive":
        st.multiselect(
            "Recursive separators (coarsest first)",
            RECURSIVE_LEVELS,
            key="separators",
            help="Boundaries the recursive splitter may cut at; a hard cut always comes last.",
        )
    if state.splitter == "semantic":
        low, high, _ = pipeline.PERCENTILE_RANGE
        st.slider("Percentile", low, high, key="percentile", help=pipeline.PERCENTILE_HELP)
    library_options(state.splitter)
    st.header("Embedding")
    st.text_input(
        "Embedding model",
        key="model",
        help=(
            f"A sentence-transformers model name (already downloaded) or a local folder, loaded "
            f"offline. Default: the bundled {BUNDLED}. Vectors are cached by model and exact "
            "text, so a settings change embeds only chunks whose text changed."
        ),
    )
    st.radio(
        "Dense scores from",
        DENSE_SOURCES,
        key="dense",
        horizontal=True,
        help=pipeline.DENSE_HELP,
    )
    st.toggle(
        "Prefix heading path",
        key="heading_prefix",
        help='Embed "Heading > Sub" + a blank line + the text, as many pipelines do.',
    )
    st.header("View")
    st.toggle("Show only flagged chunks", key="only_flagged", help="In the Chunks view.")
    if doc.kind == "markdown":
        st.toggle("Raw Markdown source", key="raw")
    if doc.kind == "pdf":
        st.radio("PDF view", ["Page image", "Extracted text"], key="pdf_view", horizontal=True)

model = state.model.strip() or BUNDLED

# --------------------------------------------------------------------------- overview

if state.present:
    st.html(pipeline.PRESENTATION_CSS)
title_row = st.container(key="ce_hide_title")
title_col, link_col = title_row.columns([5, 1], vertical_alignment="bottom")
title_col.title("Chunk Explorer")
link_box = link_col.popover(
    "Copy link",
    icon=":material/link:",
    help="A link that reopens this view: the document (a sample; an upload cannot travel in a "
    "link), the settings, the question, its evidence and the selected chunk.",
)
if state.get("link_note"):
    st.warning(pipeline.md_text(state.link_note))
pages_note = f" · {len(doc.pages)} pages" if doc.pages else ""
title_row.caption(
    f"**{pipeline.md_escape(doc.name)}** · {doc.kind} · {len(doc.text):,} characters{pages_note}"
)

lesson = pipeline.LESSONS.get(state.lesson or "")
lesson_panel = st.container(key="ce_lesson") if lesson and lesson.doc == state.source else None

try:
    config = pipeline.config_of(state)  # the one place the main page builds its configuration
    settings = config.chunking
    library: LibraryChunking | None = None
    if settings.splitter in ADAPTERS:
        chunking_key = settings.key()
        library = library_chunking(doc_key, chunking_key, doc, settings)
        chunks = library.chunks
    elif settings.splitter == "semantic":
        chunking_key = f"{settings.key()}|model={model}"
        chunks = semantic_chunks(doc, settings, model)
    else:
        chunking_key = settings.key()
        chunks = chunk(doc_key, chunking_key, doc, settings)
    diagnosis = check(doc_key, chunking_key, state.heading_prefix, doc, chunks)
except ExplorerError as exc:
    st.error(pipeline.md_text(str(exc)))
    st.stop()

with st.container(key="ce_hide_overview"):
    for warning in doc.warnings:
        st.info(pipeline.md_text(warning))  # warnings may quote the file name or its text
    if doc.normalisation:
        with st.expander("How the text was extracted"):
            for note in doc.normalisation:
                st.text(note)  # plain text: notes quote the document

    sizes = [c.size for c in chunks]
    counts = diagnosis.counts()
    flagged = diagnosis.flagged()
    cols = st.columns(4)
    cols[0].metric("Chunks", len(chunks))
    cols[1].metric(f"Median size ({state.unit})", sorted(sizes)[len(sizes) // 2] if sizes else 0)
    cols[2].metric(f"Largest ({state.unit})", max(sizes, default=0), help=f"limit {settings.size}")
    cols[3].metric("Flagged chunks", len(flagged), help="chunks with at least one issue below")
    cols = st.columns(len(ISSUES))
    for col, issue in zip(cols, ISSUES, strict=True):
        col.metric(issue.label, counts[issue.code], help=f"Chunks that {issue.description}.")
    if library is not None:
        audit = library.audit
        st.markdown(
            f"**{pipeline.md_escape(audit.library)} {pipeline.md_escape(audit.version)}**: the "
            "integrity audit of its chunks (each placed in the document; *Show only flagged "
            "chunks* shows the flagged ones)"
        )
        cols = st.columns(6)
        for col, (label, value, tip) in zip(cols, pipeline.audit_metrics(audit), strict=True):
            col.metric(label, value, help=tip)
        lost = [it for it in library.items if it.chunk is None]
        if lost:
            with st.expander(
                f"{len(lost)} chunks not found in the document, as the library gave them"
            ):
                for it in lost:
                    st.code(it.text, language=None, wrap_lines=True)
        with st.expander(f"Reproduce this chunking with {audit.library}"):
            st.caption("Parameters: " + ", ".join(f"{k}={v!r}" for k, v in library.mapping.items()))
            st.code(library.snippet, language="python")
        for message in library.messages:
            st.caption(pipeline.md_text(f"{audit.library}: {message}"))
# --------------------------------------------------------------------------- query panel


def on_add_query(doc_name: str, question_key: str, evidence_key: str) -> None:
    """Append the question to the session's query set (started from the project's set)."""
    if "query_set" not in state:
        state.query_set = evaluate_view.bundled_query_set(pipeline.QUERY_SET)
    try:
        state.query_set, new = query_sets.add_query(
            state.query_set,
            doc=doc_name,
            query=state[question_key],
            evidence=pipeline.evidence_phrases(state[evidence_key]),
        )
    except ExplorerError as exc:
        new, message = None, str(exc)
    else:
        message = (
            f"Added as {new}: {len(state.query_set)} questions in the set. Run them on the "
            "Evaluate page."
            if new
            else "This question and its evidence are already in the query set."
        )
    state.add_notice = ("ok" if new else "info", message, state[question_key])


with st.container(key="ce_hide_ask"):
    st.subheader("Ask the document", anchor=False)
    ask_col, evidence_col = st.columns([3, 2], gap="large")
    with ask_col:
        st.text_input("Question", key=question_key, placeholder="What would a user ask?")
        row = st.columns([2, 3, 3])
        row[0].selectbox("Retriever", RETRIEVERS, key="retriever", help=pipeline.RETRIEVER_HELP)
        row[1].slider("Top k", 1, pipeline.TOP_K_MAX, key="k", help="How many chunks to retrieve.")
        row[2].slider(
            "Neighbours (± chunks)",
            0,
            pipeline.NEIGHBOURS_MAX,
            key="neighbours",
            disabled=state.section,
            help="Small-to-big: send each hit together with this many chunks on either side.",
        )
        # two by two: four labels in one row of this column are cut short with "…"
        left, right = st.columns(2)
        left.toggle(
            "Widen to section",
            key="section",
            help="Send the whole section (heading to the next heading of its level) around a hit.",
        )
        right.toggle(
            "Merge touching hits",
            key="merge",
            help="Send text shared by hits (overlap, touching chunks, shared neighbours) once.",
        )
        left.toggle("Table headers", key="table_headers", help=pipeline.TABLE_HEADERS_HELP)
        right.toggle("Fill to budget", key="fill", help=pipeline.FILL_HELP)
        left, right = st.columns(2, vertical_alignment="bottom")
        left.slider(
            "Carry from previous",
            min_value=pipeline.CARRY_RANGE[0],
            max_value=pipeline.CARRY_RANGE[1],
            step=pipeline.CARRY_RANGE[2],
            key="carry",
            help=pipeline.CARRY_HELP,
        )
        right.selectbox(
            "Token budget",
            pipeline.BUDGETS,
            key="budget",
            format_func=pipeline.budget_label,
            help=pipeline.BUDGET_HELP,
        )
    with evidence_col:
        st.text_area(
            "Required evidence (one phrase per line)",
            key=evidence_key,
            height=110,
            help="Phrases a correct answer needs. Matching ignores case, line breaks and quote or "
            "dash styles.",
        )
        st.button(
            "Add to the query set",
            key="add_query",
            on_click=on_add_query,
            args=(state.source, question_key, evidence_key),
            disabled=not (state[question_key].strip() and state[evidence_key].strip()),
            help="Keep this question and its evidence in the query set the Evaluate page runs "
            "(download it there).",
        )
        notice = state.get("add_notice")
        if notice and notice[2] == state[question_key]:  # about the question on the screen
            (st.success if notice[0] == "ok" else st.info)(pipeline.md_text(notice[1]))
state.queries[state.source] = (state[question_key], state[evidence_key])
question = state[question_key].strip()
phrases = pipeline.evidence_phrases(state[evidence_key])
if state.source == START.source and question == START.question and lesson_panel is None:
    st.caption(START.hint)

answer: Answer | None = None
ranking: list[Hit] = []
hits: list[Hit] = []
results: list[evidence.Evidence] = []
context: list[tuple[int, int]] = []
if question and chunks:
    early = st.empty()  # the BM25 answer, while the model loads and embeds
    emb: Embedder | None = None
    drew_early = False
    try:
        emb = embedder_of(model) if config.retriever != "bm25" else None
        ready = retriever(doc_key, config.index_key(), doc, config, chunks, emb).using(config)
        if emb is not None:  # embed the texts not seen before, with a progress bar
            emb.prefetch([*ready.index.dense_texts, question])  # the lasting index first
            todo = len({t for t in ready.index.dense_texts if not emb.cached(t)})
            what = "passages" if config.dense == "passages" else "chunk texts"
            if todo or not (emb.loaded or emb.cached(question)):
                lexical = config.replace(retriever="bm25")
                first = retriever(doc_key, lexical.index_key(), doc, lexical, chunks, None)
                with early.container(border=True, key="early_answer"):
                    draw_early(
                        first.using(lexical).answer(
                            question, phrases, k=state.k, budget=state.budget
                        ),
                        chunks,
                        waiting=f"{todo:,} {what}" if todo else "the question",
                    )
                drew_early = True
            if todo or not emb.cached(question):
                load_embedder(model)
            if todo:
                progress, bar = embedding_progress(f"{todo:,} {what} with {model}")
                try:
                    emb.embed(ready.index.dense_texts, progress=progress)
                finally:
                    bar.empty()
        answer = ready.answer(question, phrases, k=state.k, budget=state.budget)
        early.empty()  # the full answer replaces the BM25 one
    except ExplorerError as exc:
        st.error(
            f"{pipeline.md_text(str(exc))}  \nThe {config.retriever} retriever needs the model; "
            "bm25 works without it" + (" (its answer is shown above)." if drew_early else ".")
        )
    if answer is not None:
        ranking, hits = list(answer.ranking), list(answer.hits)
        results, context = list(answer.evidence), list(answer.context)
    asked = f"{state.source}\n{question}"
    if hits and state.get("asked") != asked:  # a new question: show its hits, best one first
        state.asked = asked
        if state.view == "Chunks":
            state.view = "Query hits"
        if chunks[hits[0].index].page_start is not None:
            state.page = chunks[hits[0].index].page_start
elif not question:
    st.caption("Type a question to see which chunks a retriever would return for it.")


# --------------------------------------------------------------------------- the lesson


def draw_lesson(panel: DeltaGenerator, lesson: Lesson, step: int | None) -> None:
    """The lesson above the query panel: its title, where it stands, why it fails, a button per
    repair, the reset, presentation mode and the links that reopen it."""
    with panel:
        st.subheader(f"Lesson: {lesson.title}", anchor=False)
        if state.present:
            st.html(f'<p class="ce-question">{html.escape(lesson.question)}</p>')
            if answer is not None and answer.verdict:
                kind = pipeline.verdict_kind(answer.verdict)
                show = {"complete": st.success, "incomplete": st.error}.get(kind, st.warning)
                show(pipeline.md_text(answer.verdict[:1].upper() + answer.verdict[1:]))
        st.markdown(pipeline.lesson_status(lesson, step))
        st.markdown(f"**Why it fails:** {pipeline.md_text(lesson.why)}")
        if lesson.note:
            with st.expander("More for the class"):
                st.markdown(pipeline.md_text(lesson.note))
        with st.container(horizontal=True, key="lesson_moves"):
            for n, move in enumerate(lesson.repairs, 1):
                st.button(
                    f"Repair {n}: {move.label}",
                    key=f"repair_{n}",
                    type="primary" if step == n else "secondary",
                    on_click=open_lesson,
                    args=(lesson.name, n),
                    help=move.why or None,
                )
            st.button(
                "Reset to the failing setting",
                key="lesson_reset",
                icon=":material/restart_alt:",
                on_click=open_lesson,
                args=(lesson.name,),
                disabled=step == 0,
            )
            st.button(
                "Leave presentation" if state.present else "Present",
                key="present_toggle",
                icon=":material/co_present:",
                on_click=set_present,
                args=(not state.present,),
                help="Presentation mode: larger text, no sidebar, only the lesson, the question, "
                "the verdict and the document.",
            )
        if not state.present:
            with st.expander("Links to this lesson and its repairs"):
                for label, params in pipeline.lesson_links(lesson):
                    st.caption(pipeline.md_text(label))
                    st.code(pipeline.link_url(st.context.url, params), language=None)


lesson_step: int | None = None
if lesson is not None and lesson_panel is not None:
    lesson_step = pipeline.lesson_step(
        lesson,
        source=state.source,
        question=question,
        evidence=phrases,
        setting=Setting(config, state.k, state.budget),
    )
    draw_lesson(lesson_panel, lesson, lesson_step)

with st.container(key="ce_hide_results"):
    if answer is not None and not hits:
        st.warning(pipeline.context_note(answer, length=len(doc.text)))
    if hits:
        if phrases:
            verdict = evidence.verdict(results)
            show = {"complete": st.success, "incomplete": st.error, "unchecked": st.warning}
            show.get(pipeline.verdict_kind(verdict), st.info)(verdict[:1].upper() + verdict[1:])
            st.dataframe(
                pipeline.evidence_rows(results),
                hide_index=True,
                key="evidence_table",
                column_config={"phrase": st.column_config.TextColumn(width="large")},
            )
        else:
            st.caption("Add evidence phrases to check that the retrieved text holds them.")
        hits_col, context_col = st.columns([3, 2], gap="large")
        with hits_col:
            st.markdown(f"**Top {len(hits)} of {len(ranking)} chunks** ({config.retriever})")
            rows = pipeline.hit_rows(hits, chunks, count=measure("tokens").count)
            small = st.column_config.NumberColumn(width="small")
            score = st.column_config.NumberColumn(format="%.4f", width="small")
            st.dataframe(
                rows,
                hide_index=True,
                key="hits",
                column_order=[k for k in rows[0] if k != "pages" or doc.pages],
                column_config={
                    **dict.fromkeys(("rank", "chunk", "tokens"), small),
                    "score": score,
                    "carried": st.column_config.NumberColumn(
                        format="%.4f",
                        width="small",
                        help="The part of the score carried from the chunk before it (Carry from "
                        "previous).",
                    ),
                    "pages": st.column_config.TextColumn(width="small"),
                },
            )
        with context_col:
            st.markdown("**What the LLM gets**")
            assert answer is not None
            st.markdown(pipeline.context_note(answer, length=len(doc.text)))
            with st.expander("The answer as JSON (what `explorer query` prints)"):
                st.json(answer_json(answer, chunks, doc.name), expanded=2)
            with st.container(horizontal=True, key="jumps"):
                for h in hits:
                    page_of_hit = chunks[h.index].page_start
                    st.button(
                        f"#{h.rank} → page {page_of_hit}" if page_of_hit else f"Show #{h.rank}",
                        key=f"jump_{h.rank}",
                        on_click=go_to_hit,
                        args=(h.index, page_of_hit),
                        help=f"Select chunk {h.index}"
                        + (" and turn to its page" if page_of_hit else ""),
                    )

# --------------------------------------------------------------------------- document & chunk

shown = pipeline.visible_indices(chunks, diagnosis, only_flagged=state.only_flagged)
state.chunk = selected = pipeline.valid_chunk(state.chunk, len(chunks))
link = pipeline.link_params(
    source=state.source,
    uploaded=state.source in state.uploads,
    config=config,
    question=question,
    evidence=state[evidence_key],
    k=state.k,
    budget=state.budget,
    chunk=selected,
    view=state.view,
    page=state.page if doc.kind == "pdf" else None,
    lesson=lesson.name if lesson is not None and lesson_step is not None else None,
    repair=lesson_step,
    present=state.present,
)
st.query_params.from_dict(link)  # the address bar always holds this view's link
with link_box:
    st.caption("This view, as a link:")
    st.code(pipeline.link_url(st.context.url, link), language=None, wrap_lines=True)
    if state.source in state.uploads:
        st.caption(f"{state.source} was uploaded: whoever opens the link must upload it too.")
pages = [c.page_start for c in chunks]
marks = pipeline.evidence_highlights(results, context)
changes: ChunkDiff | None = None
old_doc: Document | None = None
old_chunks: list[Chunk] = []
if state.get("version") is not None and settings.splitter != "semantic":
    label, old_name, old_sha, old_data = state.version
    try:
        old_doc = load(old_sha, old_name, old_data)
        old_chunks = chunk(content_key(old_doc), chunking_key, old_doc, settings)
        changes = version_diff(
            content_key(old_doc), doc_key, chunking_key, old_doc, old_chunks, doc, chunks
        )
    except ExplorerError as exc:
        st.error(pipeline.md_text(str(exc)))
# presentation mode selects nothing but outlines the best hit and brings it into view
outlined = selected if selected is not None or not state.present or not hits else hits[0].index
views = [*(pipeline.VIEWS if ranking else ["Chunks"]), *(["Changes"] if changes else [])]
view = state.view if state.view in views else "Chunks"
if view == "Changes" and changes is not None:
    highlights = pipeline.change_highlights(changes, chunks, selected=selected)
elif view == "Query hits":
    highlights = [
        *pipeline.context_highlights(answer.pieces if answer else (), hits, chunks, doc.text),
        *(pipeline.fill_highlights(answer, chunks, doc.text) if answer else []),
        *pipeline.hit_highlights(hits, chunks, selected=outlined),
    ]
elif view == "Heat":
    highlights = pipeline.heat_highlights(ranking, chunks, selected=selected)
else:
    highlights = render.chunk_highlights([chunks[i] for i in shown], selected=selected)
highlights += marks
view_key = f"{view}|{highlights_key(highlights)}"

# the view and the chunk picker above the document; the document takes the width, and shares it
# with the chunk's details only while a chunk is selected
with st.container(key="ce_hide_view"):
    view_col, pick_col = st.columns([3, 2], vertical_alignment="bottom", gap="large")
    with view_col:
        if len(views) > 1:
            st.radio(
                "Show on the document",
                views,
                key="view",
                horizontal=True,
                help="Chunks: every chunk in its own colour. Query hits: the retrieved chunks with "
                "their rank, and (grey, +) the text widening adds. Heat: every chunk tinted by its "
                "score. Changes: each chunk as unchanged, changed or new since the other version. "
                "Evidence phrases are underlined: green if retrieved, red if not.",
            )
        else:
            st.caption(
                "Every chunk in its own colour. Ask a question to see its hits or a heat map."
            )
    with pick_col:
        options = shown if selected is None or selected in shown else sorted([selected, *shown])
        # a fresh picker for each document and settings: the browser never sends back a label
        # from other chunks; the choice itself lives in state.chunk
        options_key = f"{doc_key}|{chunking_key}|{state.heading_prefix}|{state.only_flagged}"
        picker = "pick_" + hashlib.sha256(options_key.encode()).hexdigest()[:12]
        state[picker] = selected
        st.selectbox(
            "Selected chunk",
            options,
            key=picker,
            placeholder="Pick a chunk to outline it and see its details",
            format_func=lambda i: pipeline.chunk_label(chunks[i]),
            on_change=on_chunk,
            args=(pages, picker),
        )
        if selected is None:
            st.caption("Pick a chunk here or in the table below to see its details.")

detail_col: DeltaGenerator | None = None
if selected is None or state.present:
    doc_col = st.container(key="doc_area")
else:
    doc_col, detail_col = st.columns([2, 1], gap="large")
with doc_col:
    if view == "Heat":
        st.html(pipeline.heat_legend_html(ranking))
    if view == "Chunks" and state.only_flagged and not shown:
        st.info("No chunk has an issue at these settings; nothing is highlighted.")
    if doc.kind == "pdf" and state.pdf_view == "Page image":
        n_pages = page_count(doc_key, data)
        state.page = max(1, min(n_pages, state.page))
        nav = st.columns([1, 2, 1, 3], vertical_alignment="bottom")
        nav[0].button("◀ Prev", on_click=turn_page, args=(-1, n_pages), key="prev_page")
        nav[1].number_input("Page", 1, n_pages, key="page")
        nav[2].button("Next ▶", on_click=turn_page, args=(1, n_pages), key="next_page")
        page = state.page
        on_page = [h for h in highlights if pipeline.span_on_page(doc, h.start, h.end, page)]
        if view == "Query hits":
            here = [h for h in hits if pipeline.on_page(chunks[h.index], page)]
            listed = ", ".join(f"#{h.rank}" for h in here) or "none"
            nav[3].caption(f"of {n_pages} · hits on this page: {listed}")
        else:
            tinted = [h.index for h in on_page if not h.underline]
            listed = pipeline.describe_indices(tinted) or "none"
            nav[3].caption(f"of {n_pages} · chunks on this page: {listed}")
        png = page_png(doc_key, view_key, page, data, doc, on_page)
        st.image(png, caption=f"{pipeline.md_escape(doc.name)}, page {page}", output_format="PNG")
    else:
        raw = doc.kind == "markdown" and state.raw
        # a long document is drawn a window at a time, around the selected chunk or best hit
        focus = selected if selected is not None else hits[0].index if hits else None
        window = render.window(doc.text, None if focus is None else chunks[focus].start)
        if not window.whole:
            earlier, later = pipeline.window_steps(window, chunks)
            nav = st.columns([2, 7, 2], vertical_alignment="center")
            nav[1].caption(pipeline.window_note(window, chunks))
            for col, label, step, where in (
                (nav[0], "◀ Earlier", earlier, "before"),
                (nav[2], "Later ▶", later, "after"),
            ):
                col.button(
                    label,
                    key=f"window_{label.strip('◀▶ ').lower()}",
                    on_click=go_to_hit,
                    args=(step, None),
                    disabled=step is None,
                    help=f"Select the chunk just {where} this part of the document",
                )
        with st.container(height=720, key="doc_view"):
            st.html(
                document_html(
                    doc_key,
                    view_key + ("|raw" if raw else ""),
                    window.start,
                    window.end,
                    doc,
                    highlights,
                )
            )
        if outlined is not None:  # our own script, no document content: bring the chunk into view
            st.html(pipeline.scroll_script(outlined), unsafe_allow_javascript=True)

if state.present:  # presentation mode: the lesson, its verdict and the document only
    st.stop()

if detail_col is not None and selected is not None:
    with detail_col:
        c = chunks[selected]
        issues = diagnosis.issues[selected]
        st.subheader(f"Chunk #{c.index}", anchor=False)
        rank_note = next(
            (
                f"; ranked {evidence.ordinal(h.rank)} for the question"
                for h in ranking
                if h.index == selected
            ),
            "",
        )
        st.caption(f"{len(chunks)} chunks, numbered from 0 as in the export{rank_note}")
        if issues:
            st.warning(
                "  \n".join(f"**{i.label}**: {i.description}" for i in ISSUES if i.code in issues)
            )
        st.html(pipeline.facts_html(pipeline.chunk_facts(chunks, selected, unit=state.unit)))
        size_cols = st.columns(4)
        for col, (label, n) in zip(
            size_cols, pipeline.sizes_in_every_measure(c.text).items(), strict=True
        ):
            col.metric(label, n)
        whole = (
            f"{diagnosis.model_tokens[selected]} of {MODEL_WINDOW} word pieces (with the 2 "
            "special tokens)"
        )
        st.caption(
            f"Embedded whole: {whole}."
            if state.dense == "chunks"
            else f"As one text it would be {whole}; here its passages are embedded instead."
        )

if selected is not None:
    text_col, embed_col = st.columns(2)
    text_col.markdown(f"**Chunk {selected}: displayed text**")
    text_col.code(chunks[selected].text, language=None, wrap_lines=True)
    prefix_note = "heading path prefixed" if state.heading_prefix else "no prefix; see the sidebar"
    if state.dense == "passages":
        texts = pipeline.embedded_passages(
            doc, chunks[selected], heading_prefix=state.heading_prefix
        )
        embed_col.markdown(
            f"**Chunk {selected}: the passages that score it** ({len(texts)}; "
            f"{prefix_note}; its dense score is the best of theirs)"
        )
        embed_col.code(pipeline.PASSAGE_SEPARATOR.join(texts), language=None, wrap_lines=True)
    else:
        embed_col.markdown(f"**Chunk {selected}: text that is embedded** ({prefix_note})")
        embed_col.code(
            embedded(chunks[selected], heading_prefix=state.heading_prefix),
            language=None,
            wrap_lines=True,
        )

# --------------------------------------------------------------------------- versions

if changes is not None and old_doc is not None:
    label = state.version[0]
    st.subheader(f"What changed since {label}", anchor=False)
    counts = changes.counts()
    cols = st.columns(5)
    for col, (name, key, tip) in zip(
        cols,
        (
            ("Unchanged", "unchanged", "Chunks with the same id: their index records stay."),
            ("Changed", "changed", "New chunks over text that changed: they replace old ones."),
            ("New", "added", "New chunks over new text."),
            ("Removed", "removed", "Old chunks whose text is gone."),
            ("To embed", "reembed", "Distinct new texts an index must embed."),
        ),
        strict=True,
    ):
        col.metric(name, counts[key], help=tip)
    st.caption(
        f"An index updated from {label} deletes {counts['stale']} stale records (the removed "
        "chunks and those the changed ones replace), so old text does not stay searchable."
    )
    st.html(pipeline.change_legend_html())
    if changes.removed:
        with st.expander(f"The {len(changes.removed)} removed chunks (from {label})"):
            for ref in changes.removed:
                st.markdown(f"**Chunk {ref.index} of {pipeline.md_escape(label)}**")
                st.code(old_doc.text[ref.start : ref.end], language=None, wrap_lines=True)
    to_check = [
        q
        for q in check_questions(state.get("query_set"), doc.name, question, phrases)
        if q[2]  # with evidence
    ]
    if to_check:
        rows = version_verdicts(
            content_key(old_doc),
            doc_key,
            config,
            tuple(to_check),
            state.k,
            state.budget,
            old_doc,
            old_chunks,
            doc,
            chunks,
        )
        flips = [r for r in rows if r["verdict changed"]]
        st.markdown(
            f"**{len(flips)} of {len(rows)} questions change verdict** from "
            f"{pipeline.md_escape(label)} to this version."
        )
        st.dataframe(rows, hide_index=True, key="version_verdicts")

# --------------------------------------------------------------------------- charts

left, right = st.columns(2)
left.plotly_chart(charts.size_histogram(sizes, limit=settings.size, unit=state.unit), key="hist")
right.plotly_chart(
    charts.size_along(sizes, limit=settings.size, unit=state.unit, flagged=flagged), key="along"
)

# --------------------------------------------------------------------------- table & export

st.subheader("Chunks")
st.dataframe(
    pipeline.chunk_rows(chunks, diagnosis, shown),
    key="table",
    on_select=lambda: on_table(shown, pages),
    selection_mode="single-row",
    hide_index=True,
)
stem = doc.name.rsplit(".", 1)[0]
left, right, _ = st.columns([1, 1, 3])
left.download_button(
    "Download chunks (JSONL)",
    lambda: to_jsonl(chunk_record(doc, settings, one) for one in chunks),
    file_name=f"{stem}.chunks.jsonl",
    mime="application/jsonl",
    on_click="ignore",
)
right.download_button(
    "Download manifest (JSON)",
    lambda: json.dumps(manifest(doc, settings, chunks), indent=2, ensure_ascii=False),
    file_name=f"{stem}.manifest.json",
    mime="application/json",
    on_click="ignore",
)

state.main_kept.update({key: state[key] for key in WIDGETS if key in state})  # this run's last word
