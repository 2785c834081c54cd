"""What-if edits in a real browser at 1280x800: on the refund lesson at its failing setting, a
link selecting the rule's chunk opens its details; "Merge with next" turns the verdict
complete, names the chunking "… + 1 edit" and writes the edit into the address bar; "Undo"
brings the miss back. A screenshot after the merge goes to ``artifacts/``."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest

from tests.browser_util import (
    ARTIFACTS,
    require_chromium,
    wait_for_app,
    wait_idle,
)
from tests.test_edits import RULE_CHUNK

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
    assert parse_qs(urlparse(page.url).query)["edits"] == ["m3"]
    page.locator('[class*="st-key-ce_title"]').scroll_into_view_if_needed()
    page.wait_for_timeout(800)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=ARTIFACTS / "edits-after-merge-1280.png")
    bar.get_by_role("button", name="Undo").click()
    wait_idle(page)
    alert(page, "Incomplete:").first.wait_for(timeout=60_000)
    assert page.locator('[class*="st-key-edits_bar"]').count() == 0
    assert "edits" not in parse_qs(urlparse(page.url).query)
