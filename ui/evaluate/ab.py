"""The Evaluate page's A/B tab: two configurations over the questions (each drawn with the
sidebar's widgets, keyed ``ab_A_`` and ``ab_B_``): coverage, whether the difference is real,
the questions that flipped, every question's evidence ranks, and one document drawn once with
both sets of chunk boundaries — each configuration one click from the Explore page."""

from __future__ import annotations

import hashlib
import time
from typing import Any

import streamlit as st

from explorer.config import Config
from explorer.documents.model import Document
from explorer.errors import DocumentError
from explorer.evaluation import compare, coverage
from explorer.evaluation.coverage import EvalReport, flipped
from ui import evaluate_view, presets_view, render, render_markdown, render_pdf, widgets
from ui.answers import n_of, signed_points
from ui.chunk_view import scroll_script, window_note
from ui.evaluate.handover import explorer_range, fits_explorer, open_in_explorer
from ui.evaluate.questions import Questions, scope_words
from ui.evaluate.runs import pct, run_button, run_failed
from ui.safe import md_escape, md_text
from ui.settings import describe_config
from ui.sources import sample_paths

EVIDENCE_COLOR = "#edc948"


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


def on_ab_table(ids: list[str]) -> None:
    state = st.session_state
    rows = state.ab_table.selection.rows
    if rows and 0 <= rows[0] < len(ids):
        state.ab_query = ids[rows[0]]


def rank_text(located: bool, rank: int | None) -> str:
    return "not found" if not located else "never" if rank is None else str(rank)


def describe(config: Config) -> str:
    """The configuration in a line: what differs from the recommended one."""
    return describe_config(config)


def draw(questions: Questions) -> None:
    """The tab: both configurations, the run, and what it found."""
    state = st.session_state
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
    queries, ws = questions.queries, questions.ws
    label = f"Run A and B on {n_of(len(queries), 'question')}"
    if run_button(label, "ab_run", ready=questions.ready and ready):
        assert ws is not None and cfg_a is not None and cfg_b is not None
        progress, bar = widgets.progress_bar("Running A and B", cancel="ab_cancelled")
        t0 = time.monotonic()
        try:  # looked up as it runs (a test replaces it)
            rep_a = coverage.evaluate(
                queries,
                ws,
                cfg_a,
                scope=questions.scope,
                progress=lambda f, m: progress(f / 2, f"A · {m}"),
            )
            rep_b = coverage.evaluate(
                queries,
                ws,
                cfg_b,
                scope=questions.scope,
                progress=lambda f, m: progress(0.5 + f / 2, f"B · {m}"),
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
        return
    ra, rb = result["a"], result["b"]
    if (ra.config, rb.config, ra.scope) != (cfg_a, cfg_b, questions.scope):
        st.warning("The settings above changed since this run; run again to update.")
    searched = (
        f"every question searches all {n_of(len(ra.documents), 'document')}"
        if ra.scope == "corpus"
        else "each question searches its own document"
    )
    st.caption(
        f"A: {md_text(describe(ra.config))} · B: {md_text(describe(rb.config))} · "
        f"{n_of(len(ra.results), 'question')} · {scope_words(ra.scope)}: {searched} · "
        f"{result['seconds']:.1f} s"
    )
    st.segmented_control("Hits retrieved (k)", list(ra.ks), key="ab_k", required=True)
    k = state.ab_k if state.ab_k in ra.ks else ra.ks[-1]
    coverage_figures(ra, rb, k)
    show_verdicts(ra, rb, k)
    st.subheader(f"Questions that flipped at k = {k}", anchor=False)
    show_flips(ra, rb, k)
    with st.expander("All measures, A next to B"):
        st.dataframe(evaluate_view.summary_rows(ra, rb, ws), hide_index=True, key="ab_summary")
    assert ws is not None
    rows = evaluate_view.ab_rows(ra, rb, ws, k=k)
    every_question(rows, k)
    if rows:
        show_boundaries(questions, ra, rb, rows)


def config_inputs(side: str) -> Config | None:
    """The widgets of one side (the sidebar's, keyed ``ab_A_`` or ``ab_B_``); its configuration,
    or None (with the error shown) if invalid."""
    p = f"ab_{side}_"
    presets_view.preset_picker(p)
    widgets.config_widgets(p, headers=False)
    return widgets.configuration(p)


def coverage_figures(ra: EvalReport, rb: EvalReport, k: int) -> None:
    """Coverage at k with A and with B, the chunks and the index tokens of each: two to a row,
    so that each label and value reads whole at 1280 pixels (four to a row cut them)."""
    cov_a, cov_b = ra.coverage_at_k[k], rb.coverage_at_k[k]
    where = scope_words(ra.scope)
    mcols = [*st.columns(2), *st.columns(2)]
    mcols[0].metric(f"Coverage@{k} with A ({where})", pct(cov_a))
    mcols[1].metric(
        f"Coverage@{k} with B ({where})",
        pct(cov_b),
        delta=signed_points((cov_b - cov_a) * 100),
        delta_color="normal" if cov_b != cov_a else "off",
    )
    whose = "corpus" if ra.scope == "corpus" else "their documents"
    mcols[2].metric(f"Chunks A / B ({whose})", f"{ra.chunks:,} / {rb.chunks:,}")
    mcols[3].metric(
        f"Index tokens A / B ({whose})",
        f"{ra.index_tokens:,} / {rb.index_tokens:,}",
        help="cl100k tokens over all chunks of the documents searched: what an index holds.",
    )


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
            f"for B − A: {lo * 100:+.0f} to {hi * 100:+.0f} points, in "
            f"{scope_words(ra.scope)}.{needed}"
        )
    presets_view.claim_note(ra, rb)
    with st.expander("The paired test at every k and budget"):
        st.dataframe(evaluate_view.verdict_rows(comparisons), hide_index=True, key="ab_verdicts")


def show_flips(ra: EvalReport, rb: EvalReport, k: int) -> None:
    """The questions only A covers at k, and those only B covers, side by side."""
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


def every_question(rows: list[dict[str, Any]], k: int) -> None:
    """One row per question: flipped or not, covered under A and under B, the evidence ranks
    (a row picked draws its document below)."""
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


def show_boundaries(
    questions: Questions, ra: EvalReport, rb: EvalReport, rows: list[dict[str, Any]]
) -> None:
    """The picked question's document drawn once with A's and B's chunk starts and its
    evidence, the ranks of each phrase under both, and a button per side to the Explore page."""
    state = st.session_state
    ws = questions.ws
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
        try:
            pdf = questions.pdf_bytes(res_a.query.doc)
        except (DocumentError, OSError) as exc:  # the file went away: say so, draw the text
            st.warning(md_escape(f"{exc}; choose Extracted text to see the chunks."))
            return
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
