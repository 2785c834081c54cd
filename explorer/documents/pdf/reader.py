"""Reading a PDF into a Document: the stages, page by page.

:func:`load_pdf` opens the bytes (:mod:`~explorer.documents.pdf.opening`), reads each page's
glyphs and ruling lines (:func:`_read_page`, :mod:`~explorer.documents.pdf.glyphs`), drops
running headers and footers (:mod:`~explorer.documents.pdf.repeats`), finds tables
(:mod:`~explorer.documents.pdf.tables`), puts each page in reading order
(:mod:`~explorer.documents.pdf.paragraphs`) and writes the text
(:mod:`~explorer.documents.pdf.writer`). A damaged page is left empty with a warning; the text is
held to ``MAX_CHARS`` as the pages are read. Pages read in their unrotated coordinates are turned
back to rendered coordinates here.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections import Counter
from typing import Any

import pymupdf as _pymupdf

from explorer.documents.model import MAX_CHARS, Document, too_long
from explorer.documents.pdf.glyphs import _TEXT_FLAGS, _page_frags
from explorer.documents.pdf.opening import _reason, open_pdf
from explorer.documents.pdf.paragraphs import _page_units
from explorer.documents.pdf.records import NAN, _PageData, _Stats, _Unit
from explorer.documents.pdf.repeats import _remove_repeats
from explorer.documents.pdf.tables import _edges, _framed_tables, _ruled_tables
from explorer.documents.pdf.writer import _assemble
from explorer.errors import DocumentError
from explorer.progress import Progress, quiet

pymupdf: Any = _pymupdf  # PyMuPDF ships partial annotations only; treat it as untyped


def load_pdf(data: bytes, *, name: str, progress: Progress = quiet) -> Document:
    """Load PDF bytes into a :class:`Document`; :mod:`explorer.documents.pdf` says what it holds.
    ``progress`` follows the pages as they are read."""
    if b"%PDF-" not in data[:1024]:
        raise DocumentError(
            f"{name} is not a PDF (it does not start with %PDF-); "
            "choose a PDF file, or give the file the suffix of its real type"
        )
    doc = open_pdf(data, name=name)
    try:
        return _load(doc, data, name=name, progress=progress)
    finally:
        with contextlib.suppress(Exception):
            doc.close()


def _read_page(doc: Any, index: int, stats: _Stats) -> _PageData:
    """Extract one page. Any PyMuPDF failure here surfaces as an exception for the caller.

    A rotated page whose text runs left to right only before the rotation (a portrait page
    turned sideways: its lines run down the rendered page) is read in its unrotated coordinates,
    so its lines keep their order; ``upright`` then holds the matrix that renders them.
    """
    page = doc.load_page(index)
    raw = page.get_text("rawdict", flags=_TEXT_FLAGS)
    matrix = page.rotation_matrix if page.rotation else None
    rect = page.rect
    width, height = rect.width, rect.height
    upright = None
    if matrix is not None and _reads_unrotated(raw, matrix):
        upright, matrix = matrix, None
        width, height = page.cropbox.width, page.cropbox.height
    frags = _page_frags(raw, matrix, stats)
    horizontal, vertical = _edges(page.get_cdrawings(), matrix)
    images = not frags and bool(page.get_images())
    return _PageData(
        page,
        width,
        height,
        frags,
        horizontal,
        vertical,
        bool(page.rotation),
        images,
        (rect.width, rect.height),
        upright,
    )


def _reads_unrotated(raw: dict[str, Any], matrix: Any) -> bool:
    """Do more glyphs run left to right before the page's rotation than after it?"""
    before = after = 0
    for block in raw["blocks"]:
        for line in block.get("lines", ()):
            n = sum(len(span["chars"]) for span in line["spans"])
            dx, dy = line["dir"]
            if abs(dy) < 0.05 and dx > 0:
                before += n
            rx, ry = dx * matrix.a + dy * matrix.c, dx * matrix.b + dy * matrix.d
            if abs(ry) < 0.05 and rx > 0:
                after += n
    return before > after


def _render_upright(units: list[_Unit], matrix: Any) -> None:
    """Move the fragments of a page read unrotated to rendered coordinates, as the layout wants.

    Each glyph's box turns with the page; a line's extent is that of its turned glyphs.
    """
    frags = [f for u in units for row in u.rows for f in row.frags]
    frags += [f for u in units if u.table for r in u.table.rows for cell in r for f in cell]
    for f in frags:
        x0s: list[float] = []
        x1s: list[float] = []
        ys: list[float] = []
        for a, b in zip(f.x0, f.x1, strict=True):
            if a != a:  # nan: a character the loader inserted
                x0s.append(NAN)
                x1s.append(NAN)
                continue
            r = pymupdf.Rect(a, f.top, b, f.bottom) * matrix
            x0s.append(r.x0)
            x1s.append(r.x1)
            ys += (r.y0, r.y1)
        box = pymupdf.Rect(f.left, f.top, f.right, f.bottom) * matrix
        f.x0, f.x1 = x0s, x1s
        f.left, f.right = box.x0, box.x1
        f.top, f.bottom = (min(ys), max(ys)) if ys else (box.y0, box.y1)
    for u in units:
        for row in u.rows:
            row.__post_init__()  # its box, from the moved fragments


def _load(doc: Any, data: bytes, *, name: str, progress: Progress) -> Document:
    stats = _Stats()
    warnings: list[str] = []
    if doc.is_repaired:
        warnings.append(
            "the PDF was damaged and MuPDF repaired it while opening; some text may be missing"
        )
    with contextlib.suppress(Exception):
        if doc.metadata.get("encryption") and not doc.permissions & pymupdf.PDF_PERM_COPY:
            warnings.append(
                "the PDF's owner does not permit copying its text (it opens without a password); "
                "its text was extracted anyway — check that you may use it"
            )

    pages: list[_PageData] = []
    failed: list[str] = []
    chars = 0
    for index in range(doc.page_count):
        progress(0.9 * index / doc.page_count, f"reading page {index + 1:,} of {doc.page_count:,}")
        try:
            pages.append(_read_page(doc, index, stats))
            chars += sum(len(f.chars) for f in pages[-1].frags)
            if chars > MAX_CHARS:
                raise too_long(name, f"over {MAX_CHARS:,} characters by page {index + 1}")
        except DocumentError:
            raise
        except Exception as exc:  # a damaged page: its content stream, fonts or resources
            failed.append(f"{index + 1} ({_reason(exc)})")
            width = height = 0.0
            with contextlib.suppress(Exception):
                box = doc.page_cropbox(index)
                width, height = box.width, box.height
            pages.append(_PageData(None, width, height, [], [], [], False, False, (width, height)))
    if len(failed) == len(pages):
        raise DocumentError(
            f"{name} is damaged: none of its pages could be read (page {failed[0]}); "
            "open and re-save it in a PDF viewer, or export it again"
        )
    if failed:
        warnings.append(
            f"{len(failed)} damaged pages could not be read and are left empty: page "
            + ", ".join(failed[:5])
            + (" ..." if len(failed) > 5 else "")
        )

    if not any(p.frags for p in pages):
        raise DocumentError(
            f"{name} has no text layer — it may be scanned; OCR is not supported"
            + ("" if any(p.images for p in pages) else " (its pages hold no text at all)")
        )

    pages_frags = [p.frags for p in pages]
    _remove_repeats(pages_frags, [(p.width, p.height) for p in pages], stats)

    glyphs: Counter[float] = Counter()
    for frags in pages_frags:
        for f in frags:
            for size, _bold, n in f.styles:
                glyphs[size] += n
    body_size = glyphs.most_common(1)[0][0]

    units_per_page: list[list[_Unit]] = []
    for p, frags in zip(pages, pages_frags, strict=True):
        tables = _ruled_tables(p, frags, stats)
        tables += _framed_tables(p, frags, tables, stats)
        rules = [
            ((y0 + y1) / 2, x0, x1) for x0, y0, x1, y1 in p.horizontal if x1 - x0 >= 0.5 * p.width
        ]
        units = _page_units(frags, tables, p.height, rules, body_size, stats)
        if p.upright is not None:
            _render_upright(units, p.upright)
        units_per_page.append(units)

    sizes = [p.rendered for p in pages]
    document = _assemble(data, name, units_per_page, sizes, stats, warnings)
    title = ""
    with contextlib.suppress(Exception):
        title = str(doc.metadata.get("title") or "").strip()
    return dataclasses.replace(document, meta_title=title) if title else document
