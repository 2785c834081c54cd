"""Element layers: the PDF reader records the lines it removed (page, rectangle, text), and the
layers give each chosen kind's boxes on a page and the Markdown's CSS outlines."""

from __future__ import annotations

from explorer.documents.load import load_document, load_path
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
