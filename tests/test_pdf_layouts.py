"""Reading order of the layouts manuals use: option and parameter lists, glossaries, tables
without rules between their rows, and line-numbered listings, next to real two-column prose.

The PDFs are generated (``tests/pdf_layouts.py``); the expected rows are built from the same
data the generator draws, and every row's rectangles are checked against where PyMuPDF finds
its words on the page.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence

import pymupdf
import pytest

from explorer.documents.model import Block, Document, Rect
from explorer.documents.pdf import load_pdf
from tests import pdf_layouts as L
from tests.test_pdf import check_invariants, flat


def load(build: Callable[[], bytes], name: str = "layout.pdf") -> tuple[Document, bytes]:
    data = build()
    doc = load_pdf(data, name=name)
    check_invariants(doc)
    return doc, data


def tables(doc: Document) -> list[Block]:
    return [b for b in doc.blocks if b.kind == "table"]


def row_texts(doc: Document, table: Block) -> list[str]:
    return [doc.text[r.start : r.end] for r in table.rows]


def expected_rows(rows: Sequence[tuple[str, tuple[str, ...]]]) -> list[str]:
    return [f"{name} | {' '.join(lines)}" for name, lines in rows]


def where(data: bytes, page: int, phrase: str) -> list[pymupdf.Rect]:
    return list(pymupdf.open(stream=data)[page - 1].search_for(phrase))


def same_line(a: Rect, b: Rect) -> bool:
    overlap = min(a.y1, b.y1) - max(a.y0, b.y0)
    return overlap >= 0.8 * min(a.y1 - a.y0, b.y1 - b.y0)


def check_row_rects(
    doc: Document, data: bytes, table: Block, rows: Sequence[tuple[str, tuple[str, ...]]]
) -> None:
    """Each row's rectangles: its name and the first line beside it on one baseline, where
    PyMuPDF finds them; each wrapped line on the line below; rows top to bottom."""
    assert doc.layout is not None
    previous_bottom = 0.0
    for r, (name, lines) in zip(table.rows, rows, strict=True):
        rects = doc.layout.rects(r.start, r.end)
        assert len(rects) == 1 + len(lines)  # the name, then each line beside it
        page = rects[0].page
        head, *rest = rects
        assert same_line(head, rest[0])
        assert head.x1 < rest[0].x0  # the name, then the text to its right
        found = min(
            where(data, page, name), key=lambda f: abs(f.x0 - head.x0) + abs(f.y0 - head.y0)
        )
        for ours, theirs in zip((head.x0, head.y0, head.x1, head.y1), found, strict=True):
            assert abs(ours - theirs) <= 2.0
        for upper, lower, text in zip(rest, rest[1:], lines[1:], strict=False):
            assert lower.y0 > (upper.y0 + upper.y1) / 2  # a wrapped line: on the line below
            assert abs(lower.x0 - upper.x0) <= 2.0  # at the same left edge
            assert any(abs(f.y0 - lower.y0) < 3 for f in where(data, page, text))
        assert head.y0 >= previous_bottom - 1
        previous_bottom = max(x.y1 for x in rects)


LISTS = [
    pytest.param(L.options_mono, L.OPTIONS, id="options-courier-wrapped"),
    pytest.param(lambda: L.options_mono(wrapped=False), L.SHORT_OPTIONS, id="options-courier"),
    pytest.param(L.options_sans, L.OPTIONS, id="options-helvetica-wrapped"),
    pytest.param(lambda: L.options_sans(wrapped=False), L.SHORT_OPTIONS, id="options-helvetica"),
    pytest.param(L.parameters, L.PARAMETERS, id="parameters-times"),
    pytest.param(L.glossary, L.GLOSSARY, id="glossary"),
]


@pytest.mark.parametrize(("build", "rows"), LISTS)
def test_row_aligned_list_reads_row_by_row(
    build: Callable[[], bytes], rows: Sequence[tuple[str, tuple[str, ...]]]
) -> None:
    doc, data = load(build)
    (table,) = tables(doc)
    assert row_texts(doc, table) == expected_rows(rows)
    check_row_rects(doc, data, table, rows)


def test_option_list_keeps_its_heading_and_the_text_around_it_in_order() -> None:
    doc, _data = load(L.options_mono)
    text = doc.text
    order = ["OPTIONS", "The following options are understood:", "-b, --benchmark | perform"]
    order += ["-h, --help | display this help and exit", "EXIT STATUS", "The program exits"]
    positions = [text.index(p) for p in order]
    assert positions == sorted(positions)
    assert "--strict | use strict DER decoding\n" in text
    heading = next(b for b in doc.blocks if doc.text[b.start : b.end] == "EXIT STATUS")
    assert heading.kind in ("heading", "paragraph")


def test_two_columns_of_prose_beside_option_lists_stay_column_by_column() -> None:
    doc, data = load(L.options_beside_prose)
    text = flat(doc.text)
    page_one = flat(doc.text[doc.pages[0].start : doc.pages[0].end])
    # page 1: the two prose columns whole and in order, then the heading, then the options
    positions = [page_one.index(p) for p in (L.PROSE_LEFT, L.PROSE_RIGHT, "Options", "-b, --")]
    assert positions == sorted(positions)
    # page 2: the left column's prose, its parameter list row by row, then the right column
    page_two = doc.text[doc.pages[1].start : doc.pages[1].end]
    left_prose = ". ".join(L.PROSE_LEFT.split(". ")[:2]) + "."
    right = L.PROSE_RIGHT + " " + L.PROSE_MORE
    parameter_table = "\n".join(expected_rows(L.PARAMETERS[:4]))
    assert parameter_table in page_two
    positions = [flat(page_two).index(flat(p)) for p in (left_prose, parameter_table, right)]
    assert positions == sorted(positions)
    first, second = tables(doc)
    assert row_texts(doc, first) == expected_rows(L.OPTIONS)
    check_row_rects(doc, data, first, L.OPTIONS)
    check_row_rects(doc, data, second, L.PARAMETERS[:4])
    assert L.PROSE_LEFT in text and L.PROSE_RIGHT in text


BOXED = [
    pytest.param(L.boxed_table, id="box-and-header-rule"),
    pytest.param(lambda: L.boxed_table(row_gap=0), id="box-and-header-rule-no-row-space"),
    pytest.param(lambda: L.boxed_table(column_rules=True), id="box-with-column-rules"),
]


@pytest.mark.parametrize("build", BOXED)
def test_boxed_table_without_row_rules_gets_a_row_per_entry(build: Callable[[], bytes]) -> None:
    doc, data = load(build)
    (table,) = tables(doc)
    expected = ["Name | Default | Description"] + [
        f"{name} | {default} | {' '.join(lines)}" for name, default, lines in L.ATTRIBUTES
    ]
    assert row_texts(doc, table) == expected
    assert table.rows[0].header and not any(r.header for r in table.rows[1:])
    assert doc.layout is not None
    for r, (_name, default, lines) in zip(table.rows[1:], L.ATTRIBUTES, strict=True):
        rects = doc.layout.rects(r.start, r.end)
        assert len(rects) == 2 + len(lines)
        assert same_line(rects[0], rects[1]) and same_line(rects[1], rects[2])
        assert rects[0].x1 < rects[1].x0 < rects[1].x1 < rects[2].x0
        (found,) = [f for f in where(data, 1, default) if abs(f.y0 - rects[1].y0) < 3]
        assert abs(found.x0 - rects[1].x0) <= 2.0
    assert "Table 3. Page attributes" in doc.text[: table.start]
    assert "Attributes not listed keep their defaults." in doc.text[table.end :]


def test_value_table_joins_cells_wrapped_inside_a_path_without_a_space() -> None:
    doc, _data = load(L.value_table)
    (table,) = tables(doc)
    rows = row_texts(doc, table)
    assert rows == [
        "Value | Description",
        "/usr/share/man | Manual pages for the default locale.",
        "/usr/share/man/en_GB | Manual pages in British English, installed separately.",
        "/var/cache/man | Formatted pages kept for reuse.",
        "MANPATH_MAP | Maps each directory on the search path to its manual tree.",
        "~/.manpath | A user's own search path.",
    ]
    assert doc.layout is not None
    i = doc.text.index("/usr/share/man/en_GB")
    first, second, *_ = doc.layout.rects(i, i + len("/usr/share/man/en_GB"))
    assert second.y0 >= first.y1 - 1 and abs(first.x0 - second.x0) <= 1  # two lines, one cell


@pytest.mark.parametrize("apart", [10, 40], ids=["numbers-close", "numbers-apart"])
def test_line_numbered_listing_is_code_not_a_table(apart: float) -> None:
    doc, _data = load(lambda: L.code_listing(apart=apart))
    assert not tables(doc)
    (code,) = [b for b in doc.blocks if b.kind == "code"]
    lines = doc.text[code.start : code.end].split("\n")
    assert lines == [f"{n}: {' '.join(line.split())}" for n, line in enumerate(L.LISTING, 1)]
    assert "4: main -> parse [weight=8];" in lines
    assert doc.layout is not None
    rects = doc.layout.rects(code.start, code.end)
    assert len(rects) == len(L.LISTING)  # one per line, top to bottom
    assert all(b.y0 >= a.y1 - 1 for a, b in itertools.pairwise(rects))
    assert doc.text.endswith("Edges with a weight are drawn shorter and straighter.")


def test_every_generated_layout_loads_with_consistent_layout() -> None:
    for name, build in L.LAYOUTS.items():
        doc, _data = load(build, name)
        assert doc.name == name and doc.text
