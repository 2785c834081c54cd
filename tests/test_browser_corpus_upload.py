"""Uploading several files to the Corpus page in Chromium: three files, one of them not a
document; the two others join the corpus, the third is listed with its reason, and a question
finds its answer in an uploaded file."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser_util import (
    ARTIFACTS,
    cut_metrics,
    require_chromium,
    screenshot,
    wait_for_app,
    wait_idle,
)
from ui.sources import sample_paths

pytestmark = pytest.mark.browser

require_chromium()


@pytest.fixture(params=[(1280, 800), (1500, 1000)], ids=["1280", "1500"])
def page(request: Any, chromium: Any, app_url: str) -> Iterator[Any]:
    width, height = request.param
    context = chromium.new_context(viewport={"width": width, "height": height})
    p = context.new_page()
    p.width = width  # type: ignore[attr-defined]
    p.goto(app_url)
    wait_for_app(p)
    yield p
    context.close()


def test_three_files_uploaded_one_bad_and_a_question_over_them(page: Any, tmp_path: Path) -> None:
    files = {
        "warranty.md": "# Warranty\n\nThe warranty on a bicycle frame lasts twelve years from "
        "delivery.\n\nWheels are covered for two years.\n",
        "returns.txt": "Returns are accepted within thirty days when the receipt is kept.\n",
        "photo.md": None,
    }
    paths = []
    for name, text in files.items():
        path = tmp_path / name
        if text is None:
            path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(300))
        else:
            path.write_text(text)
        paths.append(str(path))
    page.get_by_role("link", name="Ask a corpus").click()
    wait_idle(page, 120_000)
    page.locator('.st-key-cp_upload input[type="file"]').set_input_files(paths)
    page.wait_for_function(
        "() => document.body.innerText.includes('1 file left out')", timeout=180_000
    )
    wait_idle(page, 300_000)
    body = page.inner_text("body")
    assert "photo.md:" in body and "NUL" in body, body[:2000]
    question = page.get_by_label("Question", exact=True)
    question.fill("How long is the warranty on a bicycle frame?")
    question.press("Enter")
    evidence = page.get_by_label("Required evidence (one phrase per line)")
    evidence.fill("twelve years")
    evidence.press("Control+Enter")
    page.wait_for_function(
        "() => document.body.innerText.includes('warranty.md ·')", timeout=300_000
    )
    wait_idle(page, 300_000)
    body = page.inner_text("body")
    assert "warranty.md · 1 hit" in body or "warranty.md · 2 hits" in body, body[:3000]
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=ARTIFACTS / f"corpus-upload-{page.width}.png")
    page.get_by_text("warranty.md ·").first.scroll_into_view_if_needed()
    page.screenshot(path=ARTIFACTS / f"corpus-upload-answer-{page.width}.png")


SITE = Path(__file__).parent / "data" / "markdownlint-site"
SITE_QUERIES = Path(__file__).parent / "data" / "markdownlint-questions.json"


def test_a_site_uploaded_as_a_folder_is_evaluated_in_corpus_scope_and_a_b_d(
    chromium: Any, app_url: str
) -> None:
    """Done when (issue 37): a folder of pages uploaded on the Corpus page, a query set about
    them evaluated in corpus scope, and a preset A/B'd against the recommended configuration,
    all from the browser."""
    context = chromium.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    try:
        page.goto(app_url + "/corpus?config=retriever%3Dbm25")
        page.wait_for_selector('[data-testid="stApp"]', timeout=60_000)
        wait_idle(page, 120_000)
        page.locator('.st-key-cp_upload_dir input[type="file"]').set_input_files(str(SITE))
        page.wait_for_function(
            "() => document.body.innerText.includes('doc/md030.md')", timeout=180_000
        )
        wait_idle(page, 180_000)
        body = page.inner_text("body")
        assert "LICENSE" in body  # the folder's one other file, listed with its reason
        page.get_by_role("link", name="Evaluate settings").click()
        wait_idle(page, 120_000)
        page.get_by_role("tab", name="Query set").click()
        wait_idle(page)
        page.locator('.st-key-qs_upload input[type="file"]').set_input_files(str(SITE_QUERIES))
        page.wait_for_function(
            "() => document.body.innerText.includes('Loaded 23 questions')", timeout=60_000
        )
        wait_idle(page)
        body = page.inner_text("body")
        every = 24 + len(sample_paths())  # the site's pages beside the samples chosen at start
        assert f"23 of 23 questions will run, in corpus scope, over {every} documents" in body
        page.get_by_role("tab", name="Run").click()
        wait_idle(page)
        page.get_by_role("button", name="Run 23 questions in corpus scope").click()
        page.wait_for_function(
            "() => document.body.innerText.includes('What the corpus costs')", timeout=180_000
        )
        wait_idle(page, 180_000)
        body = page.inner_text("body")
        assert "Coverage@5 (corpus scope)" in body and "Coverage@5 (document scope)" in body
        assert cut_metrics(page) == (4, [])  # every label and value reads whole
        screenshot(page, "evaluate-corpus-run-1280.png")
        page.set_viewport_size({"width": 1500, "height": 1000})
        assert cut_metrics(page) == (4, [])
        screenshot(page, "evaluate-corpus-run-1500.png")
        page.get_by_role("tab", name="A/B").click()
        wait_idle(page)
        box = page.locator(".st-key-ab_box_A")
        box.get_by_role("combobox", name="Start from a published baseline").click()
        page.get_by_role("option", name="LangChain recursive, 1000/200 characters").click()
        wait_idle(page)
        page.get_by_role("button", name="Run A and B on 23 questions").click()
        page.wait_for_function(
            "() => document.body.innerText.includes('Coverage@5 with B (corpus scope)')",
            timeout=600_000,
        )
        wait_idle(page, 600_000)
        body = page.inner_text("body")
        assert f"every question searches all {every} documents" in body
        assert "Chunks A / B (corpus)" in body
        assert cut_metrics(page) == (4, [])  # "A/B metric labels cut at 1280": whole at both
        screenshot(page, "evaluate-corpus-ab-1500.png")
        page.set_viewport_size({"width": 1280, "height": 800})
        assert cut_metrics(page) == (4, [])
        screenshot(page, "evaluate-corpus-ab-1280.png")
    finally:
        context.close()
