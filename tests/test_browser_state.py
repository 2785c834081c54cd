"""Every page's state across page switches after a fragment rerun, in Chromium.

The document panel is a fragment: picking a chunk, turning a PDF page or choosing what the document
shows reruns it alone, not the entry file that keeps each page's widget values while another page
is shown (:func:`ui.frame.keep`). Its values were then dropped on the next page switch: back on
the Explore page, the document, the question, k and the picked chunk were the opening lesson's.
``tests/test_fragment_state.py`` makes AppTest run the fragment alone; here it is seen as a
person sees it. Screenshots (1280x800) go to ``artifacts/``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.browser_util import (
    choose,
    nudge,
    require_chromium,
    screenshot,
    set_number,
    wait_for_app,
    wait_idle,
)

pytestmark = pytest.mark.browser

require_chromium()

QUESTION = "How should headings be written?"
SHOWN = """() => {
  const app = document.querySelector('[data-testid="stApp"]');
  const label = e => (e.getAttribute('aria-label') || '').trim();
  const out = {};
  for (const e of app.querySelectorAll('input[role=combobox]')) out[label(e)] = e.value;
  const boxes = 'input[type=text]:not([role]), input[type=number], textarea';
  for (const e of app.querySelectorAll(boxes)) out[label(e)] = e.value;
  for (const e of app.querySelectorAll('[role=slider]'))
    out[label(e)] = e.getAttribute('aria-valuenow');
  for (const g of app.querySelectorAll('[data-testid=stRadio]')) {
    const on = g.querySelector('input:checked');
    out[g.querySelector('[data-testid=stWidgetLabel]').innerText.trim()] =
      on ? on.closest('label').innerText.trim() : null;
  }
  for (const e of app.querySelectorAll('[role=tab][aria-selected=true]'))
    out['tab'] = e.innerText.trim();
  return out;
}"""
"""Every control's value as the page shows it, by its label."""


@pytest.fixture
def page(chromium: Any, app_url: str) -> Iterator[Any]:
    context = chromium.new_context(viewport={"width": 1280, "height": 800})
    p = context.new_page()
    p.goto(app_url)
    wait_for_app(p, 300_000)  # a loaded machine takes minutes over the first run
    yield p
    context.close()


def shown(page: Any) -> dict[str, str | None]:
    values: dict[str, str | None] = page.evaluate(SHOWN)
    return values


def go(page: Any, name: str) -> None:
    page.get_by_role("link", name=name).click()
    wait_idle(page, 180_000)
    if name == "Explore a document":
        page.wait_for_selector(".st-key-ce_title", timeout=180_000)
        wait_idle(page, 180_000)


def set_up(page: Any, document: str) -> None:
    """A view of the visitor's own: another document, chunk size, question and k."""
    choose(page, "Document", document)
    if document.endswith(".pdf"):
        page.locator('[data-testid="stImage"] img').first.wait_for(timeout=120_000)
    set_number(page, "Exact size", 300)
    box = page.get_by_label("Question", exact=True)
    box.fill(QUESTION)
    box.press("Enter")
    wait_idle(page, 180_000)
    nudge(page, "Top k")


def pick_a_chunk(page: Any) -> None:
    choose(page, "Selected chunk", "#3 ")


def turn_the_page(page: Any) -> None:
    page.get_by_role("button", name="▶", exact=True).click()
    wait_idle(page, 180_000)


def show_chunks(page: Any) -> None:
    views = page.locator('[data-testid="stRadio"]').filter(has_text="Show on the document")
    views.get_by_text("Chunks", exact=True).click()
    wait_idle(page, 180_000)


@pytest.mark.parametrize(
    ("document", "fragment_rerun", "other"),
    [
        ("writing-guide.md", pick_a_chunk, "Ask a corpus"),
        ("writing-guide.md", show_chunks, "Evaluate settings"),
        ("field-manual.pdf", turn_the_page, "Ask a corpus"),
    ],
    ids=["chunk-pick", "view", "pdf-page-turn"],
)
def test_the_explore_page_keeps_its_view_after_a_fragment_rerun_and_a_page_switch(
    page: Any, document: str, fragment_rerun: Any, other: str
) -> None:
    set_up(page, document)
    fragment_rerun(page)
    before = shown(page)
    assert before["Document"] == document and before["Question"] == QUESTION
    name = fragment_rerun.__name__
    screenshot(page, f"state-{name}-1-before.png")
    go(page, other)
    go(page, "Explore a document")
    screenshot(page, f"state-{name}-2-back.png")
    assert shown(page) == before
    assert page.locator('[data-testid="stException"]').count() == 0


def test_the_other_pages_keep_their_state_after_an_explore_fragment_rerun(page: Any) -> None:
    go(page, "Ask a corpus")
    box = page.get_by_label("Question", exact=True)
    box.fill("What is a chunk?")
    box.press("Enter")
    wait_idle(page, 180_000)
    corpus = shown(page)
    go(page, "Evaluate settings")
    page.get_by_role("tab", name="Sweep").click()
    wait_idle(page, 180_000)
    evaluate = shown(page)
    assert evaluate["tab"] == "Sweep"
    go(page, "Explore a document")
    pick_a_chunk(page)
    go(page, "Ask a corpus")
    assert shown(page) == corpus
    go(page, "Explore a document")
    pick_a_chunk(page)  # another fragment rerun before the next page
    go(page, "Evaluate settings")
    assert shown(page) == evaluate
