"""What the app does for one session that every other session waits for (issue 38 item 9): work
two sessions share is done once, and no page is drawn ahead that nobody turns to.

The figures themselves come from ``benchmarks/bench_load.py`` (Chromium sessions against one
server); these tests count the work, never time it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

import explorer.workspace
from tests.conftest import REPO
from ui import document_view, render_pdf

APP = str(REPO / "app.py")
PDF = "field-manual.pdf"


def open_pdf() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    at.selectbox(key="source").set_value(PDF).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def drawn_so_far() -> None:
    """Wait for the pages the drawing-ahead thread was given (it takes them in order)."""
    _, drawer = document_view._page_images()
    drawer.submit(lambda: None).result(timeout=120)


@pytest.fixture
def pages_drawn(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """The page numbers drawn from now on (on the session's thread or ahead of it)."""
    drawn: list[int] = []
    draw = render_pdf.render_pdf_page

    def counting(pdf: bytes, page: int, *args: Any, **kwargs: Any) -> render_pdf.PageImage:
        drawn.append(page)
        return draw(pdf, page, *args, **kwargs)

    monkeypatch.setattr(render_pdf, "render_pdf_page", counting)
    yield drawn


def test_a_new_size_draws_the_page_shown_and_only_the_next_ahead(pages_drawn: list[int]) -> None:
    at = open_pdf()
    at.button(key="next_page").click().run()  # on page 2: both neighbours would be 1 and 3
    drawn_so_far()
    pages_drawn.clear()
    at.number_input(key="size_exact").set_value(337).run()  # a size no other test shows
    drawn_so_far()
    assert not at.exception
    assert sorted(pages_drawn) == [2, 3]  # page 1 waits until it is turned back to


def test_turning_pages_draws_the_next_ones_ahead(pages_drawn: list[int]) -> None:
    at = open_pdf()
    at.number_input(key="size_exact").set_value(341).run()
    drawn_so_far()
    pages_drawn.clear()
    at.button(key="next_page").click().run()  # page 2 was drawn ahead; now 3 ahead (1 is drawn)
    drawn_so_far()
    assert pages_drawn == [3]
    pages_drawn.clear()
    at.button(key="next_page").click().run()  # page 3 was ready: only 4 is drawn, ahead
    drawn_so_far()
    assert pages_drawn == [4]
    assert at.number_input(key="page").value == 3


def test_a_second_session_on_the_same_document_chunks_nothing_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Chunkings are the process's (the shared workspace's caches, keyed by the document's
    content and the settings), not a session's: one session's new size is another's to reuse."""
    splits: list[int] = []
    split = explorer.workspace.split

    def counting(doc: Any, settings: Any, **kwargs: Any) -> Any:
        splits.append(settings.size)
        return split(doc, settings, **kwargs)

    monkeypatch.setattr(explorer.workspace, "split", counting)
    first, second = open_pdf(), open_pdf()
    first.number_input(key="size_exact").set_value(347).run()
    assert splits.count(347) == 1
    second.number_input(key="size_exact").set_value(347).run()
    assert not first.exception and not second.exception
    assert splits.count(347) == 1  # the second session's change reused the first's chunks
