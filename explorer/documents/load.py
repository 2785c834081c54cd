"""Reading documents from bytes: the kind follows the file name's suffix. Plain text and
Markdown keep their decoded source as the text (offsets are source positions); Markdown's
structure comes from markdown-it, with documentation sites' front matter, ``:::`` containers and
``{#id}`` heading anchors read as :mod:`explorer.documents.site_markdown` says; lines of
``" | "``-separated cells become tables. PDF is read by :mod:`explorer.documents.pdf`."""

from __future__ import annotations

import bisect
import codecs
import re
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from markdown_it import MarkdownIt
from markdown_it.token import Token

from explorer.documents.model import (
    MARKDOWN_SUFFIXES,
    MAX_CHARS,
    PDF_SUFFIXES,
    SUPPORTED_SUFFIXES,
    TEXT_SUFFIXES,
    Block,
    BlockKind,
    Document,
    Heading,
    TableRow,
    display_name,
    document_name,
    leaves_folder,
    sha256_of,
    too_long,
)
from explorer.documents.site_markdown import (
    CONTAINER_OPEN,
    anchor_length,
    closes,
    enable_containers,
    front_matter_end,
    front_matter_title,
)
from explorer.errors import DocumentError
from explorer.progress import Progress, quiet

# --------------------------------------------------------------------------- loading


def load_path(path: str | Path) -> Document:
    """Read a file from disk and load it by its suffix."""
    p = Path(path)
    return load_document(read_file(p), name=document_name(p))


def read_file(path: Path) -> bytes:
    """The bytes of the file at ``path``; a file that cannot be read is one clear message."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise DocumentError(f"{display_name(path)}: no such file") from None
    except IsADirectoryError:
        raise DocumentError(f"{display_name(path)}: is a folder, not a file") from None
    except OSError as exc:
        raise DocumentError(f"{display_name(path)}: cannot be read ({exc.strerror})") from None


def load_document(data: bytes, *, name: str, progress: Progress = quiet) -> Document:
    """Load Markdown, plain text or PDF bytes; the kind follows the file name's suffix.
    ``progress`` follows the long steps: a PDF's pages, a Markdown file's structure."""
    suffix = Path(name).suffix.lower()
    if not data:
        raise DocumentError(f"{name}: the file is empty (0 bytes); choose a file with text in it")
    if suffix in PDF_SUFFIXES:
        from explorer.documents.pdf.reader import load_pdf

        pdf: Document = load_pdf(data, name=name, progress=progress)
        return pdf
    if suffix in MARKDOWN_SUFFIXES:
        return load_markdown(data, name=name, progress=progress)
    if suffix in TEXT_SUFFIXES:
        return load_text(data, name=name)
    raise unsupported_type(name)


def unsupported_type(name: str) -> DocumentError:
    """The error for a file whose suffix names no kind of document the loaders read."""
    suffix = Path(name).suffix.lower()
    supported = ", ".join(SUPPORTED_SUFFIXES)
    return DocumentError(f"{name}: unsupported file type {suffix or '(none)'!r}; use {supported}")


def decode_text(data: bytes, *, name: str) -> tuple[str, tuple[str, ...]]:
    """Decode the bytes of a text file; return the text and warnings saying what was assumed.

    UTF-8 is expected (a byte-order mark is dropped). A file starting with a UTF-16 byte-order
    mark is decoded as UTF-16. Bytes that are not UTF-8 are read as Windows-1252 (latin-1 where
    Windows-1252 leaves a byte undefined), unless most of the file is valid UTF-8 with a few
    damaged bytes: those become U+FFFD. Every assumption is a warning. Refused, each before any
    parsing: more bytes than :data:`MAX_CHARS` characters can take, text over :data:`MAX_CHARS`,
    white space only, and binary data anywhere in the file — a NUL byte, or a window of
    :data:`BINARY_WINDOW` characters whose control characters and undecodable bytes pass
    :data:`BINARY_SHARE` (binary appended to text is found wherever it starts).
    """
    warnings: list[str] = []
    if data.startswith(b"%PDF-"):
        raise DocumentError(f"{name}: this is a PDF, not text; rename it to .pdf")
    if len(data) > 4 * MAX_CHARS:  # UTF-8 needs at most 4 bytes a character
        raise too_long(name, f"{len(data) / 1e6:.1f} MB")
    replaced = False
    if data.startswith(codecs.BOM_UTF8):
        data = data[3:]
        warnings.append("dropped a UTF-8 byte-order mark")
        _refuse_nul(data, name=name)
        text, replaced = _decode_utf8(data, warnings)
    elif data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        order = "little" if data.startswith(codecs.BOM_UTF16_LE) else "big"
        try:
            text = data.decode("utf-16")  # the byte-order mark says which order; it is dropped
        except UnicodeDecodeError as exc:
            raise DocumentError(
                f"{name}: starts with a UTF-16 byte-order mark but is not valid UTF-16 "
                f"({exc.reason} at byte {exc.start}); re-save it as UTF-8"
            ) from None
        warnings.append(
            f"decoded as UTF-16 ({order}-endian, from its byte-order mark); offsets count "
            "characters of the decoded text — save it as UTF-8 to avoid the conversion"
        )
    else:
        _refuse_nul(data, name=name)
        text, replaced = _decode_utf8(data, warnings)
    if len(text) > MAX_CHARS:
        raise too_long(name, f"{len(text):,} characters")
    _refuse_binary(text, name=name, replaced=replaced)
    if not text.strip():
        raise DocumentError(f"{name}: the file holds only white space; there is nothing to chunk")
    return text, tuple(warnings)


BINARY_WINDOW = 65536
"""Binary data is looked for in every window of this many characters (64 KiB) and a NUL byte
anywhere, so a binary part after a text part is found wherever it starts."""
BINARY_SHARE = 0.01
"""A window is binary when more than this share of it (and more than 8 characters) are control
characters or undecodable bytes: text has a few at most (a stray escape, a damaged byte)."""

_CONTROLS = "\\x00-\\x08\\x0b\\x0e-\\x1f\\x7f-\\x9f"  # C0 and C1, but tab, line and page breaks
_CONTROL = re.compile(f"[{_CONTROLS}]")
_CONTROL_OR_REPLACED = re.compile(f"[{_CONTROLS}\ufffd]")


def _refuse_nul(data: bytes, *, name: str) -> None:
    """Refuse bytes holding a NUL anywhere: no text encoding but UTF-16 and UTF-32 writes one
    (UTF-16 without a byte-order mark gets its own hint)."""
    at = data.find(0)
    if at < 0:
        return
    head = data[:BINARY_WINDOW]
    even, odd = head[0::2].count(0), head[1::2].count(0)
    half = len(head) / 2
    if max(even, odd) > 0.3 * half and min(even, odd) < 0.05 * half:
        raise DocumentError(
            f"{name}: looks like UTF-16 without a byte-order mark (every other byte is NUL); "
            "re-save it as UTF-8"
        )
    raise DocumentError(
        f"{name}: looks binary, not a text file: it holds NUL bytes (the first at byte {at:,} "
        f"of {len(data):,}), which text never does; if part of it is text, save that part as a "
        "file of its own"
    )


def _refuse_binary(text: str, *, name: str, replaced: bool) -> None:
    """Refuse text with a :data:`BINARY_WINDOW` whose control characters (and U+FFFD, where
    undecodable bytes were ``replaced``) pass :data:`BINARY_SHARE`. One scan of the text: only
    the windows holding such a character are counted."""
    pattern = _CONTROL_OR_REPLACED if replaced else _CONTROL
    found = pattern.search(text)
    while found is not None:
        start = found.start() - found.start() % BINARY_WINDOW
        end = min(start + BINARY_WINDOW, len(text))
        n = len(pattern.findall(text, start, end))
        if n > max(8, (end - start) * BINARY_SHARE):
            what = "control characters or undecodable bytes" if replaced else "control characters"
            raise DocumentError(
                f"{name}: looks binary, not text: {n:,} of the {end - start:,} characters from "
                f"character {start:,} on are {what}, over the {BINARY_SHARE:.0%} text ever has; "
                "if part of it is text, save that part as a file of its own"
            )
        found = pattern.search(text, end)


def _decode_utf8(data: bytes, warnings: list[str]) -> tuple[str, bool]:
    """UTF-8, or the best reading of bytes that are not (see :func:`decode_text`); and whether
    undecodable bytes were replaced with U+FFFD. Each step is one pass in C over the bytes."""
    try:
        return data.decode("utf-8"), False
    except UnicodeDecodeError as exc:
        first = f"byte 0x{data[exc.start]:02x} at offset {exc.start}"
    replaced = data.decode("utf-8", errors="replace")
    bad = replaced.count("\ufffd") - data.count("\ufffd".encode())
    non_ascii = len(replaced) - len(replaced.encode("ascii", errors="ignore"))
    good = non_ascii - replaced.count("\ufffd")
    if good > bad:  # mostly UTF-8: a few damaged bytes, or a character cut at the end
        warnings.append(
            f"{bad} invalid UTF-8 byte sequence{'s' if bad != 1 else ''} (the first: {first}) "
            "replaced with U+FFFD (\ufffd); the rest is UTF-8"
        )
        return replaced, True
    try:
        text, encoding = data.decode("cp1252"), "Windows-1252 (Western European)"
    except UnicodeDecodeError:
        text, encoding = data.decode("latin-1"), "latin-1 (ISO-8859-1)"
    warnings.append(
        f"not valid UTF-8 ({first}); decoded as {encoding} — if letters look wrong, re-save "
        "the file as UTF-8"
    )
    return text, False


_LINE_END = re.compile(r"\r\n|\r|\n")


def line_starts(text: str) -> list[int]:
    """Offsets where each line begins (``\\r\\n``, ``\\r`` and ``\\n`` all end a line)."""
    return [0] + [m.end() for m in _LINE_END.finditer(text)]


def _paragraph_blocks(text: str) -> Iterator[Block]:
    for m in re.finditer(r"\S(?:.*?\S)?(?=\s*(?:\n[ \t]*(?:\r?\n)|\Z))", text, re.S):
        yield Block("paragraph", m.start(), m.end())


def load_text(data: bytes, *, name: str) -> Document:
    """Plain text: paragraphs are separated by blank lines; pipe tables (see
    :func:`pipe_tables`) are tables."""
    text, warnings = decode_text(data, name=name)
    return Document(
        name=name,
        kind="text",
        sha256=sha256_of(data),
        text=text,
        blocks=pipe_tables(text, _paragraph_blocks(text)),
        warnings=warnings,
    )


PIPE = " | "
"""The cell separator of pipe tables written without Markdown's delimiter row."""


def pipe_tables(text: str, blocks: Iterable[Block]) -> tuple[Block, ...]:
    """``blocks`` with each paragraph that is a table in all but syntax made a table.

    Text exported from spreadsheets, PDFs and datasets often writes a table as lines of cells
    separated by ``" | "`` without Markdown's ``|---|`` delimiter row, so Markdown reads it as a
    paragraph. A paragraph of two or more lines, every line holding the separator and at least
    four lines in five as many cells as the first, becomes a table; its first line is the
    header row, as in such exports it nearly always is. Chunking then keeps rows whole and a hit
    on the rows can bring the header (:class:`explorer.retrieval.TableHeaders`).
    """
    out = []
    for b in blocks:
        if b.kind == "paragraph" and PIPE in text[b.start : b.end]:
            rows = _pipe_rows(text, b.start, b.end)
            if rows:
                b = Block("table", b.start, b.end, rows=rows)
        out.append(b)
    return tuple(out)


def _pipe_rows(text: str, start: int, end: int) -> tuple[TableRow, ...]:
    lines = []
    pos = start
    for line in text[start:end].split("\n"):
        a, e = trim_span(text, pos, pos + len(line))
        if a < e:
            lines.append((a, e))
        pos += len(line) + 1
    cells = [text[a:e].count(PIPE) for a, e in lines]
    if len(lines) < 2 or min(cells) < 1:
        return ()
    if 5 * sum(c == cells[0] for c in cells) < 4 * len(lines):
        return ()
    return tuple(TableRow(a, e, header=i == 0) for i, (a, e) in enumerate(lines))


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


#: Containers (lists, block quotes) nested deeper than this are not parsed further: their
#: content stays in the text (and in the enclosing block) but gets no blocks of its own.
#: markdown-it's own CommonMark default; deeper recursion risks Python's recursion limit.
MAX_NESTING = 20

#: The most lines of Markdown whose structure is read. markdown-it spends 35-140 microseconds a
#: line (ordinary prose to table rows and numbered lists), so this bounds a load to about 10-40
#: seconds; a longer file is refused with a message to split it (or to read it as plain text).
MAX_MARKDOWN_LINES = 300_000

#: Markdown is parsed this many lines at a time (one top-level block is never cut), so only one
#: window's tokens are in memory: markdown-it keeps about 100 bytes of tokens per source byte.
PARSE_WINDOW_LINES = 10_000


_CONTAINERS = ("list_item_open", "blockquote_open", CONTAINER_OPEN)

MAX_QUOTE_DEPTH = MAX_NESTING - 1
"""The deepest block quote the parser reads whole (its paragraph takes the last level). A line
quoted deeper keeps only this many ``>`` markers: the parser would not read the others, and each
of them costs the tokenisers and the diagnostics as much as a word, so thousands on a line would
make every step slow for markers no one reads. The words are all kept; a warning says so."""

_DEEP = MAX_QUOTE_DEPTH + 1
_DEEP_QUOTE = re.compile(rf"(?:^|(?<=\r))[ \t]*(?:>[ \t]*){{{_DEEP},}}", re.M)
_MANY_MARKERS = re.compile(rf">(?:[ \t]*>){{{MAX_QUOTE_DEPTH}}}")  # a leading ">" is found fast
_KEPT_MARKERS = re.compile(rf"[ \t]*(?:>[ \t]*){{{MAX_QUOTE_DEPTH}}}")


def _markdown_parser() -> MarkdownIt:
    """Block-level CommonMark with tables and ``:::`` containers: inline parsing is off (only
    block maps are used)."""
    md = MarkdownIt("commonmark", {"maxNesting": MAX_NESTING})
    return enable_containers(md.enable("table").enable("strikethrough").disable("inline"))


def _top_level_pieces(
    md: MarkdownIt, text: str, starts: list[int], first: int
) -> Iterator[tuple[int, list[Token]]]:
    """Tokens of ``text`` from line ``first`` on, a window at a time: ``(line, tokens)`` pairs.

    Token maps are relative to ``line``. Each window stops before its last top-level block
    (which the window's end may have cut short); the next window starts at that block. Between
    top-level blocks the parser holds no state, so the pieces equal one parse of the whole text.
    """
    n_lines = len(starts)
    line, window = first, PARSE_WINDOW_LINES
    while line < n_lines:
        stop = line + window
        if stop >= n_lines:
            yield line, md.parse(text[starts[line] :])
            return
        tokens = md.parse(text[starts[line] : starts[stop]])
        tops = [i for i, t in enumerate(tokens) if t.level == 0 and t.nesting >= 0 and t.map]
        if len(tops) < 2:  # one block fills the window: look 4 times further (at most a
            window *= 4  # third of the work is repeated)
            continue
        last = tops[-1]
        next_line = line + tokens[last].map[0]  # type: ignore[index]
        yield line, tokens[:last]
        line, window = next_line, PARSE_WINDOW_LINES


def trim_span(text: str, start: int, end: int) -> tuple[int, int]:
    """Shrink ``[start, end)`` so it neither starts nor ends with white space."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def load_markdown(data: bytes, *, name: str, progress: Progress = quiet) -> Document:
    """Markdown: ``text`` is the source (with quotes nested past :data:`MAX_QUOTE_DEPTH` cut to
    it); structure comes from markdown-it's block tokens, read a window at a time (``progress``
    follows the windows)."""
    text, warnings = decode_text(data, name=name)
    lines = text.count("\n") + text.count("\r") - text.count("\r\n") + 1
    if lines > MAX_MARKDOWN_LINES:
        raise DocumentError(
            f"{name} has {lines:,} lines, over the limit of {MAX_MARKDOWN_LINES:,} lines for "
            "reading Markdown structure; split the file into parts and load them one at a time "
            "(or rename it to .txt to read it as plain text)"
        )
    text, flattened = flatten_deep_quotes(text)
    if flattened:
        warnings += (flattened,)
    blocks, headings, too_deep = _parse_markdown(text, progress)
    titled = front_matter_title(text)
    if too_deep:
        warnings += (
            f"lists or block quotes nest deeper than the parser reads ({MAX_NESTING} levels; "
            "a list level counts two); what is deeper stays as text inside the enclosing block",
        )
    return Document(
        name=name,
        kind="markdown",
        sha256=sha256_of(data),
        text=text,
        blocks=blocks,
        headings=headings,
        warnings=warnings,
        meta_title=titled[0] if titled else "",
    )


def flatten_deep_quotes(text: str) -> tuple[str, str]:
    """``text`` with every line quoted deeper than :data:`MAX_QUOTE_DEPTH` levels cut to that
    depth (the ``>`` markers past it removed, with the spaces after them), and the warning that
    says so (empty when no line is that deep). One regular-expression scan finds the lines; the
    usual file has none and comes back as it is."""
    lines = 0
    deepest = (0, 0)  # (depth, offset of the line in the original text)

    def cut(m: re.Match[str]) -> str:
        nonlocal lines, deepest
        prefix = m.group()
        depth = prefix.count(">")
        lines += 1
        if depth > deepest[0]:
            deepest = (depth, m.start())
        kept = _KEPT_MARKERS.match(prefix)
        assert kept is not None  # the prefix holds more markers than are kept
        return kept.group()

    if _MANY_MARKERS.search(text) is None:  # no line can be that deep
        return text, ""
    flat = _DEEP_QUOTE.sub(cut, text)
    if not lines:
        return text, ""
    depth, at = deepest
    line = text.count("\n", 0, at) + text.count("\r", 0, at) - text.count("\r\n", 0, at) + 1
    return flat, (
        f"{lines:,} line{'s' if lines != 1 else ''} quoted deeper than the {MAX_QUOTE_DEPTH} "
        f"levels the parser reads (the deepest: {depth:,} levels, line {line:,}) kept their first "
        f"{MAX_QUOTE_DEPTH} '>' markers only; every word is kept, and offsets count characters "
        f"of the shortened text ({len(text) - len(flat):,} characters fewer)"
    )


def markdown_structure(text: str) -> tuple[tuple[Block, ...], tuple[Heading, ...]]:
    """Blocks and headings of Markdown ``text`` with offsets into ``text``.

    markdown-it reports line ranges (``token.map``); they are turned into character offsets
    and trimmed of surrounding white space. YAML front matter becomes one ``code`` block (and
    its ``title:`` the top heading when the body has no level-1 heading), a ``:::`` container a
    ``blockquote`` block through its closing line (:mod:`explorer.documents.site_markdown`).
    """
    blocks, headings, _too_deep = _parse_markdown(text)
    return blocks, headings


def _parse_markdown(
    text: str, progress: Progress = quiet
) -> tuple[tuple[Block, ...], tuple[Heading, ...], bool]:
    """:func:`markdown_structure`, and whether containers nest past :data:`MAX_NESTING`."""
    starts = line_starts(text)
    n_lines = len(starts)

    def offset(line: int) -> int:
        return starts[line] if line < n_lines else len(text)

    fm_end = front_matter_end(text)
    body_line = bisect.bisect_left(starts, fm_end) if fm_end else 0
    pieces = _top_level_pieces(_markdown_parser(), text, starts, body_line)

    blocks: list[Block] = []
    headings: list[Heading] = []
    stack: list[Heading] = []
    if fm_end:
        blocks.append(Block("code", *trim_span(text, 0, fm_end)))

    depth_inside_atomic = 0  # no paragraphs from inside tables
    too_deep = False
    rows: list[TableRow] = []
    in_thead = False
    table_span: tuple[int, int] | None = None
    for base, tokens in pieces:
        progress(base / n_lines, f"reading the structure: line {base + 1:,} of {n_lines:,}")
        for i, tok in enumerate(tokens):
            if tok.type in _CONTAINERS and tok.level + 1 >= MAX_NESTING:
                too_deep = True  # the parser does not read inside this container
            if tok.type == "table_close":
                if table_span is not None:
                    blocks.append(Block("table", *table_span, rows=tuple(rows)))
                    depth_inside_atomic -= 1
                rows, table_span = [], None
                continue
            if tok.type in ("thead_open", "thead_close"):
                in_thead = tok.type == "thead_open"
                continue
            if tok.type == "tr_open" and tok.map is not None:
                a, b = tok.map
                rows.append(
                    TableRow(*trim_span(text, offset(a + base), offset(b + base)), in_thead)
                )
                continue
            if tok.type == CONTAINER_OPEN and tok.map is not None and not depth_inside_atomic:
                a, b = tok.map
                if b + base < n_lines and closes(text[offset(b + base) : offset(b + base + 1)],
                                                 tok.markup):  # fmt: skip
                    b += 1  # the closing line is the container's
                start, end = trim_span(text, offset(a + base), offset(b + base))
                if start < end:
                    blocks.append(Block("blockquote", start, end))
                continue
            kind = _BLOCK_TOKENS.get(tok.type)
            if kind is None or tok.map is None:
                continue
            a, b = tok.map
            start, end = trim_span(text, offset(a + base), offset(b + base))
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
                title = (inline.content if inline is not None else "").strip()
                title = title[: len(title) - anchor_length(title)] or "(untitled)"
                while stack and stack[-1].level >= level:
                    stack.pop()
                path = (*(h.title for h in stack), title)
                heading = Heading(level, title, start, end, path)
                headings.append(heading)
                stack.append(heading)
    blocks.sort(key=lambda blk: (blk.start, -blk.end))
    titled = front_matter_title(text) if fm_end else None
    if titled is not None and not any(h.level == 1 for h in headings):
        title, start, end = titled  # the page's title, as Docusaurus draws it
        headings = [Heading(1, title, start, end, (title,))] + [
            Heading(h.level, h.title, h.start, h.end, (title, *h.path)) for h in headings
        ]
    return pipe_tables(text, blocks), tuple(headings), too_deep


def documents_in(folder: str | Path) -> Sequence[Path]:
    """Supported files in ``folder``, sorted by name; a link that leaves the folder is not one
    of them (:func:`~explorer.documents.model.leaves_folder`)."""
    return sorted(
        p
        for p in Path(folder).iterdir()
        if p.suffix.lower() in SUPPORTED_SUFFIXES and p.is_file() and not leaves_folder(p, folder)
    )
