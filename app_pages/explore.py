"""Explore a document: its chunks on the page, a question and the evidence it needs.

The page reads top to bottom as it is drawn: the sidebar's own controls (lessons, the document,
an earlier version, how the document is shown), the title, the lesson, then side by side the
question (its evidence, k and budget, the verdict, the ranking cut where k or the budget stopped
it) and the document with its chunks (a fragment: :mod:`ui.document_view`); below them the
chunking's overview and diagnostics, another library's audit, what changed since another
version, the size charts, the chunk table and the export.

Every piece of work — reading, chunking, ranking, embedding — is the session's workspace's
(:func:`ui.frame.workspace`); the answer is :func:`explorer.answer.answer`'s, as everywhere.
"""

from __future__ import annotations

import html
import json
from collections.abc import Sequence

import streamlit as st

from explorer.answer import Answer, CorpusAnswer
from explorer.chunking.diagnostics import ISSUES, Diagnosis, diagnose
from explorer.chunking.diff import ChunkDiff, diff_chunks
from explorer.chunking.edits import Edit, decode_edits, describe, encode_edits, undo
from explorer.chunking.measures import get_measure
from explorer.chunking.splitters import Chunk
from explorer.documents.model import Document
from explorer.errors import EditError, ExplorerError
from explorer.evaluation.lessons import Lesson, Setting
from explorer.evaluation.queries import add_query
from explorer.export import manifest, records, to_jsonl
from explorer.preparing import Pending
from explorer.progress import Progress, quiet
from explorer.repair import suggest_repair
from explorer.workspace import Chunking, Workspace
from ui import (
    charts,
    chunk_view,
    churn_view,
    embedding_map,
    evaluate_view,
    frame,
    settings,
    table_filter,
    widgets,
)
from ui.answers import (
    DEMO,
    candidate_rows,
    context_note,
    cut_note,
    evidence_phrases,
    evidence_rows,
    hit_rows,
    match_notes,
)
from ui.document_view import Shown, document_panel
from ui.lessons import (
    LESSON_PROBLEMS,
    LESSONS,
    PAGE_CSS,
    PRESENTATION_CSS,
    lesson_links,
    lesson_status,
    lesson_step,
    lesson_view,
    starting_query,
)
from ui.safe import md_escape, md_text
from ui.settings import config_of
from ui.sources import (
    QUERY_SET,
    SAMPLES_DIR,
    UPLOAD_TYPES,
    check_upload_size,
    remember,
    sample_paths,
)
from ui.view_state import View, edit_state, edits_of, link_url, query_keys

state = st.session_state
ws = frame.workspace()
READING_CANCELLED = "reading_cancelled"
UPLOAD_LIMIT_MB = int(st.get_option("server.maxUploadSize"))
count = get_measure("tokens").count


@st.cache_resource(max_entries=16, show_spinner=False)
def diagnosis_of(
    doc_key: str, chunking_key: str, prefix: bool, _doc: Document, _chunks: list[Chunk]
) -> Diagnosis:
    return diagnose(_doc, _chunks, heading_prefix=prefix, model_measure=get_measure("model-tokens"))


@st.cache_resource(max_entries=8, show_spinner="Comparing the versions…")
def version_diff(
    old_key: str, new_key: str, chunking_key: str, _old: Document, _old_chunks: list[Chunk],
    _new: Document, _new_chunks: list[Chunk],
) -> ChunkDiff:  # fmt: skip
    return diff_chunks(_old, _old_chunks, _new, _new_chunks)


# --------------------------------------------------------------------------- callbacks


def read_bytes(
    file_name: str, data: bytes, progress: Progress = quiet
) -> tuple[str, str, bytes] | None:
    """The bytes of an uploaded file, read once by the workspace (``progress`` follows it): its
    name, sha256 and bytes; or None, with one clear message in ``state.upload_error`` when it
    cannot be read."""
    state.upload_error = None
    try:
        check_upload_size(file_name, len(data), limit_mb=UPLOAD_LIMIT_MB)
        ws.load(data, name=file_name, progress=progress)
    except ExplorerError as exc:
        state.upload_error = str(exc)
        return None
    except Exception as exc:  # a bug in a reader: still one clear message, no traceback
        state.upload_error = f"{file_name}: could not be read ({type(exc).__name__}: {exc})"
        return None
    return file_name, frame.content_sha(data), data


def on_upload() -> None:
    """Take the uploaded file: the page reads it as it starts (:func:`open_upload`), where a
    progress bar can follow a long file and a Cancel button stop it."""
    file = state.upload
    state.upload_error = None
    if file is not None:
        state.reading = (file.name, file.getvalue())


def open_upload(sample_names: set[str]) -> None:
    """Read the file :func:`on_upload` took, with a progress bar and a Cancel button. It opens
    on the recommended configuration (or the view a link left waiting for it) in a rerun, as
    the configuration's widgets are drawn before the page; on failure the current document
    stays and the message is kept. A file that is cancelled leaves the current one too.

    The file stays taken until it is read: a click elsewhere while it is read ends this run at
    the bar's next step, and the next run reads it again (the parsed document is kept once
    made), so an upload is never dropped without a word. Only Cancel lets it go."""
    if state.get(READING_CANCELLED):
        state.pop("reading", None)  # the note is shown below, by cancelled_note
        return
    reading = state.get("reading")
    if reading is None:
        return
    file_name, data = reading
    progress, bar = widgets.progress_bar(f"Reading {file_name}", cancel=READING_CANCELLED)
    read = read_bytes(file_name, data, progress)  # a rerun asked meanwhile raises here
    state.pop("reading", None)
    bar.empty()
    if read is None:
        return
    name = file_name if file_name not in sample_names else f"{file_name} (uploaded)"
    remember(state.uploads, name, read)
    waiting: View | None = state.get("waiting")
    if waiting is not None and waiting.source == file_name:
        view = waiting.replace(source=name, uploaded=True)
        state.waiting = None
    else:
        question, evidence = state.queries.get(name, ("", ""))
        view = View(name, question=question, evidence=evidence, uploaded=True)
    state.link_note = None
    frame.open_next(view, version=None, version_pick=None)


def on_version_upload() -> None:
    file = state.version_upload
    if file is None:
        return
    read = read_bytes(file.name, file.getvalue())
    if read is not None:
        state.version = (f"{read[0]} (uploaded)", *read)


def on_source() -> None:
    """Another document: its own question, no chunk selected, the first page. Leaving a
    lesson's document leaves the lesson, and its failing setting for the recommended one."""
    state.chunk, state.page = None, 1
    state.version = state.version_pick = None  # a comparison belongs to its document
    state.upload_error = state.link_note = None
    state.waiting = None
    lesson = LESSONS.get(state.get("lesson") or "")
    if lesson is None or lesson.doc == state.source:
        return
    state.lesson = None
    try:
        setting = Setting(config_of(state), state.k, state.budget)
    except ExplorerError:
        setting = None
    if setting in [s for _, s in lesson.settings()]:  # the lesson's own setting, not the user's
        recommended = View(state.source).state()  # the recommended configuration, k and budget
        for key in ("source", "asked", *query_keys(state.source)):
            recommended.pop(key)
        state.update(recommended)


def open_lesson(name: str | None, repair: int | None = None) -> None:
    """Show lesson ``name`` at its failing setting, or after repair ``repair`` (from 1)."""
    lesson = LESSONS.get(name or "")
    if lesson is None:
        state.lesson = None
        return
    lesson_view(lesson, repair).replace(present=state.present).apply(state)
    state.version = state.version_pick = None


def on_lesson() -> None:
    open_lesson(state.lesson)


def reset_to_recommended() -> None:
    """The recommended configuration, k and budget for the document shown; no lesson, no
    edits."""
    start = View(state.source)
    View.of(state).replace(
        config=start.config, k=start.k, budget=start.budget, lesson=None, chunk=None, edits=""
    ).apply(state)


def set_edits(edits: Sequence[Edit]) -> None:
    """The what-if edits of the document and chunking shown (the chunking is made again from
    the splitter's chunks plus these, so taking the last one away restores it exactly)."""
    state.edits = edit_state(state.source, config_of(state), encode_edits(edits))


def set_present(on: bool) -> None:
    state.present = on


def on_version_pick() -> None:
    name = state.version_pick
    if name is None:
        state.version = None
    elif name in state.uploads:
        state.version = (name, *state.uploads[name])
    else:
        data = frame.sample_bytes(name)
        state.version = (name, name, frame.content_sha(data), data)


def clear_version() -> None:
    state.version = state.version_pick = None


def go_to_hit(index: int, page: int | None) -> None:
    state.chunk = index
    if page is not None:
        state.page = page


def on_table(shown: list[int], pages: list[int | None]) -> None:
    picked = chunk_view.chunk_from_table(state.table.selection.rows, shown)
    if picked is not None:
        go_to_hit(picked, pages[picked])


def on_add_query(doc_name: str, question_key: str, evidence_key: str) -> None:
    """Append the question to the session's query set (started from the project's set)."""
    if "query_set" not in state:
        state.query_set = evaluate_view.bundled_query_set(QUERY_SET)
    try:
        state.query_set, new = add_query(
            state.query_set,
            doc=doc_name,
            query=state[question_key],
            evidence=evidence_phrases(state[evidence_key]),
        )
    except ExplorerError as exc:
        new, note = None, str(exc)
    else:
        note = (
            f"Added as {new}: {len(state.query_set)} questions in the set. Run them on the "
            "Evaluate page."
            if new
            else "This question and its evidence are already in the query set."
        )
    state.add_notice = ("ok" if new else "info", note, state[question_key])


# --------------------------------------------------------------------------- sidebar

samples = {p.name: p for p in sample_paths()}
open_upload(set(samples))
sources = [*samples, *state.uploads]
if not sources:
    st.error(f"No sample documents found in {SAMPLES_DIR.name}/ — upload a file to start.")
if state.get("source") not in sources and sources:
    state.source = DEMO.source if DEMO.source in sources else sources[0]
lesson = LESSONS.get(state.get("lesson") or "")
if lesson is not None and lesson.doc != state.get("source"):  # never name a lesson not shown
    state.lesson, lesson = None, None

with frame.page_slot():
    if LESSONS:
        st.selectbox(
            "Boundary lesson",
            [None, *LESSONS],
            key="lesson",
            format_func=lambda n: "— none —" if n is None else LESSONS[n].title,
            placeholder="— none —",
            on_change=on_lesson,
            help="Each lesson opens at a setting where the answer is incomplete, says why, and "
            "offers the moves that repair it.",
        )
    for problem in LESSON_PROBLEMS:
        widgets.message("error", problem)
    st.selectbox("Document", sources, key="source", on_change=on_source)
    st.file_uploader(
        f"Upload a PDF, Markdown or text file (up to {UPLOAD_LIMIT_MB} MB)",
        type=list(UPLOAD_TYPES),
        key="upload",
        on_change=on_upload,
        help="It opens on the recommended configuration.",
    )
    st.button(
        "Reset to recommended",
        key="reset_recommended",
        icon=":material/restart_alt:",
        on_click=reset_to_recommended,
        help="The recommended configuration, k and budget for this document (and no lesson).",
    )
    with st.expander("Show and compare"):
        st.toggle("Show only flagged chunks", key="only_flagged", help="In the Chunks view.")
        st.toggle("Raw Markdown source", key="raw", help="Markdown documents: the source text.")
        st.radio("PDF view", ["Page image", "Extracted text"], key="pdf_view", horizontal=True)
        st.file_uploader(
            "Compare with an earlier version",
            type=list(UPLOAD_TYPES),
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
    widgets.message("error", state.upload_error)
widgets.cancelled_note(READING_CANCELLED)
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

# --------------------------------------------------------------------------- title

st.html(PAGE_CSS)
if state.present:
    st.html(PRESENTATION_CSS)
pages_note = f" · {len(doc.pages):,} pages" if doc.pages else ""
with st.container(key="ce_title"):
    st.markdown(
        f"**Chunk Explorer** · **{md_escape(doc.name)}** · {doc.kind} · "
        f"{len(doc.text):,} characters{pages_note}"
    )

try:
    edits: tuple[Edit, ...] = decode_edits(edits_of(state, state.source, config))
except ExplorerError:  # the link's edits are checked as it is read: only a bug lands here
    edits = ()
try:
    chunking_key = config.chunking.key() + (
        f"|model={config.model}" if config.chunking.splitter == "semantic" else ""
    )
    if config.chunking.splitter == "semantic" and ws.cached_chunks(doc, config) is None:
        semantic = widgets.cancellable(  # it embeds the document's sentences: it takes a while
            f"Chunking {doc.name} by meaning",
            lambda progress: ws.chunking(doc, config, progress=progress),
            key="semantic",
            request=f"{doc.key}|{chunking_key}",
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
            state.edits, edits = None, ()
    chunks = made.chunks
    edited_key = chunking_key + (f"|edits={encode_edits(edits)}" if edits else "")
    diagnosis = diagnosis_of(doc.key, edited_key, config.heading_prefix, doc, chunks)
    tables, table_problems = table_filter.table_audit_of(doc.key, edited_key, doc, chunks)
    table_keep = table_filter.kept(table_problems, state.get(table_filter.KEY))
except ExplorerError as exc:
    widgets.message("error", str(exc))
    st.stop()

question = state[question_key].strip()
phrases = evidence_phrases(state[evidence_key])
setting = Setting(config, state.k, state.budget)
step = lesson_step(lesson, source=state.source, question=question, evidence=phrases,
                   setting=setting) if lesson is not None else None  # fmt: skip
lesson_panel = st.container(key="ce_lesson") if lesson is not None else None

# --------------------------------------------------------------------------- question & document


def draw_early(early: CorpusAnswer, pending: Pending) -> None:
    """The BM25 answer shown while the model loads or embeds: its verdict and hits."""
    with placeholder.container(border=True, key="early_answer"):
        waiting = f"{pending.texts:,} {pending.what}" if pending.texts else "the question"
        st.caption(
            f"**BM25 answer** while the model embeds {waiting}; the {config.retriever} answer "
            "replaces it when they are done."
        )
        own = early.answers.get(doc.name)
        if own is not None:
            widgets.verdict_box(own.verdict)
            if own.hits:
                st.dataframe(hit_rows(own.hits, chunks, count=count), hide_index=True,
                             key="early_hits")  # fmt: skip


def draw_repair(question: str, phrases: Sequence[str]) -> None:
    """Beside a missed verdict: the one what-if edit that would make it complete, its cost in
    tokens, and a button that applies it."""
    key = (doc.key, config.index_key(), config, encode_edits(edits), question, tuple(phrases),
           state.k, state.budget)  # fmt: skip
    found = state.get("repair_found")
    if found is None or found[0] != key:
        try:
            repair = suggest_repair(
                ws, doc, question, phrases, config=config, edits=edits, k=state.k,
                budget=state.budget,
            )  # fmt: skip
        except ExplorerError:
            repair = None
        state.repair_found = found = (key, repair)
    repair = found[1]
    if repair is None:
        return
    with st.container(border=True, key="repair"):
        st.markdown(f"**Suggested repair:** {md_text(repair.sentence())}")
        st.button(
            "Apply",
            key="apply_repair",
            icon=":material/build:",
            on_click=set_edits,
            args=((*edits, repair.edit),),
            help="Make this edit to the chunking (Undo takes it back).",
        )


ask_col, doc_col = st.columns([2, 3], gap="medium")
answer: Answer | None = None
with ask_col:
    with st.container(key="ce_hide_ask"):
        st.text_input("Question", key=question_key, placeholder="What would a user ask?")
        st.text_area(
            "Required evidence (one phrase per line)",
            key=evidence_key,
            height=90,
            help="Phrases a correct answer needs, as you read them on the page (or in the "
            "source). Matching ignores case, line breaks, Markdown markup, and quote or dash "
            "styles.",
        )
        left, right = st.columns(2)
        left.slider("Top k", 1, settings.TOP_K_MAX, key="k", help="How many chunks.")
        right.selectbox(
            "Token budget",
            settings.BUDGETS,
            key="budget",
            format_func=settings.budget_label,
            help=settings.BUDGET_HELP,
        )
    placeholder = st.empty()
    if question and chunks:
        whole = widgets.answer_bm25_first(
            ws, [doc], config, question, phrases, k=state.k, budget=state.budget,
            early=draw_early, edits={doc.name: edits},
        )  # fmt: skip
        if whole is not None:
            placeholder.empty()  # the full answer replaces the BM25 one
            answer = whole.answers[doc.name]
    elif not question:
        st.caption("Type a question to see which chunks a retriever would return for it.")
    if answer is not None:
        asked = f"{state.source}\n{question}"
        if answer.hits and state.get("asked") != asked:  # a new question: its hits, best first
            state.asked = asked
            if state.view == "Chunks":
                state.view = "Query hits"
            first_page = chunks[answer.hits[0].index].page_start
            if first_page is not None:
                state.page = first_page
        widgets.verdict_box(answer.verdict)
        if answer.verdict is not None and not answer.complete and not state.present:
            draw_repair(question, phrases)
        for note in match_notes(answer.evidence):
            st.caption(md_text(note))
        if answer.hits:
            best = chunks[answer.hits[0].index]
            where = f"chunk {best.index}" + (f", page {best.page_start}" if best.page_start else "")
            # the note holds only numbers and settings: Markdown of our own
            st.caption(f"Best hit: {where} · {context_note(answer, length=len(doc.text))}")
        else:
            st.warning(context_note(answer, length=len(doc.text)))

# --------------------------------------------------------------------------- the lesson


def draw_lesson(lesson: Lesson, step: int | None) -> None:
    """The lesson in two lines: its title and where it stands, then a button per repair, the
    reset, presentation mode, why it fails (or works now) and the links that reopen it."""
    assert lesson_panel is not None
    with lesson_panel:
        head, more = st.columns([6, 2], vertical_alignment="center")
        status = lesson_status(lesson, step)
        if edits:
            status += (
                f" With {len(edits)} what-if edit{'s' if len(edits) > 1 else ''} to the chunking "
                "(above the document)."
            )
        head.markdown(f"**Lesson: {md_text(lesson.title)}** · {status}")
        with more.container(horizontal=True, key="lesson_more"):
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
                with st.popover("", icon=":material/more_horiz:", help="Why it fails; links"):
                    st.markdown(f"**Why it fails:** {md_text(lesson.why)}")
                    if lesson.note:
                        st.markdown(md_text(lesson.note))
                    st.markdown("**Links to this lesson and its repairs**")
                    for label, params in lesson_links(lesson):
                        st.caption(md_text(label))
                        st.code(link_url(st.context.url, params), language=None)
        if state.present:
            st.html(f'<p class="ce-question">{html.escape(lesson.question)}</p>')
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
        if step:  # repaired: why it works now
            move = lesson.repairs[step - 1]
            st.markdown(f"**Why it works now:** {md_text(move.why or move.label)}")
        elif state.present and step == 0:
            st.markdown(f"**Why it fails:** {md_text(lesson.why)}")


if lesson is not None:
    draw_lesson(lesson, step)

# --------------------------------------------------------------------------- the ranking


def draw_ranking(answer: Answer) -> None:
    """The hits, the line where k or the budget cut the ranking and the chunks just below it,
    the evidence table, and what the LLM gets."""
    if not answer.hits:
        return
    st.markdown(
        f"**Top {len(answer.hits)} of {len(answer.ranking):,} chunks** ({config.retriever})"
    )
    rows = hit_rows(answer.hits, chunks, count=count)
    small = st.column_config.NumberColumn(width="small")
    st.dataframe(
        rows,
        hide_index=True,
        key="hits",
        column_order=[k for k in rows[0] if k != "pages" or doc.pages],
        column_config={
            **dict.fromkeys(("rank", "chunk", "tokens"), small),
            "score": st.column_config.NumberColumn(format="%.4f", width="small"),
            "carried": st.column_config.NumberColumn(
                format="%.4f",
                width="small",
                help="The part of the score carried from the chunk before it.",
            ),
            "pages": st.column_config.TextColumn(width="small"),
        },
    )
    cut = cut_note(answer)
    if cut:
        st.markdown(f"✂ {cut} Just below the cut:")
        st.dataframe(
            candidate_rows(answer, chunks, count=count),
            hide_index=True,
            key="below_cut",
            column_config={"score": st.column_config.NumberColumn(format="%.4f")},
        )
    with st.container(horizontal=True, key="jumps"):
        for h in answer.hits:
            page_of_hit = chunks[h.index].page_start
            st.button(
                f"#{h.rank} → page {page_of_hit}" if page_of_hit else f"Show #{h.rank}",
                key=f"jump_{h.rank}",
                on_click=go_to_hit,
                args=(h.index, page_of_hit),
                help=f"Select chunk {h.index}" + (" and turn to its page" if page_of_hit else ""),
            )


with ask_col:
    if answer is not None and not state.present:
        draw_ranking(answer)
        if phrases:
            with st.expander("Evidence: where each phrase is", expanded=not answer.complete):
                st.dataframe(
                    evidence_rows(answer.evidence),
                    hide_index=True,
                    key="evidence_table",
                    column_config={"phrase": st.column_config.TextColumn(width="medium")},
                )
        else:
            st.caption("Add evidence phrases to check that the retrieved text holds them.")
        with st.expander("What the LLM gets"):
            st.markdown(context_note(answer, length=len(doc.text)))
            st.json({**answer.to_json(chunks, count=count), "document": doc.name}, expanded=1)
    if not state.present:
        with st.container(key="ce_hide_add"):
            st.button(
                "Add to the query set",
                key="add_query",
                on_click=on_add_query,
                args=(state.source, question_key, evidence_key),
                disabled=not (state[question_key].strip() and state[evidence_key].strip()),
                help="Keep this question and its evidence in the query set the Evaluate page "
                "runs (download it there).",
            )
            notice = state.get("add_notice")
            if notice and notice[2] == state[question_key]:  # about the question on the screen
                widgets.message("success" if notice[0] == "ok" else "info", notice[1])

# --------------------------------------------------------------------------- versions

changes: ChunkDiff | None = None
old_doc: Document | None = None
old_chunks: list[Chunk] = []
if state.get("version") is not None and config.chunking.splitter != "semantic":
    label, old_name, _old_sha, old_data = state.version
    try:
        old_doc = ws.load(old_data, name=old_name)
        old_chunks = ws.chunks(old_doc, config)
        changes = version_diff(old_doc.key, doc.key, edited_key, old_doc, old_chunks, doc, chunks)
    except ExplorerError as exc:
        widgets.message("error", str(exc))

view = View.of(state, config=config, uploaded=uploaded).replace(
    lesson=lesson.name if lesson is not None and step is not None else None, repair=step or None
)
with doc_col:
    if edits and not state.present:
        with st.container(key="edits_bar"):
            what, back, clear = st.columns([7, 2, 2], vertical_alignment="center")
            n = f"{len(edits)} edit{'s' if len(edits) > 1 else ''}"
            what.caption(
                f"**What-if chunking** (+ {n}): {md_text('; '.join(e.describe() for e in edits))}"
            )
            back.button(
                "Undo", key="undo_edit", icon=":material/undo:", on_click=set_edits,
                args=(undo(edits),), help=f"Take back the last edit ({edits[-1].describe()}).",
                type="tertiary",
            )  # fmt: skip
            clear.button(
                "Clear edits", key="clear_edits", on_click=set_edits, args=((),),
                help="The chunking as the splitter cut it.", type="tertiary",
            )  # fmt: skip
    document_panel(
        Shown(
            doc=doc,
            data=data,
            chunks=chunks,
            chunking_key=edited_key,
            diagnosis=diagnosis,
            config=config,
            answer=answer,
            view=view,
            passages=lambda: ws.passages(doc),
            changes=changes,
            url=st.context.url,
            edits=edits,
            table_keep=table_keep,
        )
    )

if state.present:  # presentation mode: the lesson, its verdict and the document only
    st.stop()

embedding_map.draw(ws, doc, config, question, chunks=chunks, k=state.k, budget=state.budget,
                   edits=edits, select=go_to_hit)  # fmt: skip

# --------------------------------------------------------------------------- overview


def draw_overview(made: Chunking, diagnosis: Diagnosis) -> None:
    """The chunking in figures: counts, sizes and the diagnostics; a library's audit."""
    sizes = [c.size for c in chunks]
    flagged = diagnosis.flagged()
    unit = config.chunking.unit
    head = (
        f"Chunking: {len(chunks):,} chunks, {len(flagged):,} flagged "
        f"({md_text(describe(settings.describe_config(config), edits))})"
    )
    filtering = table_filter.kept({}, state.get(table_filter.KEY)) is not None
    with st.expander(head, expanded=bool(made.library) or state.only_flagged or filtering):
        for warning in doc.warnings:
            widgets.message("info", warning)  # warnings may quote the file name or its text
        if doc.normalisation:
            with st.expander("How the text was extracted"):
                for note in doc.normalisation:
                    st.text(note)  # plain text: notes quote the document
        cols = st.columns(4)
        cols[0].metric("Chunks", f"{len(chunks):,}")
        cols[1].metric(
            f"Median size ({unit})", f"{sorted(sizes)[len(sizes) // 2] if sizes else 0:,}"
        )
        cols[2].metric(
            f"Largest ({unit})",
            f"{max(sizes, default=0):,}",
            help=f"limit {config.chunking.size:,}",
        )
        cols[3].metric("Flagged chunks", f"{len(flagged):,}", help="chunks with an issue below")
        counts = diagnosis.counts()
        cols = st.columns(len(ISSUES))
        for col, issue in zip(cols, ISSUES, strict=True):
            col.metric(
                issue.label, f"{counts[issue.code]:,}", help=f"Chunks that {issue.description}."
            )
        table_filter.draw(tables, table_problems)
        library = made.library
        if library is not None:
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
                st.caption(
                    "Parameters: " + ", ".join(f"{k}={v!r}" for k, v in library.mapping.items())
                )
                st.code(library.snippet, language="python")
            for note in library.messages:
                widgets.message("info", f"{audit.library}: {note}")
    left, right = st.columns(2)
    left.plotly_chart(
        charts.size_histogram(sizes, limit=config.chunking.size, unit=unit), key="hist"
    )
    right.plotly_chart(
        charts.size_along(sizes, limit=config.chunking.size, unit=unit, flagged=flagged),
        key="along",
    )


def draw_versions(changes: ChunkDiff, old_doc: Document, old_chunks: Sequence[Chunk]) -> None:
    label = state.version[0]
    st.subheader(f"What changed since {md_text(label)}", anchor=False)
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
        col.metric(name, f"{counts[key]:,}", help=tip)
    st.caption(
        md_text(
            f"An index updated from {label} deletes {counts['stale']:,} stale records (the "
            "removed chunks and those the changed ones replace), so old text does not stay "
            "searchable."
        )
    )
    from ui.highlights import change_legend_html

    st.html(change_legend_html())
    churn_view.draw(ws, old_doc, doc, config, label=label)
    if changes.removed:
        with st.expander(f"The {len(changes.removed):,} removed chunks (from {md_text(label)})"):
            for ref in changes.removed:
                st.markdown(f"**Chunk {ref.index} of {md_escape(label)}**")
                st.code(old_doc.text[ref.start : ref.end], language=None, wrap_lines=True)
    asked = [("(this question)", question, tuple(phrases))] if question and phrases else []
    for item in state.get("query_set") or []:
        needs = item.get("evidence")
        if item.get("doc") == doc.name and isinstance(needs, list) and needs:
            asked.append((str(item["id"]), str(item["query"]), tuple(str(e) for e in needs)))
    if not asked:
        return
    rows = version_verdicts(ws, old_doc, asked)
    flips = [r for r in rows if r["verdict changed"]]
    st.markdown(
        f"**{len(flips)} of {len(rows)} questions change verdict** from {md_escape(label)} to "
        "this version."
    )
    st.dataframe(rows, hide_index=True, key="version_verdicts")


def version_verdicts(
    ws: Workspace, old_doc: Document, asked: Sequence[tuple[str, str, tuple[str, ...]]]
) -> list[dict[str, object]]:
    """Each question answered on both versions, through the workspace (nothing is chunked or
    embedded twice; the workspace keeps both versions' retrievers)."""
    rows = []
    for qid, text, needs in asked:
        was, now = (
            ws.ask(d, text, needs, config=config, k=state.k, budget=state.budget)
            for d in (old_doc, doc)
        )
        rows.append(
            {
                "question": qid,
                "text": text,
                "before": was.verdict.kind if was.verdict else "",
                "now": now.verdict.kind if now.verdict else "",
                "verdict changed": was.complete != now.complete,
            }
        )
    return rows


draw_overview(made, diagnosis)
if changes is not None and old_doc is not None:
    draw_versions(changes, old_doc, old_chunks)

# --------------------------------------------------------------------------- table & export

st.subheader("Chunks", anchor=False)
shown_idx = chunk_view.visible_indices(
    chunks, diagnosis, only_flagged=state.only_flagged, keep=table_keep
)
st.dataframe(
    chunk_view.chunk_rows(chunks, diagnosis, shown_idx),
    key="table",
    on_select=lambda: on_table(shown_idx, [c.page_start for c in chunks]),
    selection_mode="single-row",
    hide_index=True,
)
stem = doc.name.rsplit(".", 1)[0]
left, right, _ = st.columns([1, 1, 3])
left.download_button(
    "Download chunks (JSONL)",
    lambda: to_jsonl(records(doc, config, chunks, edits=edits)),
    file_name=f"{stem}.chunks.jsonl",
    mime="application/jsonl",
    on_click="ignore",
)
right.download_button(
    "Download manifest (JSON)",
    lambda: json.dumps(
        manifest(doc, config, chunks, k=state.k, budget=state.budget, edits=edits),
        indent=2,
        ensure_ascii=False,
    ),
    file_name=f"{stem}.manifest.json",
    mime="application/json",
    on_click="ignore",
)
