"""An author's own document, in a real browser at 1280x800 and at 1500x1000: the first screen
shows the document beside the question and the verdict; presentation mode shows the question,
the verdict and the best hit without scrolling and says why a repair works; an upload opens on
the recommended configuration, outside any lesson; a phrase copied from the rendered page is
found; a miss shows where k or the budget cut the ranking; "Reset to recommended" puts any view
back. Screenshots go to ``artifacts/``."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.browser_util import (
    ARTIFACTS,
    require_chromium,
    wait_for_app,
    wait_idle,
)
from tests.conftest import CORPUS

pytestmark = pytest.mark.browser

require_chromium()
SIZES = [(1280, 800), (1500, 1000)]
CARGO = CORPUS / "cargo-specifying-dependencies.md"


@pytest.fixture(params=SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def page(request: Any, chromium: Any, app_url: str) -> Iterator[Any]:
    width, height = request.param
    context = chromium.new_context(viewport={"width": width, "height": height})
    p = context.new_page()
    p.goto(app_url)
    wait_for_app(p)
    p.wait_for_timeout(1500)  # the document's scroll to its best hit
    yield p
    context.close()


def on_first_screen(page: Any, locator: Any) -> bool:
    """The element's top is inside the window as it opens (no scrolling)."""
    box = locator.bounding_box()
    return box is not None and 0 <= box["y"] < page.viewport_size["height"] - 20


def shot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    size = page.viewport_size
    page.screenshot(path=ARTIFACTS / f"{name}-{size['width']}.png")


def lesson_shown(page: Any) -> str:
    """What the sidebar's lesson picker shows (its value, or its placeholder when none)."""
    box = page.get_by_role("combobox", name="Boundary lesson", exact=True)
    return str(box.input_value() or box.get_attribute("placeholder") or "")


def verdict(page: Any) -> Any:
    return (
        page.locator('[data-testid="stAlert"]')
        .filter(has_text="every evidence phrase")
        .or_(page.locator('[data-testid="stAlert"]').filter(has_text="Incomplete:"))
    )


def test_the_first_screen_is_the_document_beside_the_question_and_verdict(page: Any) -> None:
    assert lesson_shown(page) == "A rule and its exception"  # the app opens on the lesson
    question = page.get_by_label("Question", exact=True)
    assert on_first_screen(page, question)
    assert on_first_screen(page, verdict(page).first)
    view = page.locator('[class*="st-key-doc_view"]').first  # the document's own scroll box
    assert on_first_screen(page, view)
    # the best hit's tint is in view inside the document's own scroll box
    hit = page.locator(".ce-doc .ce-badge", has_text="#1").first
    h, v = hit.bounding_box(), view.bounding_box()
    assert v["y"] <= h["y"] <= min(v["y"] + v["height"], page.viewport_size["height"])
    # the chunking's figures are folded away under the document
    assert not page.locator('[data-testid="stMetric"]').first.is_visible()
    shot(page, "author-1-first-screen")


def test_a_miss_shows_where_the_ranking_was_cut(page: Any) -> None:
    cut = page.get_by_text("stopped the ranking after 2 hits", exact=False)
    cut.scroll_into_view_if_needed()
    assert cut.is_visible() and "k = 2" in cut.inner_text()
    below = page.locator('[data-testid="stDataFrame"]').nth(1)  # the candidates below the cut
    assert below.is_visible()
    assert "below the top 2" in verdict(page).first.inner_text()


@pytest.mark.parametrize("page", SIZES[:1], indirect=True, ids=["1280x800"])  # the tightest
def test_presentation_mode_fits_the_question_the_verdict_and_the_best_hit(page: Any) -> None:
    page.get_by_role("button", name="Present").click()
    wait_idle(page)
    page.wait_for_timeout(1500)
    assert not page.locator('[data-testid="stSidebar"]').is_visible()
    assert on_first_screen(page, page.locator(".ce-question"))
    assert on_first_screen(page, verdict(page).first)
    hit = page.locator(".ce-doc .ce-badge.ce-selected", has_text="#1").first
    box = hit.bounding_box()
    assert box is not None and box["y"] + box["height"] <= page.viewport_size["height"]
    assert "splitter=" not in page.locator('[data-testid="stMain"]').inner_text()
    shot(page, "author-2-present-failing")
    page.get_by_role("button", name="Repair 1: Split by sentence").click()
    wait_idle(page)
    assert page.get_by_text("Why it works now:", exact=False).is_visible()
    assert "Why it fails" not in page.locator('[data-testid="stMain"]').inner_text()
    shot(page, "author-3-present-repaired")


def test_my_own_document_opens_recommended_and_finds_a_phrase_from_the_page(page: Any) -> None:
    page.locator('.st-key-upload input[type="file"]').set_input_files(str(CARGO))
    page.wait_for_function(
        "(n) => document.body.innerText.includes(n)",
        arg=f"{CARGO.name} · markdown",
        timeout=120_000,
    )
    wait_idle(page, 120_000)
    splitter = page.get_by_role("combobox", name="Splitter", exact=True)
    assert splitter.input_value() == "structure"  # the recommended configuration
    assert lesson_shown(page) == "— none —"  # the sidebar names no lesson for one's own document
    # a phrase as the page shows it: the inline code `git` without its backticks
    shown = page.locator(".ce-doc").first.inner_text()
    start = shown.index("or other registries, git repositories")
    phrase = shown[start : start + len("or other registries, git repositories")]
    box = page.get_by_label("Question", exact=True)
    box.fill("Where can my crates depend on libraries from?")
    box.press("Enter")
    wait_idle(page, 180_000)
    area = page.get_by_label("Required evidence (one phrase per line)", exact=True)
    area.fill(phrase)
    area.press("Control+Enter")
    wait_idle(page, 180_000)
    text = page.locator('[data-testid="stMain"]').inner_text()
    assert "was not found" not in text
    note = page.get_by_text("was found as the page shows it", exact=False)
    assert note.is_visible()  # it says how the phrase matched
    shot(page, "author-4-own-document")


def test_reset_to_recommended_leaves_the_lesson_and_its_settings(page: Any) -> None:
    page.get_by_role("button", name="Reset to recommended").click()
    wait_idle(page)
    assert lesson_shown(page) == "— none —"
    assert page.get_by_role("combobox", name="Splitter", exact=True).input_value() == "structure"
    assert page.get_by_text("Lesson: ", exact=False).count() == 0
