"""Documents: one text that every offset refers to, plus its structure.

A ``Document`` is built from the bytes of a Markdown, plain-text or PDF file. Its ``text`` is the
single string that every offset in the project refers to: offsets are half-open ``[start, end)``
Python string indices (code points). For Markdown and plain text, ``text`` is the decoded source
itself (a UTF-8 byte-order mark is dropped), so offsets are source positions. For PDF, ``text`` is
the extracted text in reading order, and ``layout`` maps every offset that came from a glyph back
to its page and rectangle (see :mod:`explorer.pdf`).
"""

from __future__ import annotations

import bisect
import hashlib
import re
from array import array
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from markdown_it import MarkdownIt

from explorer.errors import DocumentError

DocumentKind = Literal["markdown", "text", "pdf"]
BlockKind = Literal[
    "heading", "paragraph", "list_item", "table", "code", "blockquote", "html", "rule"
]

MARKDOWN_SUFFIXES = (".md", ".markdown", ".mdown", ".mkd")
TEXT_SUFFIXES = (".txt", ".text")
PDF_SUFFIXES = (".pdf",)
SUPPORTED_SUFFIXES = MARKDOWN_SUFFIXES + TEXT_SUFFIXES + PDF_SUFFIXES


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
    tables only.
    """

    kind: BlockKind
    start: int
    end: int
    level: int = 0
    rows: tuple[TableRow, ...] = ()

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

    def __post_init__(self) -> None:
        object.__setattr__(self, "_starts", [line.start for line in self.lines])

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


# --------------------------------------------------------------------------- loading


def load_path(path: str | Path) -> Document:
    """Read a file from disk and load it by its suffix."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        raise DocumentError(f"{p}: no such file") from None
    except IsADirectoryError:
        raise DocumentError(f"{p}: is a folder, not a file") from None
    except OSError as exc:
        raise DocumentError(f"{p}: cannot be read ({exc.strerror})") from None
    return load_document(data, name=p.name)


def load_document(data: bytes, *, name: str) -> Document:
    """Load Markdown, plain text or PDF bytes; the kind follows the file name's suffix."""
    suffix = Path(name).suffix.lower()
    if not data:
        raise DocumentError(f"{name}: the file is empty (0 bytes); choose a file with text in it")
    if suffix in PDF_SUFFIXES:
        from explorer.pdf import load_pdf

        pdf: Document = load_pdf(data, name=name)
        return pdf
    if suffix in MARKDOWN_SUFFIXES:
        return load_markdown(data, name=name)
    if suffix in TEXT_SUFFIXES:
        return load_text(data, name=name)
    supported = ", ".join(SUPPORTED_SUFFIXES)
    raise DocumentError(f"{name}: unsupported file type {suffix or '(none)'!r}; use {supported}")


def sha256_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def decode_text(data: bytes, *, name: str) -> tuple[str, tuple[str, ...]]:
    """Decode UTF-8 (a byte-order mark is tolerated and dropped), refusing binary data."""
    warnings: list[str] = []
    if data.startswith(b"%PDF-"):
        raise DocumentError(f"{name}: this is a PDF, not text; rename it to .pdf")
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
        warnings.append("dropped a UTF-8 byte-order mark")
    elif data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise DocumentError(
            f"{name}: the file is UTF-16; re-save it as UTF-8 (offsets are kept in UTF-8 text)"
        )
    if b"\x00" in data[:65536]:
        raise DocumentError(f"{name}: looks binary (it contains NUL bytes), not a text file")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DocumentError(
            f"{name}: not valid UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start}); "
            "re-save it as UTF-8"
        ) from None
    controls = sum(1 for ch in text[:65536] if ord(ch) < 32 and ch not in "\t\n\r\f")
    if controls > max(8, len(text[:65536]) // 100):
        raise DocumentError(f"{name}: looks binary ({controls} control characters), not text")
    if not text.strip():
        raise DocumentError(f"{name}: the file holds only white space; there is nothing to chunk")
    return text, tuple(warnings)


_LINE_END = re.compile(r"\r\n|\r|\n")


def line_starts(text: str) -> list[int]:
    """Offsets where each line begins (``\\r\\n``, ``\\r`` and ``\\n`` all end a line)."""
    return [0] + [m.end() for m in _LINE_END.finditer(text)]


def _paragraph_blocks(text: str) -> Iterator[Block]:
    for m in re.finditer(r"\S(?:.*?\S)?(?=\s*(?:\n[ \t]*(?:\r?\n)|\Z))", text, re.S):
        yield Block("paragraph", m.start(), m.end())


def load_text(data: bytes, *, name: str) -> Document:
    """Plain text: paragraphs are separated by blank lines."""
    text, warnings = decode_text(data, name=name)
    return Document(
        name=name,
        kind="text",
        sha256=sha256_of(data),
        text=text,
        blocks=tuple(_paragraph_blocks(text)),
        warnings=warnings,
    )


# --------------------------------------------------------------------------- markdown

_BLOCK_TOKENS: dict[str, BlockKind] = {
    "heading_open": "heading",
    "paragraph_open": "paragraph",
    "list_item_open": "list_item",
    "table_open": "table",
    "fence": "code",
    "code_block": "code",
    "blockquote_open": "blockquote",
    "html_block": "html",
    "hr": "rule",
}


def _markdown_parser() -> MarkdownIt:

    return MarkdownIt("commonmark").enable("table").enable("strikethrough")


def trim_span(text: str, start: int, end: int) -> tuple[int, int]:
    """Shrink ``[start, end)`` so it neither starts nor ends with white space."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _front_matter_end(text: str) -> int:
    """Length of a leading YAML front-matter block (``---`` ... ``---``), or 0."""
    m = re.match(r"---[ \t]*\r?\n.*?\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|\Z)", text, re.S)
    return m.end() if m else 0


def load_markdown(data: bytes, *, name: str) -> Document:
    """Markdown: ``text`` is the source; structure comes from markdown-it's block tokens."""
    text, warnings = decode_text(data, name=name)
    blocks, headings = markdown_structure(text)
    return Document(
        name=name,
        kind="markdown",
        sha256=sha256_of(data),
        text=text,
        blocks=blocks,
        headings=headings,
        warnings=warnings,
    )


def markdown_structure(text: str) -> tuple[tuple[Block, ...], tuple[Heading, ...]]:
    """Blocks and headings of Markdown ``text`` with offsets into ``text``.

    markdown-it reports line ranges (``token.map``); they are turned into character offsets
    and trimmed of surrounding white space. YAML front matter becomes one ``code`` block.
    """
    starts = line_starts(text)
    n_lines = len(starts)

    def offset(line: int) -> int:
        return starts[line] if line < n_lines else len(text)

    fm_end = _front_matter_end(text)
    body_line = bisect.bisect_left(starts, fm_end) if fm_end else 0
    parse_from = offset(body_line)
    tokens = _markdown_parser().parse(text[parse_from:])

    blocks: list[Block] = []
    headings: list[Heading] = []
    stack: list[Heading] = []
    if fm_end:
        blocks.append(Block("code", *trim_span(text, 0, fm_end)))

    depth_inside_atomic = 0  # no paragraphs from inside tables
    rows: list[TableRow] = []
    in_thead = False
    table_span: tuple[int, int] | None = None
    for i, tok in enumerate(tokens):
        if tok.type == "table_close":
            assert table_span is not None
            blocks.append(Block("table", *table_span, rows=tuple(rows)))
            rows, table_span, depth_inside_atomic = [], None, depth_inside_atomic - 1
            continue
        if tok.type in ("thead_open", "thead_close"):
            in_thead = tok.type == "thead_open"
            continue
        if tok.type == "tr_open" and tok.map is not None:
            a, b = tok.map
            rows.append(
                TableRow(*trim_span(text, offset(a + body_line), offset(b + body_line)), in_thead)
            )
            continue
        kind = _BLOCK_TOKENS.get(tok.type)
        if kind is None or tok.map is None:
            continue
        a, b = tok.map
        start, end = trim_span(text, offset(a + body_line), offset(b + body_line))
        if start >= end:
            continue
        if kind == "table":
            table_span = (start, end)
            depth_inside_atomic += 1
            continue
        if depth_inside_atomic:
            continue
        if kind == "paragraph" and tokens[i - 1].type == "list_item_open" if i else False:
            continue  # the list item already covers its first paragraph
        level = int(tok.tag[1]) if kind == "heading" else 0
        blocks.append(Block(kind, start, end, level=level))
        if kind == "heading":
            inline = tokens[i + 1] if i + 1 < len(tokens) else None
            title = (inline.content if inline is not None else "").strip() or "(untitled)"
            while stack and stack[-1].level >= level:
                stack.pop()
            path = (*(h.title for h in stack), title)
            heading = Heading(level, title, start, end, path)
            headings.append(heading)
            stack.append(heading)
    blocks.sort(key=lambda blk: (blk.start, -blk.end))
    return tuple(blocks), tuple(headings)


def documents_in(folder: str | Path) -> Sequence[Path]:
    """Supported files in ``folder``, sorted by name."""
    return sorted(
        p for p in Path(folder).iterdir() if p.suffix.lower() in SUPPORTED_SUFFIXES and p.is_file()
    )
