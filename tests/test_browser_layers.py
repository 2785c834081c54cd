"""The PDF page's layers in Chromium, as a person sees them: a ruled table's dashed box reaches
the table's right rule, and the removed-lines layer names each line's kind (a running chapter
title beside the page number) in its tooltip and its legend."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pymupdf
import pytest

from tests.browser_util import (
    REPO,
    choose,
    require_chromium,
    screenshot,
    set_number,
    wait_for_app,
    wait_idle,
)
from tests.test_pdf_running_titles import book

pytestmark = pytest.mark.browser

require_chromium()


@pytest.fixture
def page(chromium: Any, app_url: str) -> Iterator[Any]:
    context = chromium.new_context(viewport={"width": 1280, "height": 800})
    p = context.new_page()
    p.goto(app_url)
    wait_for_app(p)
    yield p
    context.close()


def _layers(page: Any, *names: str) -> None:
    for name in names:
        page.locator('[data-testid="stButtonGroup"]').get_by_text(name, exact=True).first.click()
        wait_idle(page)
    page.locator(".ce-layer").first.wait_for(timeout=60_000)
    page.locator(".ce-regions").scroll_into_view_if_needed()
    wait_idle(page)


BOXES = """(layer) => [...document.querySelectorAll('.ce-regions .ce-layer-' + layer)].map((r) => {
    const b = r.getBoundingClientRect();
    const t = r.querySelector('title');
    return {x0: b.left, x1: b.right, title: t ? t.textContent : ''};
})"""


def test_a_ruled_tables_box_reaches_its_right_rule(page: Any) -> None:
    choose(page, "Document", "field-manual.pdf")
    set_number(page, "Page", 3)
    _layers(page, "Tables")
    pdf = pymupdf.open(REPO / "sample_docs" / "field-manual.pdf")[2]
    rules = [d["rect"] for d in pdf.get_drawings()]
    right = max(r.x1 for r in rules if r.width < 2 and r.height > 10)  # the rightmost rule
    image = page.locator('[data-testid="stImage"] img').first.bounding_box()
    scale = image["width"] / pdf.rect.width  # screen pixels per point
    [box] = page.evaluate(BOXES, "table")
    assert abs(box["x1"] - (image["x"] + right * scale)) <= 1.5 * scale
    screenshot(page, "layers-table-box-1280x800.png")


def test_the_removed_lines_layer_names_running_titles(page: Any) -> None:
    data, drawn = book("texinfo")
    upload = page.locator('.st-key-upload input[type="file"]')
    upload.set_input_files({"name": "manual.pdf", "mimeType": "application/pdf", "buffer": data})
    wait_idle(page, 120_000)
    page.locator('[data-testid="stImage"] img').first.wait_for(timeout=120_000)
    set_number(page, "Page", drawn[0].page)
    _layers(page, "Removed headers/footers")
    titles = sorted(b["title"] for b in page.evaluate(BOXES, "removed"))
    assert titles == sorted(
        [
            f"removed from the text (running title): {drawn[0].text}",
            f"removed from the text (page number): {drawn[0].page}",
        ]
    )
    legend = page.locator(".ce-layer-legend").first.inner_text()
    assert "Removed headers/footers: running titles, page numbers" in legend
    screenshot(page, "layers-running-titles-1280x800.png")
