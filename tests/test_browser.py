"""The running app in a real browser: the system Chromium, driven by Playwright's sync API.

Each test looks at what a person sees: the chunk badges in the rendered document, the tinted
rectangles on the PDF page image, and that hostile Markdown stays inert. Screenshots go to
``artifacts/`` (git-ignored). Without /usr/bin/chromium the tests are skipped, except under
``CI=true``, where they fail.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import Any

import pytest

from explorer.config import Config
from explorer.documents.load import load_document, load_path
from explorer.workspace import Workspace
from tests.browser_util import (
    ARTIFACTS,
    choose,
    require_chromium,
    screenshot,
    set_number,
    wait_for_app,
    wait_idle,
)
from tests.conftest import SAMPLES
from ui.highlights import EVIDENCE_MISSED
from ui.lessons import OPENING
from ui.settings import SIZE_RANGES

assert OPENING is not None, "the app opens on lesson 1"
START = OPENING.failing
"""Lesson 1's failing setting (configuration, k, budget): the one the app opens on."""

pytestmark = pytest.mark.browser

require_chromium()


@pytest.fixture
def page(chromium: Any, app_url: str) -> Iterator[Any]:
    context = chromium.new_context(viewport={"width": 1500, "height": 1000})
    p = context.new_page()
    p.goto(app_url)
    wait_for_app(p)
    yield p
    context.close()


def badge_count(page: Any) -> int:
    return int(page.locator(".ce-doc .ce-badge").count())


def show_chunks(page: Any) -> None:
    """Switch the document view from the question's hits (the opening view) to all chunks."""
    views = page.locator('[data-testid="stRadio"]').filter(has_text="Show on the document")
    views.get_by_text("Chunks", exact=True).click()
    wait_idle(page)


def rank_badges(page: Any) -> list[str]:
    return [t.strip() for t in page.locator(".ce-doc .ce-badge").all_inner_texts()]


def verdict_text(page: Any) -> str:
    alert = page.locator('[data-testid="stAlert"]').filter(has_text="every evidence phrase")
    alert = alert.or_(page.locator('[data-testid="stAlert"]').filter(has_text="Incomplete:"))
    return str(alert.first.inner_text()).strip()


def metric_value(page: Any, label: str) -> str:
    """A metric of the chunking overview (opened first: it is folded away under the document)."""
    overview = page.locator('[data-testid="stExpander"]').filter(has_text="Chunking: ").first
    if not overview.locator('[data-testid="stMetric"]').first.is_visible():
        overview.locator("summary").first.click()
        page.wait_for_timeout(300)
    m = page.locator('[data-testid="stMetric"]').filter(has_text=label).first
    return str(m.locator('[data-testid="stMetricValue"]').inner_text()).strip()


def test_moving_the_size_slider_changes_the_highlights(page: Any) -> None:
    show_chunks(page)
    before = badge_count(page)
    assert before == int(metric_value(page, "Chunks")) > 1
    screenshot(page, "browser-1-markdown.png")

    thumb = page.locator('[data-testid="stSlider"]').filter(has_text="Chunk size")
    thumb = thumb.get_by_role("slider")
    thumb.focus()
    thumb.press("Home")  # the smallest size: many more chunks
    wait_idle(page)
    after = badge_count(page)
    low = SIZE_RANGES[START.config.chunking.unit].low
    assert page.get_by_label("Exact size", exact=True).input_value() == str(low)
    assert after == int(metric_value(page, "Chunks")) > before
    screenshot(page, "browser-2-size-smallest.png")

    set_number(page, "Exact size", 512)  # the number box moves the slider back up
    assert badge_count(page) < after
    slider = page.locator('[data-testid="stSlider"]').filter(has_text="Chunk size")
    assert slider.locator('[data-testid="stSliderThumbValue"]').inner_text() == "512"


def test_selecting_a_chunk_outlines_it(page: Any) -> None:
    show_chunks(page)
    choose(page, "Selected chunk", "#2 ")
    assert page.locator(".ce-doc .ce-badge.ce-selected").get_attribute("data-index") == "2"
    assert page.locator(".ce-doc .ce-hl.ce-selected").count() > 0
    assert page.get_by_text("Chunk #2", exact=True).is_visible()
    screenshot(page, "browser-3-selected.png")


def test_a_chunk_far_down_is_scrolled_into_view(page: Any) -> None:
    choose(page, "Document", "writing-guide.md")  # on the recommended configuration
    last = len(Workspace().chunks(load_path(SAMPLES / "writing-guide.md"), Config())) - 1
    choose(page, "Selected chunk", f"#{last} ")
    page.wait_for_timeout(800)
    badge = page.locator(f'.ce-doc .ce-badge.ce-selected[data-index="{last}"]')
    view = page.locator('[class*="st-key-doc_view"]').first
    b, v = badge.bounding_box(), view.bounding_box()
    assert v["y"] <= b["y"] <= v["y"] + v["height"] - b["height"]
    screenshot(page, "browser-3b-scrolled.png")


def test_switching_documents_with_a_chunk_selected(page: Any) -> None:
    # a picker keeps its typed label in the browser; after a switch it must not come back as
    # a selection, nor crash the app (it once did, on the next click)
    choose(page, "Document", "writing-guide.md")
    choose(page, "Selected chunk", "#20 ")
    choose(page, "Document", "field-manual.pdf")
    page.locator('[data-testid="stImage"] img').first.wait_for(timeout=60_000)
    page.get_by_role("button", name="▶", exact=True).click()
    wait_idle(page)
    assert page.locator('[data-testid="stException"]').count() == 0
    assert page.get_by_label("Page", exact=True).input_value() == "2"
    assert page.get_by_text("Pick a chunk here or in the table", exact=False).is_visible()


def test_clicking_a_table_row_selects_its_chunk(page: Any) -> None:
    show_chunks(page)
    grid = page.locator('.st-key-table [data-testid="stDataFrame"]')
    grid.scroll_into_view_if_needed()
    box = grid.bounding_box()
    # the row-selection column is at the left; rows are 35 px below a 35 px header
    page.mouse.click(box["x"] + 15, box["y"] + 35 + 35 * 3 + 17)
    wait_idle(page)
    assert page.get_by_text("Chunk #3", exact=True).is_visible()
    assert page.locator(".ce-doc .ce-badge.ce-selected").get_attribute("data-index") == "3"


def _saturated_share(png: bytes) -> float:
    """The share of clearly coloured pixels (tints), as opposed to white paper and black ink."""
    import numpy as np
    from PIL import Image

    rgb = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"), dtype=np.int16)
    spread = rgb.max(axis=2) - rgb.min(axis=2)
    return float((spread > 40).mean())


def test_the_pdf_page_shows_highlight_rectangles(page: Any) -> None:
    import pymupdf

    choose(page, "Document", "field-manual.pdf")
    img = page.locator('[data-testid="stImage"] img').first
    img.wait_for(timeout=60_000)
    wait_idle(page)
    src = img.get_attribute("src")
    shown = page.request.get(src).body()
    with pymupdf.open(SAMPLES / "field-manual.pdf") as pdf:
        plain = pdf[0].get_pixmap(matrix=pymupdf.Matrix(2, 2)).tobytes("png")
    # the page as drawn by PyMuPDF has a blue title and little else in colour; the app's
    # page carries a translucent tint over every line of text
    assert _saturated_share(shown) > _saturated_share(plain) + 0.15
    screenshot(page, "browser-4-pdf.png")

    page.get_by_role("button", name="▶", exact=True).click()
    wait_idle(page)
    assert page.get_by_label("Page", exact=True).input_value() == "2"
    assert img.get_attribute("src") != src
    screenshot(page, "browser-5-pdf-page-2.png")


HOSTILE = """# Hostile document

<script>alert(1)</script>

<img src=x onerror=alert(1)>

<svg onload=alert(1)>

A link: [x](javascript:alert(1)), and <a href="javascript:alert(2)">another</a>.

<iframe src="javascript:alert(3)"></iframe>
"""


def test_hostile_markdown_stays_inert(page: Any) -> None:
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    path = ARTIFACTS / "hostile.md"
    ARTIFACTS.mkdir(exist_ok=True)
    path.write_text(HOSTILE, encoding="utf-8")
    page.locator('.st-key-upload input[type="file"]').set_input_files(str(path))
    page.wait_for_function(
        """() => [...document.querySelectorAll('.ce-doc')].some(
            d => d.textContent.includes('Hostile document'))""",
        timeout=60_000,
    )
    wait_idle(page)
    page.wait_for_timeout(1000)  # time for anything that would fire
    screenshot(page, "browser-6-hostile.png")

    assert dialogs == []
    doc_text = page.locator(".ce-doc").first.inner_text()
    assert "<script>alert(1)</script>" in doc_text  # shown as text
    on_attrs = page.evaluate(
        """() => [...document.querySelectorAll('.ce-doc, .ce-doc *')].flatMap(
            el => [...el.attributes].filter(a => a.name.toLowerCase().startsWith('on'))
                .map(a => el.tagName + ' ' + a.name))"""
    )
    assert on_attrs == []
    assert page.locator(".ce-doc script, .ce-doc img, .ce-doc svg, .ce-doc iframe").count() == 0
    js_links = page.evaluate(
        """() => [...document.querySelectorAll('[href], [src]')]
            .map(el => el.getAttribute('href') || el.getAttribute('src'))
            .filter(v => v.replace(/[\\s\\x00-\\x1f]/g, '').toLowerCase()
                .startsWith('javascript:'))"""
    )
    assert js_links == []


def test_a_question_shows_rank_badges_and_the_verdict(page: Any) -> None:
    box = page.get_by_label("Question", exact=True)
    assert box.input_value() == OPENING.question  # the refund demo opens asked
    box.fill("")
    box.press("Enter")
    wait_idle(page)
    assert not [b for b in rank_badges(page) if b.startswith("#")]  # no question, no hits
    assert page.locator('[data-testid="stAlert"]').filter(has_text="Incomplete:").count() == 0

    box.fill(OPENING.question)
    box.press("Enter")
    wait_idle(page)
    page.locator(".ce-doc .ce-badge", has_text="#1").wait_for(timeout=60_000)
    assert sorted(b for b in rank_badges(page) if b.startswith("#")) == ["#1", "#2"]
    verdict = verdict_text(page)
    assert verdict.startswith("Incomplete: 'does not apply to downloaded materials' is in chunk")
    # the missed phrase is underlined in red on the page, the retrieved one in green
    red = page.locator(".ce-doc .ce-underline").filter(has_text="downloaded")
    assert red.count() > 0
    assert EVIDENCE_MISSED[1:] in (red.first.get_attribute("style") or "").lower()
    page.get_by_text("Top 2 of", exact=False).scroll_into_view_if_needed()
    screenshot(page, "browser-7-query-incomplete.png")

    choose(page, "Splitter", "sentence")  # the one move that repairs it
    page.locator('[data-testid="stAlert"]').filter(has_text="Complete:").wait_for(timeout=60_000)
    assert verdict_text(page) == "Complete: every evidence phrase is inside the retrieved text"
    assert sorted(b for b in rank_badges(page) if b.startswith("#")) == ["#1", "#2"]
    screenshot(page, "browser-8-query-repaired.png")


def shown_text(page: Any) -> str:
    """The rendered document's text without its badges."""
    return str(
        page.locator(".ce-doc").first.evaluate(
            """(d) => { const c = d.cloneNode(true);
                c.querySelectorAll('.ce-badge, style').forEach(b => b.remove());
                return c.textContent; }"""
        )
    )


def test_a_long_document_is_drawn_a_window_at_a_time(page: Any) -> None:
    text = "# A long document\n\n" + "".join(
        f"Paragraph {i} talks about item {i} and then stops.\n\n" for i in range(8000)
    )
    path = ARTIFACTS / "long.md"
    ARTIFACTS.mkdir(exist_ok=True)
    path.write_text(text, encoding="utf-8")
    page.locator('.st-key-upload input[type="file"]').set_input_files(str(path))
    note = page.get_by_text("A long document: showing characters 0–", exact=False)
    note.wait_for(timeout=60_000)
    wait_idle(page)
    assert "Paragraph 10 talks" in shown_text(page)
    assert "Paragraph 7000 talks" not in shown_text(page)
    # the chunk where paragraph 6995 starts, on the recommended configuration an upload opens on
    chunks = Workspace().chunks(load_document(text.encode(), name="long.md"), Config())
    at = text.index("Paragraph 6995 talks")
    far = next(c.index for c in chunks if c.start <= at < c.end)
    choose(page, "Selected chunk", f"#{far} ")
    page.wait_for_timeout(800)
    badge = page.locator(f'.ce-doc .ce-badge.ce-selected[data-index="{far}"]')
    view = page.locator('[class*="st-key-doc_view"]').first
    b, v = badge.bounding_box(), view.bounding_box()
    assert v["y"] <= b["y"] <= v["y"] + v["height"] - b["height"]  # scrolled into view
    assert "showing characters 0–" not in page.locator('[data-testid="stMain"]').inner_text()
    assert "Paragraph 10 talks" not in shown_text(page)
    assert "Paragraph 6995 talks" in shown_text(page)
    screenshot(page, "browser-9-long-window.png")


@pytest.mark.parametrize("name", ["table-1000-cols", "line-1mb"])
def test_a_wide_document_scrolls_inside_its_own_box(page: Any, name: str) -> None:
    from tests.bad_inputs import by_name, make

    item = by_name(name)
    box = page.locator('.st-key-upload input[type="file"]')
    box.set_input_files({"name": item.filename, "mimeType": "text/markdown", "buffer": make(item)})
    page.wait_for_function(
        "(n) => document.body.innerText.includes(n)",
        arg=f"{item.filename} · markdown",
        timeout=120_000,
    )
    wait_idle(page, 120_000)
    page.locator(".ce-doc").first.wait_for(timeout=60_000)
    sizes = page.evaluate(
        """() => {
            const doc = document.querySelector('.ce-doc');
            const view = document.querySelector('[class*="st-key-doc_view"]');
            const main = document.querySelector('[data-testid="stMain"]');
            return {doc: doc.getBoundingClientRect().width,
                    view: view.getBoundingClientRect().width,
                    mainScroll: main.scrollWidth, mainWidth: main.clientWidth};
        }"""
    )
    assert sizes["doc"] <= sizes["view"] + 1  # the page does not grow sideways
    assert sizes["mainScroll"] <= sizes["mainWidth"] + 1
    screenshot(page, f"browser-10-{name}.png")


def test_a_link_reopens_its_view_in_a_new_browser(chromium: Any, app_url: str) -> None:
    from urllib.parse import urlencode

    from explorer.config import Config

    config = Config().replace(splitter="sentence", unit="words", size=40, overlap=0)
    params = {
        "doc": "writing-guide.md",
        "config": config.to_spec(),
        "k": "3",
        "q": "Which strategy keeps tables whole?",
        "e": "Keeps tables whole",
        "chunk": "4",
        "view": "chunks",
    }
    context = chromium.new_context(viewport={"width": 1500, "height": 1000})
    page = context.new_page()
    page.goto(f"{app_url}/?{urlencode(params)}")
    wait_for_app(page, 120_000)
    assert page.get_by_label("Question", exact=True).input_value() == params["q"]
    assert page.get_by_text("Chunk #4", exact=True).is_visible()
    assert page.locator(".ce-doc .ce-badge.ce-selected").get_attribute("data-index") == "4"
    # the address bar holds the view's link, and Copy link shows the same
    assert "doc=writing-guide.md" in page.url and "chunk=4" in page.url
    page.get_by_role("button", name="Link").click()
    page.wait_for_timeout(500)
    shown = page.locator('[data-testid="stPopoverBody"] code').inner_text()
    assert "doc=writing-guide.md" in shown and "chunk=4" in shown
    screenshot(page, "link-reopened.png")
    context.close()
