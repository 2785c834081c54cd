"""Every download button of the app, clicked in Chromium: a file arrives, and it holds what the
button promises (the chunks as JSONL, the manifest, the query set), parsed and checked field by
field. Each is clicked after the runs a person makes before downloading (a chunk picked in the
document fragment, another page visited and left), since a deferred download's data function
runs outside the script's run."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from explorer.config import Config
from explorer.documents.load import load_path
from explorer.workspace import Workspace
from tests.browser_util import REPO, choose, require_chromium, wait_for_app, wait_idle
from tests.conftest import SAMPLES

pytestmark = pytest.mark.browser

require_chromium()

BUTTONS = {
    "Download chunks (JSONL)",
    "Download manifest (JSON)",
    "Download the query set (JSON)",
}
"""Every ``download_button`` label in the app (checked against the source below)."""


@pytest.fixture
def page(chromium: Any, app_url: str) -> Iterator[Any]:
    context = chromium.new_context(viewport={"width": 1500, "height": 1000}, accept_downloads=True)
    p = context.new_page()
    p.goto(app_url)
    wait_for_app(p)
    yield p
    context.close()


def download(page: Any, label: str) -> tuple[str, str]:
    """Click the button ``label``; the file's suggested name and its text."""
    button = page.get_by_role("button", name=label, exact=True)
    button.scroll_into_view_if_needed()
    with page.expect_download(timeout=30_000) as arrived:
        button.click()
    got = arrived.value
    assert got.failure() is None, got.failure()
    return got.suggested_filename, Path(got.path()).read_text(encoding="utf-8")


def test_the_list_of_buttons_is_every_download_button_in_the_app() -> None:
    labels = set()
    for path in [REPO / "app.py", *REPO.glob("app_pages/*.py"), *REPO.glob("ui/**/*.py")]:
        source = path.read_text(encoding="utf-8")
        for m in re.finditer(r"download_button\(\s*\"([^\"]+)\"", source):
            labels.add(m.group(1))
    assert labels == BUTTONS


def test_every_download_button_delivers_the_file_it_names(page: Any) -> None:
    choose(page, "Document", "writing-guide.md")
    # another page visited and left, then a run of the document fragment only (a chunk picked)
    page.get_by_role("link", name="Evaluate settings").click()
    wait_idle(page, 120_000)
    page.get_by_role("link", name="Explore a document").click()
    wait_idle(page, 120_000)
    choose(page, "Selected chunk", "#3 ")
    doc = load_path(SAMPLES / "writing-guide.md")

    name, text = download(page, "Download manifest (JSON)")
    assert name == "writing-guide.manifest.json"
    made = json.loads(text)
    assert made["document"]["name"] == "writing-guide.md"
    assert made["context"]["k"] >= 1
    expected = Workspace().chunks(doc, Config.from_json(made["config"]))
    assert made["chunks"] == len(expected) > 1

    name, text = download(page, "Download chunks (JSONL)")
    assert name == "writing-guide.chunks.jsonl"
    rows = [json.loads(line) for line in text.splitlines() if line.strip()]
    assert [(r["start"], r["end"]) for r in rows] == [(c.start, c.end) for c in expected]
    assert all(r["doc"] == "writing-guide.md" for r in rows)
    assert all(r["doc_sha256"] == made["document"]["sha256"] for r in rows)
    assert all(doc.text[r["start"] : r["end"]] == r["text"] for r in rows)

    page.get_by_role("link", name="Evaluate settings").click()
    wait_idle(page, 120_000)
    page.get_by_role("tab", name="Query set").click()
    wait_idle(page, 120_000)
    name, text = download(page, "Download the query set (JSON)")
    assert name == "query-set.json"
    questions = json.loads(text)
    shown = page.locator('[data-testid="stCaptionContainer"]').filter(has_text="question")
    n = int(re.search(r"(\d+) questions?", shown.first.inner_text()).group(1))  # type: ignore[union-attr]
    assert len(questions) == n > 0
    assert all(q["query"] and q["evidence"] and q["doc"] for q in questions)
