"""Click a region → its chunk, in Chromium: on the PDF page image and on the rendered Markdown a
click selects the chunk there (the chunk's details show it, its outline is drawn over the page),
and where two chunks overlap a menu names both and the one chosen is selected."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.browser_util import (
    choose,
    radio,
    require_chromium,
    screenshot,
    wait_for_app,
    wait_idle,
)

pytestmark = pytest.mark.browser

require_chromium()


SIZES = pytest.mark.parametrize(
    "page", [(1500, 1000), (1280, 800)], ids=["1500x1000", "1280x800"], indirect=True
)
"""The clicks run at both window sizes; the overlap menus at the larger one."""


@pytest.fixture
def page(request: Any, chromium: Any, app_url: str) -> Iterator[Any]:
    width, height = getattr(request, "param", (1500, 1000))
    context = chromium.new_context(viewport={"width": width, "height": height})
    p = context.new_page()
    p.goto(app_url)
    wait_for_app(p)
    yield p
    context.close()


def details_heading(page: Any) -> str:
    return str(page.locator(".st-key-chunk_details h3").first.inner_text()).strip()


REGIONS = """() => {
    // every region rectangle on screen, with its chunk
    return [...document.querySelectorAll('.ce-regions .ce-region')].map((r) => {
        const b = r.getBoundingClientRect();
        return {chunk: Number(r.dataset.chunk), x0: b.left, y0: b.top, x1: b.right, y1: b.bottom};
    });
}"""


def _alone(regions: list[dict[str, float]]) -> tuple[int, float, float]:
    """A chunk and a point inside one of its rectangles that no other chunk's rectangle
    touches."""
    for r in regions:
        x, y = (r["x0"] + r["x1"]) / 2, (r["y0"] + r["y1"]) / 2
        others = [
            o
            for o in regions
            if o["chunk"] != r["chunk"]
            and o["x0"] - 2 <= x <= o["x1"] + 2
            and o["y0"] - 2 <= y <= o["y1"] + 2
        ]
        if not others and r["x1"] - r["x0"] > 40:
            return int(r["chunk"]), x, y
    raise AssertionError("no region of a single chunk")


def _overlap(regions: list[dict[str, float]]) -> tuple[set[int], float, float]:
    """Two chunks and a point inside a rectangle of each."""
    for a in regions:
        for b in regions:
            if a["chunk"] >= b["chunk"]:
                continue
            x0, x1 = max(a["x0"], b["x0"]), min(a["x1"], b["x1"])
            y0, y1 = max(a["y0"], b["y0"]), min(a["y1"], b["y1"])
            if x1 - x0 > 20 and y1 - y0 > 4:
                return {int(a["chunk"]), int(b["chunk"])}, (x0 + x1) / 2, (y0 + y1) / 2
    raise AssertionError("no two chunks overlap on this page")


def _open_pdf(page: Any) -> list[dict[str, float]]:
    radio(page, "Show on the document", "Chunks")
    choose(page, "Document", "field-manual.pdf")
    page.locator(".ce-regions .ce-region").first.wait_for(timeout=60_000)
    page.locator(".ce-regions").scroll_into_view_if_needed()
    wait_idle(page)
    return list(page.evaluate(REGIONS))


@SIZES
def test_a_click_on_the_pdf_page_selects_the_chunk_there(page: Any) -> None:
    regions = _open_pdf(page)
    src = page.locator('[data-testid="stImage"] img').first.get_attribute("src")
    chunk, x, y = _alone(regions)
    page.mouse.click(x, y)
    wait_idle(page)
    assert details_heading(page) == f"Chunk #{chunk}"
    outlined = {o.get_attribute("data-chunk") for o in page.locator(".ce-outline").all()}
    assert outlined == {str(chunk)}  # its outline, drawn over the page in the browser
    # the page image itself is not drawn again for a selection
    assert page.locator('[data-testid="stImage"] img').first.get_attribute("src") == src
    size = page.viewport_size
    screenshot(page, f"regions-pdf-click-{size['width']}x{size['height']}.png")


def test_a_click_where_pdf_chunks_overlap_lets_the_reader_choose(page: Any) -> None:
    regions = _open_pdf(page)
    both, x, y = _overlap(regions)
    page.mouse.click(x, y)
    menu = page.locator(".ce-pick-menu")
    menu.wait_for(timeout=10_000)
    items = menu.locator(".ce-pick-item")
    assert {items.nth(i).get_attribute("data-chunk") for i in range(items.count())} == {
        str(c) for c in both
    }
    assert menu.inner_text().startswith("2 chunks overlap here:")
    size = page.viewport_size
    screenshot(page, f"regions-pdf-menu-{size['width']}x{size['height']}.png")
    second = max(both)
    menu.locator(f'.ce-pick-item[data-chunk="{second}"]').click()
    wait_idle(page)
    assert details_heading(page) == f"Chunk #{second}"
    assert page.locator(".ce-pick-menu").count() == 0


TEXT_SPANS = """() => {
    // every tinted span in the drawn Markdown with its chunks and its first line's box
    return [...document.querySelectorAll('.st-key-doc_view .ce-doc .ce-hl')].map((s) => {
        const b = s.getClientRects()[0];
        const chunks = [...s.classList].filter((c) => /^ce-chunk-\\d+$/.test(c))
            .map((c) => Number(c.slice(9)));
        if (!b) return {chunks, x: -1, y: -1, w: 0, visible: false};
        return {chunks, x: b.left + Math.min(8, b.width / 2), y: (b.top + b.bottom) / 2,
                w: b.width, visible: b.top > 0 && b.bottom < innerHeight};
    });
}"""


def _markdown_spans(page: Any) -> list[dict[str, Any]]:
    radio(page, "Show on the document", "Chunks")
    choose(page, "Document", "writing-guide.md")
    page.locator(".st-key-doc_view .ce-doc .ce-hl").first.wait_for(timeout=60_000)
    wait_idle(page)
    return list(page.evaluate(TEXT_SPANS))


@SIZES
def test_a_click_on_the_markdown_selects_the_chunk_there(page: Any) -> None:
    spans = _markdown_spans(page)
    one = next(s for s in spans if len(s["chunks"]) == 1 and s["visible"] and s["w"] > 20)
    page.mouse.click(one["x"], one["y"])
    wait_idle(page)
    [chunk] = one["chunks"]
    assert details_heading(page) == f"Chunk #{chunk}"
    size = page.viewport_size
    screenshot(page, f"regions-md-click-{size['width']}x{size['height']}.png")


def test_a_click_where_markdown_chunks_overlap_lets_the_reader_choose(page: Any) -> None:
    spans = _markdown_spans(page)
    assert any(len(s["chunks"]) == 2 for s in spans)  # the default overlap shares text
    box = page.locator(".st-key-doc_view .ce-doc .ce-overlap").first
    box.scroll_into_view_if_needed()
    shared = next(s for s in page.evaluate(TEXT_SPANS) if len(s["chunks"]) == 2 and s["visible"])
    page.mouse.click(shared["x"], shared["y"])
    menu = page.locator(".ce-pick-menu")
    menu.wait_for(timeout=10_000)
    items = menu.locator(".ce-pick-item")
    assert sorted(int(items.nth(i).get_attribute("data-chunk")) for i in range(items.count())) == (
        sorted(shared["chunks"])
    )
    first = min(shared["chunks"])
    menu.locator(f'.ce-pick-item[data-chunk="{first}"]').click()
    wait_idle(page)
    assert details_heading(page) == f"Chunk #{first}"
