"""Running titles: headers and footers that change by chapter or section leave the text.

The books are generated here the way texinfo, LaTeX (memoir, fancyhdr) and Sphinx set their
running lines: a chapter's first page carries its title as a body heading and no running line;
the pages after it carry the chapter title (and, on the other side of the spread, the section
title) in the header or the footer, with the page number on the same line. Each removed line is
recorded on ``Document.removed`` with its kind, and the body heading of the same text stays.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import pymupdf as _pymupdf
import pytest

from explorer.documents.model import Document
from explorer.documents.pdf import load_pdf
from tests.pdf_layouts import SANS, SANS_BOLD, SERIF, SERIF_BOLD, _pdf, _put
from tests.test_pdf import check_invariants
from ui import layers

pymupdf: Any = _pymupdf

Style = Literal["texinfo", "latex", "memoir", "ruled", "footer"]

#: (chapter title, [(section title, pages of the section)]); a chapter's first page is its own.
CHAPTERS: tuple[tuple[str, tuple[tuple[str, int], ...]], ...] = (
    ("Introduction and preliminaries", (("Using R interactively", 3), ("Getting help", 2))),
    ("Arrays and matrices", (("Arrays", 2), ("Index matrices", 1), ("The outer product", 2))),
    ("Lists and data frames", (("Constructing lists", 1),)),
    ("Reading data from files", (("The scan function", 3),)),
)


@dataclass(frozen=True)
class Drawn:
    """A running line as it was drawn: page (1-based), its text and its left edge's x."""

    page: int
    text: str
    x: float


def _sentence(page: int, k: int) -> str:
    return f"Paragraph {k} of page {page} says what page {page} is about in plain words."


#: A longer book: memoir's ruled style is told from the body by titles that recur page after page.
LONG_CHAPTERS = tuple((c, tuple((t, n + 2) for t, n in s)) for c, s in CHAPTERS)


def book(style: Style) -> tuple[bytes, list[Drawn]]:
    """A manual set in ``style``; returns its bytes and the running lines it drew."""
    drawn: list[Drawn] = []

    def running(page: Any, number: int, y: float, left: str, right: str) -> None:
        width = page.rect.width
        _put(page, 72, y, left, SERIF, 9)
        right_x = width - 72 - pymupdf.get_text_length(right, fontname=SERIF, fontsize=9)
        _put(page, right_x, y, right, SERIF, 9)
        for text, x in ((left, 72), (right, right_x)):
            if text and not text.isdigit():
                drawn.append(Drawn(number, text, x))

    def build(doc: Any) -> None:
        number = 0
        for c, (chapter, sections) in enumerate(chapters_of(style), start=1):
            first = True
            title = (
                f"CHAPTER {c}. {chapter}"
                if style in ("latex", "memoir", "ruled")
                else f"Chapter {c}: {chapter}"
            )
            heading = f"{c} {chapter}"
            for s, (section, n_pages) in enumerate(sections, start=1):
                section_title = f"{c}.{s} {section}"
                for k in range(n_pages + (1 if first else 0)):
                    page = doc.new_page()
                    number += 1
                    height = page.rect.height
                    y = 120.0
                    if first:  # the chapter's first page: its title is a heading, no header
                        _put(page, 72, y, heading, SANS_BOLD, 20)
                        y += 40
                        _put(page, 310, height - 30, str(number), SERIF, 9)
                        first = False
                    elif style == "texinfo":  # odd: chapter | number; even: number | section
                        if number % 2:
                            running(page, number, 40, title, str(number))
                        else:
                            running(page, number, 40, str(number), section_title)
                    elif style in ("latex", "memoir"):  # even: number | CHAPTER; odd: SECTION | n
                        upper = f"{c}.{s}. {section.upper()}"
                        at = 40 if style == "latex" else 0.106 * height  # memoir: further in
                        if number % 2:
                            running(page, number, at, upper, str(number))
                        else:
                            running(page, number, at, str(number), title)
                    elif style == "ruled":  # memoir's ruled style: titles a tenth of the page
                        upper = f"{c}.{s}. {section.upper()}"  # down, the number in the footer
                        running(page, number, 0.106 * height, title if number % 2 else upper, "")
                        _put(page, 310, 0.878 * height, str(number), SERIF, 9)
                    else:  # the chapter's name in the footer, the number beside it
                        running(page, number, height - 30, title, str(number))
                    if k == 0:
                        _put(page, 72, y, section_title, SANS_BOLD, 13)
                        y += 28
                    for p in range(1, 4):
                        _put(page, 72, y, _sentence(number, p), SERIF, 11)
                        y += 30

    return _pdf(build), drawn


def chapters_of(style: Style) -> tuple[tuple[str, tuple[tuple[str, int], ...]], ...]:
    return LONG_CHAPTERS if style == "ruled" else CHAPTERS


def load(style: Style) -> tuple[Document, list[Drawn]]:
    data, drawn = book(style)
    doc = load_pdf(data, name=f"{style}.pdf")
    check_invariants(doc)
    return doc, drawn


STYLES: list[Style] = ["texinfo", "latex", "memoir", "ruled", "footer"]


@pytest.mark.parametrize("style", STYLES)
def test_running_titles_leave_the_text_and_are_recorded(style: Style) -> None:
    doc, drawn = load(style)
    titles = [r for r in doc.removed if r.kind == "running title"]
    assert sorted((r.page, r.text) for r in titles) == sorted((d.page, d.text) for d in drawn)
    band = 0.15 if style in ("memoir", "ruled") else 0.08  # memoir's header: a tenth of the page in
    for r in titles:  # where it was drawn: the top or bottom band of its page
        d = next(d for d in drawn if (d.page, d.text) == (r.page, r.text))
        assert abs(r.x0 - d.x) < 1
        page = doc.pages[r.page - 1]
        middle = (r.y0 + r.y1) / 2
        assert middle <= band * page.height or middle >= (1 - band) * page.height
    headings = [h.title for h in doc.headings]
    for d in drawn:  # a running line never reaches the text; a body heading of its text stays
        assert doc.text.count(d.text) == headings.count(d.text)
    for c, (chapter, _sections) in enumerate(chapters_of(style), start=1):
        assert f"{c} {chapter}" in headings
        assert doc.text.count(f"{c} {chapter}") == 1
    # every section heading of the body stays, though the running lines repeat its text
    for c, (_chapter, sections) in enumerate(chapters_of(style), start=1):
        for s, (section, _n) in enumerate(sections, start=1):
            assert f"{c}.{s} {section}" in headings
    # nothing else left: every body sentence is there, and every page's number went
    for page in doc.pages:
        for p in range(1, 4):
            assert _sentence(page.number, p) in doc.text
    numbers = sorted(int(r.text) for r in doc.removed if r.kind == "page number")
    assert numbers == [p.number for p in doc.pages]
    assert {r.kind for r in doc.removed} == {"running title", "page number"}
    notes = " ".join(doc.normalisation)
    assert f"removed running chapter and section titles (headers/footers): {len(drawn)} lines" in (
        notes
    )


def test_the_layer_names_each_removed_line_by_its_kind() -> None:
    doc, drawn = load("texinfo")
    page = drawn[0].page
    boxes = layers.pdf_layers(doc, page, ["Removed headers/footers"])
    assert sorted(b["title"] for b in boxes) == sorted(
        [
            f"removed from the text (running title): {drawn[0].text}",
            f"removed from the text (page number): {page}",
        ]
    )
    legend = layers.legend_html(["Removed headers/footers"], removed=layers.removed_kinds(doc))
    assert "running titles" in legend and "page numbers" in legend


def _pages(draw: Callable[[Any, int], None], n: int = 8) -> bytes:
    def build(doc: Any) -> None:
        for number in range(1, n + 1):
            page = doc.new_page()
            _put(page, 310, page.rect.height - 30, str(number), SERIF, 9)
            _put(page, 72, 140, _sentence(number, 1), SERIF, 11)
            draw(page, number)

    return _pdf(build)


def test_repeated_lines_off_the_template_slots_stay() -> None:
    """Lines in the top band that repeat on neighbouring pages but stand where the page
    template has no running line (a table's title continued at varying heights, a note on two
    pages only) are the document's own text."""

    def draw(page: Any, number: int) -> None:
        if number in (2, 3, 4):  # a continued table's title, its height set by the table
            _put(page, 72, 34 + 6 * (number - 2), "ADDRESS TABLE (continued)", SANS_BOLD, 9)
        if number in (6, 7):  # the same note at the same height on two pages only
            _put(page, 72, 40, "Draft for review", SERIF_BOLD, 9)

    doc = load_pdf(_pages(draw), name="off-slot.pdf")
    check_invariants(doc)
    assert doc.text.count("ADDRESS TABLE (continued)") == 3
    assert doc.text.count("Draft for review") == 2
    assert {r.kind for r in doc.removed} == {"page number"}


def test_a_line_that_differs_on_every_page_stays() -> None:
    """A slot the template fills on every page, with a different text each time (a date
    stamp, a form's serial line), holds no running title."""

    def draw(page: Any, number: int) -> None:
        _put(
            page, 72, 40, f"Entry {chr(64 + number)}: received by desk {chr(72 + number)}", SANS, 9
        )

    doc = load_pdf(_pages(draw), name="stamps.pdf")
    check_invariants(doc)
    assert sum(1 for p in range(8) if f"Entry {chr(65 + p)}:" in doc.text) == 8
    assert {r.kind for r in doc.removed} == {"page number"}


def test_body_lines_a_tenth_of_the_page_down_stay() -> None:
    """Each page's first body line stands where a LaTeX header would (a tenth of the page
    down), and one repeats on two neighbouring pages (a slide's closing command), but no page
    number shares their height and most differ: they are body text."""
    firsts = ["\\begin{frame}", "\\end{frame}", "\\end{frame}", "Some text", "\\item one"]
    firsts += ["\\item two", "\\column{.5}", "\\pause"]

    def draw(page: Any, number: int) -> None:
        _put(page, 72, 0.1 * page.rect.height, firsts[number - 1], SERIF, 11)

    doc = load_pdf(_pages(draw), name="slides.pdf")
    check_invariants(doc)
    assert doc.text.count("\\end{frame}") == 2
    assert all(line in doc.text for line in firsts)
    assert {r.kind for r in doc.removed} == {"page number"}
