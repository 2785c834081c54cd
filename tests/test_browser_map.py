"""The map of the embedding space in a real browser: turned on, it draws a point per chunk; a
click on a point selects that chunk in the page (its details show it)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.browser_util import (
    require_chromium,
    screenshot,
    toggle,
    wait_for_app,
    wait_idle,
)

require_chromium()

PLOT = ".st-key-map_panel .js-plotly-plot"


@pytest.fixture
def page(chromium: Any, app_url: str) -> Iterator[Any]:
    p = chromium.new_page(viewport={"width": 1280, "height": 800})
    p.goto(app_url)
    wait_for_app(p, 180_000)
    yield p
    p.close()


def open_map(page: Any) -> Any:
    toggle(page, "Map of the embedding space")
    page.wait_for_selector(f"{PLOT} .scatterlayer .point", timeout=120_000)
    wait_idle(page)
    plot = page.locator(PLOT)
    plot.scroll_into_view_if_needed()
    return plot


def test_clicking_a_point_selects_its_chunk(page: Any) -> None:
    plot = open_map(page)
    # the chunk traces are those with a chunk index per point; their points are the chunks
    traces = page.evaluate(
        f"""() => document.querySelector('{PLOT}').data.map(
            t => ({{name: t.name, n: (t.x || []).length, chunks: t.customdata || null}}))"""
    )
    with_chunks = [t for t in traces if t["chunks"]]
    shown = sum(t["n"] for t in with_chunks)
    assert shown == len({c for t in with_chunks for c in t["chunks"]}) >= 10
    assert "question" in [t["name"] for t in traces]
    # click the last point of the last section: a chunk that is not selected yet
    trace = len(with_chunks) - 1
    want = with_chunks[trace]["chunks"][-1]
    point = plot.locator(".scatterlayer .trace").nth(trace).locator(".point").last
    details = page.locator(".st-key-chunk_details")
    assert details.get_by_text(f"Chunk #{want}", exact=True).count() == 0
    box = point.bounding_box()
    assert box is not None
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    wait_idle(page, 120_000)
    details.get_by_text(f"Chunk #{want}", exact=True).wait_for(timeout=60_000)
    # the map rings the selected chunk
    names = page.evaluate(f"() => document.querySelector('{PLOT}').data.map(t => t.name)")
    assert f"chunk {want} (selected)" in names
    screenshot(page, "browser-map-selected.png")
