"""A PDF page drawn as a PNG with the chunks' lines tinted over it: translucent rectangles from the
document's layout (overlaps come out darker), outlines for the selected ones, a badge at each
highlight's first rectangle, and boundary markers."""

from __future__ import annotations

import bisect
import threading
from collections.abc import Sequence
from typing import Any

from explorer.documents.model import Document, Layout, Rect
from explorer.errors import DocumentError
from ui.render import PDF_FILL_OPACITY, Highlight, Marker, darker, ink_on, rgb


def _fitz() -> Any:
    """PyMuPDF, imported on first use (it ships partial annotations only: treat as untyped)."""
    import pymupdf

    return pymupdf


def _open_pdf(pdf_bytes: bytes) -> Any:
    """The PDF opened as the reader opens it, every failure one DocumentError."""
    from explorer.documents.pdf import open_pdf

    return open_pdf(pdf_bytes, name="this PDF")


def pdf_page_count(pdf_bytes: bytes) -> int:
    """Number of pages of a PDF."""
    with _MUPDF, _open_pdf(pdf_bytes) as pdf:
        return int(pdf.page_count)


_MUPDF = threading.Lock()
"""PyMuPDF is not made to be used from several threads at once: pages are drawn one at a time
(the app's sessions and its drawing-ahead thread share this lock)."""


def render_pdf_page(
    pdf_bytes: bytes,
    page_number: int,
    doc: Document,
    highlights: Sequence[Highlight],
    *,
    zoom: float = 1.5,
    markers: Sequence[Marker] = (),
) -> bytes:
    """A PNG of page ``page_number`` (1-based) with each highlight's lines tinted.

    Every highlight covers its lines (``doc.layout.rects``) with a translucent rectangle, so
    overlaps come out darker; selected highlights are also outlined; a badge with the label sits
    at each highlight's first rectangle. Each of ``markers`` is a vertical bar (with its label
    above) just left of the first glyph at or after its offset. ``zoom`` 1 is 72 dpi.
    """
    pymupdf = _fitz()
    if not zoom > 0:
        raise ValueError(f"zoom must be above 0, got {zoom!r}")
    with _MUPDF, _open_pdf(pdf_bytes) as pdf:
        if not 1 <= page_number <= pdf.page_count:
            raise DocumentError(
                f"page {page_number} does not exist; this PDF has {pdf.page_count} page(s)"
            )
        page = pdf[page_number - 1]
        if doc.layout is not None and highlights:
            _draw_highlights(page, page_number, doc.layout, highlights)
        if doc.layout is not None and markers:
            _draw_markers(page, page_number, doc.layout, markers)
        pix = page.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), alpha=False)
        return bytes(pix.tobytes("png"))


def _draw_highlights(
    page: Any, page_number: int, layout: Layout, highlights: Sequence[Highlight]
) -> None:
    """Tint, outline and badge ``highlights`` on ``page`` (in layout coordinates: display
    orientation, origin top left; the derotation matrix maps them onto rotated pages)."""
    pymupdf = _fitz()
    derotate = page.derotation_matrix
    gstate = f"fitzca99{round(PDF_FILL_OPACITY * 100):02d}"  # PyMuPDF's name for our opacity
    pdf = page.parent
    multiply = _graphics_state(pdf, page.xref, gstate) is None
    shape = page.new_shape()
    line_starts_ = [line.start for line in layout.lines]
    badges: dict[int, list[Highlight]] = {}  # line index -> highlights starting on that line
    outlines: list[tuple[Highlight, list[Any]]] = []
    underlines: list[tuple[Highlight, list[Rect]]] = []
    for h in highlights:
        rects = layout.rects(h.start, h.end)
        if h.underline:
            underlines.append((h, [r for r in rects if r.page == page_number]))
            continue
        here = [
            pymupdf.Rect(r.x0, r.y0, r.x1, r.y1) * derotate for r in rects if r.page == page_number
        ]
        if not here:
            continue
        # one path per highlight: its own line boxes touching each other never darken
        for r in here:
            shape.draw_rect(r)
        fill = tuple(c / 255 for c in rgb(h.color))
        shape.finish(color=None, fill=fill, fill_opacity=PDF_FILL_OPACITY, width=0)
        if h.selected:
            outlines.append((h, here))
        if rects[0].page == page_number:
            # the line holding the first glyph (the first rect's line, found by its offset)
            first_glyph = next(
                (i for i in range(h.start, h.end) if layout.x0[i] == layout.x0[i]), h.start
            )
            k = max(bisect.bisect_right(line_starts_, first_glyph) - 1, 0)
            badges.setdefault(k, []).append(h)
    for h, here in outlines:
        for r in here:
            shape.draw_rect(r)
        shape.finish(color=darker(h.color), fill=None, width=1.2)
    for h, line_rects in underlines:  # a line under each line box, in layout coordinates
        for r in line_rects:
            shape.draw_line(
                pymupdf.Point(r.x0, r.y1 + 0.6) * derotate,
                pymupdf.Point(r.x1, r.y1 + 0.6) * derotate,
            )
        if line_rects:
            shape.finish(color=tuple(c / 255 for c in rgb(h.color)), fill=None, width=1.6)
    for k, on_line in badges.items():
        line = layout.lines[k]
        whole = layout.rects(line.start, line.end)
        if not whole:
            continue
        _draw_badges(shape, page, on_line, whole[0])
    shape.commit(overlay=True)
    found = _graphics_state(pdf, page.xref, gstate) if multiply else None
    if found is not None:  # tint like a highlighter: the text below stays dark
        pdf.xref_set_key(found[0], found[1] + "BM", "/Multiply")


MARKER_SEARCH = 200
"""How far past a marker's offset to look for a glyph (text the loader inserted has none)."""


def _draw_markers(page: Any, page_number: int, layout: Layout, markers: Sequence[Marker]) -> None:
    """A bar just left of the first glyph at or after each marker's offset, label above it."""
    pymupdf = _fitz()
    derotate = page.derotation_matrix
    shape = page.new_shape()
    n = len(layout.x0)
    drawn = 0
    for m in markers:
        i, limit = m.offset, min(n, m.offset + MARKER_SEARCH)
        while i < limit and layout.x0[i] != layout.x0[i]:  # nan: no glyph
            i += 1
        rects = layout.rects(i, i + 1) if i < limit else []
        if not rects or rects[0].page != page_number:
            continue
        r = rects[0]
        x = r.x0 - 0.9
        ink = tuple(c / 255 for c in rgb(m.color))
        shape.draw_line(
            pymupdf.Point(x, r.y0 - 0.5) * derotate, pymupdf.Point(x, r.y1 + 0.5) * derotate
        )
        shape.finish(color=ink, width=2.0)
        if m.label:
            size = max(5.0, min(7.0, (r.y1 - r.y0) * 0.6))
            shape.insert_text(
                pymupdf.Point(x - 0.8, r.y0 - 0.6) * derotate,
                m.label,
                fontname="helv",
                fontsize=size,
                color=ink,
                rotate=page.rotation,
            )
        drawn += 1
    if drawn:
        shape.commit(overlay=True)


def _graphics_state(pdf: Any, xref: int, name: str) -> tuple[int, str] | None:
    """Where the page's graphics state ``name`` lives: ``(xref, key path prefix)``, or None.

    PyMuPDF's ``xref_set_key`` cannot follow indirect references, so each step is resolved.
    """
    prefix = ""
    for key in ("Resources", "ExtGState", name):
        kind, value = pdf.xref_get_key(xref, prefix + key)
        if kind == "xref":
            xref, prefix = int(value.split()[0]), ""
        elif kind == "dict":
            prefix += key + "/"
        else:
            return None
    return xref, prefix


def _draw_badges(shape: Any, page: Any, on_line: Sequence[Highlight], line: Rect) -> None:
    """Badges for the highlights starting on one line, side by side in the margin to its left
    (over the line's start when there is no margin; above it for vertical text)."""
    pymupdf = _fitz()
    vertical = line.y1 - line.y0 > 3 * (line.x1 - line.x0)
    thickness = (line.x1 - line.x0) if vertical else (line.y1 - line.y0)
    size = max(5.0, min(7.0, thickness * 0.6))
    height = size * 1.3
    widths = [
        pymupdf.get_text_length(h.badge, fontname="helv", fontsize=size) + size * 0.8
        for h in on_line
    ]
    gap = 1.0
    total = sum(widths) + gap * len(widths)
    if vertical:
        x = (line.x0 + line.x1 - total) / 2
        top = line.y0 - height - 1 if line.y0 - height - 1 >= 1 else line.y0
    else:
        x = line.x0 - total if line.x0 - total >= 1 else line.x0
        top = line.y0 + (line.y1 - line.y0 - height) / 2
    for h, width in zip(on_line, widths, strict=True):
        box = pymupdf.Rect(x, top, x + width, top + height)
        fill = tuple(c / 255 for c in rgb(h.color))
        shape.draw_rect(box * page.derotation_matrix, radius=0.3)
        shape.finish(color=(0, 0, 0) if h.selected else None, fill=fill, width=0.8)
        ink = (1, 1, 1) if ink_on(h.color) == "#fff" else (0.07, 0.07, 0.07)
        shape.insert_text(
            pymupdf.Point(x + size * 0.4, top + height - size * 0.38) * page.derotation_matrix,
            h.badge,
            fontname="helv",
            fontsize=size,
            color=ink,
            rotate=page.rotation,
        )
        x += width + gap
