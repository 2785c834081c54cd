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
    require_chromium,
    wait_for_app,
    wait_idle,
)

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
