"""A PDF page drawn as a PNG with the chunks' lines tinted over it: translucent rectangles from the
document's layout (overlaps come out darker), outlines for the selected ones, a badge at each
highlight's first rectangle, and boundary markers.

A page of any size is drawn: the zoom asked for is lowered so that the image stays within
:data:`PIXEL_BUDGET` and :data:`MAX_SIDE` (a page can be up to 14,400 pt a side, more with a
``UserUnit``, from a file of a few hundred bytes). The tints are drawn on the page itself, in
page coordinates, before it is rasterised, so they land on their lines at any zoom.
"""

from __future__ import annotations

import bisect
import dataclasses
import math
import threading
from collections.abc import Sequence
from dataclasses import dataclass
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


PIXEL_BUDGET = 2**23
"""The most pixels in one page image (about 8.4 megapixels). Drawing and encoding one costs about
6 bytes a pixel at its peak, so a page stays within about 60 MB whatever its size, while every
paper size up to A2 and ANSI C is still drawn at the app's zoom of 2 (BENCHMARKS.md, "Large PDF
pages")."""

MAX_SIDE = 16_384
"""The longest side of a page image in pixels: a strip of a page (14,400 × 10 pt) is drawn no
longer than this, more than ten screen heights, instead of tens of thousands of pixels."""


def page_zoom(width: float, height: float, zoom: float) -> float:
    """The zoom a ``width`` × ``height`` pt page is drawn at: ``zoom``, or less where that image
    would hold more than :data:`PIXEL_BUDGET` pixels or have a side over :data:`MAX_SIDE`.

    MuPDF rounds each side of the image up to whole pixels, so a side is taken as one pixel
    longer: ``(width·z + 1)(height·z + 1) <= PIXEL_BUDGET``, solved for ``z``.
    """
    area, perimeter = width * height, width + height
    budget = (-perimeter + math.sqrt(perimeter**2 + 4 * area * (PIXEL_BUDGET - 1))) / (2 * area)
    return min(zoom, budget, (MAX_SIDE - 1) / max(width, height))


@dataclass(frozen=True)
class PageImage:
    """One drawn page: the PNG, the zoom it was drawn at and the zoom asked for."""

    png: bytes
    zoom: float
    asked: float
    width: float
    """The page's width in points (as shown: rotation applied)."""
    height: float
    user_unit: float = 1.0
    """The page's ``UserUnit`` where its tints were left out because of it (1: none left out)."""

    @property
    def reduced(self) -> bool:
        """Drawn below the zoom asked for, to stay within the pixel budget."""
        return self.zoom < self.asked

    def note(self) -> str:
        """Sentences for the caption: the page was drawn smaller, or without its tints; empty
        when it was drawn as asked."""
        notes = []
        if self.reduced:
            notes.append(
                f"Drawn at reduced resolution ({self.zoom * 72:.3g} dpi instead of "
                f"{self.asked * 72:.3g}): the page is {self.width:,.0f} × {self.height:,.0f} pt, "
                f"and a page image holds at most {PIXEL_BUDGET / 1e6:.1f} megapixels."
            )
        if self.user_unit != 1:
            notes.append(
                "The tints are not drawn on this page: it sets a PDF UserUnit of "
                f"{self.user_unit:g}, which the drawing of tints does not follow; the extracted "
                "text shows them."
            )
        return " ".join(notes)

    def caption(self, title: str) -> str:
        """``title`` (the document and page), followed by the note when there is one."""
        note = self.note()
        return f"{title}. {note}" if note else title


def render_pdf_page(
    pdf_bytes: bytes,
    page_number: int,
    doc: Document,
    highlights: Sequence[Highlight],
    *,
    zoom: float = 1.5,
    markers: Sequence[Marker] = (),
) -> PageImage:
    """Page ``page_number`` (1-based) drawn with each highlight's lines tinted.

    Every highlight covers its lines (``doc.layout.rects``) with a translucent rectangle, so
    overlaps come out darker; selected highlights are also outlined; a badge with the label sits
    at each highlight's first rectangle. Each of ``markers`` is a vertical bar (with its label
    above) just left of the first glyph at or after its offset. ``zoom`` 1 is 72 dpi; a large
    page is drawn at :func:`page_zoom` instead (the image says which).
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
        width, height = float(page.rect.width), float(page.rect.height)
        # MuPDF itself replaces an empty or broken MediaBox by US Letter; this is the last guard
        if not (0 < width < math.inf and 0 < height < math.inf):
            raise DocumentError(
                f"page {page_number} has no area ({width:g} × {height:g} pt), so there is no "
                "image to draw; switch the PDF view to Extracted text"
            )
        drawn = page_zoom(width, height, zoom)
        unit = _user_unit(page)
        if unit == 1 and doc.layout is not None and highlights:
            _draw_highlights(page, page_number, doc.layout, highlights)
        if unit == 1 and doc.layout is not None and markers:
            _draw_markers(page, page_number, doc.layout, markers)
        try:
            png = page.get_pixmap(matrix=pymupdf.Matrix(drawn, drawn), alpha=False).tobytes("png")
        except Exception as exc:  # MuPDF's own limits, a broken content stream: one sentence
            reason = " ".join(str(exc).split())[:120] or type(exc).__name__
            raise DocumentError(
                f"page {page_number} cannot be drawn ({reason}); "
                "switch the PDF view to Extracted text"
            ) from None
        left_out = unit if unit != 1 and doc.layout is not None and (highlights or markers) else 1
        return PageImage(bytes(png), drawn, zoom, width, height, user_unit=left_out)


def _user_unit(page: Any) -> float:
    """The page's ``UserUnit`` (PDF 1.6: points per unit, 1 by default). PyMuPDF draws a
    rectangle's width and height, line widths and font sizes unscaled by it, so tints drawn on
    such a page would land far from their lines."""
    kind, value = page.parent.xref_get_key(page.xref, "UserUnit")
    try:
        unit = float(value) if kind in ("int", "float") else 1.0
    except ValueError:
        return 1.0
    return unit if unit > 0 else 1.0


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
        if h.struck:  # dropped from the index: a line through the middle of each line box
            for r in here:
                middle = (r.y0 + r.y1) / 2
                shape.draw_line(pymupdf.Point(r.x0, middle), pymupdf.Point(r.x1, middle))
            shape.finish(color=(0.3, 0.3, 0.3), fill=None, width=1.2)
        if h.selected:
            outlines.append((h, here))
        if not h.badged:  # a later piece of a chunk drawn in pieces: no badge, no note
            continue
        later = [r.page for r in rects if r.page > page_number]
        if later:  # the chunk goes on: say where, after its last line on this page
            last = [r for r in rects if r.page == page_number][-1]
            _draw_note(shape, page, last, f"continues on p. {min(later)}", h)
        if rects[0].page < page_number:  # it began on an earlier page: its badge says which
            h = dataclasses.replace(h, label=f"{h.badge} from p. {rects[0].page}")
            k = max(bisect.bisect_right(line_starts_, h.start) - 1, 0)
            while k < len(layout.lines) and layout.lines[k].page < page_number:
                k += 1  # the first of its lines on this page
            badges.setdefault(k, []).append(h)
        elif rects[0].page == page_number:
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


def _draw_note(shape: Any, page: Any, last: Rect, text: str, h: Highlight) -> None:
    """A small note in the highlight's colour just after its last line on the page (below it
    where the line reaches the right edge), in layout coordinates: where the chunk goes on."""
    pymupdf = _fitz()
    size = max(5.0, min(7.0, (last.y1 - last.y0) * 0.6))
    width = pymupdf.get_text_length(text, fontname="helv", fontsize=size) + size * 0.8
    height = size * 1.3
    x, top = last.x1 + 2, last.y0 + (last.y1 - last.y0 - height) / 2
    if x + width > page.rect.width - 1:
        x, top = max(last.x1 - width, 1.0), last.y1 + 1
    box = pymupdf.Rect(x, top, x + width, top + height)
    shape.draw_rect(box * page.derotation_matrix, radius=0.3)
    shape.finish(color=darker(h.color), fill=(1, 1, 1), width=0.8)
    shape.insert_text(
        pymupdf.Point(x + size * 0.4, top + height - size * 0.38) * page.derotation_matrix,
        text,
        fontname="helv",
        fontsize=size,
        color=darker(h.color),
        rotate=page.rotation,
    )


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
