"""Element layers: the PDF reader records the lines it removed (page, rectangle, text), and the
layers give each chosen kind's boxes on a page and the Markdown's CSS outlines."""

from __future__ import annotations

import pymupdf
import pytest

from explorer.documents.load import load_document, load_path
from tests import pdf_layouts
from tests.conftest import SAMPLES
from ui import layers


def test_the_reader_records_the_running_lines_it_removed() -> None:
    doc = load_path(SAMPLES / "field-manual.pdf")
    kinds = {r.kind for r in doc.removed}
    assert kinds == {"header", "page number"}
    assert {r.page for r in doc.removed} == {p.number for p in doc.pages}
    for r in doc.removed:
        page = doc.pages[r.page - 1]
        assert r.text not in doc.text  # it left the text
        assert 0 <= r.x0 < r.x1 <= page.width and 0 <= r.y0 < r.y1 <= page.height
        middle = (r.y0 + r.y1) / 2
        assert middle <= 0.08 * page.height or middle >= 0.92 * page.height
    numbers = [r.text for r in doc.removed if r.kind == "page number"]
    assert numbers == [f"Page {n} of {len(doc.pages)}" for n in range(1, len(doc.pages) + 1)]


def test_the_pdf_layers_are_the_blocks_and_removed_lines_on_the_page() -> None:
    doc = load_path(SAMPLES / "field-manual.pdf")
    boxes = layers.pdf_layers(doc, 2, ["Tables", "Removed headers/footers"])
    tables = [b for b in boxes if b["layer"] == "table"]
    removed = [b for b in boxes if b["layer"] == "removed"]
    on_page = [b for b in doc.blocks if b.kind == "table" and doc.page_span(b.start, b.end)[0] == 2]
    assert len(tables) == len(on_page) >= 1
    assert [b["title"] for b in removed] == [
        f"removed from the text ({r.kind}): {r.text}" for r in doc.removed if r.page == 2
    ]
    assert layers.pdf_layers(doc, 2, []) == []
    headings = layers.pdf_layers(doc, 1, ["Headings"])
    assert len(headings) == sum(
        1 for b in doc.blocks if b.kind == "heading" and doc.page_span(b.start, b.end)[0] == 1
    )


def test_the_markdown_layers_outline_their_elements() -> None:
    css = layers.markdown_css(["Tables", "Code"])
    assert ".ce-doc table{" in css and ".ce-doc pre{" in css and "h1" not in css
    assert layers.markdown_css([]) == ""
    legend = layers.legend_html(["Headings", "Removed headers/footers"])
    assert "Headings" in legend and "Removed headers/footers" in legend


def test_a_markdown_document_removes_nothing() -> None:
    assert load_document(b"# A\n\ntext\n", name="a.md").removed == ()


@pytest.mark.parametrize("column_rules", [False, True], ids=["boxed", "grid"])
def test_a_ruled_tables_box_reaches_its_rules(column_rules: bool) -> None:
    """The table layer outlines a ruled table by its frame of rules: its right rule stands
    well past the end of the longest cell's text, and the box reaches it."""
    data = pdf_layouts.boxed_table(column_rules=column_rules)
    doc = load_document(data, name="table.pdf")
    [table] = [b for b in doc.blocks if b.kind == "table"]
    assert table.box is not None and table.box.page == 1
    page = pymupdf.open(stream=data, filetype="pdf")[0]
    rules = [d["rect"] for d in page.get_drawings()]
    right = max(r.x1 for r in rules)
    left, top, bottom = min(r.x0 for r in rules), min(r.y0 for r in rules), max(r.y1 for r in rules)
    assert doc.layout is not None
    text_right = max(r.x1 for r in doc.layout.rects(table.start, table.end))
    assert right - text_right > 20  # the case in point: the text stops well short of the rule
    [box] = layers.pdf_layers(doc, 1, ["Tables"])
    x0, y0, x1, y1 = box["rect"]
    assert abs(x1 - right) <= 1 and abs(x0 - left) <= 1
    assert abs(y0 - top) <= 1 and abs(y1 - bottom) <= 1


def test_a_table_without_rules_is_outlined_by_its_text() -> None:
    doc = load_document(pdf_layouts.value_table(), name="values.pdf")
    tables = [b for b in doc.blocks if b.kind == "table"]
    assert tables and all(b.box is None for b in tables)
    assert doc.layout is not None
    for b, box in zip(tables, layers.pdf_layers(doc, 1, ["Tables"]), strict=True):
        rects = doc.layout.rects(b.start, b.end)
        assert box["rect"][2] == round(max(r.x1 for r in rects) + 1.5, 2)
