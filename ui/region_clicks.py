"""Click a region of the document → its chunk: one inline ``st.components.v2`` component over the
PDF page image or the rendered text.

On a PDF page the component lays an SVG over the page image (``st.image``, as before): one
transparent rectangle per line of each chunk on the page, and the selected chunks' outlines. The
outline is drawn in the browser, so selecting a chunk no longer redraws the page's PNG (the PNG
is drawn with the tints only, and stays cached while the selection changes). Over the rendered
Markdown or text, a click on a tinted span names the chunks of the span (its ``ce-chunk-N``
classes, or a badge's ``data-index``).

A click on one chunk selects it; a click where several overlap opens a small menu of them, and
the person chooses (the menu names each with its number, which is the choice made visible). The
click comes back as a trigger value ``{"chunk": N}``; :func:`take_click` maps it to the View.

Nothing in the component comes from the document: its HTML and CSS are constants, and its data
are numbers, colours that :class:`~ui.render.Highlight` has checked against ``#rrggbb``, and
labels made here from numbers and escaped (:func:`html.escape`); the script builds every node
with ``createElement`` and ``textContent``, never ``innerHTML``, and loads nothing.

AppTest cannot click inside a component (it shows it as an element of unknown kind): the page
image stays an ``st.image`` and the text stays an ``st.html``, so tests see the page as before,
and :func:`take_click` is tested directly.
"""

from __future__ import annotations

import html
from collections.abc import MutableMapping, Sequence
from pathlib import Path
from typing import Any

import streamlit as st

from explorer.documents.model import Document
from ui import render
from ui.render import darker

KEY = "ce_region_click"
"""The component's key in session state (its trigger value sits there during the rerun)."""

CONTAINER = "ce_page_view"
"""The keyed container that holds the page image (or text) and the component."""

_JS = (
    (Path(__file__).with_name("region_clicks.js"))
    .read_text(encoding="utf-8")
    .replace("__CONTAINER__", CONTAINER)
)
"""The component's script (``ui/region_clicks.js``)."""

_component: Any = None


def _mount() -> Any:
    """The component's mount command, registered once per process."""
    global _component
    if _component is None:
        _component = st.components.v2.component("chunk_explorer.region_click", js=_JS)
    return _component


def _rect(r: Any) -> list[float]:
    return [
        round(float(r.x0), 2),
        round(float(r.y0), 2),
        round(float(r.x1), 2),
        round(float(r.y1), 2),
    ]


def _hex(color: tuple[float, float, float]) -> str:
    return "#" + "".join(f"{round(c * 255):02x}" for c in color)


def _label(index: int) -> str:
    return html.escape(f"chunk {int(index)}")


def pdf_data(
    doc: Document,
    page: int,
    width: float,
    height: float,
    tints: Sequence[render.Highlight],
    layers: Sequence[dict[str, Any]] = (),
) -> dict[str, Any]:
    """What the component draws over PDF page ``page`` (``width`` × ``height`` pt): each chunk's
    line rectangles on the page (in page points, origin top left, as the image shows it) and the
    outlines of the selected ones. Underlines (evidence phrases) are not regions."""
    layout = doc.layout
    regions: dict[int, list[list[float]]] = {}
    outlines: list[dict[str, Any]] = []
    if layout is not None:
        for h in tints:
            if h.underline:
                continue
            here = [_rect(r) for r in layout.rects_on_page(h.start, h.end, page)]
            if not here:
                continue
            regions.setdefault(h.index, []).extend(here)
            if h.selected:
                outlines.append({"chunk": h.index, "rects": here, "color": _hex(darker(h.color))})
    return {
        "mode": "pdf",
        "page": page,
        "width": round(width, 2),
        "height": round(height, 2),
        "regions": [
            {"chunk": i, "rects": rects, "title": _label(i)} for i, rects in regions.items()
        ],
        "outlines": outlines,
        "labels": {str(i): _label(i) for i in regions},
        "selected": next((o["chunk"] for o in outlines), None),
        "layers": list(layers),
    }


def text_data(tints: Sequence[render.Highlight], selected: int | None) -> dict[str, Any]:
    """What the component needs over the rendered text: the chunks a click may name."""
    chunks = sorted({h.index for h in tints if not h.underline})
    return {
        "mode": "text",
        "chunks": chunks,
        "labels": {str(i): _label(i) for i in chunks},
        "selected": selected,
    }


def take_click(value: Any, n_chunks: int) -> int | None:
    """The chunk a click names: ``value`` as the browser sent it (``{"chunk": N}``), or None
    when it names no chunk of the ``n_chunks`` shown (the browser's word is not trusted)."""
    if not isinstance(value, dict):
        return None
    chunk = value.get("chunk")
    if isinstance(chunk, bool) or not isinstance(chunk, int):
        return None
    return chunk if 0 <= chunk < n_chunks else None


def strip_selection(tints: Sequence[render.Highlight]) -> list[render.Highlight]:
    """``tints`` as the PNG draws them: none selected (the component outlines the selected)."""
    import dataclasses

    return [dataclasses.replace(h, selected=False) if h.selected else h for h in tints]


def apply_click(state: MutableMapping[str, Any], n_chunks: int) -> int | None:
    """The View change a click makes: the chunk the component's trigger value (in ``state``
    under :data:`KEY`) names becomes the selected chunk (``state["chunk"]``); the page stays,
    since the click was on it. Returns the chunk, or None (and changes nothing) when the value
    names none."""
    result: Any = state.get(KEY)
    value = result.get("pick") if result is not None and hasattr(result, "get") else None
    chunk = take_click(value, n_chunks)
    if chunk is not None:
        state["chunk"] = chunk
    return chunk


def _on_click(n_chunks: int) -> None:
    apply_click(st.session_state, n_chunks)


def region_clicks(data: dict[str, Any], n_chunks: int) -> None:
    """Mount the component (inside the :data:`CONTAINER` container, after the image or text)."""
    _mount()(key=KEY, data=data, height=0, on_pick_change=lambda: _on_click(n_chunks))
