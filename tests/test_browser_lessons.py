"""A lesson on a projector: the running app in the system Chromium, opened from a lesson link in
presentation mode; the sidebar and the settings are out of sight, the verdict is readable, and a
repair button turns it complete. Screenshots go to ``artifacts/``."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.browser_util import (
    ARTIFACTS,
    require_chromium,
    screenshot,
    wait_idle,
)

pytestmark = pytest.mark.browser

require_chromium()


@pytest.fixture
def context(chromium: Any) -> Iterator[Any]:
    ctx = chromium.new_context(viewport={"width": 1400, "height": 900})
    yield ctx
    ctx.close()


def open_link(context: Any, url: str) -> Any:
    page = context.new_page()
    page.goto(url)
    page.wait_for_selector(".st-key-ce_lesson", timeout=120_000)
    page.wait_for_selector(".ce-doc", timeout=120_000)
    wait_idle(page, 120_000)
    return page


def alerts(page: Any) -> list[str]:
    shown = page.locator('[data-testid="stAlert"]:visible')
    return [str(t).strip() for t in shown.all_inner_texts()]


def test_a_lesson_in_presentation_mode_fails_then_one_repair_completes_it(
    context: Any, app_url: str
) -> None:
    page = open_link(context, f"{app_url}/?lesson=2-table-row-without-header&present=1")
    assert not page.locator('[data-testid="stSidebar"]').is_visible()
    assert not page.get_by_text("Chunk size", exact=True).is_visible()
    assert page.get_by_text("Within how many hours does the Business plan").first.is_visible()
    (verdict,) = [a for a in alerts(page) if a.startswith(("Incomplete", "Complete"))]
    assert verdict.startswith("Incomplete") and "|Critical|High|Normal|" in verdict
    size = page.locator(".ce-question").evaluate("e => parseFloat(getComputedStyle(e).fontSize)")
    assert size >= 24  # readable from the back of a room
    screenshot(page, "lesson-table-1-failing-presenting.png")

    page.get_by_role("button", name="Repair 1: Table headers on").click()
    wait_idle(page, 120_000)
    (verdict,) = [a for a in alerts(page) if a.startswith(("Incomplete", "Complete"))]
    assert verdict.startswith("Complete")
    assert "repair=1" in page.url and "present=1" in page.url
    screenshot(page, "lesson-table-2-repaired-presenting.png")

    page.get_by_role("button", name="Reset to the failing setting").click()
    wait_idle(page, 120_000)
    (verdict,) = [a for a in alerts(page) if a.startswith(("Incomplete", "Complete"))]
    assert verdict.startswith("Incomplete")


def test_the_heading_lesson_before_and_after_its_repair(context: Any, app_url: str) -> None:
    page = open_link(context, f"{app_url}/?lesson=6-heading-indexed-not-shown")
    assert page.locator('[data-testid="stSidebar"]').is_visible()
    screenshot(page, "lesson-heading-1-failing.png")
    page.get_by_role("button", name="Repair 1: Prefix heading path").click()
    wait_idle(page, 120_000)
    verdicts = [a for a in alerts(page) if a.startswith(("Incomplete", "Complete"))]
    assert verdicts == ["Complete: every evidence phrase is inside the retrieved text"]
    page.get_by_role("button", name="Show #1").click()
    wait_idle(page, 120_000)
    shown = page.locator('[data-testid="stCode"]').filter(has_text="A permit costs 25 euros")
    assert "Parking" not in shown.first.inner_text()  # the displayed text has no prefix
    screenshot(page, "lesson-heading-2-repaired.png")


def in_sight(page: Any, locator: Any) -> bool:
    """Is the element inside the window and inside the scrolling document view around it?"""
    box = locator.bounding_box()
    view = page.locator(".st-key-doc_view").bounding_box()
    size = page.viewport_size
    if box is None or view is None:
        return False
    return bool(
        box["y"] >= 0
        and box["y"] + box["height"] <= size["height"]
        and view["y"] <= box["y"]
        and box["y"] + box["height"] <= view["y"] + view["height"]
    )


def test_present_mode_at_1280x800_shows_the_hit_and_the_missing_text(
    chromium: Any, app_url: str
) -> None:
    ctx = chromium.new_context(viewport={"width": 1280, "height": 800})
    try:
        page = open_link(ctx, f"{app_url}/?lesson=2-table-row-without-header&present=1")
        page.wait_for_timeout(800)  # the scroll to the best hit
        badge = page.locator('.ce-doc .ce-badge:text-is("#1")').first
        assert in_sight(page, badge), "lesson 2's hit row is out of sight"
        page.screenshot(path=ARTIFACTS / "present-1280-lesson-2.png")

        page = open_link(ctx, f"{app_url}/?lesson=3-code-without-explanation&present=1")
        page.wait_for_timeout(800)
        missing = page.locator(".ce-doc .ce-underline").filter(has_text="Stop the").first
        assert "rgb(207, 34, 46)" in str(
            missing.evaluate("e => getComputedStyle(e).textDecorationColor")
        )
        assert in_sight(page, missing), "lesson 3's missing warning is out of sight"
        assert in_sight(page, page.locator('.ce-doc .ce-badge:text-is("#1")').first)
        page.screenshot(path=ARTIFACTS / "present-1280-lesson-3.png")
    finally:
        ctx.close()


TRUNCATED = """() => [...document.querySelectorAll(
        '[data-testid="stWidgetLabel"] [data-testid="stMarkdownContainer"]')]
    .filter(e => e.offsetParent && e.scrollWidth > e.clientWidth + 1)
    .map(e => e.innerText)"""


@pytest.mark.parametrize("size", [(1280, 800), (1500, 1000)])
def test_no_widget_label_is_cut_short(chromium: Any, app_url: str, size: tuple[int, int]) -> None:
    ctx = chromium.new_context(viewport={"width": size[0], "height": size[1]})
    try:
        page = open_link(ctx, app_url)
        for _ in range(3):  # the sidebar scrolls: bring each part into view so it is laid out
            assert page.evaluate(TRUNCATED) == []
            page.locator('[data-testid="stSidebar"]').hover()
            page.mouse.wheel(0, 700)
            page.wait_for_timeout(300)
        fill = page.locator('[data-testid="stSidebar"]').get_by_text("Fill to budget", exact=True)
        assert fill.is_visible()
    finally:
        ctx.close()
