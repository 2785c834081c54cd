"""The document records: a ``Document`` (its one text, blocks, headings, pages and layout) and
the parts it is made of. Every span is half-open ``[start, end)`` in ``Document.text``."""

from __future__ import annotations

import bisect
import hashlib
import os
from array import array
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from explorer import resources
from explorer.errors import DocumentError

DocumentKind = Literal["markdown", "text", "pdf"]
BlockKind = Literal[
    "heading", "paragraph", "list_item", "table", "code", "blockquote", "html", "rule"
]

MARKDOWN_SUFFIXES = (".md", ".markdown", ".mdown", ".mkd")
TEXT_SUFFIXES = (".txt", ".text")
PDF_SUFFIXES = (".pdf",)
SUPPORTED_SUFFIXES = MARKDOWN_SUFFIXES + TEXT_SUFFIXES + PDF_SUFFIXES


def sha256_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def display_name(name: str | os.PathLike[str]) -> str:
    """A file name or path as it can be shown and written out: bytes that are not UTF-8 become
    U+FFFD.

    On Linux a file name is bytes; Python keeps those that are not UTF-8 as lone surrogates
    (``b"caf\\xe9.md"`` is ``"caf\\udce9.md"``), which no UTF-8 output, JSON file or browser
    accepts. Documents are named with this once, where a name is made from a path; the file is
    still read from its real path.
    """
    text = os.fspath(name)
    try:
        raw = text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a surrogate no file system made (a Windows name, say)
        raw = text.encode("utf-8", "surrogatepass")
    return raw.decode("utf-8", "replace")


def document_name(path: str | os.PathLike[str]) -> str:
    """The name of the document read from the file at ``path``: its file name, shown."""
    return display_name(Path(path).name)


def leaves_folder(path: str | os.PathLike[str], folder: str | os.PathLike[str]) -> bool:
    """Whether the file at ``path``, named inside ``folder``, is really elsewhere: with every
    link on its way followed, it does not lie inside ``folder`` (its own links followed too).

    The one rule for a folder's files, wherever they are listed or named (a folder loaded, a
    query set's document names, the samples listed): a link that stays inside the folder is
    followed, since what it reaches is the folder's anyway; a link that leaves it
    (``passwd.md -> /etc/passwd``) is refused, whoever put it there. A file that is not there
    yet is judged by where its name would lead. The one exception is the project's own bundled
    folders (:func:`bundled_folder`), whose links the project made: ``queries/docs`` links to
    the samples and to the shared corpus, and whoever can change them can change the code.
    """
    top = os.path.realpath(folder)
    if bundled_folder(top):
        return False
    return not Path(os.path.realpath(path)).is_relative_to(top)


def bundled_folder(folder: str | os.PathLike[str]) -> bool:
    """Whether ``folder`` is (inside) one of the project's own: the bundled samples or query sets
    (with ``queries/docs``, the documents the query sets name)."""
    real = Path(os.path.realpath(folder))
    roots = (resources.samples_dir(), resources.query_sets_dir())
    return any(real.is_relative_to(os.path.realpath(r)) for r in roots)


MAX_CHARS = 10_000_000
"""The longest document (in characters of its text) that is loaded; a PDF stops being read when
its text passes it, a text file is refused before it is parsed. Splitting 10 M characters into
256-token chunks takes about 4 s and 650 MB. A bigger file is refused with a message to split it."""


def too_long(name: str, size: str) -> DocumentError:
    """The error for a document over :data:`MAX_CHARS` (``size`` says how big it is)."""
    return DocumentError(
        f"{name} is too long ({size}); the limit for one document is {MAX_CHARS:,} characters "
        "— split the file into parts and load them one at a time"
    )


def _check_span(start: int, end: int, what: str) -> None:
    if not 0 <= start <= end:
        raise ValueError(f"{what}: bad span [{start}, {end})")


@dataclass(frozen=True, slots=True)
class TableRow:
    """One row of a table; ``header`` is true for header rows."""

    start: int
    end: int
    header: bool

    def __post_init__(self) -> None:
        _check_span(self.start, self.end, "TableRow")


@dataclass(frozen=True, slots=True)
class Block:
    """A structural unit of the document: paragraph, heading, list item, table, code fence...

    ``level`` is the heading level (1-6) for headings and 0 otherwise. ``rows`` is filled for
    tables only. ``box`` is the frame a PDF table's ruling lines draw on its page (a ruled or
    boxed table; ``None`` for other blocks and tables), which may reach past its text.
    """

    kind: BlockKind
    start: int
    end: int
    level: int = 0
    rows: tuple[TableRow, ...] = ()
    box: Rect | None = None

    def __post_init__(self) -> None:
        _check_span(self.start, self.end, "Block")
        if self.kind == "heading" and not 1 <= self.level <= 6:
            raise ValueError(f"heading level must be 1-6, got {self.level}")


@dataclass(frozen=True, slots=True)
class Heading:
    """A heading with its title and the titles of every enclosing heading (``path``)."""

    level: int
    title: str
    start: int
    end: int
    path: tuple[str, ...]

    def __post_init__(self) -> None:
        _check_span(self.start, self.end, "Heading")
        if not self.path or self.path[-1] != self.title:
            raise ValueError("a heading's path ends with its own title")


@dataclass(frozen=True, slots=True)
class Page:
    """A PDF page: 1-based ``number``, the text span it produced and its size in points."""

    number: int
    start: int
    end: int
    width: float
    height: float

    def __post_init__(self) -> None:
        _check_span(self.start, self.end, "Page")


@dataclass(frozen=True, slots=True)
class Line:
    """One line of glyphs on a PDF page: text offsets ``[start, end)`` and vertical extent."""

    page: int
    start: int
    end: int
    y0: float
    y1: float


@dataclass(frozen=True, slots=True)
class Rect:
    """A rectangle on a page, in PDF points with the origin at the top left."""

    page: int
    x0: float
    y0: float
    x1: float
    y1: float


@dataclass(frozen=True)
class Layout:
    """Where each text offset of a PDF document sits on its page.

    ``x0[i]`` and ``x1[i]`` are the horizontal extent of the glyph that produced ``text[i]``;
    characters the loader inserted (spaces joining lines, paragraph breaks) have no glyph and
    are ``nan``. ``lines`` are sorted by ``start`` and do not overlap.
    """

    lines: tuple[Line, ...]
    x0: array  # type: ignore[type-arg]
    x1: array  # type: ignore[type-arg]
    _starts: list[int] = field(init=False, repr=False, compare=False)
    _page_spans: dict[int, tuple[int, int]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_starts", [line.start for line in self.lines])
        spans: dict[int, tuple[int, int]] = {}
        for line in self.lines:
            lo, hi = spans.get(line.page, (line.start, line.end))
            spans[line.page] = (min(lo, line.start), max(hi, line.end))
        object.__setattr__(self, "_page_spans", spans)

    def rects(self, start: int, end: int) -> list[Rect]:
        """Rectangles covering ``text[start:end]``, one per line it touches, in text order."""
        out: list[Rect] = []
        i = max(bisect.bisect_right(self._starts, start) - 1, 0)
        for line in self.lines[i:]:
            if line.start >= end:
                break
            a, b = max(start, line.start), min(end, line.end)
            if a >= b:
                continue
            xs0 = [x for x in self.x0[a:b] if x == x]  # drop nan
            xs1 = [x for x in self.x1[a:b] if x == x]
            if xs0 and xs1:
                out.append(Rect(line.page, min(xs0), line.y0, max(xs1), line.y1))
        return out

    def rects_on_page(self, start: int, end: int, page: int) -> list[Rect]:
        """The rectangles of :meth:`rects` that lie on ``page``, found among that page's lines
        only: the span is first cut to the offsets the page's lines cover, so a long span (a
        chunk of many pages) costs what its part on the page costs."""
        span = self._page_spans.get(page)
        if span is None:
            return []
        lo, hi = max(start, span[0]), min(end, span[1])
        if lo >= hi:
            return []
        return [r for r in self.rects(lo, hi) if r.page == page]


@dataclass(frozen=True)
class RemovedLine:
    """A line the PDF reader left out of the text (a running header or footer, a running chapter
    title, a page number, a repeated margin note or watermark): where it was, so the page can
    show what left the text."""

    page: int
    """1-based page number."""
    kind: str
    """``"header"`` (headers and footers the same on most pages), ``"running title"`` (a header
    or footer that changes by chapter or section), ``"page number"``, ``"margin"`` or
    ``"watermark"``."""
    text: str
    x0: float
    y0: float
    x1: float
    y1: float


@dataclass(frozen=True)
class Document:
    """A loaded document. ``text`` is the one string all offsets refer to."""

    name: str
    kind: DocumentKind
    sha256: str
    text: str
    blocks: tuple[Block, ...] = ()
    headings: tuple[Heading, ...] = ()
    pages: tuple[Page, ...] = ()
    layout: Layout | None = None
    normalisation: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    meta_title: str = ""
    """The title the file's own metadata gives (a PDF's ``/Title``), or ``""``."""
    removed: tuple[RemovedLine, ...] = field(default=(), compare=False)
    """PDF: the lines the reader removed from the text (never part of ``text``)."""
    _heading_starts: list[int] = field(init=False, repr=False, compare=False)
    _page_starts: list[int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        n = len(self.text)
        for b in self.blocks:
            if b.end > n:
                raise ValueError(f"block [{b.start}, {b.end}) past the end of the text ({n})")
        object.__setattr__(self, "_heading_starts", [h.start for h in self.headings])
        object.__setattr__(self, "_page_starts", [p.start for p in self.pages])

    @property
    def version(self) -> str:
        """A short content hash: changes whenever the source bytes change."""
        return self.sha256[:12]

    @property
    def key(self) -> str:
        """What the document is, for caches: its bytes' hash and how they were read (the same
        bytes read as Markdown and as plain text are two documents; the name is not part of it)."""
        return f"{self.sha256}:{self.kind}"

    @property
    def title(self) -> str:
        """The document's title: its first level-1 heading, else the title in its metadata,
        else its file name without the suffix."""
        for h in self.headings:
            if h.level == 1 and h.title.strip():
                return " ".join(h.title.split())
        if self.meta_title.strip():
            return " ".join(self.meta_title.split())
        return Path(self.name).stem or self.name

    def heading_path_at(self, offset: int) -> tuple[str, ...]:
        """The heading path of the section that ``offset`` falls in (empty before any heading)."""
        i = bisect.bisect_right(self._heading_starts, offset) - 1
        return self.headings[i].path if i >= 0 else ()

    def page_span(self, start: int, end: int) -> tuple[int | None, int | None]:
        """First and last page numbers that ``text[start:end]`` touches, or ``(None, None)``."""
        if not self.pages:
            return None, None
        first = max(bisect.bisect_right(self._page_starts, start) - 1, 0)
        last = max(bisect.bisect_left(self._page_starts, max(end, start + 1)) - 1, first)
        return self.pages[first].number, self.pages[last].number
