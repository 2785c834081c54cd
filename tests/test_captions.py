"""Captions as a layer: the paragraphs that label a figure or a table, recognised by their text
(neither loader marks them), outlined on the rendered Markdown and on a PDF page."""

from __future__ import annotations

import pymupdf
import pytest

from explorer.documents.captions import caption_blocks, is_caption
from explorer.documents.load import load_document
from ui import layers
from ui.render_markdown import render_markdown


@pytest.mark.parametrize(
    "text",
    [
        "Figure 3: The pipeline from upload to answer",
        "Fig. 1. HPC System Reference Architecture",
        "Table 2. Holding times by parameter",
        "*Figure 2 — sampling sites*",
        "**Table A.1:** Parts of the kit",
        "Figure 4-1: the reagent card",
        "TABLE 1",
        "Exhibit IV - terms of the lease",
    ],
)
def test_a_caption_is_a_label_a_number_and_a_separator(text: str) -> None:
    assert is_caption(text)


@pytest.mark.parametrize(
    "text",
    [
        "Table 2 shows the results of the survey.",  # prose: no separator after the number
        "Table salt is not a reagent.",
        "Fig. 1. HPC System Reference Architecture ........ 4",  # a table of contents' line
        "The figure 3: not at the start",
        "Figure 3: " + "a long paragraph of prose " * 20,  # longer than a caption
        "",
    ],
)
def test_prose_and_contents_lines_are_not_captions(text: str) -> None:
    assert not is_caption(text)


MD = (
    "# Report\n\nThe kit has parts.\n\n| part | count |\n|---|---|\n| tube | 4 |\n\n"
    "*Table 1: Parts of the kit*\n\nTable 1 shows what a kit holds.\n\n"
    "Figure 2. The reagent card\n"
)


def test_the_rendered_markdown_marks_its_captions_and_the_layer_outlines_them() -> None:
    doc = load_document(MD.encode(), name="report.md")
    assert [doc.text[b.start : b.end] for b in caption_blocks(doc)] == [
        "*Table 1: Parts of the kit*",
        "Figure 2. The reagent card",
    ]
    html = render_markdown(doc, [])
    assert html.count('<p class="ce-caption">') == 2
    after = html.split('<p class="ce-caption">')
    assert after[1].startswith("<em>Table 1: Parts of the kit")
    assert after[2].startswith("Figure 2. The reagent card")
    assert "Table 1 shows" in after[1] and 'class="ce-caption">Table 1 shows' not in html
    css = layers.markdown_css(["Captions"])
    assert ".ce-doc p.ce-caption{" in css


def test_a_pdf_caption_is_a_box_around_its_lines_on_its_page() -> None:
    pdf = pymupdf.open()
    page = pdf.new_page(width=595, height=842)
    page.insert_text((72, 100), "Water testing", fontsize=11)
    page.insert_text((72, 130), "Samples are kept cold until they reach the lab.", fontsize=11)
    page.insert_text((72, 300), "Figure 1: The sampling bottle and its cap", fontsize=9)
    page.insert_text((72, 340), "Every bottle is labelled before it is filled.", fontsize=11)
    doc = load_document(pdf.tobytes(), name="captions.pdf")
    found = caption_blocks(doc)
    caption = "Figure 1: The sampling bottle and its cap"
    assert [doc.text[b.start : b.end] for b in found] == [caption]
    boxes = layers.pdf_layers(doc, 1, ["Captions"])
    assert len(boxes) == 1 and boxes[0]["layer"] == "caption"
    x0, y0, x1, y1 = boxes[0]["rect"]
    assert x0 < 75 and 280 < y0 < 300 < y1 < 310 and x1 > 200
    assert layers.pdf_layers(doc, 1, ["Headings"]) != boxes
