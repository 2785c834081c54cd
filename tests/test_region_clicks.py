"""Click a region → its chunk, without a browser: what the component is given (each chunk's line
rectangles on the page, the selected one's outline), how the browser's answer is taken (and
refused when it names no chunk), and that selecting a chunk finds the page image drawn."""

from __future__ import annotations

from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from explorer.chunking.records import ChunkSettings
from explorer.documents.load import load_path
from explorer.workspace import Workspace
from tests.conftest import REPO, SAMPLES
from ui import region_clicks, render
from ui.render import darker
from ui.safe import md_escape

APP = str(REPO / "app.py")


@pytest.fixture(scope="module")
def pdf() -> Any:
    doc = load_path(SAMPLES / "field-manual.pdf")
    settings = ChunkSettings(splitter="recursive", unit="tokens", size=128, overlap=32)
    chunks = Workspace().chunks(doc, settings)
    return doc, chunks


@pytest.mark.parametrize(
    ("value", "n", "expected"),
    [
        ({"chunk": 3}, 10, 3),
        ({"chunk": 0}, 1, 0),
        ({"chunk": 10}, 10, None),  # past the last chunk
        ({"chunk": -1}, 10, None),
        ({"chunk": "3"}, 10, None),  # only a number is a chunk
        ({"chunk": True}, 10, None),
        ({"chunk": 2.0}, 10, None),
        ({}, 10, None),
        (None, 10, None),
        ("3", 10, None),
        ([3], 10, None),
    ],
)
def test_a_click_names_a_chunk_only_when_it_is_one(value: Any, n: int, expected: Any) -> None:
    assert region_clicks.take_click(value, n) == expected


def test_the_click_handler_selects_the_chunk_named() -> None:
    state: dict[str, Any] = {"chunk": 4, "page": 2, region_clicks.KEY: {"pick": {"chunk": 7}}}
    assert region_clicks.apply_click(state, 10) == 7
    assert state["chunk"] == 7 and state["page"] == 2  # the page clicked on stays
    state[region_clicks.KEY] = {"pick": {"chunk": 12}}  # no such chunk: nothing changes
    assert region_clicks.apply_click(state, 10) is None
    assert state["chunk"] == 7
    state[region_clicks.KEY] = {"pick": None}  # the trigger after its run
    assert region_clicks.apply_click(state, 10) is None and state["chunk"] == 7
    del state[region_clicks.KEY]
    assert region_clicks.apply_click(state, 10) is None


def test_the_page_regions_are_each_chunks_lines_on_that_page(pdf: Any) -> None:
    doc, chunks = pdf
    tints = render.chunk_highlights(chunks, selected=2)
    page = chunks[2].page_start
    data = region_clicks.pdf_data(doc, page, 612.0, 792.0, tints)
    assert data["mode"] == "pdf" and data["page"] == page
    assert (data["width"], data["height"]) == (612.0, 792.0)
    by_chunk = {r["chunk"]: r["rects"] for r in data["regions"]}
    for c in chunks:
        expected = [
            [round(r.x0, 2), round(r.y0, 2), round(r.x1, 2), round(r.y1, 2)]
            for r in doc.layout.rects(c.start, c.end)
            if r.page == page
        ]
        assert by_chunk.get(c.index, []) == expected
    # the selected chunk, and only it, is outlined, in its darker colour
    [outline] = data["outlines"]
    assert outline["chunk"] == 2 and outline["rects"] == by_chunk[2]
    assert outline["color"] == "#" + "".join(
        f"{round(v * 255):02x}" for v in darker(tints[2].color)
    )
    assert data["selected"] == 2
    assert data["labels"]["2"] == "chunk 2"


def test_underlines_are_not_regions(pdf: Any) -> None:
    doc, chunks = pdf
    c = chunks[0]
    phrase = render.Highlight(c.start, c.end, 99, "#59a14f", underline=True)
    data = region_clicks.pdf_data(doc, c.page_start, 612.0, 792.0, [phrase])
    assert data["regions"] == [] and data["outlines"] == []


def test_the_text_data_names_the_tinted_chunks(pdf: Any) -> None:
    _, chunks = pdf
    tints = render.chunk_highlights(chunks[:3], selected=1)
    data = region_clicks.text_data(tints, 1)
    assert data == {
        "mode": "text",
        "chunks": [0, 1, 2],
        "labels": {"0": "chunk 0", "1": "chunk 1", "2": "chunk 2"},
        "selected": 1,
    }


def test_the_png_is_drawn_without_the_selection(pdf: Any) -> None:
    _, chunks = pdf
    tints = render.chunk_highlights(chunks, selected=2)
    plain = region_clicks.strip_selection(tints)
    assert not any(h.selected for h in plain)
    assert plain == region_clicks.strip_selection(render.chunk_highlights(chunks, selected=5))
    assert [h.start for h in plain] == [h.start for h in tints]


def test_the_js_builds_nodes_without_html_strings() -> None:
    # every node is made with createElement / textContent: nothing is parsed as HTML
    assert "innerHTML" not in region_clicks._JS
    assert "outerHTML" not in region_clicks._JS
    assert "http" not in region_clicks._JS.replace("http://www.w3.org/2000/svg", "")


def _open(**state: object) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    for k, v in state.items():
        at.session_state[k] = v
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_a_click_selects_the_chunk_and_keeps_the_page_image() -> None:
    at = _open()
    at.selectbox(key="source").set_value("field-manual.pdf").run()
    assert not at.exception
    assert at.session_state["pdf_view"] == "Page image"
    [image] = at.image
    before = image.value
    [caption] = image.captions
    assert caption.startswith(md_escape("field-manual.pdf") + ", page 1")
    # what the browser sends on a click, taken as the component's callback takes it
    state: dict[str, Any] = {region_clicks.KEY: {"pick": {"chunk": 1}}}
    region_clicks.apply_click(state, 5)
    at.session_state["chunk"] = state["chunk"]
    at.run()
    assert not at.exception
    assert any(s.label == "Selected chunk" and s.value == 1 for s in at.selectbox)
    assert at.image[0].value == before  # the page is not drawn again for a selection


def test_a_pages_rects_are_found_among_its_own_lines(pdf: Any) -> None:
    # rects_on_page (what the regions and layers use per rerun) is rects() kept to one page,
    # for spans within a page, over several pages, the whole text, and spans of no line
    doc, chunks = pdf
    layout = doc.layout
    pages = sorted({line.page for line in layout.lines})
    assert len(pages) > 1
    n = len(doc.text)
    spans = [(c.start, c.end) for c in chunks] + [(0, n), (chunks[1].start, chunks[-2].end)]
    spans += [(n, n), (5, 5), (n + 10, n + 20)]
    for start, end in spans:
        every = layout.rects(start, end)
        for page in [*pages, max(pages) + 1]:
            assert layout.rects_on_page(start, end, page) == [r for r in every if r.page == page]
