"""What-if edits in a real browser at 1280x800: on the refund lesson at its failing setting, a
link selecting the rule's chunk opens its details; "Merge with next" turns the verdict
complete, names the chunking "… + 1 edit" and writes the edit, with the anchor of its text and
the document's version, into the address bar; "Undo" brings the miss back. A link made on one
version of an uploaded file, opened on another, says so and keeps only the edit whose text still
stands. Screenshots go to ``artifacts/``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlparse

import pytest

from explorer.chunking.edits import decode_edits, encode_edits
from explorer.config import Config
from tests.browser_util import (
    ARTIFACTS,
    require_chromium,
    wait_for_app,
    wait_idle,
)
from tests.test_edits import RULE_CHUNK, refund_versions, scenario_link

pytestmark = pytest.mark.browser

require_chromium()


@pytest.fixture
def page(chromium: Any, app_url: str) -> Iterator[Any]:
    context = chromium.new_context(viewport={"width": 1280, "height": 800})
    p = context.new_page()
    p.goto(f"{app_url}?lesson=1-rule-and-exception&chunk={RULE_CHUNK}")
    wait_for_app(p)
    yield p
    context.close()


def alert(page: Any, text: str) -> Any:
    return page.locator('[data-testid="stAlert"]').filter(has_text=text)


def test_merge_with_next_completes_the_verdict_and_undo_brings_the_miss_back(page: Any) -> None:
    assert alert(page, "Incomplete:").count() == 1
    assert page.get_by_text("Suggested repair:").count() == 1
    merge = page.get_by_role("button", name="Merge with next")
    merge.scroll_into_view_if_needed()
    merge.click()
    wait_idle(page)
    done = alert(page, "every evidence phrase is inside the retrieved text")
    done.first.wait_for(timeout=60_000)
    assert alert(page, "Incomplete:").count() == 0
    bar = page.locator('[class*="st-key-edits_bar"]')
    assert "+ 1 edit" in bar.inner_text() and "merge chunk 3 with the next" in bar.inner_text()
    query = parse_qs(urlparse(page.url).query)
    assert encode_edits(decode_edits(query["edits"][0])) == "m3" and "~" in query["edits"][0]
    assert len(query["version"][0]) == 12
    page.locator('[class*="st-key-ce_title"]').scroll_into_view_if_needed()
    page.wait_for_timeout(800)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=ARTIFACTS / "edits-after-merge-1280.png")
    bar.get_by_role("button", name="Undo").click()
    wait_idle(page)
    alert(page, "Incomplete:").first.wait_for(timeout=60_000)
    assert page.locator('[class*="st-key-edits_bar"]').count() == 0
    assert "edits" not in parse_qs(urlparse(page.url).query)


def test_a_link_made_on_another_version_says_so_and_moves_the_split_with_its_text(
    chromium: Any, app_url: str, tmp_path: Path
) -> None:
    a, b, written, edits = scenario_link(Config().chunking)
    link = {"doc": "refunds.md", "upload": "1", "config": "retriever=bm25", "edits": written,
            "version": a.version}  # fmt: skip
    file = tmp_path / "refunds.md"
    file.write_bytes(refund_versions()[1])  # the version with 42 characters more near the top
    context = chromium.new_context(viewport={"width": 1280, "height": 800})
    p = context.new_page()
    p.goto(f"{app_url}?{urlencode(link)}")
    wait_for_app(p)
    p.locator('[class*="st-key-upload"] input[type="file"]').set_input_files(str(file))
    note = alert(p, "This link was made on another version of refunds.md")
    note.first.wait_for(timeout=60_000)
    wait_idle(p)
    text = note.first.inner_text()
    assert "1 of 2 edits still applies where its text stands" in text
    assert "1 was left out (drop chunk 0: the chunk it dropped is not in this version)" in text
    bar = p.locator('[class*="st-key-edits_bar"]')
    assert f"split at {edits[0].at + 42}" in bar.inner_text()
    assert parse_qs(urlparse(p.url).query)["version"] == [b.version]
    ARTIFACTS.mkdir(exist_ok=True)
    p.screenshot(path=ARTIFACTS / "edits-other-version-1280.png")
    context.close()
