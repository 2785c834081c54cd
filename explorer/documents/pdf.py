"""PDF loading: one text in reading order, every character mapped back to its glyph.

``load_pdf`` turns the bytes of a PDF into a :class:`~explorer.documents.Document`.

* ``text`` is the page text in reading order, built from PyMuPDF's per-character extraction
  (``page.get_text("rawdict")``). Each page is ordered by a recursive XY-cut over line boxes:
  horizontal bands that share a column gap are merged and then cut into columns, so
  multi-column pages read column by column while full-width titles (and anything above a
  full-width rule) come first. Footnotes at the foot of a column move to the end of their
  page, so a sentence running on into the next column is not interrupted.
* Lines of a paragraph are joined with one space; paragraphs and pages are separated by a
  blank line (``"\n\n"``). Table rows end with ``"\n"``; their cells are separated by ``" | "``.
* ``layout`` maps every character that came from a glyph to its page, its line's vertical
  extent and the glyph's left/right x; characters the loader inserted (joining spaces, breaks,
  cell separators) are ``nan``. Coordinates are points on the page as rendered by
  ``page.get_pixmap`` (``page.rect`` space: origin top left, page rotation applied).
* Normalisation, each change counted in ``Document.normalisation`` (no glyph character is
  dropped without being counted): running headers and footers, bare page numbers, repeated
  margin notes and rotated watermarks are removed; words hyphenated at line ends are joined
  (``compli-``/``ance`` -> ``compliance``; ``FAA-``/``approved`` keeps its hyphen); white space
  inside lines is collapsed; control characters and invisible text are dropped (except where
  invisible text is all a page has: an OCR layer under a scanned image is kept).
* Structure: paragraphs, headings (from font size and weight; numbered titles such as
  ``2.1.3.`` nest by their numbers), list items and tables (PyMuPDF's ``find_tables`` on pages
  whose ruling lines form cells, plus row-aligned columns of short text).

Bad input raises :class:`~explorer.errors.DocumentError` with one sentence saying what is wrong
and what to do; no PyMuPDF exception escapes.
"""

from __future__ import annotations

import contextlib
import itertools
import math
import re
import statistics
import time
import unicodedata
from array import array
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pymupdf as _pymupdf

from explorer.documents.model import (
    MAX_CHARS,
    Block,
    BlockKind,
    Document,
    Heading,
    Layout,
    Line,
    Page,
    TableRow,
    sha256_of,
    too_long,
)
from explorer.errors import DocumentError

__all__ = ["MAX_PAGES", "MAX_TABLE_CROSSINGS", "load_pdf"]

#: The most pages read from one PDF. A page of ordinary text takes 2-100 ms to read (tables
#: cost the most), so this keeps a load of a long report within a minute or two; a longer PDF
#: is refused with a message to split it. (The text is also held to ``MAX_CHARS``.)
MAX_PAGES = 3_000

#: ``find_tables`` is skipped on pages whose ruling lines cross more often than this (graph
#: paper, charts, spreadsheet grids): its time grows faster than the crossings — 0.2 s for a
#: 50 x 50 grid, 10 s for 150 x 150. A real table of 60 rows and 8 columns has about 540.
MAX_TABLE_CROSSINGS = 2_500

pymupdf: Any = _pymupdf  # PyMuPDF ships partial annotations only; treat it as untyped

NAN = float("nan")

#: rawdict flags: keep white space as given (we normalise it ourselves and count what we drop),
#: clip to the media box, no images (they cost time and carry no text), ligatures expanded.
_TEXT_FLAGS = pymupdf.TEXT_PRESERVE_WHITESPACE | pymupdf.TEXT_MEDIABOX_CLIP
_SPAN_BOLD = 16  # span["flags"] bit
_SPAN_MONO = 8  # span["flags"] bit: a monospaced font
_MONO_FONT = re.compile(r"courier|mono|consol|typewriter|code|^cmtt|^sftt|^lmtt|^txtt", re.I)
_CHAR_PAINTED = 16 | 32  # span["char_flags"]: filled | stroked; neither means invisible text

_MARGIN = 0.08  # running headers/footers live in the top/bottom 8% of the page
_REPEAT_SHARE = 0.5  # ... and repeat on at least half of the pages
_REPEAT_MIN_PAGES = 3

_HYPHENS = "-\u2010\u00ad"  # hyphen-minus, hyphen, soft hyphen
_DASHES = "\u2011\u2012\u2013\u2014"  # non-breaking hyphen, figure dash, en dash, em dash
_BULLETS = "•◦▪▫■□●○◆◇►▸‣⁃∙·*➢➤✓✔❖\uf0b7\uf0a7\uf076\uf0d8\uf0fc\uf0a8"
_BULLET_RE = re.compile(rf"[{re.escape(_BULLETS)}](?:\s|$)|[-–—]\s")
_ENUM_RE = re.compile(
    r"(?:\(?(?:\d{1,3}|[a-zA-Z]|[ivxlcIVXLC]{1,5})\)|\d{1,3}\.(?!\d)|\d{1,3}(?:\.\d{1,3})+\.?)\s"
)
_MARKER = re.compile(
    r"[^\w\s]{1,2}|\(?(?:\d{1,3}|[a-zA-Z]|[ivxlcIVXLC]{1,5})[.)]|\d{1,3}(?:\.\d{1,3})+\.?"
    r"|\[\d{1,3}\]"
)
_NUMBERED_TITLE = re.compile(r"(\d+(?:\.\d+)*\.?|[A-Z](?:\.\d+)+\.?|[A-Z]\.)\s+\S")
_CAPTION = re.compile(r"(?:fig\.?|figure|table|exhibit|chart)\s*[\dA-Z]", re.IGNORECASE)
_DOT_LEADERS = re.compile(r"(?:\.\s?){4,}\s*\S*\s*$|…\s*\S*\s*$")
_PAGE_NUMBER = re.compile(
    r"(?:page\s*)?(?:#+|[ivxlcdm]+)(?:\s*(?:of|/)\s*#+)?|[-–—]\s*#+\s*[-–—]", re.IGNORECASE
)
_FOOTNOTE = re.compile(r"(?:\d{1,3}|[*†‡§¶])\s?[^\W\d]")
_HYPHENATED_PREFIXES = {"self", "non", "cross", "well", "half", "quasi", "post", "anti"}
_WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")
_SENTENCE_END = re.compile(r"[.!?:;][\"'”’)\]]*$")


# --------------------------------------------------------------------------- records


@dataclass(slots=True)
class _Frag:
    """A piece of a text line on one page: its characters and their glyph extents."""

    chars: list[str]
    x0: list[float]
    x1: list[float]
    left: float
    top: float
    right: float
    bottom: float
    horizontal: bool
    styles: list[tuple[float, bool, int]]  # (font size, bold, glyph count) per span
    size: float = 0.0  # font size of most glyphs
    bold: bool = False  # every glyph bold
    mono: int = 0  # glyphs set in a monospaced font

    def __post_init__(self) -> None:
        self.restyle()

    def restyle(self) -> None:
        count: Counter[float] = Counter()
        for size, _bold, n in self.styles:
            count[size] += n
        self.size = count.most_common(1)[0][0] if count else max(self.height, 1.0)
        self.bold = bool(self.styles) and all(b for _s, b, _n in self.styles)

    @property
    def text(self) -> str:
        return "".join(self.chars)

    @property
    def height(self) -> float:
        return self.bottom - self.top


@dataclass(slots=True)
class _Table:
    """Rows of cells; each cell holds its fragments in reading order. The cells of a ruled
    table are boxes drawn on the page; those of other tables are found from the text."""

    rows: list[list[list[_Frag]]]
    ruled: bool = False


@dataclass(slots=True)
class _Item:
    """A box taking part in the XY-cut: one text line or one whole table."""

    left: float
    top: float
    right: float
    bottom: float
    frag: _Frag | None = None
    table: _Table | None = None

    @property
    def core_top(self) -> float:  # the x-height band: boxes of adjacent lines may touch
        return self.top + 0.2 * (self.bottom - self.top)

    @property
    def core_bottom(self) -> float:
        return self.bottom - 0.2 * (self.bottom - self.top)


@dataclass(slots=True)
class _Row:
    """Fragments sharing one visual line inside a column, left to right."""

    frags: list[_Frag]
    leaf: int
    leaf_left: float
    leaf_right: float
    left: float = 0.0
    top: float = 0.0
    right: float = 0.0
    bottom: float = 0.0

    def __post_init__(self) -> None:
        self.left = min(f.left for f in self.frags)
        self.top = min(f.top for f in self.frags)
        self.right = max(f.right for f in self.frags)
        self.bottom = max(f.bottom for f in self.frags)

    @property
    def size(self) -> float:
        """The largest font size of a run of 3+ glyphs (not superscripts, small caps, bullets)."""
        styles = [s for f in self.frags for s in f.styles]
        runs = [size for size, _b, n in styles if n >= 3] or [size for size, _b, _n in styles]
        return max(runs, default=1.0)

    @property
    def bold(self) -> bool:
        return all(f.bold for f in self.frags)

    @property
    def starts_bold(self) -> bool:
        """Does the row open with a bold run (a run-in heading such as ``DATES:``)?"""
        styles = self.frags[0].styles
        return bool(styles) and styles[0][1] and styles[0][2] >= 2

    @property
    def text(self) -> str:
        return " ".join(f.text for f in self.frags)


@dataclass(slots=True)
class _Unit:
    """What one page contributes, in reading order: a paragraph (rows) or a table."""

    rows: list[_Row] = field(default_factory=list)
    table: _Table | None = None
    code: bool = False  # a line-numbered listing: its rows are lines, not a paragraph


@dataclass(slots=True)
class _Stats:
    """Counts behind ``Document.normalisation``."""

    invisible: int = 0
    ocr_pages: int = 0
    controls: int = 0
    space_replaced: int = 0
    space_dropped: int = 0
    dehyphenated: int = 0
    hyphen_kept: int = 0
    url_joined: int = 0
    hyphen_examples: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    footnotes: int = 0
    replacement: int = 0
    multi_column_pages: int = 0
    ruled_tables: int = 0
    aligned_tables: int = 0
    table_pages: int = 0
    table_failures: int = 0
    table_grids: int = 0
    table_seconds: float = 0.0
    removed: dict[str, list[tuple[int, str]]] = field(default_factory=lambda: defaultdict(list))
    page_joins: int = 0
    accents: int = 0


# --------------------------------------------------------------------------- entry point


def load_pdf(data: bytes, *, name: str) -> Document:
    """Load PDF bytes into a :class:`Document` (see the module docstring for what it holds)."""
    if b"%PDF-" not in data[:1024]:
        raise DocumentError(
            f"{name} is not a PDF (it does not start with %PDF-); "
            "choose a PDF file, or give the file the suffix of its real type"
        )
    doc = open_pdf(data, name=name)
    try:
        return _load(doc, data, name=name)
    finally:
        with contextlib.suppress(Exception):
            doc.close()


def _reason(exc: Exception) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text[:120]


def open_pdf(data: bytes, *, name: str) -> Any:
    """Open the bytes with PyMuPDF, turning every way this fails into a DocumentError."""
    try:
        doc = pymupdf.open(stream=data, filetype="pdf")
        needs_pass, page_count, repaired = doc.needs_pass, doc.page_count, doc.is_repaired
    except Exception as exc:
        raise DocumentError(
            f"{name} is a damaged PDF that cannot be opened ({_reason(exc)}); "
            "it may be truncated or corrupt — download or export it again"
        ) from None
    truncated = b"%%EOF" not in data[-2048:]
    problem = None
    if needs_pass:
        problem = f"{name} is encrypted; open it without a password or remove the password first"
    elif page_count > MAX_PAGES:
        problem = (
            f"{name} has {page_count:,} pages, over the limit of {MAX_PAGES:,} pages for one "
            "document; split the PDF (for example by chapter) and load the parts one at a time"
        )
    elif page_count == 0 and (repaired or truncated):
        problem = (
            f"{name} is a damaged PDF (truncated or corrupt) and none of its pages could be "
            "recovered; download or export it again"
        )
    elif page_count == 0:
        problem = f"{name} has no pages; there is nothing to read in it"
    elif repaired and truncated:
        problem = (
            f"{name} is truncated (it ends before the PDF end marker %%EOF) and parts of it are "
            "missing; download or export it again"
        )
    if problem is not None:
        with contextlib.suppress(Exception):
            doc.close()
        raise DocumentError(problem)
    return doc


@dataclass(slots=True)
class _PageData:
    """What PyMuPDF told us about one page; everything after this is plain Python."""

    page: Any  # the PyMuPDF page, kept for find_tables
    width: float  # the page as it is read: rendered, or unrotated when ``upright`` is set
    height: float
    frags: list[_Frag]
    horizontal: list[tuple[float, float, float, float]]  # ruling lines, same coordinates
    vertical: list[tuple[float, float, float, float]]
    rotated: bool
    images: bool
    rendered: tuple[float, float] = (0.0, 0.0)  # width and height as rendered
    upright: Any = None  # rotation matrix, when the page is read unrotated (see _read_page)


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


def _load(doc: Any, data: bytes, *, name: str) -> Document:
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
    return _assemble(data, name, units_per_page, sizes, stats, warnings)


# --------------------------------------------------------------------------- extraction


def _page_frags(raw: dict[str, Any], matrix: Any, stats: _Stats) -> list[_Frag]:
    """Text lines of a page as fragments in rendered coordinates, cleaned of junk characters.

    ``matrix`` is the page's rotation matrix (``None`` for unrotated pages): PyMuPDF reports
    glyphs in unrotated page space, while the rendered image is rotated.
    """
    lines: list[tuple[dict[str, Any], list[tuple[dict[str, Any], bool]]]] = []
    any_visible = False
    for block in raw["blocks"]:
        for line in block.get("lines", ()):
            spans = []
            for span in line["spans"]:
                visible = span.get("alpha", 255) != 0 and (
                    "char_flags" not in span or bool(span["char_flags"] & _CHAR_PAINTED)
                )
                spans.append((span, visible))
                any_visible = any_visible or (visible and bool(span["chars"]))
            lines.append((line, spans))
    keep_invisible = not any_visible  # an OCR text layer under a scanned image: keep it
    if keep_invisible and any(s["chars"] for _line, spans in lines for s, _v in spans):
        stats.ocr_pages += 1

    frags: list[_Frag] = []
    for line, spans in lines:
        dx, dy = line["dir"]
        if matrix is not None:
            dx, dy = dx * matrix.a + dy * matrix.c, dx * matrix.b + dy * matrix.d
        chars: list[str] = []
        x0s: list[float] = []
        x1s: list[float] = []
        top, bottom = math.inf, -math.inf
        styles: list[tuple[float, bool, int]] = []
        mono = 0
        for span, visible in spans:
            raw_chars = span["chars"]
            if not raw_chars:
                continue
            cs = [c["c"] for c in raw_chars]
            text = "".join(cs)
            if not visible and not keep_invisible:
                stats.invisible += len(text) - sum(1 for c in text if c.isspace())
                continue
            if matrix is None:
                boxes = [c["bbox"] for c in raw_chars]
                sx0 = [b[0] for b in boxes]
                sx1 = [b[2] for b in boxes]
                top, bottom = min(top, span["bbox"][1]), max(bottom, span["bbox"][3])
            else:
                rects = [pymupdf.Rect(c["bbox"]) * matrix for c in raw_chars]
                sx0 = [r.x0 for r in rects]
                sx1 = [r.x1 for r in rects]
                top = min(top, min(r.y0 for r in rects))
                bottom = max(bottom, max(r.y1 for r in rects))
            if text.isprintable():  # the common case: nothing to clean
                glyphs = len(text) - text.count(" ")
                stats.replacement += text.count("\ufffd")
            else:
                cs, sx0, sx1, glyphs = _clean(cs, sx0, sx1, stats)
            chars += cs
            x0s += sx0
            x1s += sx1
            if glyphs:
                size = round(span["size"] * 2) / 2
                bold = bool(span["flags"] & _SPAN_BOLD) or "bold" in span["font"].lower()
                styles.append((size, bold, glyphs))
                if span["flags"] & _SPAN_MONO or _MONO_FONT.search(span["font"]):
                    mono += glyphs
        if not styles:  # white space only (or nothing): count what we drop
            stats.space_dropped += len(chars)
            continue
        _compose_accents(chars, x0s, x1s, stats)
        horizontal = abs(dy) < 0.05 and dx > 0
        frag = _Frag(chars, x0s, x1s, min(x0s), top, max(x1s), bottom, horizontal, styles)
        frag.mono = mono
        frags.append(frag)
    return _join_pieces(frags, stats)


#: Spacing accents and the combining marks they stand for when drawn over a letter.
_ACCENTS = {
    "\u02c6": "\u0302", "^": "\u0302", "\u00a8": "\u0308", "\u00b4": "\u0301",
    "\u02ca": "\u0301", "`": "\u0300", "\u02cb": "\u0300", "\u00b8": "\u0327",
    "\u02dc": "\u0303", "~": "\u0303", "\u02c7": "\u030c", "\u02d8": "\u0306",
    "\u02d9": "\u0307", "\u02da": "\u030a", "\u02dd": "\u030b", "\u00af": "\u0304",
    "\u02c9": "\u0304", "\u02db": "\u0328",
}  # fmt: skip


def _compose_accents(chars: list[str], x0: list[float], x1: list[float], stats: _Stats) -> None:
    """Merge a spacing accent drawn over the letter beside it into one accented letter.

    Some fonts and typesetters draw ``ê`` as ``e`` plus a separate ``ˆ`` on top of it; the text
    then reads ``Ageˆncia``. An accent whose glyph lies over the letter before (or after) it,
    where the two compose to one character, becomes that character, with the letter's extent.
    """
    i = 0
    while i < len(chars):
        mark = _ACCENTS.get(chars[i])
        if mark is None:
            i += 1
            continue
        middle = (x0[i] + x1[i]) / 2
        for j in (i - 1, i + 1):
            if not 0 <= j < len(chars) or not chars[j].isalpha() or x0[j] != x0[j]:
                continue
            if not x0[j] - 0.5 <= middle <= x1[j] + 0.5:
                continue
            composed = unicodedata.normalize("NFC", chars[j] + mark)
            if len(composed) != 1:
                continue
            chars[j] = composed
            del chars[i], x0[i], x1[i]
            stats.accents += 1
            # a space MuPDF put after the accent, inside the letter's box, is not a gap
            letter = j if j < i else j - 1
            after = letter + 1
            if after < len(chars) and chars[after] == " " and x0[after] < x1[letter] - 0.1:
                del chars[after], x0[after], x1[after]
                stats.space_dropped += 1
            break
        else:
            i += 1


def _clean(
    chars: list[str], x0: list[float], x1: list[float], stats: _Stats
) -> tuple[list[str], list[float], list[float], int]:
    """Make white space plain spaces and drop control/format characters (counting both)."""
    out_c: list[str] = []
    out_0: list[float] = []
    out_1: list[float] = []
    glyphs = 0
    for c, a, b in zip(chars, x0, x1, strict=True):
        if c.isspace():
            if c != " ":
                stats.space_replaced += 1
                c = " "
        elif c == "\u00ad":
            pass  # soft hyphen: kept for now, it decides how lines join
        elif unicodedata.category(c) in ("Cc", "Cf", "Cs", "Cn"):
            stats.controls += 1
            continue
        else:
            glyphs += 1
            if c == "\ufffd":
                stats.replacement += 1
        out_c.append(c)
        out_0.append(a)
        out_1.append(b)
    return out_c, out_0, out_1, glyphs


def _join_pieces(frags: list[_Frag], stats: _Stats) -> list[_Frag]:
    """Merge fragments MuPDF split off one visual line (touching, same baseline)."""
    frags.sort(key=lambda f: (round((f.top + f.bottom) / 2), f.left))
    out: list[_Frag] = []
    for f in frags:
        target = None
        if f.horizontal:
            for g in reversed(out[-6:]):
                if not g.horizontal:
                    continue
                overlap = min(g.bottom, f.bottom) - max(g.top, f.top)
                size = min(g.size, f.size)
                gap = f.left - g.right
                if overlap >= 0.7 * min(g.height, f.height) and -0.5 * size <= gap <= 0.3 * size:
                    target = g
                    break
        if target is None:
            out.append(f)
            continue
        gap = f.left - target.right
        if gap > 0.15 * min(target.size, f.size) and target.chars[-1] != " " and f.chars[0] != " ":
            target.chars.append(" ")
            target.x0.append(NAN)
            target.x1.append(NAN)
        target.chars += f.chars
        target.x0 += f.x0
        target.x1 += f.x1
        target.styles += f.styles
        target.mono += f.mono
        target.left, target.right = min(target.left, f.left), max(target.right, f.right)
        target.top, target.bottom = min(target.top, f.top), max(target.bottom, f.bottom)
        target.restyle()
    for f in out:
        _squeeze_spaces(f, stats)
    return out


def _squeeze_spaces(f: _Frag, stats: _Stats) -> None:
    """Collapse runs of spaces to one and trim both ends, counting every dropped character."""
    chars, x0s, x1s = f.chars, f.x0, f.x1
    if "  " not in "".join(chars) and chars[0] != " " and chars[-1] != " ":
        return
    keep = [
        i
        for i, c in enumerate(chars)
        if c != " " or (i > 0 and chars[i - 1] != " " and i < len(chars) - 1)
    ]
    # a space kept above may still end the line when only spaces follow it
    while keep and chars[keep[-1]] == " ":
        keep.pop()
    stats.space_dropped += sum(1 for i in set(range(len(chars))) - set(keep) if x0s[i] == x0s[i])
    f.chars = [chars[i] for i in keep]
    f.x0 = [x0s[i] for i in keep]
    f.x1 = [x1s[i] for i in keep]


# --------------------------------------------------------------------------- repeats


def _repeat_key(text: str) -> str:
    return re.sub(r"\d", "#", " ".join(text.split()))


def _remove_repeats(
    pages: list[list[_Frag]], sizes: Sequence[tuple[float, float]], stats: _Stats
) -> None:
    """Drop running headers/footers, page numbers, margin notes and watermarks."""
    n_pages = len(pages)
    threshold = max(_REPEAT_MIN_PAGES, math.ceil(_REPEAT_SHARE * n_pages))

    def zone(f: _Frag, width: float, height: float) -> str | None:
        if not f.horizontal:
            return "watermark"
        cy = (f.top + f.bottom) / 2
        if cy <= _MARGIN * height or cy >= (1 - _MARGIN) * height:
            return "header"
        if f.right <= _MARGIN * width or f.left >= (1 - _MARGIN) * width:
            return "margin"
        return None

    seen: dict[tuple[str, str], set[int]] = defaultdict(set)
    zones: list[list[str | None]] = []
    for number, (frags, (width, height)) in enumerate(zip(pages, sizes, strict=True)):
        page_zones = [zone(f, width, height) for f in frags]
        zones.append(page_zones)
        for f, z in zip(frags, page_zones, strict=True):
            if z is not None:
                seen[(z, _repeat_key(f.text))].add(number)
    repeated = {key for key, on in seen.items() if len(on) >= threshold}
    if n_pages < _REPEAT_MIN_PAGES:
        repeated = set()

    total_before = sum(len(f.chars) for frags in pages for f in frags)
    removed_chars = 0
    plan: list[list[bool]] = []
    for frags, page_zones in zip(pages, zones, strict=True):
        drop = []
        for f, z in zip(frags, page_zones, strict=True):
            key = _repeat_key(f.text)
            gone = z is not None and (z, key) in repeated
            if not gone and z == "header" and _PAGE_NUMBER.fullmatch(key):
                gone, z = True, "page number"
            drop.append(gone)
            if gone:
                removed_chars += len(f.chars)
        plan.append(drop)
    if removed_chars >= total_before:  # never remove every line of a document
        return
    for i, (frags, drop, page_zones) in enumerate(zip(pages, plan, zones, strict=True)):
        kept = []
        for f, gone, z in zip(frags, drop, page_zones, strict=True):
            if not gone:
                kept.append(f)
                continue
            kind = "page number" if _PAGE_NUMBER.fullmatch(_repeat_key(f.text)) else str(z)
            stats.removed[kind].append((i, f.text))
        pages[i] = kept


# --------------------------------------------------------------------------- tables


def _edges(
    drawings: list[dict[str, Any]], matrix: Any
) -> tuple[list[tuple[float, float, float, float]], list[tuple[float, float, float, float]]]:
    """Horizontal and vertical line segments (as rectangles) among the page's drawings."""
    horizontal: list[tuple[float, float, float, float]] = []
    vertical: list[tuple[float, float, float, float]] = []
    for path in drawings:
        for item in path["items"]:
            if item[0] == "l":
                (ax, ay), (bx, by) = item[1], item[2]
                rect = pymupdf.Rect(min(ax, bx), min(ay, by), max(ax, bx), max(ay, by))
            elif item[0] == "re":
                rect = pymupdf.Rect(item[1])
            else:
                continue
            if matrix is not None:
                rect = rect * matrix
            w, h = rect.width, rect.height
            box = (rect.x0, rect.y0, rect.x1, rect.y1)
            if w >= 10 and h < 3:
                horizontal.append(box)
            elif h >= 10 and w < 3:
                vertical.append(box)
            elif w >= 10 and h >= 10 and item[0] == "re" and path.get("type") != "f":
                x0, y0, x1, y1 = box  # a stroked box: its four sides
                horizontal += [(x0, y0, x1, y0), (x0, y1, x1, y1)]
                vertical += [(x0, y0, x0, y1), (x1, y0, x1, y1)]
    return horizontal, vertical


def _ruled_tables(p: _PageData, frags: list[_Frag], stats: _Stats) -> list[tuple[Any, _Table]]:
    """Tables PyMuPDF finds from ruling lines; only tried on pages whose lines form a cell.

    ``find_tables`` costs 15-150 ms a page, so it runs only where ruling lines cross; rotated
    pages are skipped (``find_tables`` temporarily rewrites their rotation).
    """
    if p.rotated or not frags:
        return []
    if len(p.horizontal) * len(p.vertical) > MAX_TABLE_CROSSINGS * 100:
        stats.table_grids += 1  # so many lines that even counting their crossings is slow
        return []
    crossings = sum(
        1
        for hx0, hy0, hx1, hy1 in p.horizontal
        for vx0, vy0, vx1, vy1 in p.vertical
        if hx0 - 2 <= (vx0 + vx1) / 2 <= hx1 + 2 and vy0 - 2 <= (hy0 + hy1) / 2 <= vy1 + 2
    )
    if crossings < 4:  # not even one ruled cell: find_tables would find nothing
        return []
    if crossings > MAX_TABLE_CROSSINGS:
        stats.table_grids += 1
        return []
    started = time.perf_counter()
    try:
        try:
            found = p.page.find_tables(use_layout=False)
        except TypeError:  # a PyMuPDF without the layout switch
            found = p.page.find_tables()
        tables = [
            (
                pymupdf.Rect(t.bbox),
                [[pymupdf.Rect(c) for c in row.cells if c is not None] for row in t.rows],
            )
            for t in (found.tables if found is not None else [])
            if t.row_count >= 2 and t.col_count >= 2
        ]
    except Exception:  # tables are a bonus: a failure leaves the page to the XY-cut
        stats.table_failures += 1
        tables = []
    stats.table_seconds += time.perf_counter() - started
    stats.table_pages += 1
    out: list[tuple[Any, _Table]] = []
    claimed: set[int] = set()
    for bbox, row_cells in tables:
        rows: list[list[list[_Frag]]] = []
        for cells in row_cells:
            rows.append([[] for _ in cells])
            for f in frags:
                if id(f) in claimed:
                    continue
                cx, cy = (f.left + f.right) / 2, (f.top + f.bottom) / 2
                for k, cell in enumerate(cells):
                    if cell.x0 - 1 <= cx <= cell.x1 + 1 and cell.y0 - 1 <= cy <= cell.y1 + 1:
                        rows[-1][k].append(f)
                        claimed.add(id(f))
                        break
        if not any(cell for row in rows for cell in row):
            continue
        # lines inside the table box that no cell claimed stay in the table, as their own row
        for f in frags:
            cx, cy = (f.left + f.right) / 2, (f.top + f.bottom) / 2
            if id(f) not in claimed and bbox.x0 <= cx <= bbox.x1 and bbox.y0 <= cy <= bbox.y1:
                rows.append([[f]])
                claimed.add(id(f))
        # a table ruled only under its header holds all its body rows in one ruled row
        body = len(row_cells) == 2
        flat = [sub for k, r in enumerate(rows) for sub in _split_subrows(r, body=body and k == 1)]
        flat = [sub for sub in flat if any(sub)]
        flat.sort(key=lambda r: min(f.top for cell in r for f in cell))
        out.append((bbox, _Table(flat, ruled=True)))
        stats.ruled_tables += 1
    return out


def _framed_tables(
    p: _PageData, frags: list[_Frag], found: list[tuple[Any, _Table]], stats: _Stats
) -> list[tuple[Any, _Table]]:
    """Tables drawn as a box with columns of text and no rules between the columns.

    ``find_tables`` needs a rule between columns; a box whose horizontal rules (top, bottom, a
    header rule) share their ends and are joined by vertical rules at both ends holds a table
    when the text inside splits into columns at white gaps. Its rows come from :func:`_grid`,
    with a break at every rule inside the box.
    """
    if not frags or p.rotated or len(p.horizontal) > 400:
        return []
    by_extent: dict[tuple[int, int], list[tuple[float, float, float]]] = defaultdict(list)
    for x0, y0, x1, y1 in p.horizontal:
        by_extent[(round(x0 / 4), round(x1 / 4))].append(((y0 + y1) / 2, x0, x1))
    size = statistics.median(f.size for f in frags)
    cut = _Cut(min_gap=max(3.0, 0.45 * size), min_width=3.0 * size, near=2.5 * size, rules=[])
    claimed = {id(f) for _b, t in found for row in t.rows for cell in row for f in cell}
    out: list[tuple[Any, _Table]] = []
    for rules in by_extent.values():
        if len(rules) < 2:
            continue
        rules.sort()
        (top, x0, x1), (bottom, _a, _b) = rules[0], rules[-1]

        def side(x: float, top: float = top, bottom: float = bottom) -> bool:
            return any(
                abs((vx0 + vx1) / 2 - x) <= 3 and vy0 <= top + 3 and vy1 >= bottom - 3
                for vx0, vy0, vx1, vy1 in p.vertical
            )

        box = pymupdf.Rect(x0, top, x1, bottom)
        if bottom - top < 2 * size or not (side(x0) and side(x1)):
            continue
        if any(box.intersects(b) for b, _t in found + out):
            continue
        inside = [
            f
            for f in frags
            if id(f) not in claimed
            and x0 <= (f.left + f.right) / 2 <= x1
            and top <= (f.top + f.bottom) / 2 <= bottom
        ]
        if len(inside) < 4:
            continue
        parts = _column_split(
            [_Item(f.left, f.top, f.right, f.bottom, frag=f) for f in inside], cut
        )
        if parts is None:
            continue
        columns = [[i.frag for i in part if i.frag is not None] for part in parts]
        breaks = [y for y, _a, _b in rules[1:-1]]
        rows = _grid(columns, breaks=breaks)
        if len(rows) < 2:
            continue
        out.append((box, _Table(rows, ruled=True)))
        claimed.update(id(f) for f in inside)
        stats.ruled_tables += 1
    return out


def _split_subrows(cells: list[list[_Frag]], *, body: bool = False) -> list[list[list[_Frag]]]:
    """Split a ruled row whose cells hold several text rows into one row per visual row.

    Tables without rules between body rows come out of ``find_tables`` as one tall row. When
    at least two cells hold the same number of lines, those lines mark the real rows, and the
    lines of every cell go to the row they start in (a wrapped line stays with its row).
    Otherwise the rows come from the lines' baselines and the first column's left edge
    (:func:`_grid`): in the one body row of a table ruled only under its header (``body``),
    and elsewhere where extra space sets the rows apart.
    """
    rows_per_cell = [_cluster_rows(cell) for cell in cells]
    counts = Counter(len(rows) for rows in rows_per_cell if len(rows) > 1)
    if not counts:
        return [cells]
    k, cells_with_k = counts.most_common(1)[0]
    if cells_with_k < 2:
        return _grid(cells, spaced_only=not body)
    for rows in rows_per_cell:  # lines that read on (a wrapped list, a sentence) are one cell
        texts = [" ".join(f.text for f in row) for row in rows]
        if len(rows) == k and any(
            a.endswith((",", ";", "-", "–")) or b[:1].islower()
            for a, b in itertools.pairwise(texts)
        ):
            return _grid(cells, spaced_only=not body)
    anchor = next(rows for rows in rows_per_cell if len(rows) == k)
    tops = [min(f.top for f in row) for row in anchor]
    out: list[list[list[_Frag]]] = [[[] for _ in cells] for _ in range(k)]
    for c, rows in enumerate(rows_per_cell):
        for row in rows:
            middle = (min(f.top for f in row) + max(f.bottom for f in row)) / 2
            index = max((i for i, top in enumerate(tops) if top <= middle), default=0)
            out[index][c] += row
    return out


def _cluster_rows(frags: Iterable[_Frag]) -> list[list[_Frag]]:
    """Group fragments into visual rows (vertical overlap), top to bottom, each left to right."""
    rows: list[list[_Frag]] = []
    bounds: list[tuple[float, float]] = []
    for f in sorted(frags, key=lambda f: ((f.top + f.bottom) / 2, f.left)):
        cy = (f.top + f.bottom) / 2
        if rows:
            top, bottom = bounds[-1]
            overlap = min(bottom, f.bottom) - max(top, f.top)
            if top <= cy <= bottom and overlap >= 0.5 * min(bottom - top, f.height):
                rows[-1].append(f)
                bounds[-1] = (min(top, f.top), max(bottom, f.bottom))
                continue
        rows.append([f])
        bounds.append((f.top, f.bottom))
    for row in rows:
        row.sort(key=lambda f: f.left)
    return rows


# --------------------------------------------------------------------------- reading order


@dataclass(slots=True)
class _Cut:
    min_gap: float
    min_width: float
    near: float  # a narrow part closer than this to its neighbour belongs to it
    rules: list[tuple[float, float, float]]
    columns: bool = False  # set when a page region was read as two or more text columns


def _page_units(
    frags: list[_Frag],
    tables: list[tuple[Any, _Table]],
    page_height: float,
    rules: list[tuple[float, float, float]],
    body_size: float,
    stats: _Stats,
) -> list[_Unit]:
    """Order a page's lines (XY-cut) and group them into paragraphs and tables."""
    if not frags:
        return []
    in_table = {id(f) for _bbox, t in tables for row in t.rows for cell in row for f in cell}
    items = [_Item(bbox.x0, bbox.y0, bbox.x1, bbox.y1, table=table) for bbox, table in tables] + [
        _Item(f.left, f.top, f.right, f.bottom, frag=f) for f in frags if id(f) not in in_table
    ]
    size = statistics.median(f.size for f in frags)
    cut = _Cut(min_gap=max(3.0, 0.45 * size), min_width=3.0 * size, near=2.5 * size, rules=rules)
    leaves = _xy_cut(items, cut)
    if cut.columns:
        stats.multi_column_pages += 1
    return _paragraphs(leaves, page_height, body_size, stats)


_Leaf = tuple[list[_Item], list[list[_Item]] | None]
"""Items in reading order, and the columns of a table of aligned text (None: not a table)."""


def _xy_cut(items: list[_Item], cut: _Cut) -> list[_Leaf]:
    """Order items: bands top to bottom, bands sharing a column gap read column by column."""
    if len(items) == 1:
        return [(items, None)]
    bands = _bands(items)
    if len(bands) > 1:
        groups = _merge_bands(bands, cut)
    else:
        groups = [(items, _column_split(items, cut) is not None)]
    if len(groups) == 1:
        parts = _column_split(items, cut) if groups[0][1] else None
        if parts is None:
            return [(items, None)]
        head, body, tail = _peel(parts)
        if not _bulleted(body) and (_looks_tabular(body) or _looks_row_aligned(body)):
            table = [i for part in body for i in part]
            # list markers or line numbers in the first column: read each row across
            columns = None if _numbered_lines(body[0]) else body
            return [(head, None)] * bool(head) + [(table, columns)] + [(tail, None)] * bool(tail)
        if sum(1 for part in parts if len(part) >= 3) >= 2:
            cut.columns = True
        out: list[_Leaf] = []
        for part in parts:
            out += _xy_cut(part, cut)
        return out
    out = []
    run: list[_Item] = []  # consecutive groups without columns read as one vertical run
    for group, split in groups:
        if split:
            if run:
                out.append((run, None))
                run = []
            out += _xy_cut(group, cut)
        else:
            run += group
    if run:
        out.append((run, None))
    return out


def _column_split(items: list[_Item], cut: _Cut) -> list[list[_Item]] | None:
    """Split at vertical white gaps that run through all items; None if there is none.

    Narrow parts of list markers or currency signs that sit close to a neighbour are merged
    into it across the narrower gap.
    """
    spans = sorted((i.left, i.right) for i in items)
    gaps: list[tuple[float, float]] = []
    reach = spans[0][1]
    for left, right in spans[1:]:
        if left - reach >= cut.min_gap:
            gaps.append((reach, left))
        reach = max(reach, right)
    top = min(i.top for i in items)
    bottom = max(i.bottom for i in items)
    gaps = [  # a rule drawn across a gap joins both sides: cut above/below it first
        gap
        for gap in gaps
        if not any(top < y < bottom and x0 <= gap[0] and x1 >= gap[1] for y, x0, x1 in cut.rules)
    ]
    if not gaps:
        return None
    while gaps:
        edges = [spans[0][0], *(x for gap in gaps for x in gap), reach]
        widths = [edges[2 * k + 1] - edges[2 * k] for k in range(len(gaps) + 1)]
        removable = []
        for k, width in enumerate(widths):
            if width >= cut.min_width:
                continue
            # a narrow part of bullets, list numbers, currency signs or tiny words close to its
            # neighbour belongs to it; anything else narrow is a column of its own
            near = [g for g in (k - 1, k) if 0 <= g < len(gaps)]
            g = min(near, key=lambda g: gaps[g][1] - gaps[g][0])
            if gaps[g][1] - gaps[g][0] >= cut.near:
                continue
            lo, hi = edges[2 * k] - 0.01, edges[2 * k + 1] + 0.01
            if all(
                _MARKER.fullmatch(text := i.frag.text.strip()) or len(text) <= 3
                for i in items
                if i.frag is not None and lo <= i.left and i.right <= hi
            ):
                removable.append((width, g))
        if not removable:
            break
        gaps.pop(min(removable)[1])
    if not gaps:
        return None
    parts: list[list[_Item]] = [[] for _ in range(len(gaps) + 1)]
    for item in items:
        k = sum(1 for gap in gaps if item.left >= gap[1] - 0.01)
        parts[k].append(item)
    return parts


def _looks_tabular(parts: list[list[_Item]]) -> bool:
    """Columns of short, row-aligned text: read them as table rows, not column by column."""
    if any(len(p) < 2 for p in parts) or any(i.table is not None for p in parts for i in p):
        return False
    # text columns are filled by their lines; table columns hold short cells
    fill = []
    for part in parts:
        width = max(i.right for i in part) - min(i.left for i in part)
        fill += [(i.right - i.left) / width for i in part if width > 0]
    if statistics.median(fill) > 0.6:
        return False
    aligned = 0
    rows = 0
    for a, b in itertools.pairwise(parts):
        fewer, other = (a, b) if len(a) <= len(b) else (b, a)
        rows = max(rows, len(fewer))
        for item in fewer:
            h = item.bottom - item.top
            if any(
                min(item.bottom, o.bottom) - max(item.top, o.top) >= 0.6 * min(h, o.bottom - o.top)
                for o in other
            ):
                aligned += 1
    total = sum(min(len(a), len(b)) for a, b in itertools.pairwise(parts))
    return rows >= 3 and aligned >= 0.75 * total


def _peel(
    parts: list[list[_Item]],
) -> tuple[list[_Item], list[list[_Item]], list[_Item]]:
    """Lines of the first column above or below everything beside it (a heading over a list,
    the next heading under it), apart from the columns that run side by side."""
    if len(parts[0]) < 2 or any(i.frag is None for part in parts for i in part):
        return [], parts, []
    top = min(i.core_top for part in parts[1:] for i in part)
    bottom = max(i.core_bottom for part in parts[1:] for i in part)
    middle = [i for i in parts[0] if top <= i.core_bottom and i.core_top <= bottom]
    if not middle:
        return [], parts, []
    edge = min(i.left for i in middle)
    size = statistics.median(i.frag.size for i in middle if i.frag is not None)
    bold = all(i.frag.bold for i in middle if i.frag is not None)

    def apart(i: _Item) -> bool:  # set apart as a heading: outdented, larger or bolder
        f = i.frag
        return f is not None and (
            i.left < edge - 0.5 * size or f.size > size + 0.5 or (f.bold and not bold)
        )

    head = [i for i in parts[0] if i.core_bottom < top and apart(i)]
    tail = [i for i in parts[0] if i.core_top > bottom and apart(i)]
    if not (head or tail):
        return [], parts, []
    keep = [i for i in parts[0] if i not in head and i not in tail]
    return head, [keep, *parts[1:]], tail


def _bulleted(parts: list[list[_Item]]) -> bool:
    """Is every column a bulleted list (each line at its left edge opens with a bullet)?
    Lists set side by side are read column by column, each item whole."""
    for part in parts:
        edge = min(i.left for i in part)
        starts = [i.frag.text for i in part if i.frag is not None and i.left <= edge + 1]
        if len(starts) < 2 or not all(_BULLET_RE.match(t) for t in starts):
            return False
    return True


def _looks_row_aligned(parts: list[list[_Item]]) -> bool:
    """An option list, parameter list or glossary: short left cells on the baselines of the
    lines beside them, one to one (the text beside a cell may wrap onto lines of its own).

    Text columns share baselines too, but their lines are full of words and as wide as each
    other; the cells of every column but the last hold a few words each, and their column is
    narrower than the last.
    """
    if any(i.frag is None for p in parts for i in p):
        return False
    last = max(i.right for i in parts[-1]) - min(i.left for i in parts[-1])
    for part in parts[:-1]:
        words = [len(i.frag.text.split()) for i in part if i.frag is not None]
        if len(words) < 3 or statistics.median(words) > 3 or max(words) > 6:
            return False
        # a column of cells is narrower than the text beside it; text columns are alike
        if max(i.right for i in part) - min(i.left for i in part) > 0.6 * last:
            return False
    for left, right in itertools.pairwise(parts):
        aligned = sum(
            1
            for a in left
            if any(
                min(a.bottom, b.bottom) - max(a.top, b.top)
                >= 0.6 * min(a.bottom - a.top, b.bottom - b.top)
                for b in right
            )
        )
        if aligned < 0.8 * len(left):
            return False
    return True


_LINE_NUMBER = re.compile(r"\d{1,5}[:.]?")


def _numbered_lines(column: list[_Item]) -> bool:
    """Is this column list markers (bullets, ``[12]``) or consecutive line numbers?"""
    texts = [i.frag.text.strip() for i in column if i.frag is not None]
    if not texts:
        return False
    if all(_LINE_NUMBER.fullmatch(t) for t in texts):
        numbers = [int(t.rstrip(":.")) for t in texts]
        return all(b == a + 1 for a, b in itertools.pairwise(numbers))
    return all(_MARKER.fullmatch(t) for t in texts)


def _bands(items: list[_Item]) -> list[list[_Item]]:
    """Split into horizontal bands at white gaps between line cores, top to bottom."""
    bands: list[list[_Item]] = []
    bottom = -math.inf
    for item in sorted(items, key=lambda i: (i.core_top, i.left)):
        if bands and item.core_top < bottom:
            bands[-1].append(item)
            bottom = max(bottom, item.core_bottom)
        else:
            bands.append([item])
            bottom = item.core_bottom
    return bands


def _merge_bands(bands: list[list[_Item]], cut: _Cut) -> list[tuple[list[_Item], bool]]:
    """Merge consecutive bands that share a column gap (and no rule runs between them).

    Returns the groups with a flag telling whether each one splits into columns.
    """
    group = list(bands[0])
    group_parts = _column_split(group, cut)
    groups: list[tuple[list[_Item], bool]] = []
    for k, band in enumerate(bands[1:], start=1):
        above = max(i.core_bottom for i in group)
        below = min(i.core_top for i in band)
        ruled = any(above <= y <= below for y, _x0, _x1 in cut.rules)
        band_parts = _column_split(band, cut)
        # white space of several lines across every column: the columns have ended
        height = statistics.median(i.bottom - i.top for i in group)
        after = bands[k + 1] if k + 1 < len(bands) else None
        title = _title_below(band, group_parts) and (
            after is not None and _fits(after, group_parts, cut) is None
        )
        if not ruled and below - above <= 2.5 * height and not title:
            # the lines of one side must each sit inside a column of the other
            if group_parts is not None:
                union_parts = _fits(band, group_parts, cut)
            else:
                union_parts = _fits(group, band_parts, cut)
            if union_parts is not None:
                group, group_parts = group + band, union_parts
                continue
        groups.append((group, group_parts is not None))
        group, group_parts = list(band), band_parts
    groups.append((group, group_parts is not None))
    return _hoist_column_heads(groups, cut)


def _title_below(band: list[_Item], parts: list[list[_Item]] | None) -> bool:
    """Could ``band`` be a title set across the page under columns that end above it (one
    line, in a column but clear of both its edges) rather than a line of that column? The
    caller also asks that what follows it does not fit the columns (a table across them)."""
    if parts is None or len(band) != 1 or band[0].frag is None:
        return False
    if sum(1 for part in parts if len(part) >= 3) < 2:
        return False
    item, size = band[0], band[0].frag.size
    if any(i.core_bottom >= item.core_top for part in parts for i in part):
        return False
    for part in parts:
        left = min(i.left for i in part)
        right = max(i.right for i in part)
        if left <= item.left and item.right <= right:
            return item.left > left + 2 * size and item.right < right - 2 * size
    return False


def _hoist_column_heads(
    groups: list[tuple[list[_Item], bool]], cut: _Cut
) -> list[tuple[list[_Item], bool]]:
    """Pull lines that sit alone above a column group into it when they fit one of its columns.

    Two columns can have white space at different heights just above a stretch where both run
    side by side: the first line of each then forms a band of its own, and read as such it would
    come before the rest of the first column.
    """
    out: list[tuple[list[_Item], bool]] = []
    for group, columns in groups:
        if columns:
            parts = _column_split(group, cut)
            while out and not out[-1][1] and parts is not None:
                above = out[-1][0]
                bottom = max(i.core_bottom for i in above)
                top = min(i.core_top for i in group)
                if any(bottom <= y <= top for y, _x0, _x1 in cut.rules):
                    break
                if len(out) > 1 and not out[-2][1] and _flows_into(out[-2][0], above):
                    break  # the last line of a paragraph above, not the head of a column
                merged = _fits(above, parts, cut)
                if merged is None:
                    break
                out.pop()
                group, parts = above + group, merged
        out.append((group, columns))
    return out


def _flows_into(upper: list[_Item], lower: list[_Item]) -> bool:
    """Is ``lower`` the next line of the same text as ``upper`` (close below, overlapping)?"""
    a = max(upper, key=lambda i: i.bottom)
    b = min(lower, key=lambda i: i.top)
    overlap = min(a.right, b.right) - max(a.left, b.left)
    height = b.bottom - b.top
    return b.top - a.bottom < 0.8 * height and overlap > 0.5 * (b.right - b.left)


def _fits(
    items: list[_Item], parts: list[list[_Item]] | None, cut: _Cut
) -> list[list[_Item]] | None:
    """``parts`` with ``items`` added, if every item sits in one of these columns; else None.

    An item sits in a column when it stays clear of the neighbouring columns (so the gaps
    between them survive) and overlaps the column's extent so far by half of the narrower of
    the two: ragged-right, indented and right-aligned lines do, a title centred over the gap
    between two columns does not.
    """
    if parts is None:
        return None
    lefts = [min(i.left for i in part) for part in parts]
    rights = [max(i.right for i in part) for part in parts]
    floors = [-math.inf] + [right + cut.min_gap for right in rights[:-1]]
    limits = [left - cut.min_gap for left in lefts[1:]] + [math.inf]
    out = [list(part) for part in parts]
    for i in items:
        for k, (left, right, floor, limit) in enumerate(
            zip(lefts, rights, floors, limits, strict=True)
        ):
            overlap = min(i.right, right) - max(i.left, left)
            narrower = min(i.right - i.left, right - left)
            if floor - 2 <= i.left and i.right <= limit and overlap >= 0.5 * narrower:
                out[k].append(i)
                break
        else:
            return None
    return out


# --------------------------------------------------------------------------- paragraphs


def _paragraphs(
    leaves: list[_Leaf], page_height: float, body_size: float, stats: _Stats
) -> list[_Unit]:
    """One unit per visual row (or table) in reading order, then rows joined into paragraphs."""
    units: list[_Unit] = []
    for n, (items, columns) in enumerate(leaves):
        frags = [i.frag for i in items if i.frag is not None]
        if columns is not None:
            cells = [[i.frag for i in part if i.frag is not None] for part in columns]
            units.append(_Unit(table=_Table(_grid(cells))))
            stats.aligned_tables += 1
            continue
        left = min(i.left for i in items)
        right = max(i.right for i in items)
        entries = [
            (min(f.top for f in row), _Unit(rows=[_Row(row, n, left, right)]))
            for row in _cluster_rows(frags)
        ]
        entries += [(i.top, _Unit(table=i.table)) for i in items if i.table is not None]
        entries.sort(key=lambda e: e[0])
        units += [unit for _top, unit in entries]
    return _join_rows(_footnotes_last(_listings(units), page_height, body_size, stats))


_NUMBERED_LINE = re.compile(r"(\d{1,5})[:.]?(?:\s|$)")


def _listings(units: list[_Unit]) -> list[_Unit]:
    """Merge runs of three or more monospaced rows numbered 1, 2, 3 ... into code listings."""

    def number(unit: _Unit) -> int | None:
        if len(unit.rows) != 1:
            return None
        row = unit.rows[0]
        glyphs = sum(n for f in row.frags for _s, _b, n in f.styles)
        m = _NUMBERED_LINE.match(row.text)
        if m is None or 2 * sum(f.mono for f in row.frags) < glyphs:
            return None
        return int(m[1])

    out: list[_Unit] = []
    k = 0
    while k < len(units):
        end = k + 1
        first = number(units[k])
        if first is not None:
            while end < len(units) and number(units[end]) == first + end - k:
                end += 1
        if end - k >= 3:
            out.append(_Unit(rows=[u.rows[0] for u in units[k:end]], code=True))
        else:
            out += units[k:end]
        k = end
    return out


def _footnotes_last(
    units: list[_Unit], page_height: float, body_size: float, stats: _Stats
) -> list[_Unit]:
    """Move footnotes (small print at the foot of a column, opening with a marker) to the end
    of the page, so that sentences running on into the next column are not interrupted."""
    small = 0.85 * body_size
    moved: list[int] = []
    k = len(units)
    while k > 0:
        leaf = units[k - 1].rows[0].leaf if units[k - 1].rows else None
        start = k
        while start > 0 and units[start - 1].rows and units[start - 1].rows[0].leaf == leaf:
            start -= 1
        end = k
        foot = end
        while foot > start and units[foot - 1].rows[0].size <= small:
            foot -= 1
        for i in range(foot, end):
            row = units[i].rows[0]
            if row.top > 0.25 * page_height and _FOOTNOTE.match(row.text):
                moved = list(range(i, end)) + moved
                break
        k = start if start < k else k - 1
    if not moved:
        return units
    stats.footnotes += sum(1 for i in moved if _FOOTNOTE.match(units[i].rows[0].text))
    keep = set(moved)
    return [u for i, u in enumerate(units) if i not in keep] + [units[i] for i in moved]


def _join_rows(units: list[_Unit]) -> list[_Unit]:
    """Merge single-row units into paragraphs where the text flows on."""
    out: list[_Unit] = []
    gaps = [
        b.rows[0].top - a.rows[0].bottom
        for a, b in itertools.pairwise(units)
        if a.rows and b.rows and a.rows[0].leaf == b.rows[0].leaf
    ]
    normal_gap = statistics.median(gaps) if gaps else 0.0
    for unit in units:
        if unit.table is not None or unit.code or not out or out[-1].table or out[-1].code:
            out.append(unit)
            continue
        a, b = out[-1].rows[-1], unit.rows[0]
        if _continues(a, b, out[-1].rows[0], normal_gap):
            out[-1].rows.append(b)
        else:
            out.append(unit)
    return out


def _starts_item(text: str) -> tuple[bool, bool]:
    """(starts with a bullet, starts with an enumerator like ``1.`` or ``(a)``)."""
    return bool(_BULLET_RE.match(text)), bool(_ENUM_RE.match(text))


def _continues(a: _Row, b: _Row, first: _Row, normal_gap: float) -> bool:
    """Does row ``b`` continue the paragraph whose last row is ``a`` (first row ``first``)?"""
    size_a, size_b = a.size, b.size
    if abs(size_a - size_b) > max(0.5, 0.08 * max(size_a, size_b)) or a.bold != b.bold:
        return False
    text_b = b.text
    bullet, enum = _starts_item(text_b)
    if bullet:
        return False
    text_a = a.text
    if _DOT_LEADERS.search(text_a):  # a table-of-contents entry ends its line
        return False
    ends_sentence = bool(_SENTENCE_END.search(text_a))
    if a.leaf != b.leaf:
        overlap = min(a.bottom, b.bottom) - max(a.top, b.top)
        if overlap >= 0.5 * min(a.bottom - a.top, b.bottom - b.top) and b.left - a.right >= 0:
            return b.left - a.right < 3 * size_b  # pieces of one line split by a wide space
        # another column or region: continue only a sentence broken at the column foot, one
        # that reads on (lower case, a hyphen or comma) or whose last line broke because the
        # next word did not fit, going on flush left (a new paragraph would be indented)
        fits = a.right + _first_word_width(b) + 0.5 * size_b < a.leaf_right
        full = not fits and abs(b.left - b.leaf_left) <= 1
        return (
            b.top < a.top - 0.5 * size_b
            and not ends_sentence
            and not enum
            and (text_b[:1].islower() or text_a[-1:] in _HYPHENS + _DASHES + "," or full)
        )
    if b.top - a.bottom > normal_gap + 0.3 * size_b:
        return False
    if ends_sentence and b.starts_bold and not a.frags[-1].styles[-1][1]:
        return False
    size = size_b
    indent = b.left - a.left
    if enum and (ends_sentence or indent > 0.5 * size or a.right < a.leaf_right - 4 * size):
        return False
    if 0.8 * size <= indent <= 8 * size and a.left <= a.leaf_left + 1:
        marker = _marker_end(first)
        if marker is None or abs(b.left - marker) > 2:
            return False
    if ends_sentence:
        word = _first_word_width(b)
        if a.right + word + 0.5 * size < a.leaf_right:
            return False
    return True


def _marker_end(row: _Row) -> float | None:
    """x where the text after a list marker starts (the hanging indent), if ``row`` has one."""
    f = row.frags[0]
    text = f.text
    m = _BULLET_RE.match(text) or _ENUM_RE.match(text)
    if m is None:
        return None
    i = m.end()
    while i < len(f.chars) and f.chars[i] == " ":
        i += 1
    if i < len(f.chars) and f.x0[i] == f.x0[i]:
        return f.x0[i]
    return row.frags[1].left if len(row.frags) > 1 else None


def _first_word_width(row: _Row) -> float:
    f = row.frags[0]
    end = f.chars.index(" ") if " " in f.chars else len(f.chars)
    xs = [x for x in f.x1[:end] if x == x]
    return (max(xs) - f.left) if xs else 0.0


_TOKEN_BREAK = "/_\\"  # a line of a cell ending in one of these wraps inside a token


def _grid(
    columns: list[list[_Frag]], *, breaks: Sequence[float] = (), spaced_only: bool = False
) -> list[list[list[_Frag]]]:
    """Rows of cells from the lines of each column: one row per visual line group.

    A row starts at a line with text at the first column's left edge; the lines below it
    without such text (wrapped cells, an indented note) belong to it. Where the table sets its
    rows apart with extra space, lines closer than that stay in their row even when they start
    at the edge (a first cell wrapping onto a second line), as does a line under a first cell
    broken inside a token (after ``/``, ``_``, ``\\``). Lines above the first row at line
    spacing are the upper lines of its (bottom-aligned) header cells. A horizontal rule at a y
    in ``breaks`` always ends a row. With ``spaced_only``, rows are only split where the table
    sets them apart with space or a rule (for a ruled row that may hold wrapped cells).
    """
    column_of = {id(f): k for k, col in enumerate(columns) for f in col}
    lines = _cluster_rows(f for col in columns for f in col)
    if not lines or not columns[0]:
        return [[list(col) for col in columns]]
    edge = min(f.left for f in columns[0])
    em = statistics.median(f.size for col in columns for f in col)
    height = statistics.median(f.height for line in lines for f in line)
    middles = [(min(f.top for f in line) + max(f.bottom for f in line)) / 2 for line in lines]
    pitches = [b - a for a, b in itertools.pairwise(middles)]
    tight = min(pitches, default=0.0)
    wide = [p > tight + 0.3 * height for p in pitches]  # wide[i - 1]: the gap above line i

    def first_cell(line: list[_Frag]) -> list[_Frag]:
        return [f for f in line if column_of[id(f)] == 0]

    at_edge = [any(f.left <= edge + 0.8 * em for f in first_cell(line)) for line in lines]
    candidates = [i for i in range(1, len(lines)) if at_edge[i]]
    after_space = sum(1 for i in candidates if wide[i - 1])
    spaced = after_space >= 2 and after_space >= 0.5 * len(candidates)

    def ruled(i: int) -> bool:
        above = max(f.bottom for f in lines[i - 1])
        below = min(f.top for f in lines[i])
        return any(above - 1 <= y <= below + 1 for y in breaks)

    def starts(i: int) -> bool:
        if ruled(i):
            return True
        if spaced_only and not spaced:
            return False
        if not at_edge[i] or (spaced and not wide[i - 1]):
            return False
        above = first_cell(lines[i - 1])
        return not (above and above[-1].text.endswith(tuple(_TOKEN_BREAK)))

    groups: list[list[list[_Frag]]] = [[lines[0]]]
    for i in range(1, len(lines)):
        header_line = len(groups) == 1 and not any(at_edge[k] for k in range(i))
        if starts(i) and not (header_line and spaced and not wide[i - 1] and not ruled(i)):
            groups.append([])
        groups[-1].append(lines[i])
    rows: list[list[list[_Frag]]] = []
    for group in groups:
        cells: list[list[_Frag]] = [[] for _ in columns]
        for line in group:
            for f in line:
                cells[column_of[id(f)]].append(f)
        rows.append(cells)
    return rows


# --------------------------------------------------------------------------- assembly


class _Writer:
    """Builds the text, the per-character x extents and the line records together."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.x0: list[float] = []  # turned into array("d") once at the end: much faster
        self.x1: list[float] = []
        self.pos = 0
        self.lines: list[Line] = []

    def insert(self, text: str) -> None:
        if text:
            self.parts.append(text)
            nans = [NAN] * len(text)
            self.x0.extend(nans)
            self.x1.extend(nans)
            self.pos += len(text)

    def line(
        self,
        page: int,
        chars: list[str],
        x0: list[float],
        x1: list[float],
        top: float,
        bottom: float,
    ) -> None:
        if not chars:
            return
        start = self.pos
        self.parts.append("".join(chars))
        self.x0.extend(x0)
        self.x1.extend(x1)
        self.pos += len(chars)
        self.lines.append(Line(page, start, self.pos, top, bottom))

    def drop_last(self) -> None:
        """Take back the last character written (it is a glyph of the last line)."""
        self.parts[-1] = self.parts[-1][:-1]
        self.x0.pop()
        self.x1.pop()
        self.pos -= 1
        line = self.lines[-1]
        self.lines[-1] = Line(line.page, line.start, self.pos, line.y0, line.y1)

    def text(self) -> str:
        return "".join(self.parts)


def _row_glyphs(row: Sequence[_Frag]) -> tuple[list[str], list[float], list[float]]:
    chars: list[str] = []
    x0: list[float] = []
    x1: list[float] = []
    for f in row:
        if chars and chars[-1] != " " and f.chars and f.chars[0] != " ":
            chars.append(" ")
            x0.append(NAN)
            x1.append(NAN)
        chars += f.chars
        x0 += f.x0
        x1 += f.x1
    return chars, x0, x1


@dataclass(slots=True)
class _Para:
    """A written paragraph: its span and what heading detection needs."""

    start: int
    end: int
    text: str
    styles: list[tuple[float, bool, int]]
    rows: int
    item: bool


def _assemble(
    data: bytes,
    name: str,
    units_per_page: list[list[_Unit]],
    sizes: list[tuple[float, float]],
    stats: _Stats,
    warnings: list[str],
) -> Document:
    vocabulary = _vocabulary(units_per_page)
    w = _Writer()
    pages: list[Page] = []
    paras: list[_Para] = []
    tables: list[Block] = []
    for number, (units, (width, height)) in enumerate(
        zip(units_per_page, sizes, strict=True), start=1
    ):
        # a sentence broken by the page break continues the previous page's paragraph
        end = w.pos
        joiner = _page_join(w, paras, units[0], vocabulary, stats) if units else None
        joined = joiner is not None
        if w.pos < end:  # the previous page's last hyphen was taken back
            last = pages[-1]
            pages[-1] = Page(last.number, last.start, w.pos, last.width, last.height)
        if units and w.pos:
            w.insert(joiner if joiner is not None else "\n\n")
        page_start = w.pos
        for k, unit in enumerate(units):
            if k:
                w.insert("\n\n")
            if unit.table is not None:
                tables.append(_write_table(w, number, unit.table, vocabulary, stats))
                continue
            if unit.code:
                tables.append(_write_code(w, number, unit.rows))
                continue
            para = _write_paragraph(w, number, unit.rows, vocabulary, stats)
            if k == 0 and joined:
                prev = paras.pop()
                para = _Para(
                    prev.start,
                    para.end,
                    prev.text + (joiner or "") + para.text,
                    prev.styles + para.styles,
                    prev.rows + para.rows,
                    prev.item,
                )
                stats.page_joins += 1
            paras.append(para)
        pages.append(Page(number, page_start, w.pos, width, height))

    text = w.text()
    blocks, headings = _structure(paras, tables, text)
    normalisation = _notes(stats, len(pages))
    if stats.replacement:
        warnings.append(
            f"{stats.replacement} characters have no Unicode mapping in the PDF's fonts "
            "and show as �"
        )
    return Document(
        name=name,
        kind="pdf",
        sha256=sha256_of(data),
        text=text,
        blocks=blocks,
        headings=headings,
        pages=tuple(pages),
        layout=Layout(lines=tuple(w.lines), x0=array("d", w.x0), x1=array("d", w.x1)),
        normalisation=normalisation,
        warnings=tuple(warnings),
    )


def _page_join(
    w: _Writer, paras: list[_Para], first: _Unit, lexicon: _Lexicon, stats: _Stats
) -> str | None:
    """What joins the page's first paragraph to the sentence the previous page left open, or
    None when it starts a paragraph of its own.

    Only when the text so far ends with the previous paragraph (not a table or code): a word
    broken by the page break after a hyphen or dash is joined as at a line end (``Soekarno-`` /
    ``Hatta``; the hyphen of ``compli-`` / ``ance`` is dropped); otherwise a paragraph that ends
    without a full stop, colon or similar and a new one starting with a lowercase letter are one
    sentence, joined by a space.
    """
    if not w.pos or not paras or paras[-1].end != w.pos or first.table is not None:
        return None
    if first.code or not first.rows:
        return None
    chars, x0, x1 = _row_glyphs(first.rows[0].frags)
    head = "".join(chars).lstrip()[:1]
    line = w.parts[-1] if w.parts else ""
    if line[-1:] in _HYPHENS + _DASHES and line[-2:-1].isalnum() and head.isalnum():
        n = len(line)
        previous = (list(line), list(w.x0[-n:]), list(w.x1[-n:]))
        joiner = _joiners([previous, (chars, x0, x1)], lexicon, stats)[0]
        if len(previous[0]) < n:  # the hyphen of a word broken at the page end
            w.drop_last()
            paras[-1].end = w.pos
            paras[-1].text = paras[-1].text[:-1]
        return joiner
    last = line.rstrip()[-1:]
    if not last or last in ".!?:;…\"'”’)]":
        return None
    return " " if head.isalpha() and head.islower() else None


@dataclass(slots=True)
class _Lexicon:
    """The document as its own dictionary: its words, and whether it breaks words at line ends.

    ``hyphenates`` is false for a document whose line-end hyphens are all compounds as far as
    its words tell (at least :data:`_COMPOUNDS_TO_TRUST` of them, and not one word found broken):
    typical of word processors, which do not hyphenate. There a hyphen at a line end is kept.
    """

    words: set[str]
    hyphenates: bool = True


_COMPOUNDS_TO_TRUST = 5


def _vocabulary(units_per_page: list[list[_Unit]]) -> _Lexicon:
    """Words as the document spells them (lower case), leaving out the halves of words broken
    at line ends: they tell ``non-user`` from ``compli-ance``."""
    words: set[str] = set()
    seams: list[tuple[str, str]] = []
    soft = False
    for units in units_per_page:
        for unit in units:
            if unit.table is not None:
                for cells in unit.table.rows:
                    for cell in cells:
                        for f in cell:
                            words.update(w.lower() for w in _WORD.findall(f.text))
            broken = False
            for row, nxt in itertools.zip_longest(unit.rows, unit.rows[1:]):
                text = row.text
                found = _WORD.findall(text)
                if broken and found:
                    found = found[1:]
                broken = text.endswith(tuple(_HYPHENS))
                soft = soft or (broken and text.endswith("\u00ad"))
                if broken and found:
                    found = found[:-1]
                    if nxt is not None and text[-2:-1].islower() and nxt.text[:1].islower():
                        seams.append((text[:-1], nxt.text))
                words.update(word.lower() for word in found)
    lexicon = _Lexicon(words)
    verdicts = [_compound_by_words(*_halves(a, b), words) for a, b in seams]
    compounds = sum(1 for v in verdicts if v)
    lexicon.hyphenates = soft or False in verdicts or compounds < _COMPOUNDS_TO_TRUST
    return lexicon


def _halves(before: str, after: str) -> tuple[str, str]:
    """The word before a line-end hyphen (itself possibly hyphenated) and the letters after."""
    token = before.rsplit(" ", 1)[-1]
    head = re.sub(r"^.*[^\w-]", "", token).lower()
    match = re.match(r"[^\W\d_]*", after.split(" ", 1)[0])
    return head, match[0].lower() if match else ""


def _compound_by_words(head: str, tail: str, words: set[str]) -> bool | None:
    """What the document's own words say of ``head-`` + ``tail``: a compound (True), a word
    broken at the line end (False), or nothing (None)."""
    if f"{head}{tail}" in words:
        return False
    if f"{head}-{tail}" in words:
        return True
    first = head.rsplit("-", 1)[-1]
    if first in _HYPHENATED_PREFIXES:
        return True
    if len(first) >= 3 and len(tail) >= 3 and first in words and tail in words:
        return True
    return None


def _compound(chars: list[str], following: list[str], lexicon: _Lexicon) -> bool:
    """Is ``word-`` + ``next`` a hyphenated compound rather than one word broken at the line end?

    PDFs carry no dictionary, so the document itself is one: a form spelled elsewhere in it
    decides (``compliance`` -> join; ``non-normal`` -> keep); otherwise a compound of two words
    the document uses on their own (``hand-off``) or of a prefix English writes with a hyphen
    (``self-managed``) keeps it, as does a hyphen inside a web or e-mail address. Anything else
    (``compli-ance``) is joined, unless the document does not hyphenate words at all
    (:class:`_Lexicon`), where a line-end hyphen is always the writer's.
    """
    token = "".join(chars[:-1]).rsplit(" ", 1)[-1]
    if any(mark in token for mark in ("/", "@", "www.")):
        return True
    verdict = _compound_by_words(*_halves("".join(chars[:-1]), "".join(following)), lexicon.words)
    return (not lexicon.hyphenates) if verdict is None else verdict


def _seam(chars: list[str], following: list[str], joiner: str) -> str:
    """The word made where two lines join, for the normalisation notes."""
    head = "".join(chars[-30:]).rsplit(" ", 1)[-1]
    tail = "".join(following[:30]).split(" ", 1)[0]
    return head + joiner + tail


def _joiners(
    glyphs: list[tuple[list[str], list[float], list[float]]],
    vocabulary: _Lexicon,
    stats: _Stats,
) -> list[str]:
    """What joins each line to the next: a space, or nothing where a word, an address or a
    name wraps inside itself. Hyphens of words broken at line ends are deleted here."""
    joiners: list[str] = []
    for i in range(len(glyphs) - 1):
        chars, x0, x1 = glyphs[i]
        nxt = glyphs[i + 1][0]
        last = chars[-1]
        head = nxt[0] if nxt else ""
        if last in _HYPHENS and (len(chars) < 2 or chars[-2] != " "):
            before = chars[-2] if len(chars) > 1 else ""
            if last == "\u00ad" or (
                before.islower() and head.islower() and not _compound(chars, nxt, vocabulary)
            ):
                stats.hyphen_examples["joined"].append(_seam(chars[:-1], nxt, ""))
                del chars[-1], x0[-1], x1[-1]
                stats.dehyphenated += 1
            else:
                stats.hyphen_examples["kept"].append(_seam(chars, nxt, ""))
                stats.hyphen_kept += 1
            joiners.append("")
        elif last in _DASHES and (len(chars) < 2 or chars[-2] != " "):
            stats.hyphen_examples["kept"].append(_seam(chars, nxt, ""))
            stats.hyphen_kept += 1
            joiners.append("")
        elif (last in "/@" and (head.islower() or head.isdigit())) or (
            last in "_\\" and (head.isalnum() or head in "_.")
        ):
            stats.url_joined += 1  # an address, path or name broken at the line end
            joiners.append("")
        else:
            joiners.append(" ")
    for chars, x0, x1 in glyphs:  # soft hyphens left inside lines are invisible: drop them
        while "\u00ad" in chars:
            i = chars.index("\u00ad")
            del chars[i], x0[i], x1[i]
            stats.controls += 1
    return joiners


def _write_paragraph(
    w: _Writer, page: int, rows: list[_Row], vocabulary: _Lexicon, stats: _Stats
) -> _Para:
    glyphs = [_row_glyphs(r.frags) for r in rows]
    joiners = _joiners(glyphs, vocabulary, stats)
    start = w.pos
    for i, (row, (chars, x0, x1)) in enumerate(zip(rows, glyphs, strict=True)):
        if i:
            w.insert(joiners[i - 1])
        w.line(page, chars, x0, x1, row.top, row.bottom)
    styles = [s for r in rows for f in r.frags for s in f.styles]
    first = "".join(glyphs[0][0])
    return _Para(
        start,
        w.pos,
        " ".join("".join(g[0]) for g in glyphs),
        styles,
        len(rows),
        any(_starts_item(first)),
    )


def _write_code(w: _Writer, page: int, rows: list[_Row]) -> Block:
    """A code listing: its lines as they are, one text line each."""
    start = w.pos
    for i, row in enumerate(rows):
        if i:
            w.insert("\n")
        chars, x0, x1 = _row_glyphs(row.frags)
        w.line(page, chars, x0, x1, row.top, row.bottom)
    return Block("code", start, w.pos)


def _row_pieces(cells: list[list[_Frag]], *, ruled: bool) -> list[tuple[int, list[_Frag], bool]]:
    """The order a table row is written in: (column, the fragments of one of its lines there,
    whether a new visual line starts with it).

    A row of a table found from its text is read line by line, as the eye runs across it,
    while at most one of its cells wraps (where that is the last cell, this is cell by cell
    anyway). When cells wrap side by side, and in ruled tables, whose cells are boxes, each
    cell is written whole, so that no cell is interleaved with another.
    """
    visual = [_cluster_rows(cell) for cell in cells]
    if ruled or sum(1 for lines in visual if len(lines) > 1) > 1:
        return [(k, line, n > 0) for k, lines in enumerate(visual) for n, line in enumerate(lines)]
    column_of = {id(f): k for k, cell in enumerate(cells) for f in cell}
    out: list[tuple[int, list[_Frag], bool]] = []
    for line in _cluster_rows(f for cell in cells for f in cell):
        by_column: dict[int, list[_Frag]] = defaultdict(list)
        for f in line:
            by_column[column_of[id(f)]].append(f)
        out += [(k, by_column[k], n == 0 and bool(out)) for n, k in enumerate(sorted(by_column))]
    return out


def _write_table(
    w: _Writer, page: int, table: _Table, vocabulary: _Lexicon, stats: _Stats
) -> Block:
    start = w.pos
    rows: list[TableRow] = []
    for cells in table.rows:
        pieces = _row_pieces([cell for cell in cells if cell], ruled=table.ruled)
        if not pieces:
            continue
        if rows:
            w.insert("\n")
        row_start = w.pos
        glyphs = [_row_glyphs(frags) for _k, frags, _new in pieces]
        for i, ((k, frags, new_line), (chars, x0, x1)) in enumerate(
            zip(pieces, glyphs, strict=True)
        ):
            if i:
                if not new_line:
                    w.insert(" | ")
                elif pieces[i - 1][0] == k:  # the cell's text wraps onto this line
                    w.insert(_joiners([glyphs[i - 1], (chars, x0, x1)], vocabulary, stats)[0])
                else:
                    w.insert(" ")
            top = min(f.top for f in frags)
            bottom = max(f.bottom for f in frags)
            w.line(page, chars, x0, x1, top, bottom)
        rows.append(TableRow(row_start, w.pos, header=not rows))
    return Block("table", start, w.pos, rows=tuple(rows))


# --------------------------------------------------------------------------- structure


def _structure(
    paras: list[_Para], tables: list[Block], text: str
) -> tuple[tuple[Block, ...], tuple[Heading, ...]]:
    body = Counter[float]()
    for p in paras:
        for size, _bold, n in p.styles:
            body[size] += n
    body_size = body.most_common(1)[0][0] if body else 10.0

    def style(p: _Para) -> tuple[float, bool] | None:
        glyphs = sum(n for _s, _b, n in p.styles)
        if not glyphs or len(p.text) > 200 or p.rows > 4 or not re.search(r"[^\W\d_]", p.text):
            return None
        if _DOT_LEADERS.search(p.text) or _CAPTION.match(p.text):
            return None
        sizes: Counter[float] = Counter()
        for size, _bold, n in p.styles:
            sizes[size] += n
        size = sizes.most_common(1)[0][0]
        bold = sum(n for _s, b, n in p.styles if b) >= 0.9 * glyphs
        large = sum(n for s, _b, n in p.styles if s >= 1.15 * body_size) >= 0.85 * glyphs
        if large:
            return (size, bold)
        if bold and size >= body_size - 0.5 and len(p.text) <= 120:
            return (size, True)
        return None

    candidates = [(p, s) for p in paras if (s := style(p)) is not None]
    levels = _levels(candidates)
    blocks: list[Block] = list(tables)
    headings: list[Heading] = []
    stack: list[Heading] = []
    for p in paras:
        level = levels.get(id(p))
        if level is not None:
            blocks.append(Block("heading", p.start, p.end, level=level))
            title = " ".join(text[p.start : p.end].split())
            while stack and stack[-1].level >= level:
                stack.pop()
            heading = Heading(level, title, p.start, p.end, (*(h.title for h in stack), title))
            headings.append(heading)
            stack.append(heading)
            continue
        kind: BlockKind = "list_item" if p.item else "paragraph"
        blocks.append(Block(kind, p.start, p.end))
    blocks.sort(key=lambda b: b.start)
    return tuple(blocks), tuple(headings)


def _levels(candidates: list[tuple[_Para, tuple[float, bool]]]) -> dict[int, int]:
    """Heading levels: by numbering depth where titles are numbered, else by style rank."""
    styles = sorted({s for _p, s in candidates}, key=lambda s: (-s[0], not s[1]))
    rank = {s: i + 1 for i, s in enumerate(styles)}
    depth: dict[int, int] = {}
    for p, _s in candidates:
        m = _NUMBERED_TITLE.match(p.text)
        if m:
            depth[id(p)] = len(m.group(1).rstrip(".").split("."))
    numbered_styles = {s for p, s in candidates if id(p) in depth}
    # a style is "numbered" only if most of its titles carry numbers
    numbered_styles = {
        s
        for s in numbered_styles
        if sum(1 for p, t in candidates if t == s and id(p) in depth)
        >= 0.5 * sum(1 for _p, t in candidates if t == s)
    }
    out: dict[int, int] = {}
    if not numbered_styles:
        for p, s in candidates:
            out[id(p)] = min(rank[s], 6)
        return out
    top = min(rank[s] for s in numbered_styles)
    bottom = max(rank[s] for s in numbered_styles)
    deepest = max((depth.get(id(p), 1) for p, s in candidates if s in numbered_styles), default=1)
    for p, s in candidates:
        if s in numbered_styles:
            level = depth.get(id(p), 1)
        elif rank[s] < top:
            level = 1
        elif rank[s] > bottom:
            level = deepest + rank[s] - bottom
        else:
            level = rank[s] - top + 1
        out[id(p)] = max(1, min(level, 6))
    return out


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _notes(stats: _Stats, n_pages: int) -> tuple[str, ...]:
    notes: list[str] = []
    if stats.page_joins:
        notes.append(
            f"joined {stats.page_joins} paragraphs that continue across a page break "
            "(a space instead of a paragraph break)"
        )
    if stats.multi_column_pages:
        notes.append(
            f"reading order: column-aware (xy-cut); {stats.multi_column_pages} of {n_pages} "
            "pages read column by column"
        )
    else:
        notes.append("reading order: column-aware (xy-cut); no multi-column pages found")
    labels = {
        "header": "removed running headers/footers",
        "page number": "removed page numbers",
        "margin": "removed repeated margin notes",
        "watermark": "removed repeated rotated text (margin codes, watermarks)",
    }
    for kind, label in labels.items():
        removed = stats.removed.get(kind, [])
        if not removed:
            continue
        n_pages = len({page for page, _text in removed})
        note = f"{label}: {len(removed)} lines on {n_pages} pages"
        if kind != "page number":
            firsts = {_repeat_key(text): text for _page, text in reversed(removed)}
            shown = [_clip(t, 40) for t in list(firsts.values())[::-1][:3]]
            more = ", ..." if len(firsts) > 3 else ""
            note += " (" + ", ".join(repr(t) for t in shown) + more + ")"
        notes.append(note)

    def examples(kind: str) -> str:
        shown = list(dict.fromkeys(stats.hyphen_examples[kind]))
        return ", ".join(repr(_clip(t, 30)) for t in shown[:3]) + (", ..." if shown[3:] else "")

    if stats.dehyphenated:
        notes.append(
            f"joined {stats.dehyphenated} words hyphenated at line ends ({examples('joined')})"
        )
    if stats.hyphen_kept:
        notes.append(
            f"joined {stats.hyphen_kept} lines ending in a hyphen or dash without a space, "
            f"keeping it: a compound or a dash ({examples('kept')})"
        )
    if stats.url_joined:
        notes.append(
            f"joined {stats.url_joined} addresses, paths and names broken after '/', '@', '_' "
            "or '\\' at line ends without a space"
        )
    if stats.space_dropped or stats.space_replaced:
        notes.append(
            f"normalised white space inside lines: dropped {stats.space_dropped} repeated, "
            f"leading or trailing spaces; replaced {stats.space_replaced} tabs/no-break spaces "
            "with plain spaces"
        )
    if stats.accents:
        notes.append(
            f"composed {stats.accents} accented letters drawn as a letter and a separate accent"
        )
    if stats.footnotes:
        notes.append(f"moved {stats.footnotes} footnotes to the end of their page")
    if stats.invisible:
        notes.append(f"dropped {stats.invisible} invisible characters (hidden text)")
    if stats.ocr_pages:
        notes.append(f"kept the invisible text layer (OCR) of {stats.ocr_pages} pages")
    if stats.controls:
        notes.append(f"dropped {stats.controls} control or formatting characters")
    if stats.ruled_tables or stats.aligned_tables:
        found = []
        if stats.ruled_tables:
            found.append(
                f"{stats.ruled_tables} from ruling lines (find_tables on {stats.table_pages} "
                f"pages, {stats.table_seconds:.2f} s)"
            )
        if stats.aligned_tables:
            found.append(f"{stats.aligned_tables} from aligned columns of short text")
        notes.append(
            f"tables: {' and '.join(found)}; rows end with a line break, cells are separated "
            "by ' | '"
        )
    if stats.table_failures:
        notes.append(f"find_tables failed on {stats.table_failures} pages; read as plain text")
    if stats.table_grids:
        notes.append(
            f"find_tables skipped on {stats.table_grids} pages whose ruling lines cross more than "
            f"{MAX_TABLE_CROSSINGS:,} times (grids or charts); read as plain text"
        )
    return tuple(notes)
