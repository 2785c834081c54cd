"""The records the PDF reader's stages hand on, and the characters several stages test.

A page is read into fragments (:class:`_Frag`: a piece of a text line with its glyphs' extents)
and ruling lines, held with the page in :class:`_PageData`. The reading order places boxes
(:class:`_Item`: a line or a whole table) and turns them into rows (:class:`_Row`) and units
(:class:`_Unit`: a paragraph, a code listing or a table, :class:`_Table`). The writer records each
paragraph it writes as a :class:`_Para` for heading detection; :class:`_Stats` counts every change
normalisation makes, for ``Document.normalisation``.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

NAN = float("nan")

_HYPHENS = "-\u2010\u00ad"  # hyphen-minus, hyphen, soft hyphen
_DASHES = "\u2011\u2012\u2013\u2014"  # non-breaking hyphen, figure dash, en dash, em dash
_BULLETS = "•◦▪▫■□●○◆◇►▸‣⁃∙·*➢➤✓✔❖\uf0b7\uf0a7\uf076\uf0d8\uf0fc\uf0a8"
_BULLET_RE = re.compile(rf"[{re.escape(_BULLETS)}](?:\s|$)|[-–—]\s")
_DOT_LEADERS = re.compile(r"(?:\.\s?){4,}\s*\S*\s*$|…\s*\S*\s*$")


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
    box: tuple[float, float, float, float] | None = None  # the ruled frame: x0, y0, x1, y1


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
    removed_lines: list[tuple[int, str, str, float, float, float, float]] = field(
        default_factory=list
    )
    """Each removed line: page index (0-based), kind, text, left, top, right, bottom."""
    page_joins: int = 0
    accents: int = 0


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


@dataclass(slots=True)
class _Para:
    """A written paragraph: its span and what heading detection needs."""

    start: int
    end: int
    text: str
    styles: list[tuple[float, bool, int]]
    rows: int
    item: bool
