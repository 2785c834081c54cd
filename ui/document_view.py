"""The main page's document panel: the document with its chunks or hits tinted (the rendered
Markdown, the text, or the PDF page itself, the pages beside it drawn ahead), the chunk picker,
the link to this view, and the selected chunk's details.

It is one fragment (:func:`ui.frame.fragment`): turning a PDF page, stepping through a long
document, picking a chunk or another view reruns this panel only, with the chunks and the answer
the page's last full run made (:class:`Shown`); each such run keeps every page's widget values
first, as a full run does.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import streamlit as st

from explorer.answer import Answer
from explorer.chunking.diagnostics import ISSUES, Diagnosis
from explorer.chunking.diff import ChunkDiff
from explorer.chunking.edits import Edit, encode_edits, split_points, undo
from explorer.chunking.measures import MODEL_WINDOW
from explorer.chunking.records import Chunk, embedded_text
from explorer.config import Config
from explorer.documents.model import Document
from explorer.errors import DocumentError
from explorer.memo import Memo
from explorer.retrieval.evidence import ordinal
from ui import (
    chunk_view,
    frame,
    highlights,
    layers,
    region_clicks,
    render,
    render_markdown,
    render_pdf,
    table_filter,
)
from ui.safe import facts_html, md_escape
from ui.timing import timed
from ui.view_state import VIEWS, View, edit_state, link_url

PDF_ZOOM = 2.0
DOC_HEIGHT = 640
"""Pixels of the scrolling document view: on a 1280x800 window it fits beside the question."""


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
        return render_markdown.render_markdown(_doc, _highlights, window=window)
    return render.render_text(_doc, _highlights, window=window)


@st.cache_resource(max_entries=8, show_spinner=False)
def _labels(chunking: str, _chunks: Sequence[Chunk]) -> tuple[str, ...]:
    """Every chunk's label in the picker, made once per document and chunking (``chunking``)
    for every session and run: a long document's tens of thousands are not made on each."""
    return tuple(chunk_view.chunk_label(c) for c in _chunks)


@st.cache_resource(show_spinner=False)
def _page_images() -> tuple[Memo[tuple[str, str, int], render_pdf.PageImage], ThreadPoolExecutor]:
    """Drawn pages (the last 96), and one thread that draws the pages next to the one shown."""
    return Memo(96), ThreadPoolExecutor(max_workers=1, thread_name_prefix="ce-pages")


def _draw(
    doc: Document, pdf: bytes, tints: Sequence[render.Highlight], n: int
) -> render_pdf.PageImage:
    here = [h for h in tints if highlights.span_on_page(doc, h.start, h.end, n)]
    return render_pdf.render_pdf_page(pdf, n, doc, here, zoom=PDF_ZOOM)


def page_image(
    doc: Document, view_key: str, page: int, pdf: bytes, tints: Sequence[render.Highlight]
) -> render_pdf.PageImage:
    """Page ``page`` with every highlight of ``tints`` that touches it (then
    :func:`draw_ahead` draws the pages beside it)."""
    drawn, _ = _page_images()
    return drawn.get((doc.key, view_key, page), lambda: _draw(doc, pdf, tints, page))


PDF_SHOWN = "pdf_shown"
"""The session's last page image: (the document's key, the view's key, the page)."""


def paging(doc: Document, view_key: str, page: int) -> bool:
    """Whether the reader is turning pages: the page shown is another page of the same document
    under the same tints as the last one this session was shown (a page turn, a chunk picked on
    another page), not the first page of new tints (a new size, splitter or question). Records
    ``page`` as the last one shown."""
    state = st.session_state
    last = state.get(PDF_SHOWN)
    state[PDF_SHOWN] = (doc.key, view_key, page)
    return last is not None and last[:2] == (doc.key, view_key) and last[2] != page


def draw_ahead(
    doc: Document,
    view_key: str,
    page: int,
    pdf: bytes,
    tints: Sequence[render.Highlight],
    *,
    turning: bool,
) -> None:
    """Draw the pages after and before ``page`` in the background, so turning to one of them
    shows it at once. Called once the panel is drawn. While the reader is turning pages
    (:func:`paging`) both neighbours are drawn; after new tints (a new size, splitter or
    question) only the next page: each page costs a drawing and a PNG encoding, which hold the
    interpreter (PyMuPDF keeps the lock) and PyMuPDF's own lock, so drawing both neighbours after
    every settings change makes every other session wait for pages nobody turned to, while the
    next page is the one a reader most often turns to."""
    drawn, drawer = _page_images()
    last = max((p.number for p in doc.pages), default=page)
    for n in (page + 1, page - 1) if turning else (page + 1,):
        if 1 <= n <= last and drawn.peek((doc.key, view_key, n)) is None:
            drawer.submit(drawn.get, (doc.key, view_key, n), lambda n=n: _draw(doc, pdf, tints, n))


@st.cache_data(max_entries=8, show_spinner=False)
def page_count(doc_key: str, _pdf: bytes) -> int:
    return render_pdf.pdf_page_count(_pdf)


def highlights_key(tints: Sequence[render.Highlight]) -> str:
    """A cache key for drawn highlights: every field of every one (they are frozen records)."""
    return hashlib.sha256(repr(list(tints)).encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Shown:
    """What the page's last full run made for the panel to draw."""

    doc: Document
    data: bytes
    chunks: list[Chunk]
    chunking_key: str
    diagnosis: Diagnosis
    config: Config
    answer: Answer | None
    view: View
    """The page's view (the panel reads the chunk, the page and the view itself afresh)."""
    passages: Callable[[], list[Chunk]]
    """The document's passages (what dense scores come from), cut when a chunk's details first
    show them: a long document's take a second or more."""
    changes: ChunkDiff | None = None
    url: str | None = None
    edits: tuple[Edit, ...] = ()
    """The what-if edits ``chunks`` were made with (:mod:`explorer.chunking.edits`)."""
    table_keep: frozenset[int] | None = None
    """The chunks the table filter keeps (:mod:`ui.table_filter`; None: it is off)."""


def _turn_page(step: int, n_pages: int) -> None:
    state = st.session_state
    state.page = max(1, min(n_pages, state.page + step))


def _select(index: int | None, page: int | None = None) -> None:
    state = st.session_state
    state.chunk = index
    if page is not None:
        state.page = page


def _on_pick(picker: str, pages: list[int | None]) -> None:
    """Take the picked chunk; for a PDF, turn to the page it starts on."""
    state = st.session_state
    state.chunk = chunk_view.valid_chunk(state[picker], len(pages))
    if state.chunk is not None and pages[state.chunk] is not None:
        state.page = pages[state.chunk]


def _highlights(shown: Shown, view: str, selected: int | None) -> list[render.Highlight]:
    answer, chunks, doc = shown.answer, shown.chunks, shown.doc
    held = render.retrievable_spans(chunks)  # struck through: only text no such chunk holds
    hits = list(answer.hits) if answer else []
    outlined = selected
    if outlined is None and st.session_state.get("present") and hits:
        outlined = hits[0].index  # presentation mode outlines the best hit
    if view == "Changes" and shown.changes is not None:
        out = highlights.change_highlights(shown.changes, chunks, selected=selected)
    elif view == "Query hits" and answer is not None:
        out = [
            *highlights.context_highlights(answer.pieces, hits, chunks, doc.text),
            *highlights.fill_highlights(answer, chunks, doc.text),
            *highlights.hit_highlights(hits, chunks, selected=outlined),
            *highlights.selected_highlight(answer, chunks, selected),
        ]
    elif view == "Heat" and answer is not None:
        out = highlights.heat_highlights(answer.ranking, chunks, selected=selected)
    else:
        shown_idx = chunk_view.visible_indices(
            chunks,
            shown.diagnosis,
            only_flagged=st.session_state.only_flagged,
            keep=shown.table_keep,
        )
        out = render.chunk_highlights([chunks[i] for i in shown_idx], selected=selected, held=held)
    if view != "Chunks" and shown.edits:  # a dropped chunk is drawn in every view
        out = [
            *(
                h
                for c in chunks
                if "dropped" in c.flags
                for h in render.dropped_highlights(c, held, selected=selected)
            ),
            *out,
        ]
    if answer is not None:
        out += highlights.evidence_highlights(answer.evidence, answer.context)
    return out


@frame.fragment  # its own runs keep every page's widget values, as full runs do
def document_panel(shown: Shown) -> None:
    """The document, the chunk picker, this view's link and the selected chunk's details."""
    with timed("document panel"):
        _document_panel(shown)


def _document_panel(shown: Shown) -> None:
    state = st.session_state
    doc, chunks, answer = shown.doc, shown.chunks, shown.answer
    state.chunk = selected = chunk_view.valid_chunk(state.chunk, len(chunks))
    views = [
        *(VIEWS if answer is not None else ["Chunks"]),
        *(["Changes"] if shown.changes else []),
    ]
    view = state.get("view") if state.get("view") in views else "Chunks"
    pages = [c.page_start for c in chunks]
    shown_idx = chunk_view.visible_indices(
        chunks, shown.diagnosis, only_flagged=state.only_flagged, keep=shown.table_keep
    )

    with st.container(key="ce_hide_view"):
        view_col, pick_col, link_col = st.columns([12, 6, 3], vertical_alignment="bottom")
        if len(views) > 1:
            state.view = view  # the radio shows the view drawn (the state keeps it otherwise)
            view_col.radio(
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
            view_col.caption("Every chunk in its own colour. Ask a question to see its hits.")
        options = (
            shown_idx
            if selected is None or selected in shown_idx
            else sorted([selected, *shown_idx])
        )
        # a fresh picker for each document and chunking: the browser never sends back a label
        # from other chunks; the choice itself lives in state.chunk
        picker = (
            "pick_"
            + hashlib.sha256(
                f"{doc.key}|{shown.chunking_key}|{state.only_flagged}|{shown.table_keep}".encode()
            ).hexdigest()[:12]
        )
        state[picker] = selected
        pick_col.selectbox(
            "Selected chunk",
            options,
            key=picker,
            placeholder="Pick a chunk",
            format_func=_labels(f"{doc.key}|{shown.chunking_key}", chunks).__getitem__,
            on_change=_on_pick,
            args=(picker, pages),
        )
        view = state.view if len(views) > 1 else view
        link = shown.view.replace(chunk=selected, view=view, page=state.get("page", 1))
        params = link.params(pdf=doc.kind == "pdf")
        st.query_params.from_dict(params)  # the address bar always holds this view's link
        with link_col.popover(":material/link:", help="Copy a link to this view"):
            st.caption("This view, as a link:")
            st.code(link_url(shown.url, params), language=None, wrap_lines=True)
            if link.uploaded:
                st.caption(
                    md_escape(doc.name) + " was uploaded: whoever opens the link uploads a file of "
                    "that name to see this view."
                )

    tints = _highlights(shown, view, selected)
    if view == "Heat" and answer is not None:
        st.html(highlights.heat_legend_html(answer.ranking))
    table_note = table_filter.note(state.get(table_filter.KEY), len(shown_idx))
    if view == "Chunks" and table_note is not None:
        st.info(table_note)
    elif view == "Chunks" and state.only_flagged and not shown_idx:
        st.info("No chunk has an issue at these settings; nothing is highlighted.")
    if doc.kind == "pdf" and state.pdf_view == "Page image":
        # the PNG is drawn without the selection (the component outlines it in the browser), so
        # selecting a chunk finds the page already drawn
        plain = region_clicks.strip_selection(tints)
        _pdf_page(shown, plain, f"{view}|{highlights_key(plain)}", selected, outlined=tints)
    else:
        _text_view(shown, tints, f"{view}|{highlights_key(tints)}", selected)
    if selected is not None and not state.get("present"):
        chunk_details(shown, selected)
    elif not state.get("present"):
        st.caption("Pick a chunk here or in the table below to see its details.")


def _spans_pages(chunk: Chunk) -> bool:
    return chunk.page_start is not None and chunk.page_end not in (None, chunk.page_start)


def _pdf_page(
    shown: Shown,
    tints: list[render.Highlight],
    view_key: str,
    selected: int | None = None,
    *,
    outlined: Sequence[render.Highlight] = (),
) -> None:
    state = st.session_state
    doc, chunks, answer = shown.doc, shown.chunks, shown.answer
    n_pages = page_count(doc.key, shown.data)
    state.page = max(1, min(n_pages, int(state.get("page", 1))))
    nav = st.columns([1, 2, 1, 4], vertical_alignment="bottom")
    # arrows alone: at 1280 px wide the words were cut to "◀…" and "N…"
    nav[0].button("◀", on_click=_turn_page, args=(-1, n_pages), key="prev_page",
                  help="Previous page")  # fmt: skip
    nav[1].number_input("Page", 1, n_pages, key="page")
    nav[2].button("▶", on_click=_turn_page, args=(1, n_pages), key="next_page", help="Next page")
    page = state.page
    on_page = [h for h in tints if highlights.span_on_page(doc, h.start, h.end, page)]
    if state.view == "Query hits" and answer is not None:
        here = [h for h in answer.hits if chunk_view.on_page(chunks[h.index], page)]
        # a hit over two pages is named with both: it is tinted on each
        named = [
            f"#{h.rank} (pp. {chunk_view.pages_label(chunks[h.index])})"
            if _spans_pages(chunks[h.index])
            else f"#{h.rank}"
            for h in here
        ]
        listed = ", ".join(named) or "none"
        note = f"of {n_pages:,} · hits on this page: {listed}"
    else:
        tinted = sorted({h.index for h in on_page if not h.underline})
        listed = chunk_view.describe_indices(tinted)
        which = f"chunk {listed}" if len(tinted) == 1 else f"chunks {listed}"
        note = f"of {n_pages:,} · on this page: {which}" if listed else f"of {n_pages:,}"
    if selected is not None and chunks[selected].page_start is not None:
        c = chunks[selected]
        where = "pages" if _spans_pages(c) else "page"
        note += f" · chunk {selected} is on {where} {chunk_view.pages_label(c)}"
    nav[3].caption(note)
    chosen = layers.choose(doc)
    try:
        image = page_image(doc, view_key, page, shown.data, tints)
    except DocumentError as exc:
        st.warning(md_escape(str(exc)))
        return
    caption = image.caption(f"{md_escape(doc.name)}, page {page}")
    with st.container(key=region_clicks.CONTAINER):
        st.image(image.png, caption=caption, output_format="PNG")
        if image.user_unit == 1:  # the tints are drawn: the regions match them
            data = region_clicks.pdf_data(
                doc,
                page,
                image.width,
                image.height,
                outlined or tints,
                layers.pdf_layers(doc, page, chosen),
            )
            region_clicks.region_clicks(data, len(chunks))
    if chosen:
        st.html(layers.legend_html(chosen, removed=layers.removed_kinds(doc, page)))
    draw_ahead(doc, view_key, page, shown.data, tints, turning=paging(doc, view_key, page))


def _text_view(
    shown: Shown, tints: list[render.Highlight], view_key: str, selected: int | None
) -> None:
    state = st.session_state
    doc, chunks, answer = shown.doc, shown.chunks, shown.answer
    hits = list(answer.hits) if answer else []
    raw = doc.kind == "markdown" and state.raw
    # a long document is drawn a window at a time, around the selected chunk or best hit
    focus = selected if selected is not None else hits[0].index if hits else None
    window = render.window(doc.text, None if focus is None else chunks[focus].start)
    if not window.whole:
        earlier, later = chunk_view.window_steps(window, chunks)
        nav = st.columns([2, 7, 2], vertical_alignment="center")
        nav[1].caption(chunk_view.window_note(window, chunks))
        for col, label, step, where in (
            (nav[0], "◀ Earlier", earlier, "before"),
            (nav[2], "Later ▶", later, "after"),
        ):
            col.button(
                label,
                key=f"window_{label.strip('◀▶ ').lower()}",
                on_click=_select,
                args=(step,),
                disabled=step is None,
                help=f"Select the chunk just {where} this part of the document",
            )
    chosen = layers.choose(doc) if doc.kind == "markdown" and not raw else []
    if chosen:
        st.html(layers.markdown_css(chosen) + layers.legend_html(chosen))
    with st.container(key=region_clicks.CONTAINER):
        with st.container(height=DOC_HEIGHT, key="doc_view"):
            st.html(
                document_html(
                    doc.key,
                    view_key + ("|raw" if raw else ""),
                    window.start,
                    window.end,
                    doc,
                    tints,
                )
            )
        region_clicks.region_clicks(region_clicks.text_data(tints, selected), len(chunks))
    outlined = selected if selected is not None else hits[0].index if hits else None
    if outlined is not None:  # our own script, no document content: bring the chunk into view
        st.html(chunk_view.scroll_script(outlined), unsafe_allow_javascript=True)


def chunk_details(shown: Shown, selected: int) -> None:
    """The selected chunk: its id, offsets, pages, heading path, sizes in every measure, overlap
    with both neighbours, issues, and what is embedded beside what is displayed."""
    chunks, diagnosis, config = shown.chunks, shown.diagnosis, shown.config
    c = chunks[selected]
    with st.container(border=True, key="chunk_details"):
        st.subheader(f"Chunk #{c.index}", anchor=False)
        if "dropped" in c.flags:
            st.caption("Dropped from the index by a what-if edit: it is never retrieved.")
        edit_controls(shown, selected)
        rank = next(
            (h.rank for h in (shown.answer.ranking if shown.answer else ()) if h.index == selected),
            None,
        )
        rank_note = f"; ranked {ordinal(rank)} for the question" if rank else ""
        st.caption(f"{len(chunks):,} chunks, numbered from 0 as in the export{rank_note}")
        issues = diagnosis.issues[selected]
        if issues:
            st.warning(
                "  \n".join(f"**{i.label}**: {i.description}" for i in ISSUES if i.code in issues)
            )
        facts_col, sizes_col = st.columns([3, 2])
        facts_col.html(
            facts_html(chunk_view.chunk_facts(chunks, selected, unit=config.chunking.unit))
        )
        sizes = chunk_view.sizes_in_every_measure(c.text)
        sizes_col.html(facts_html([(label, f"{n:,}") for label, n in sizes.items()]))
        whole = (
            f"{diagnosis.model_tokens[selected]:,} of {MODEL_WINDOW} word pieces (with the 2 "
            "special tokens)"
        )
        st.caption(
            f"Embedded whole: {whole}."
            if config.dense == "chunks"
            else f"As one text it would be {whole}; here its passages are embedded instead."
        )
        text_col, embed_col = st.columns(2)
        text_col.markdown(f"**Chunk {selected}: displayed text**")
        text_col.code(c.text, language=None, wrap_lines=True)
        prefix = config.heading_prefix
        context = config.context_header != "off"
        title = shown.doc.title if context else ""
        prefix_note = (
            "title and heading path prefixed"
            if context
            else "heading path prefixed"
            if prefix
            else "no prefix; see the sidebar"
        )
        if config.dense == "passages":
            texts = chunk_view.embedded_passages(
                shown.doc, c, shown.passages(), heading_prefix=prefix, context=context
            )
            embed_col.markdown(
                f"**Chunk {selected}: the passages that score it** ({len(texts)}; "
                f"{prefix_note}; its dense score is the best of theirs)"
            )
            embed_col.code(chunk_view.PASSAGE_SEPARATOR.join(texts), language=None, wrap_lines=True)
        else:
            embed_col.markdown(f"**Chunk {selected}: text that is embedded** ({prefix_note})")
            embed_col.code(
                embedded_text(c, heading_prefix=prefix, title=title),
                language=None,
                wrap_lines=True,
            )


def edit_controls(shown: Shown, selected: int) -> None:
    """What-if edits of the selected chunk: split it at a sentence or paragraph end, merge it with
    the next, drop it from the index; undo the last edit. Each reruns the whole page, so the
    verdict and the diagnostics follow at once."""
    doc, chunks, edits = shown.doc, shown.chunks, shown.edits
    c = chunks[selected]
    points = split_points(doc, chunks, selected)
    where = f"{doc.key}|{shown.chunking_key}|{selected}"  # a fresh picker per chunk and chunking
    with st.container(key="edit_controls"):
        where_col, split_col = st.columns([3, 1], vertical_alignment="bottom")
        at = where_col.selectbox(
            "Split this chunk after",
            points,
            key="split_at_" + hashlib.sha256(where.encode()).hexdigest()[:12],
            format_func=lambda p: _split_label(doc.text, c.start, p),
            disabled=not points,
            placeholder="no sentence or paragraph end inside it" if not points else "",
            help="Sentence, block and paragraph ends inside the chunk (outside its overlap with "
            "its neighbours).",
        )
        if split_col.button("Split here", key="edit_split", disabled=at is None):
            _edit(shown, (*edits, Edit("split", int(at))))
        with st.container(horizontal=True, key="edit_buttons"):
            if st.button(
                "Merge with next",
                key="edit_merge",
                icon=":material/merge:",
                disabled=selected + 1 >= len(chunks),
                help="This chunk and the next become one (over both spans).",
            ):
                _edit(shown, (*edits, Edit("merge", selected)))
            if st.button(
                "Drop from index",
                key="edit_drop",
                icon=":material/block:",
                disabled="dropped" in c.flags,
                help="It stays on the page, struck through, but is never retrieved.",
            ):
                _edit(shown, (*edits, Edit("drop", selected)))
            if st.button(
                "Undo",
                key="edit_undo",
                icon=":material/undo:",
                disabled=not edits,
                help=f"Take back the last edit ({edits[-1].describe()})." if edits else None,
            ):
                _edit(shown, undo(edits))


def _split_label(text: str, start: int, at: int) -> str:
    """``"1,000 · …Refunds are available within seven days."``: the offset, then what ends
    there."""
    before = " ".join(text[max(start, at - 36) : at].split())
    return f"{at:,} · …{before}"


def _edit(shown: Shown, edits: Sequence[Edit]) -> None:
    """Keep ``edits`` for this document and chunking, and run the whole page again."""
    st.session_state.edits = edit_state(shown.view.source, shown.config, encode_edits(edits))
    st.rerun()
