"""Every bad or extreme input of ``tests/bad_inputs.py``, uploaded into the app through AppTest.

The app must do what the library does, and stay usable: an input the loader refuses shows
exactly one error (the loader's message, quoted as text) and the previous document stays, with
all its chunks; an input that loads becomes the document, with no exception, its text drawn
within the rendering limits (a window of a long document, one PDF page at a time). Either way a
control still works afterwards, and switching back to a sample works.
"""

from __future__ import annotations

import re

import pytest
from streamlit.testing.v1 import AppTest

from explorer.documents.load import load_document
from explorer.documents.model import Document
from explorer.errors import DocumentError
from tests.bad_inputs import BadInput, bad_inputs, make
from tests.test_app import CHUNK_VIEW, FIRST, errors, n_chunks, open_app, upload
from ui import render
from ui.safe import md_text

TIMEOUT = 240
HTML_LIMIT = 3 * render.WINDOW_CHARS * 10
"""Generous bound on one drawn window's HTML: spans, badges and escapes cost about ten bytes per
character at most (a 1,000-column table is the worst case)."""


def loaded(item: BadInput, data: bytes) -> Document | DocumentError:
    """What the library makes of the input: the document, or the error it raises."""
    try:
        return load_document(data, name=item.filename)
    except DocumentError as exc:
        return exc


def drawn(at: AppTest) -> str:
    """The drawn document's HTML (without its style block), or "" when a page image is shown."""
    found = [h.value for h in at.html if re.search('class="ce-doc ce-(md|plain)"', h.value)]
    assert len(found) <= 1
    return re.sub(r"<style>.*?</style>", "", found[0], flags=re.S) if found else ""


def window_notes(at: AppTest) -> list[str]:
    return [c.value for c in at.caption if c.value.startswith("A long document")]


def still_usable(at: AppTest, message: list[str]) -> None:
    """A control works, and so does going back to a sample (``message``: the upload's error,
    which stays shown until another document is chosen)."""
    size = at.slider(key="size")
    size.set_value(64 if size.value != 64 else 96).run()
    assert not at.exception, [e.value for e in at.exception]
    assert errors(at) == message
    at.selectbox(key="source").set_value(FIRST).run()
    assert not at.exception
    assert errors(at) == message  # still the sample it was on: nothing was chosen
    at.selectbox(key="source").set_value("writing-guide.md").run()
    assert not at.exception and not errors(at)
    assert n_chunks(at) > 1


@pytest.mark.parametrize("item", bad_inputs(), ids=lambda it: it.name)
def test_each_bad_input_is_one_error_or_a_safe_rendering(item: BadInput) -> None:
    data = make(item)
    outcome = loaded(item, data)
    at = open_app(timeout=TIMEOUT, **CHUNK_VIEW)
    before = n_chunks(at)
    upload(at, item.filename, data)
    assert not at.exception, [e.value for e in at.exception]

    message = [md_text(str(outcome))] if isinstance(outcome, DocumentError) else []
    if isinstance(outcome, DocumentError):
        # one clear message, the loader's own, and nothing lost
        assert [e.value for e in at.error] == message
        assert at.selectbox(key="source").value == FIRST
        assert n_chunks(at) == before
    else:
        doc = outcome
        assert errors(at) == [], errors(at)
        assert at.selectbox(key="source").value == item.filename
        assert n_chunks(at) >= 1
        for warning in doc.warnings:  # what the loader assumed is said
            assert md_text(warning) in [i.value for i in at.info]
        html = drawn(at)
        if doc.kind == "pdf":  # one page image at a time, whatever the page count
            assert len(at.image) == 1 and html == ""
            assert at.number_input(key="page").max == len(doc.pages)
            at.radio(key="pdf_view").set_value("Extracted text").run()  # a window of the text
            assert not at.exception
            html = drawn(at)
            assert html and len(html) < HTML_LIMIT
            w = render.window(doc.text)
            assert len(window_notes(at)) == (0 if w.whole else 1)
            at.radio(key="pdf_view").set_value("Page image").run()
            captions = " ".join(c.value for c in at.caption)
            assert f"of {len(doc.pages):,} ·" in captions
        else:
            assert html and len(html) < HTML_LIMIT
            w = render.window(doc.text)
            notes = window_notes(at)
            assert len(notes) == (0 if w.whole else 1)
            if notes:  # the window starts at the top and says how much it shows
                assert notes[0].startswith(f"A long document: showing characters 0–{w.end:,} ")
    still_usable(at, message)


def test_a_long_document_window_follows_the_picked_chunk() -> None:
    text = "# Long\n\n" + "".join(
        f"Paragraph {i} is about topic number {i} and nothing else.\n\n" for i in range(6000)
    )
    at = open_app(timeout=TIMEOUT, **CHUNK_VIEW)
    upload(at, "long.md", text.encode())
    assert not at.exception and not errors(at)
    assert "Paragraph 10 " in drawn(at) and "Paragraph 5990 " not in drawn(at)
    picker = next(s for s in at.selectbox if s.label == "Selected chunk")
    last = picker.options[-1]
    picker.set_value(int(last.split(" ")[0].lstrip("#"))).run()
    assert not at.exception
    html = drawn(at)
    assert "Paragraph 5999 " in html and "Paragraph 10 " not in html
    assert 'class="ce-badge ce-selected"' in html
    [note] = [c.value for c in at.caption if c.value.startswith("A long document")]
    assert f"of {len(text):,}" in note and "Pick a chunk" in note


def test_earlier_and_later_step_a_long_document_window() -> None:
    text = "# Long\n\n" + "".join(
        f"Paragraph {i} is about topic number {i} and nothing else.\n\n" for i in range(6000)
    )
    at = open_app(timeout=TIMEOUT, **CHUNK_VIEW)
    upload(at, "long.md", text.encode())
    assert at.button(key="window_earlier").disabled  # at the start: nothing earlier
    shown = []
    for _ in range(3):
        at.button(key="window_later").click().run()
        assert not at.exception
        [note] = window_notes(at)
        shown.append(int(note.split("showing characters ")[1].split("–")[0].replace(",", "")))
    assert shown == sorted(shown) and len(set(shown)) == 3  # each step moves on
    step = shown[2] - shown[1]
    assert render.WINDOW_CHARS // 2 < step < render.WINDOW_CHARS  # about two thirds: overlapping
    at.button(key="window_earlier").click().run()
    [note] = window_notes(at)
    back = int(note.split("showing characters ")[1].split("–")[0].replace(",", ""))
    assert shown[1] - render.WINDOW_CHARS // 4 < back < shown[2]  # back by about one step
    for _ in range(20):  # to the end: Later is disabled there, the last paragraph drawn
        if at.button(key="window_later").disabled:
            break
        at.button(key="window_later").click().run()
    assert at.button(key="window_later").disabled
    assert "Paragraph 5999 " in drawn(at)
