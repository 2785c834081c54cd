"""Evaluate: choose chunking by measuring whether retrieval returns the evidence.

It reads top to bottom as the UI does: cached work, state and callbacks, the sidebar's own
controls (documents folder, which questions run), then three tabs:

* **Query set**: the bundled boundary questions or an uploaded JSON file, edited in a table and
  downloaded again. It lives in ``st.session_state["query_set"]`` (the Explore page adds to it).
* **A/B**: two configurations over the questions: coverage, the questions that flipped, the
  evidence ranks, and one document drawn once with both sets of chunk boundaries.
* **Sweep**: one configuration over sizes × overlaps: charts, a table, and "load this
  configuration" into the Explore page.

A starts as the sidebar's configuration, B as the recommended one; both are drawn with the same
widgets as the sidebar (:func:`ui.widgets.config_widgets`). Every run goes through the session's
workspace, so a document the Explore page read is not read again.
"""

from __future__ import annotations

import copy
import hashlib
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import streamlit as st

from explorer.config import Config
from explorer.documents.model import Document, document_name
from explorer.errors import DocumentError, ExplorerError, QuerySetError
from explorer.evaluation import compare
from explorer.evaluation.coverage import EvalReport, evaluate, flipped, sweep, sweep_cells
from explorer.evaluation.queries import (
    Query,
    documents_named,
    dumps,
    merge,
    parse_queries,
    read_query_set,
)
from explorer.workspace import Workspace
from ui import evaluate_view, frame, presets_view, render, render_markdown, render_pdf, widgets
from ui.answers import n_of
from ui.chunk_view import scroll_script, window_note
from ui.pages import SWEEP_GRIDS
from ui.places import allowed_folder
from ui.safe import md_escape, md_text
from ui.settings import SIZE_RANGES, config_of, describe_config, splitter_names, state_of
from ui.sources import QUERY_SET, sample_paths
from ui.view_state import View

state = st.session_state
REPO = Path(__file__).resolve().parents[1]
BUNDLED = QUERY_SET
DEFAULT_DOCS = "queries/docs"
EXPLORE = "app_pages/explore.py"
EVIDENCE_COLOR = "#edc948"

# --------------------------------------------------------------------------- cached work


@st.cache_data(show_spinner=False)
def bundled_set(mtime: float) -> list[dict[str, Any]]:
    return evaluate_view.bundled_query_set(BUNDLED)


@st.cache_data(max_entries=16, show_spinner="Drawing both sets of boundaries…")
def boundary_html(
    key: str,
    _doc: Document,
    _a: list[Any],
    _b: list[Any],
    _evidence: list[render.Highlight],
) -> str:
    markers = evaluate_view.boundary_markers(_a, _b)
    # a long document is drawn a window at a time, around the first evidence phrase
    window = render.window(_doc.text, _evidence[0].start if _evidence else None)
    if _doc.kind == "markdown":
        return render_markdown.render_markdown(_doc, _evidence, markers=markers, window=window)
    return render.render_text(_doc, _evidence, markers=markers, window=window)


@st.cache_data(max_entries=32, show_spinner="Drawing the page…")
def boundary_image(
    key: str,
    page: int,
    _pdf: bytes,
    _doc: Document,
    _a: list[Any],
    _b: list[Any],
    _evidence: list[render.Highlight],
) -> render_pdf.PageImage:
    markers = evaluate_view.boundary_markers(_a, _b)
    return render_pdf.render_pdf_page(_pdf, page, _doc, _evidence, zoom=2.0, markers=markers)


def the_bundled_set() -> list[dict[str, Any]]:
    """The project's query set (empty when the file is missing or broken), a fresh list."""
    try:
        return list(bundled_set(BUNDLED.stat().st_mtime))
    except OSError:
        return []


# --------------------------------------------------------------------------- state & callbacks

state.setdefault("query_set", the_bundled_set())  # the main page appends to this list
state.setdefault("qs_error", None)
state.setdefault("qs_notice", None)
state.setdefault("qs_version", 0)
main = config_of(state) if "splitter" in state else Config()
for prefix, start in (("ab_A_", main), ("ab_B_", Config()), ("sw_", main)):
    # the first visit: A and the sweep start as the sidebar's, B as recommended; what a test
    # or a link set first stays
    if prefix + "splitter" not in state or prefix + "unit" not in state:
        for key, value in state_of(start, prefix=prefix).items():
            state.setdefault(key, value)
if state.get("sw_sizes") is None or state.get("sw_grid_unit") not in (None, state.sw_unit):
    state.sw_sizes, state.sw_overlaps = SWEEP_GRIDS[state.sw_unit]  # the unit's own grid
state.sw_grid_unit = state.sw_unit
if "eval_link_read" not in state:  # a link to an A/B opens it: both configurations and k
    state.eval_link_read = True
    link_note = None
    params = st.query_params.to_dict()
    try:
        for side in ("A", "B"):
            if side.lower() in params:
                config = Config.from_spec(str(params[side.lower()]))
                state.update(state_of(config, prefix=f"ab_{side}_"))
                state.eval_tab = "A/B"
    except ExplorerError as exc:
        link_note = f"The link's configuration cannot be used ({exc}); the starting ones are shown."
    if str(params.get("k", "")).isdigit() and int(params["k"]) in (1, 3, 5):
        state.ab_k = int(params["k"])
    state.eval_link_note = link_note


def set_query_set(loaded: list[dict[str, Any]], source: str) -> None:
    """Replace the query set, or add the new ids to it when "add" is on."""
    if state.qs_merge:
        state.query_set, skipped = merge(state.query_set, loaded)
        note = f"Added {n_of(len(loaded) - len(skipped), 'question')} from {source}."
        if skipped:
            note += f" Skipped {len(skipped)} whose id is already in the set: {', '.join(skipped)}."
    else:
        state.query_set = loaded
        note = f"Loaded {n_of(len(loaded), 'question')} from {source}."
    state.qs_notice, state.qs_error = note, None


def on_bundled() -> None:
    loaded = the_bundled_set()
    if not loaded:
        state.qs_error = f"The bundled query set is missing or unreadable: {BUNDLED}"
        return
    set_query_set(loaded, BUNDLED.name)


def on_upload() -> None:
    """Read an uploaded query set; on failure keep the current set and remember one message."""
    file = state.qs_upload
    state.qs_error = state.qs_notice = None
    if file is None:
        return
    try:
        loaded = read_query_set(file.getvalue(), name=file.name)
    except ExplorerError as exc:
        state.qs_error = str(exc)
        return
    set_query_set(loaded, file.name)


def on_ab_table(ids: list[str]) -> None:
    rows = state.ab_table.selection.rows
    if rows and 0 <= rows[0] < len(ids):
        state.ab_query = ids[rows[0]]


def on_sweep_table(cells: list[int]) -> None:
    rows = state.sw_table.selection.rows
    if rows and 0 <= rows[0] < len(cells):
        state.sw_cell = cells[rows[0]]


def open_in_explorer(config: Config, source: str | None = None) -> None:
    """Show ``config`` on the Explore page (with the document, when it is one of its samples):
    the page's view with this configuration, no chunk selected, no lesson."""
    view = View.of(state).replace(config=config, chunk=None, page=1, lesson=None, edits="")
    if source is not None:
        view = view.replace(source=source, question="", evidence="")
    view.apply(state)
    state.goto_explore = True


def fits_explorer(config: Config) -> bool:
    s = config.chunking
    return s.splitter in splitter_names() and s.size <= SIZE_RANGES[s.unit].high


def explorer_range(config: Config) -> str:
    rng = SIZE_RANGES[config.chunking.unit]
    return f"the explorer's sizes run up to {rng.high:,} {config.chunking.unit}"


def run_failed(exc: Exception) -> str:
    if isinstance(exc, ExplorerError):
        return str(exc)
    return f"The run stopped: {type(exc).__name__}: {exc}"


def rank_text(located: bool, rank: int | None) -> str:
    return "not found" if not located else "never" if rank is None else str(rank)


def pct(x: float) -> str:
    return f"{x:.0%}"


# --------------------------------------------------------------------------- sidebar: questions

folder: Path | None = None
folder_problem: str | None = None
try:  # only a folder this app may read (see ui.places)
    folder = allowed_folder(state.eval_docs_dir, base=REPO)
except DocumentError as exc:
    folder_problem = str(exc)
items: list[dict[str, Any]] = state.query_set
docs_named = documents_named(items)
kinds = sorted({str(i["kind"]) for i in items if i.get("kind")})
state.eval_docs = [d for d in state.eval_docs if d in docs_named]
state.eval_kinds = [k for k in state.eval_kinds if k in kinds]

with frame.page_slot():
    st.header("Questions to run", anchor=False)
    st.text_input(
        "Documents folder",
        key="eval_docs_dir",
        help="Where the documents the questions name live. A relative path starts at the "
        "project folder.",
    )
    st.multiselect("Only these documents", docs_named, key="eval_docs", placeholder="All documents")
    if kinds:
        st.multiselect("Only these kinds", kinds, key="eval_kinds", placeholder="All kinds")

problem: str | None = None
try:
    all_queries = parse_queries(list(items), source="query set")
except QuerySetError as exc:
    all_queries, problem = [], str(exc)
chosen = [
    q
    for q, item in zip(all_queries, items, strict=False)
    if (not state.eval_docs or q.doc in state.eval_docs)
    and (not state.eval_kinds or item.get("kind") in state.eval_kinds)
]
# documents uploaded on the Explore page in this session serve the questions that name them
uploads = dict(state.get("uploads", {}))
uploaded_names = set(uploads)


def in_folder(name: str) -> bool:
    """The document is a file inside the documents folder (a name reaching out of it is not)."""
    if folder is None or not folder.is_dir():
        return False
    try:
        return Workspace(folder).inside(name).is_file()
    except QuerySetError:
        return False


absent = sorted({q.doc for q in chosen if q.doc not in uploaded_names and not in_folder(q.doc)})


def pdf_bytes(name: str) -> bytes:
    """A PDF's bytes, to draw its pages: an upload's, or the folder's file."""
    if name in uploads:
        return bytes(uploads[name][2])
    assert folder is not None
    return Workspace(folder).inside(name).read_bytes()


queries: list[Query] = [q for q in chosen if q.doc not in absent]
ws: Workspace | None = None
try:  # the folder's files and the session's uploads, over the session's workspace
    session = frame.workspace()
    ws = session.view(
        folder if folder is not None and folder.is_dir() else None,
        {
            name: session.load(data, name=file_name)
            for name, (file_name, _sha, data) in uploads.items()
        },
    )
except ExplorerError as exc:
    problem = f"an uploaded document cannot be read again ({exc})"
with frame.page_slot():
    st.caption(
        f"{len(queries)} of {n_of(len(items), 'question')} will run, over "
        f"{n_of(len({q.doc for q in queries}), 'document')}."
    )

# --------------------------------------------------------------------------- page

st.title("Evaluate chunking")
st.caption(
    "Does retrieval return the text each answer needs? Every question lists its **evidence**: "
    "the exact phrases a complete answer needs. A question is *covered at k* when all of them "
    "lie inside the top k retrieved chunks — choose chunking by that, not by how chunks look."
)
if problem:
    st.error(f"The query set has a problem: {md_text(problem)}. Fix it in the Query set tab.")
if folder_problem:
    st.error(md_text(folder_problem))
elif folder is not None and not folder.is_dir() and not uploads:
    st.error(f"The documents folder {md_text(str(folder))} does not exist; set it in the sidebar.")
if absent:
    st.warning(
        f"Left out: questions about {len(absent)} document(s) neither in "
        f"{md_text(str(folder))} nor uploaded on the main page in this session: "
        f"{md_text(', '.join(absent))}. Copy the files there, point the sidebar at "
        "their folder, or upload them on the main page."
    )


def run_button(label: str, key: str, extra_ok: bool = True) -> bool:
    ok = bool(queries) and ws is not None and not problem and extra_ok
    return bool(st.button(label, key=key, type="primary", disabled=not ok))


tab_set, tab_ab, tab_sweep = st.tabs(
    ["Query set", "A/B", "Sweep"], key="eval_tab", on_change="rerun"
)

# --------------------------------------------------------------------------- tab: query set

if tab_set.open:
    with tab_set:
        left, mid, right = st.columns([2, 3, 2], vertical_alignment="bottom")
        left.button(
            f"Load the bundled boundary questions ({len(the_bundled_set())})",
            on_click=on_bundled,
            key="qs_bundled",
            help=f"{BUNDLED.relative_to(REPO)}; its documents are in {DEFAULT_DOCS}/",
        )
        mid.file_uploader(
            "Or upload a query set (JSON)", type=["json"], key="qs_upload", on_change=on_upload
        )
        right.toggle(
            "Add to the current set",
            key="qs_merge",
            help="Off: a loaded set replaces the questions below. On: its new ids are added.",
        )
        if state.qs_error:
            st.error(md_text(state.qs_error))
        elif state.qs_notice:
            st.success(md_text(state.qs_notice))

        # the editor starts from a snapshot; it is rebuilt when the set changed elsewhere (a
        # load, or the main page's "add this query") or when its edits were dropped
        editor_key = f"qs_editor_{state.qs_version}"
        if state.get("qs_seen") != state.query_set or editor_key not in state:
            state.qs_version += 1
            editor_key = f"qs_editor_{state.qs_version}"
            state.qs_base = evaluate_view.editor_rows(state.query_set)
        doc_options = sorted(
            {document_name(p) for p in folder.iterdir() if p.is_file()}
            if folder is not None and folder.is_dir()
            else set()
        )
        doc_options += [d for d in docs_named if d not in doc_options]
        edited = st.data_editor(
            pd.DataFrame(state.qs_base, columns=list(evaluate_view.EDITOR_COLUMNS)),
            key=editor_key,
            num_rows="dynamic",
            hide_index=True,
            height=420,
            column_config={
                "id": st.column_config.TextColumn("id", width="small", required=True),
                "doc": st.column_config.SelectboxColumn(
                    "document", options=doc_options, width=170, required=True
                ),
                "query": st.column_config.TextColumn("question", width=300, required=True),
                "evidence": st.column_config.ListColumn(
                    "evidence phrases",
                    width="large",
                    help="The exact phrases a complete answer needs, one item each (type a "
                    "phrase and press Enter to add it). Each must occur in the document; case, "
                    "white space, quote and dash styles are ignored.",
                ),
                "kind": st.column_config.TextColumn("kind", width="small"),
            },
        )
        updated = evaluate_view.from_editor(edited.to_dict("records"), state.query_set)
        if updated != state.query_set:
            state.query_set = updated
        state.qs_seen = copy.deepcopy(state.query_set)
        n_phrases = sum(len(i.get("evidence") or []) for i in state.query_set)
        st.caption(
            f"{n_of(len(state.query_set), 'question')}, {n_of(n_phrases, 'evidence phrase')}. "
            "Add a row at the bottom of the table; select rows and press Delete to remove them."
        )
        st.download_button(
            "Download the query set (JSON)",
            dumps(state.query_set),
            file_name="query-set.json",
            mime="application/json",
            on_click="ignore",
            key="qs_download",
        )

# --------------------------------------------------------------------------- tab: A/B


def config_inputs(side: str) -> Config | None:
    """The widgets of one side (the sidebar's, keyed ``ab_A_`` or ``ab_B_``); its configuration,
    or None (with the error shown) if invalid."""
    p = f"ab_{side}_"
    presets_view.preset_picker(p)
    widgets.config_widgets(p, headers=False)
    return widgets.configuration(p)


def describe(config: Config) -> str:
    """The configuration in a line: what differs from the recommended one."""
    return describe_config(config)


def show_verdicts(ra: EvalReport, rb: EvalReport, k: int) -> None:
    """Is the difference real? The paired test and interval at k, then at every k and budget."""
    comparisons = compare.paired(ra, rb)
    here = comparisons.get(f"k={k}")
    if here is not None:
        show = st.success if here.winner else st.info
        lo, hi = here.ci95
        needed = (
            f" About {here.questions_needed:,} questions would tell them apart "
            "(for 80% power at this discordance)."
            if here.winner is None and here.questions_needed
            else ""
        )
        show(
            f"**At k = {k}: {here.verdict}.** {len(here.b_only)} questions only B covers, "
            f"{len(here.a_only)} only A; exact paired test p = {here.p_value:.3g}; 95% interval "
            f"for B − A: {lo * 100:+.0f} to {hi * 100:+.0f} points.{needed}"
        )
    presets_view.claim_note(ra.config, rb.config, comparisons, k)
    with st.expander("The paired test at every k and budget"):
        st.dataframe(evaluate_view.verdict_rows(comparisons), hide_index=True, key="ab_verdicts")


def show_flips(ra: EvalReport, rb: EvalReport, k: int) -> None:
    text = {r.query.id: (r.query.query, r.query.doc) for r in ra.results}
    flips = flipped(ra, rb, k=k)
    only_a = [qid for qid, a, b in flips if a and not b]
    only_b = [qid for qid, a, b in flips if b and not a]
    if not flips:
        st.info(f"No question flipped at k = {k}: A and B cover the same questions.")
        return
    cols = st.columns(2)
    max_len = max(len(only_a), len(only_b))
    for col, ids, head, key in (
        (cols[0], only_a, "Covered with **A**, missed with **B**", "flips_a"),
        (cols[1], only_b, "Covered with **B**, missed with **A**", "flips_b"),
    ):
        with col.container(border=True, key=key, height=360 if max_len > 7 else "content"):
            st.markdown(f"#### {len(ids)} · {head}")
            if not ids:
                st.caption("none")
            lines = [
                f"- **{md_escape(qid)}** {md_escape(text[qid][0])} — *{md_escape(text[qid][1])}*"
                for qid in ids
            ]
            if lines:
                st.markdown("\n".join(lines))


def show_boundaries(ra: EvalReport, rb: EvalReport, rows: list[dict[str, Any]]) -> None:
    assert ws is not None
    st.subheader("Both sets of boundaries on one document", anchor=False)
    ids = [r["id"] for r in rows]
    by_id = {r["id"]: r for r in rows}
    if state.get("ab_query") not in ids:
        state.ab_query = ids[0]
    st.selectbox(
        "Question (flipped ones first)",
        ids,
        key="ab_query",
        format_func=lambda i: f"{i} · {by_id[i]['flip'] or 'same'} · {by_id[i]['question'][:90]}",
    )
    qid = state.ab_query
    res_a = next(r for r in ra.results if r.query.id == qid)
    res_b = next(r for r in rb.results if r.query.id == qid)
    doc = ws.document(res_a.query.doc)
    chunks_a = ws.chunks(res_a.query.doc, ra.config)
    chunks_b = ws.chunks(res_a.query.doc, rb.config)
    evidence = [
        render.Highlight(
            s,
            e,
            i,
            EVIDENCE_COLOR,
            label=f"E{i + 1}",
            selected=True,
            title=f"evidence E{i + 1}: {phrase}",
        )
        for i, (phrase, occ) in enumerate(zip(res_a.query.evidence, res_a.located, strict=True))
        for s, e in occ
        if e > s
    ]
    sets = compare.compare_boundaries(chunks_a, chunks_b)
    st.caption(
        f"**{md_escape(doc.name)}**: A makes {len(chunks_a)} chunks, B {len(chunks_b)}. "
        f"Chunk starts only in A: {len(sets.only_a)}, only in B: {len(sets.only_b)}, in both: "
        f"{len(sets.both)}. Yellow: the evidence phrases E1, E2… this question needs."
    )
    st.html(render.marker_legend(evaluate_view.LEGEND))
    spans = ",".join(f"{h.start}-{h.end}" for h in evidence)
    key = "|".join([doc.sha256, ra.config.chunking.key(), rb.config.chunking.key(), spans])
    key = hashlib.sha256(key.encode()).hexdigest()
    if doc.kind == "pdf":
        st.radio("PDF view", ["Page image", "Extracted text"], key="ab_pdf_view", horizontal=True)
    if doc.kind == "pdf" and state.ab_pdf_view == "Page image":
        pdf = pdf_bytes(res_a.query.doc)
        n_pages = max(len(doc.pages), 1)
        if state.get("ab_page_for") != key or state.get("ab_page") is None:  # turn to E1
            first = doc.page_span(evidence[0].start, evidence[0].end)[0] if evidence else None
            state.ab_page, state.ab_page_for = first or 1, key
        state.ab_page = max(1, min(n_pages, int(state.ab_page)))
        st.number_input(f"Page (of {n_pages})", 1, n_pages, key="ab_page")
        try:
            image = boundary_image(key, state.ab_page, pdf, doc, chunks_a, chunks_b, evidence)
        except DocumentError as exc:
            st.warning(md_escape(str(exc)))
        else:
            st.image(
                image.png, caption=image.caption(f"{md_escape(doc.name)}, page {state.ab_page}")
            )
    else:
        html = boundary_html(key, doc, chunks_a, chunks_b, evidence)
        window = render.window(doc.text, evidence[0].start if evidence else None)
        if not window.whole:
            st.caption(
                window_note(window, chunks_a, how="It is centred on the first evidence phrase.")
            )
        with st.container(height=560, key="ab_doc"):
            st.html(html)
        if evidence:  # our own script, no document content: scroll to the first evidence badge
            st.html(scroll_script(evidence[0].index), unsafe_allow_javascript=True)
    details = evaluate_view.phrase_details(res_a, res_b, chunks_a, chunks_b)
    st.dataframe(
        [
            {
                "evidence": f"E{n} · {d.phrase}",
                "A rank": rank_text(d.located, d.rank_a),
                "A cut": d.cut_a,
                "B rank": rank_text(d.located, d.rank_b),
                "B cut": d.cut_b,
            }
            for n, d in enumerate(details, 1)
        ],
        hide_index=True,
        key="ab_phrases",
        column_config={
            "A rank": st.column_config.TextColumn(help="Top hits needed to hold it under A"),
            "B rank": st.column_config.TextColumn(help="Top hits needed to hold it under B"),
            "A cut": st.column_config.CheckboxColumn(help="A boundary cuts it under A"),
            "B cut": st.column_config.CheckboxColumn(help="A boundary cuts it under B"),
        },
    )
    samples = {p.name for p in sample_paths()}
    source = doc.name if doc.name in samples else None
    left, right, _ = st.columns([1, 1, 2])
    for col, name, config in ((left, "A", ra.config), (right, "B", rb.config)):
        fits = fits_explorer(config)
        col.button(
            f"Open {name} in the explorer",
            key=f"ab_open_{name}",
            disabled=not fits,
            on_click=open_in_explorer,
            args=(config, source),
            help=(
                f"Show {describe(config)} on the Explore page"
                + (f", with {md_text(doc.name)}" if source else "")
                if fits
                else explorer_range(config)
            ),
        )


if tab_ab.open:
    with tab_ab:
        cols = st.columns(2, gap="large")
        configs: list[Config | None] = []
        for col, side in zip(cols, ("A", "B"), strict=True):
            with col.container(border=True, key=f"ab_box_{side}"):
                st.markdown(f"**Configuration {side}**")
                configs.append(config_inputs(side))
        cfg_a, cfg_b = configs
        ready = cfg_a is not None and cfg_b is not None
        if state.get("eval_link_note"):
            st.warning(md_text(state.eval_link_note))
        if cfg_a is not None and cfg_b is not None:  # the address bar holds this A/B's link
            st.query_params.from_dict(
                {"a": cfg_a.to_spec(), "b": cfg_b.to_spec(), "k": str(state.ab_k)}
            )
        widgets.cancelled_note("ab_cancelled")
        if run_button(f"Run A and B on {n_of(len(queries), 'question')}", "ab_run", ready):
            assert ws is not None and cfg_a is not None and cfg_b is not None
            progress, bar = widgets.progress_bar("Running A and B", cancel="ab_cancelled")
            t0 = time.monotonic()
            try:
                rep_a = evaluate(
                    queries, ws, cfg_a, progress=lambda f, m: progress(f / 2, f"A · {m}")
                )
                rep_b = evaluate(
                    queries, ws, cfg_b, progress=lambda f, m: progress(0.5 + f / 2, f"B · {m}")
                )
            except Exception as exc:  # a typed error, or a bug: one message, no traceback
                st.error(md_text(run_failed(exc)))
            else:
                state.ab_result = {"a": rep_a, "b": rep_b, "seconds": time.monotonic() - t0}
                state.pop("ab_query", None)
            bar.empty()
        result = state.get("ab_result")
        if result is None:
            st.caption(
                "Run both configurations to see which questions each one covers. BM25 runs in "
                "seconds over all 75 bundled questions; dense and hybrid take longer the "
                "first time, while they embed the chunks."
            )
        else:
            ra, rb = result["a"], result["b"]
            if (ra.config, rb.config) != (cfg_a, cfg_b):
                st.warning("The settings above changed since this run; run again to update.")
            st.caption(
                f"A: {describe(ra.config)} · B: {describe(rb.config)} · "
                f"{n_of(len(ra.results), 'question')} · {result['seconds']:.1f} s"
            )
            st.segmented_control("Hits retrieved (k)", list(ra.ks), key="ab_k", required=True)
            k = state.ab_k if state.ab_k in ra.ks else ra.ks[-1]
            cov_a, cov_b = ra.coverage_at_k[k], rb.coverage_at_k[k]
            mcols = st.columns(4)
            mcols[0].metric(f"Coverage@{k} with A", pct(cov_a))
            mcols[1].metric(
                f"Coverage@{k} with B",
                pct(cov_b),
                delta=f"{(cov_b - cov_a) * 100:+.0f} points",
                delta_color="normal" if cov_b != cov_a else "off",
            )
            mcols[2].metric("Chunks A / B", f"{ra.chunks:,} / {rb.chunks:,}")
            mcols[3].metric(
                "Index tokens A / B",
                f"{ra.index_tokens:,} / {rb.index_tokens:,}",
                help="cl100k tokens over all chunks of the documents: what an index holds.",
            )
            show_verdicts(ra, rb, k)
            st.subheader(f"Questions that flipped at k = {k}", anchor=False)
            show_flips(ra, rb, k)
            with st.expander("All measures, A next to B"):
                st.dataframe(
                    evaluate_view.summary_rows(ra, rb, ws), hide_index=True, key="ab_summary"
                )
            assert ws is not None
            rows = evaluate_view.ab_rows(ra, rb, ws, k=k)
            st.subheader("Every question", anchor=False)
            st.caption("Pick a row to draw its document with both sets of boundaries below.")
            st.dataframe(
                rows,
                hide_index=True,
                key="ab_table",
                on_select=lambda: on_ab_table([r["id"] for r in rows]),
                selection_mode="single-row",
                column_order=["flip", "id", "A", "B", "A ranks", "B ranks", "question", "document"],
                column_config={
                    "flip": st.column_config.TextColumn("flipped", width="small"),
                    "question": st.column_config.TextColumn(width="large"),
                    "A": st.column_config.CheckboxColumn(f"A covers@{k}", width="small"),
                    "B": st.column_config.CheckboxColumn(f"B covers@{k}", width="small"),
                    "A ranks": st.column_config.TextColumn(
                        "A: evidence ranks",
                        help="For each evidence phrase, how many top hits it takes to hold it "
                        "whole; ✂: no single chunk holds it (a boundary cuts it).",
                    ),
                    "B ranks": st.column_config.TextColumn(
                        "B: evidence ranks", help="As for A, under configuration B."
                    ),
                },
            )
            if rows:
                show_boundaries(ra, rb, rows)

# --------------------------------------------------------------------------- tab: sweep


def sweep_charts(reports: Sequence[EvalReport], k: int, budget: int, picked: int) -> None:
    rows = evaluate_view.sweep_rows(reports)
    unit = reports[0].config.chunking.unit
    specs = [
        (f"coverage@{k}", f"Coverage@{k}: questions with all evidence in the top {k}", True),
        (
            f"coverage@{budget} tokens",
            f"Coverage@{budget} tokens: all evidence within a {budget}-token budget",
            True,
        ),
        ("chunks", "Chunks over all documents", False),
        ("index tokens", "Index size (cl100k tokens over all chunks)", False),
    ]
    for n in range(0, len(specs), 2):
        cols = st.columns(2)
        for col, (column, title, percent) in zip(cols, specs[n : n + 2], strict=True):
            fig = evaluate_view.sweep_figure(
                rows, column, title=title, unit=unit, percent=percent, picked=picked
            )
            col.plotly_chart(fig, key=f"sw_chart_{column}")


if tab_sweep.open:
    with tab_sweep:
        st.caption(
            "One splitter over every size × overlap pair (overlap below size). Documents, chunks "
            "and embeddings are shared across cells, so cells with the same chunks cost nothing."
        )
        cols = st.columns(2)
        cols[0].text_input(
            "Chunk sizes",
            key="sw_sizes",
            help='A list such as "128, 256, 512", or start:stop:step such as "128:512:128".',
        )
        cols[1].text_input(
            "Overlaps", key="sw_overlaps", help='A list such as "0, 64", or start:stop:step.'
        )
        with st.expander("The configuration each cell shares", expanded=False):
            widgets.config_widgets("sw_", sizes=False, headers=False)
        grid_error: str | None = None
        cells: list[tuple[int, int]] = []
        base: Config | None = None
        try:
            sizes = compare.parse_int_list(state.sw_sizes, name="chunk sizes", minimum=1)
            overlaps = compare.parse_int_list(state.sw_overlaps, name="overlaps", minimum=0)
            cells = sweep_cells(sizes, overlaps)
            if not cells:
                raise ExplorerError("no cell has an overlap smaller than its size")
            base = config_of({**state, "sw_size": max(sizes), "sw_overlap": 0}, prefix="sw_")
        except ExplorerError as exc:
            grid_error = str(exc)
        cols = st.columns(4, vertical_alignment="bottom")
        with cols[3]:
            clicked = run_button(
                f"Run {n_of(len(cells), 'cell')} × {n_of(len(queries), 'question')}",
                "sw_run",
                not grid_error,
            )
        if grid_error:
            st.error(md_text(grid_error))
        widgets.cancelled_note("sweep_cancelled")
        if clicked and base is not None:
            assert ws is not None
            progress, bar = widgets.progress_bar("Running the sweep", cancel="sweep_cancelled")
            t0 = time.monotonic()
            try:
                reports = sweep(
                    queries, ws, base, sizes=sizes, overlaps=overlaps, progress=progress
                )
            except Exception as exc:  # a typed error, or a bug: one message, no traceback
                st.error(md_text(run_failed(exc)))
            else:
                state.sweep_result = {"reports": reports, "seconds": time.monotonic() - t0}
                state.sw_picked_for = None  # the best cell is picked below
            bar.empty()
        swept = state.get("sweep_result")
        if swept is None:
            st.caption("Run the sweep to chart coverage, chunk count and index size.")
        else:
            reports = swept["reports"]
            first = reports[0]
            st.caption(
                f"{first.config.chunking.splitter}, {first.config.retriever}: "
                f"{n_of(len(reports), 'cell')} × {n_of(len(first.results), 'question')} in "
                f"{swept['seconds']:.1f} s"
            )
            left, mid, right, _ = st.columns([1, 1, 1, 1])
            left.segmented_control("k", list(first.ks), key="sw_k", required=True)
            mid.segmented_control(
                "Token budget", list(first.budgets), key="sw_budget", required=True
            )
            right.segmented_control(
                "Best cell by", ["budget", "k"], key="sw_best", required=True,
                format_func={"budget": "the token budget", "k": "k"}.get,
                help="Which coverage picks the best cell and the 'vs best' column: the context "
                "an LLM gets within the budget, or the top k hits.",
            )  # fmt: skip
            k = state.sw_k if state.sw_k in first.ks else first.ks[-1]
            budget = state.sw_budget if state.sw_budget in first.budgets else first.budgets[0]
            by_budget = state.get("sw_best", "budget") == "budget" and bool(first.budgets)
            measure = {"budget": budget} if by_budget else {"k": k}
            picked_for = (id(swept), tuple(measure.items()))
            if state.get("sw_picked_for") != picked_for or state.get("sw_cell") not in range(
                len(reports)
            ):
                state.sw_cell = compare.best_cell(reports, **measure)
                state.sw_picked_for = picked_for
            sweep_charts(reports, k, budget, state.sw_cell)
            rows = evaluate_view.sweep_rows(reports, workspace=ws, **measure)
            at = f"{budget} tokens" if by_budget else str(k)
            st.caption(
                f"*vs best@{at}*: **tied** cells show no detectable difference from the best one "
                "on these questions (exact paired tests, Holm-corrected); only **worse** ones "
                "are distinguishably worse."
            )
            st.dataframe(
                [
                    {c: v * 100 if c.startswith("coverage@") else v for c, v in r.items()}
                    for r in rows
                ],
                hide_index=True,
                key="sw_table",
                on_select=lambda: on_sweep_table([r["cell"] for r in rows]),
                selection_mode="single-row",
                column_config={
                    "cell": st.column_config.NumberColumn(width="small"),
                    **{
                        c: st.column_config.ProgressColumn(
                            c, min_value=0, max_value=100, format="%.0f%%", width=110
                        )
                        for c in rows[0]
                        if c.startswith("coverage@")
                    },
                },
            )

            def cell_label(n: int) -> str:
                s = reports[n].config.chunking
                return (
                    f"cell {n}: size {s.size}, overlap {s.overlap} — coverage@{k} "
                    f"{pct(reports[n].coverage_at_k[k])}, @{budget} tokens "
                    f"{pct(reports[n].coverage_at_budget.get(budget, 0.0))}, "
                    f"{reports[n].chunks:,} chunks"
                )

            left, right = st.columns([3, 2], vertical_alignment="bottom")
            left.selectbox(
                "Cell (or pick a row in the table)",
                list(range(len(reports))),
                key="sw_cell",
                format_func=cell_label,
            )
            picked = reports[state.sw_cell].config
            fits = fits_explorer(picked)
            right.button(
                "Load this configuration into the explorer",
                key="sw_load",
                type="primary",
                disabled=not fits,
                on_click=open_in_explorer,
                args=(picked,),
                help=(
                    "Shows this cell's configuration on the Explore page." if fits
                    else explorer_range(picked)
                ),
            )  # fmt: skip

if state.pop("goto_explore", False):
    st.switch_page(EXPLORE)
