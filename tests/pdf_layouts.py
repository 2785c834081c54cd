"""Generated PDFs of the layouts that manuals and specifications use (no binary fixtures).

Each builder returns the bytes of a small PDF drawn with PyMuPDF the way texinfo, LaTeX and
groff set these layouts: an option list or a parameter list whose two columns are separate text
runs sharing baselines, a glossary, a boxed table with only its outer frame and a header rule, a
borderless value/description table whose cells wrap (inside a path, too), a line-numbered code
listing, and the same kinds of rows next to real two-column prose. ``LAYOUTS`` names them all.

Used by ``tests/test_pdf_layouts.py`` and ``benchmarks/bench_reading_order.py``. The output is
deterministic (no dates, no random file identifier).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pymupdf as _pymupdf

pymupdf: Any = _pymupdf

SANS, SANS_BOLD = "helv", "hebo"
MONO, MONO_BOLD = "cour", "cobo"
SERIF, SERIF_BOLD = "tiro", "tibo"

#: A man page's options: (option, description lines). Descriptions wrap at the same left edge.
OPTIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("-b, --benchmark", ("perform a benchmark on decoding",)),
    ("-s, --strict", ("use strict DER decoding",)),
    ("-t, --no-time-strict", ("use strict DER decoding but not in time fields",)),
    ("-o, --output=FILE", ("write the decoded structure to FILE instead of", "standard output")),
    ("-d, --depth=N", ("stop descending after N levels of nesting; 0 means", "no limit")),
    ("-v, --verbose", ("print the tag, length and offset of each element",)),
    ("-h, --help", ("display this help and exit",)),
)

#: The same options without wrapped descriptions.
SHORT_OPTIONS: tuple[tuple[str, tuple[str, ...]], ...] = tuple(
    (name, lines) for name, lines in OPTIONS if len(lines) == 1
)

#: An API's parameter list: name, then a description that wraps.
PARAMETERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("path", ("Location of the file to open.",)),
    ("mode", ('Either "r" to read or "w" to write; text mode', 'unless "b" is added.')),
    ("buffering", ("Size of the read buffer in bytes.",)),
    ("encoding", ("Name of the text encoding. The default is", "the locale's preferred one.")),
    ("errors", ("What to do with bytes that cannot be decoded.",)),
    ("newline", ("How line endings are translated when reading.",)),
)

#: A glossary: a bold term and its definition.
GLOSSARY: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Chunk", ("A contiguous span of a document that is embedded", "and retrieved as one unit.")),
    ("Overlap", ("Text shared by two consecutive chunks.",)),
    ("Recall", ("The share of the relevant text that the retrieved", "chunks hold.")),
    ("Passage", ("A run of whole sentences of at most 64 tokens.",)),
    ("Span", ("A half-open pair of offsets into the text.",)),
)

#: A boxed attribute table: rows are (name, default, description lines).
ATTRIBUTES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("fontsize", "11", ("Size of the body text in points.",)),
    ("fontname", "Times-Roman", ("Name of a base font or of a font file", "embedded in the page.")),
    ("color", "black", ("A colour name or a hex triple such as #1a2b3c.",)),
    ("margin", "72", ("Space around the page body, in points.",)),
    ("columns", "1", ("Number of text columns; 2 sets the body", "in two columns.")),
)

#: A borderless value/description table; a value can wrap inside a path.
VALUES: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (
    (("/usr/share/man",), ("Manual pages for the default locale.",)),
    (("/usr/share/man/", "en_GB"), ("Manual pages in British English, installed", "separately.")),
    (("/var/cache/man",), ("Formatted pages kept for reuse.",)),
    (("MANPATH_", "MAP"), ("Maps each directory on the search path to its", "manual tree.")),
    (("~/.manpath",), ("A user's own search path.",)),
)

#: A line-numbered code listing (LaTeX listings and texinfo examples set the numbers apart).
LISTING: tuple[str, ...] = (
    "digraph G {",
    "  main -> parse;",
    "  parse -> execute;",
    "  main -> parse [weight=8];",
    "  execute -> make_string;",
    "  execute -> printf;",
    "  init -> make_string;",
    "}",
)

PROSE_LEFT = (
    "Most manual pages are set in one column, but reference cards and the printed editions of "
    "many specifications use two. The text of the left column runs down to its foot and only "
    "then continues at the top of the right column, so a reader who follows the lines across "
    "the page would mix two unrelated sentences. A program that reads such a page must "
    "therefore find the white gap between the columns and keep each column whole."
)
PROSE_RIGHT = (
    "The right column carries on where the left one ended. Its lines share baselines with the "
    "lines of the left column, exactly as the rows of an option list do, yet they must not be "
    "read across. What tells them apart is that both columns are filled with long lines of "
    "running text, whereas the left cells of a list are short and the rows are few words each."
)

PROSE_MORE = (
    "A list set inside one column belongs to that column: its rows are read across the list "
    "but not across the gutter, and the column beside it is read after the list has ended."
)


def _put(page: Any, x: float, y: float, text: str, font: str, size: float) -> None:
    page.insert_text((x, y), text, fontname=font, fontsize=size)


def _rows(
    page: Any,
    rows: Sequence[tuple[str, tuple[str, ...]]],
    *,
    top: float,
    left: float,
    second: float,
    left_font: str,
    right_font: str,
    size: float,
    gap: float = 0.0,
) -> float:
    """Draw two-column rows; each cell is its own text run. Returns the next baseline."""
    y = top
    step = size * 1.25
    for name, lines in rows:
        _put(page, left, y, name, left_font, size)
        for k, line in enumerate(lines):
            _put(page, second, y + k * step, line, right_font, size)
        y += len(lines) * step + gap
    return y


def _pdf(build: Callable[[Any], None]) -> bytes:
    doc = pymupdf.open()
    build(doc)
    doc.set_metadata({"producer": "PyMuPDF", "creator": "tests/pdf_layouts.py"})
    return bytes(doc.tobytes(garbage=3, deflate=True, no_new_id=True))


def options_mono(*, wrapped: bool = True) -> bytes:
    """A groff-style man page in Courier: options and descriptions as separate runs."""

    def build(doc: Any) -> None:
        page = doc.new_page()
        _put(page, 72, 72, "ASN1PARSE(1)", MONO_BOLD, 10)
        _put(page, 72, 100, "OPTIONS", MONO_BOLD, 10)
        _put(page, 96, 118, "The following options are understood:", MONO, 10)
        rows = OPTIONS if wrapped else SHORT_OPTIONS
        y = _rows(
            page, rows, top=140, left=96, second=252, left_font=MONO, right_font=MONO, size=10
        )
        _put(page, 72, y + 14, "EXIT STATUS", MONO_BOLD, 10)
        _put(page, 96, y + 32, "The program exits with 0 on success and 1 on error.", MONO, 10)

    return _pdf(build)


def options_sans(*, wrapped: bool = True) -> bytes:
    """A texinfo-style option table: options in Courier, descriptions in Helvetica."""

    def build(doc: Any) -> None:
        page = doc.new_page()
        _put(page, 72, 72, "2.3 Invoking asn1parse", SANS_BOLD, 14)
        _put(page, 72, 100, "The options are as follows; each may be given once.", SANS, 10)
        rows = OPTIONS if wrapped else SHORT_OPTIONS
        y = _rows(
            page,
            rows,
            top=124,
            left=86,
            second=220,
            left_font=MONO,
            right_font=SANS,
            size=10,
            gap=4,
        )
        _put(page, 72, y + 16, "Options that take a value also accept it after a space.", SANS, 10)

    return _pdf(build)


def parameters() -> bytes:
    """An API reference: a parameter list in Times with names in Courier."""

    def build(doc: Any) -> None:
        page = doc.new_page()
        _put(page, 72, 72, "open(path, mode='r', buffering=-1, encoding=None)", MONO_BOLD, 11)
        _put(page, 90, 96, "Open a file and return a stream.", SERIF, 11)
        _put(page, 90, 124, "Parameters", SERIF_BOLD, 11)
        y = _rows(
            page,
            PARAMETERS,
            top=144,
            left=108,
            second=190,
            left_font=MONO,
            right_font=SERIF,
            size=11,
            gap=3,
        )
        _put(page, 90, y + 14, "Returns", SERIF_BOLD, 11)
        _put(page, 108, y + 32, "A file object whose type depends on the mode.", SERIF, 11)

    return _pdf(build)


def glossary() -> bytes:
    """A LaTeX-style glossary: bold terms in a narrow left column, definitions beside them."""

    def build(doc: Any) -> None:
        page = doc.new_page()
        _put(page, 72, 72, "Glossary", SERIF_BOLD, 16)
        _rows(
            page,
            GLOSSARY,
            top=104,
            left=72,
            second=160,
            left_font=SERIF_BOLD,
            right_font=SERIF,
            size=11,
            gap=5,
        )

    return _pdf(build)


def options_beside_prose() -> bytes:
    """Two columns of running prose above an option list, and a list inside one column."""

    def build(doc: Any) -> None:
        page = doc.new_page()
        _put(page, 72, 66, "Reading two columns", SANS_BOLD, 14)
        for text, x in ((PROSE_LEFT, 72), (PROSE_RIGHT, 318)):
            rest = page.insert_textbox(
                pymupdf.Rect(x, 80, x + 222, 330), text, fontname=SANS, fontsize=10
            )
            assert rest >= 0
        _put(page, 72, 356, "Options", SANS_BOLD, 12)
        _rows(
            page,
            OPTIONS,
            top=378,
            left=86,
            second=220,
            left_font=MONO,
            right_font=SANS,
            size=10,
            gap=3,
        )
        # page 2: a two-column page whose left column ends with a short parameter list
        page = doc.new_page()
        left_text = PROSE_LEFT.split(". ")
        rest = page.insert_textbox(
            pymupdf.Rect(72, 72, 294, 200),
            ". ".join(left_text[:2]) + ".",
            fontname=SANS,
            fontsize=10,
        )
        assert rest >= 0
        _rows(
            page,
            PARAMETERS[:4],
            top=214,
            left=72,
            second=140,
            left_font=MONO,
            right_font=SANS,
            size=9,
            gap=2,
        )
        rest = page.insert_textbox(
            pymupdf.Rect(318, 72, 540, 330),
            PROSE_RIGHT + " " + PROSE_MORE,
            fontname=SANS,
            fontsize=10,
        )
        assert rest >= 0

    return _pdf(build)


def boxed_table(*, column_rules: bool = False, row_gap: float = 4) -> bytes:
    """An attribute table framed by a box with a rule under its header and none between rows
    (with ``column_rules``, rules between the columns too)."""

    def build(doc: Any) -> None:
        page = doc.new_page()
        _put(page, 72, 72, "Table 3. Page attributes", SANS_BOLD, 11)
        x = (72, 160, 250, 540)
        top = 84
        size, step = 10, 12.5
        y = top + 14
        for text, cx in zip(("Name", "Default", "Description"), x, strict=False):
            _put(page, cx + 4, y, text, SANS_BOLD, size)
        header_rule = y + 5
        y = header_rule + 14
        for name, default, lines in ATTRIBUTES:
            _put(page, x[0] + 4, y, name, MONO, size)
            _put(page, x[1] + 4, y, default, MONO, size)
            for k, line in enumerate(lines):
                _put(page, x[2] + 4, y + k * step, line, SANS, size)
            y += len(lines) * step + row_gap
        bottom = y - 10 + row_gap
        shape = page.new_shape()
        shape.draw_rect(pymupdf.Rect(x[0], top, x[3], bottom))
        shape.draw_line((x[0], header_rule), (x[3], header_rule))
        for cx in x[1:3] if column_rules else ():
            shape.draw_line((cx, top), (cx, bottom))
        shape.finish(color=(0, 0, 0), width=0.8)
        shape.commit()
        _put(page, 72, bottom + 24, "Attributes not listed keep their defaults.", SANS, 10)

    return _pdf(build)


def value_table() -> bytes:
    """A borderless value/description table whose cells wrap, one value inside a path."""

    def build(doc: Any) -> None:
        page = doc.new_page()
        _put(page, 72, 72, "FILES", SANS_BOLD, 12)
        _put(page, 72, 96, "Value", SANS_BOLD, 10)
        _put(page, 170, 96, "Description", SANS_BOLD, 10)
        y = 116.0
        step = 12.5
        for values, lines in VALUES:
            for k, line in enumerate(values):
                _put(page, 72, y + k * step, line, MONO, 10)
            for k, line in enumerate(lines):
                _put(page, 170, y + k * step, line, SANS, 10)
            y += max(len(values), len(lines)) * step + 6
        _put(page, 72, y + 12, "The search path is read from left to right.", SANS, 10)

    return _pdf(build)


def code_listing(*, apart: float = 10) -> bytes:
    """A line-numbered listing: small numbers set ``apart`` points to the left of the code."""

    def build(doc: Any) -> None:
        page = doc.new_page()
        _put(page, 72, 72, "Listing 1. A call graph in the dot language", SANS_BOLD, 11)
        y = 96.0
        for n, line in enumerate(LISTING, start=1):
            number = f"{n}:"
            _put(page, 90 - pymupdf.get_text_length(number, MONO, 8), y, number, MONO, 8)
            _put(page, 90 + apart, y, line, MONO, 10)
            y += 12.5
        _put(page, 72, y + 12, "Edges with a weight are drawn shorter and straighter.", SANS, 10)

    return _pdf(build)


#: Every generated layout: a file name and its builder.
LAYOUTS: dict[str, Callable[[], bytes]] = {
    "layout-options-mono.pdf": options_mono,
    "layout-options-mono-short.pdf": lambda: options_mono(wrapped=False),
    "layout-options-sans.pdf": options_sans,
    "layout-options-sans-short.pdf": lambda: options_sans(wrapped=False),
    "layout-parameters.pdf": parameters,
    "layout-glossary.pdf": glossary,
    "layout-options-beside-prose.pdf": options_beside_prose,
    "layout-boxed-table.pdf": boxed_table,
    "layout-boxed-table-tight.pdf": lambda: boxed_table(row_gap=0),
    "layout-boxed-table-column-rules.pdf": lambda: boxed_table(column_rules=True),
    "layout-value-table.pdf": value_table,
    "layout-code-listing.pdf": code_listing,
    "layout-code-listing-apart.pdf": lambda: code_listing(apart=40),
}
