"""Evidence as the reader sees it: a phrase copied from the rendered Markdown page is found in
the source, its span running from the phrase's first character to its last, markup included.

The unit cases build each kind of markup; the browser test renders the shared corpus's Markdown
and the samples as the app draws them, takes their text from Chromium (what a person copies),
and looks up phrases from all over every page.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from explorer.config import Config
from explorer.documents.markdown_view import rendered_text
from explorer.retrieval.evidence import locate, match_kind, phrase_words
from explorer.workspace import Workspace
from tests.conftest import SAMPLES, corpus_files, load_cached, make_doc
from ui.render_markdown import render_markdown

SOURCE = """# Versions

Cargo takes prerelease versions only by setting the `includePrerelease` flag in **your**
manifest; see [the reference](https://doc.rust-lang.org/cargo "Cargo") &amp; the *notes*.
Escaped \\*stars\\* stay stars.

| Plan | Price |
|------|-------|
| Monthly | `175.00` |

1. First step
2. Second *step*
"""


@pytest.mark.parametrize(
    ("phrase", "source"),
    [
        ("by setting the includePrerelease flag", "by setting the `includePrerelease` flag"),
        ("flag in your manifest", "flag in **your**\nmanifest"),
        (
            "see the reference & the notes",
            'see [the reference](https://doc.rust-lang.org/cargo "Cargo") &amp; the *notes',
        ),
        ("Escaped *stars* stay", "Escaped \\*stars\\* stay"),
        ("Monthly 175.00", "Monthly | `175.00"),
        ("Monthly\t175.00", "Monthly | `175.00"),
        ("First step Second step", "First step\n2. Second *step"),
    ],
)
def test_a_phrase_as_the_page_shows_it_is_found_and_covers_the_markup(
    phrase: str, source: str
) -> None:
    doc = make_doc(SOURCE, kind="markdown", name="v.md")
    rendered = rendered_text(doc)
    assert rendered is not None
    assert locate(phrase, doc.text) == []  # not in the source as it is written
    [(s, e)] = locate(phrase, doc.text, rendered)
    assert doc.text[s:e] == source  # from the phrase's first character to its last
    assert match_kind(phrase, doc.text, [(s, e)], rendered) in ("rendered", "loose")


def test_the_source_form_keeps_working_and_says_it_matched_as_written() -> None:
    doc = make_doc(SOURCE, kind="markdown", name="v.md")
    phrase = "by setting the `includePrerelease` flag"
    spans = locate(phrase, doc.text, rendered_text(doc))
    assert [doc.text[s:e] for s, e in spans] == [phrase]
    assert match_kind(phrase, doc.text, spans) == "exact"
    assert match_kind("BY SETTING the `includePrerelease` flag", doc.text, spans) == "loose"


def test_the_answer_path_finds_page_phrases_and_says_how() -> None:
    doc = make_doc(SOURCE, kind="markdown", name="v.md")
    answer = Workspace().ask(
        doc,
        "How do I allow prerelease versions?",
        ["by setting the includePrerelease flag", "Monthly 175.00"],
        config=Config().replace(retriever="bm25"),
        k=5,
    )
    # the second is in the page's text only with the cell separator between its words
    assert [e.match for e in answer.evidence] == ["rendered", "loose"]
    assert all(e.found for e in answer.evidence)


# --------------------------------------------------------------------------- the shared corpus


def markdown_documents() -> list[Any]:
    site = sorted((Path(__file__).parent / "data" / "docsite").glob("*.md"))
    paths = [*corpus_files(".md"), *sorted(SAMPLES.glob("*.md")), *site]
    return [p for p in paths if p.name != "SOURCES.md"]


def windows(text: str, *, size: int = 5, step: int = 4, most: int = 300) -> Iterator[str]:
    """Phrases of ``size`` words from every line of the page's text, spread over the whole
    document (at most ``most``)."""
    found = []
    for line in text.splitlines():
        words = line.split()
        for i in range(0, max(len(words) - size + 1, 0), step):
            found.append(" ".join(words[i : i + size]))
    stride = max(1, len(found) // most)
    yield from found[::stride]


SAME = {ch: fam for fam in ("'‘’`", '"“”', "-‐‑–—") for ch in fam}


def same_char(a: str, b: str) -> bool:
    return a.casefold() == b.casefold() or SAME.get(a, a) == SAME.get(b, b)


@pytest.mark.browser
def test_every_phrase_copied_from_the_rendered_corpus_is_found_exactly() -> None:
    from tests.browser_util import browser, require_chromium

    require_chromium()
    checked = 0
    with browser() as b:
        page = b.new_page(viewport={"width": 1200, "height": 900})
        for path in markdown_documents():
            doc = load_cached(path)
            rendered = rendered_text(doc)
            assert rendered is not None, path.name
            page.set_content(render_markdown(doc, []))
            shown = str(page.locator(".ce-doc").first.inner_text())  # what a person copies
            for phrase in windows(shown):
                spans = locate(phrase, doc.text, rendered)
                assert spans, f"{path.name}: {phrase!r} copied from the page was not found"
                words = phrase_words(phrase)  # a separator (a cell's |, dot leaders) is no word
                first, last = words[0][0], words[-1][-1]
                assert any(
                    same_char(doc.text[s], first) and same_char(doc.text[e - 1], last)
                    for s, e in spans
                ), f"{path.name}: {phrase!r} found at {spans[:3]}, not from its first to its last"
                checked += 1
    assert checked > 1000
