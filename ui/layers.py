"""Element layers on the document: toggles for headings, tables, lists, code and the running
headers and footers the PDF reader removed, drawn as dashed outlines (removed lines: greyed
boxes) in colours apart from the chunk tints, with a legend.

On a PDF page the layers are drawn by the region component (:mod:`ui.region_clicks`) over the
page image, from the document's blocks and its removed lines, so toggling one does not redraw
the PNG. On rendered Markdown they are CSS outlines of the elements the renderer made from
markdown-it's tokens (``h1``–``h6``, ``table``, ``ul``/``ol``, ``pre``, and the paragraphs
:mod:`explorer.documents.captions` reads as captions, ``p.ce-caption``).

The toggles are session state (``layers``): a view, not part of a link.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

import streamlit as st

from explorer.documents.captions import caption_blocks
from explorer.documents.model import Document

KEY = "layers"

LAYERS: dict[str, tuple[str, tuple[str, ...], str]] = {
    "Headings": ("heading", ("h1", "h2", "h3", "h4", "h5", "h6"), "#7b2cbf"),
    "Tables": ("table", ("table",), "#0b7285"),
    "Lists": ("list_item", ("ul", "ol"), "#c2255c"),
    "Code": ("code", ("pre",), "#495057"),
    "Captions": ("caption", ("p.ce-caption",), "#e8590c"),
    "Removed headers/footers": ("removed", (), "#868e96"),
}
"""Each layer: the block kind it shows, the rendered Markdown elements, and its outline colour
(darker and apart from the chunk palette; removed lines are grey)."""


REMOVED_KINDS: dict[str, str] = {
    "header": "headers/footers",
    "running title": "running titles",
    "page number": "page numbers",
    "margin": "margin notes",
    "watermark": "watermarks",
}
"""Each kind of removed line (:class:`~explorer.documents.model.RemovedLine`) as the legend
names it."""


def removed_kinds(doc: Document, page: int | None = None) -> list[str]:
    """The kinds of the lines the reader removed from ``doc`` (on ``page``, when given), in the
    order of :data:`REMOVED_KINDS`."""
    found = {r.kind for r in doc.removed if page is None or r.page == page}
    return [k for k in REMOVED_KINDS if k in found] + sorted(found - REMOVED_KINDS.keys())


def choose(doc: Document) -> list[str]:
    """The layer toggles for ``doc`` (removed lines only for a PDF); the ones switched on."""
    options = [k for k in LAYERS if k != "Removed headers/footers" or doc.kind == "pdf"]
    if doc.kind == "pdf" and not doc.removed:
        options = [k for k in options if k != "Removed headers/footers"]
    picked = st.pills(
        "Layers",
        options,
        selection_mode="multi",
        key=KEY,
        help="Outline the document's headings, tables, lists, code and figure or table captions "
        "(dashed), and, on a PDF page, the running headers and footers (chapter titles among "
        "them) and page numbers the reader removed from the text (grey boxes; hover one for "
        "its kind).",
    )
    return [p for p in (picked or []) if p in options]


def legend_html(chosen: Sequence[str], *, removed: Sequence[str] = ()) -> str:
    """A line naming each layer shown beside its outline's colour (escaped); the removed lines'
    entry names the ``removed`` kinds it shows (see :func:`removed_kinds`)."""
    items = []
    for name in chosen:
        _, _, color = LAYERS[name]
        dash = "solid" if name == "Removed headers/footers" else "dashed"
        fill = "background:rgba(134,142,150,.35);" if dash == "solid" else ""
        label = name
        if name == "Removed headers/footers" and removed:
            label += ": " + ", ".join(REMOVED_KINDS.get(k, k) for k in removed)
        items.append(
            f'<span style="display:inline-block;margin-right:1.2em;font-size:13px">'
            f'<span style="display:inline-block;width:1.6em;height:.9em;vertical-align:-.1em;'
            f'margin-right:.4em;border:2px {dash} {color};{fill}"></span>'
            f"{html.escape(label)}</span>"
        )
    return f'<div class="ce-layer-legend">{"".join(items)}</div>'


def pdf_layers(doc: Document, page: int, chosen: Sequence[str]) -> list[dict[str, Any]]:
    """The boxes of the chosen layers on PDF page ``page``: one per block (its lines' bounding
    box on the page; a ruled table's box is its frame of rules, widened to its text where the
    text runs past it) and one per removed line, in page points."""
    out: list[dict[str, Any]] = []
    layout = doc.layout
    for name in chosen:
        kind, _, color = LAYERS[name]
        if kind == "removed":
            for r in doc.removed:
                if r.page == page:
                    out.append(
                        {
                            "layer": "removed",
                            "color": color,
                            "rect": [round(v, 2) for v in (r.x0, r.y0, r.x1, r.y1)],
                            "title": f"removed from the text ({r.kind}): {r.text}",
                        }
                    )
            continue
        if layout is None:
            continue
        blocks = caption_blocks(doc) if kind == "caption" else doc.blocks
        for b in blocks:
            if kind != "caption" and b.kind != kind:
                continue
            rects = layout.rects_on_page(b.start, b.end, page)
            if not rects:
                continue
            box = [
                min(r.x0 for r in rects) - 1.5,
                min(r.y0 for r in rects) - 1.5,
                max(r.x1 for r in rects) + 1.5,
                max(r.y1 for r in rects) + 1.5,
            ]
            if b.box is not None and b.box.page == page:  # a ruled table: its frame, not its text
                frame = b.box
                box = [
                    min(frame.x0, box[0] + 1.5),
                    min(frame.y0, box[1] + 1.5),
                    max(frame.x1, box[2] - 1.5),
                    max(frame.y1, box[3] - 1.5),
                ]
            out.append(
                {
                    "layer": kind,
                    "color": color,
                    "rect": [round(v, 2) for v in box],
                    "title": name.lower().rstrip("s"),
                }
            )
    return out


def markdown_css(chosen: Sequence[str]) -> str:
    """CSS outlining the chosen layers' elements in the drawn Markdown (constant text)."""
    rules = []
    for name in chosen:
        _, elements, color = LAYERS[name]
        for el in elements:
            rules.append(
                f".st-key-doc_view .ce-doc {el}{{outline:2px dashed {color};outline-offset:2px}}"
            )
    return "<style>" + "".join(rules) + "</style>" if rules else ""
