"""The ``page`` splitter (issue 26): a chunk per PDF page, or per top-level section of Markdown,
cut only where a page is over the size, with the usual exact offsets and metadata."""

from __future__ import annotations

import json

import pytest

from explorer.chunking.records import ChunkSettings
from explorer.chunking.splitters import page_starts, split
from explorer.documents.model import Document
from tests.conftest import SAMPLES, corpus_files, load_cached
from tests.test_cli import run_cli

PDFS = [SAMPLES / "field-manual.pdf", *corpus_files(".pdf")]


def pages_of(doc: Document) -> list[tuple[int, int, int]]:
    """(number, start, end) of each page that holds text."""
    return [(p.number, p.start, p.end) for p in doc.pages if doc.text[p.start : p.end].strip()]


@pytest.mark.parametrize("path", PDFS, ids=lambda p: p.name)
def test_at_a_size_above_every_page_each_page_is_one_chunk(path) -> None:  # type: ignore[no-untyped-def]
    doc = load_cached(path)
    chunks = split(doc, ChunkSettings(splitter="page", unit="chars", size=len(doc.text)))
    assert [(c.page_start, c.page_end) for c in chunks] == [(n, n) for n, _, _ in pages_of(doc)]
    for c, (_, start, end) in zip(chunks, pages_of(doc), strict=True):
        assert doc.text[c.start : c.end] == c.text
        assert start <= c.start and c.end <= end  # the page's text, trimmed of white space
        assert not doc.text[start : c.start].strip() and not doc.text[c.end : end].strip()
        assert c.overlap == 0


@pytest.mark.parametrize("path", PDFS, ids=lambda p: p.name)
def test_below_a_page_s_length_pages_are_cut_but_never_crossed(path) -> None:  # type: ignore[no-untyped-def]
    doc = load_cached(path)
    settings = ChunkSettings(splitter="page", unit="tokens", size=200, overlap=32)
    chunks = split(doc, settings)
    assert all(doc.text[c.start : c.end] == c.text for c in chunks)
    assert all(c.page_start == c.page_end for c in chunks)  # overlap included
    for c in chunks:
        assert c.size <= settings.size or "oversize" in c.flags or "hard_cut" in c.flags
    small = [n for n, s, e in pages_of(doc) if settings.measure.count(doc.text[s:e]) < 150]
    for n in small:  # a page well within the size is whole
        assert sum(1 for c in chunks if c.page_start == n) == 1


def test_markdown_is_cut_at_each_top_level_section() -> None:
    doc = load_cached(SAMPLES / "refund-policy.md")
    starts = page_starts(doc)
    levels = {h.level for h in doc.headings if h.start in starts}
    assert len(levels) == 1 and len(starts) >= 3  # one heading level, several sections
    chunks = split(doc, ChunkSettings(splitter="page", unit="chars", size=len(doc.text)))
    assert [c.start for c in chunks[1:]] == starts
    assert chunks[0].start == 0 or not doc.text[: chunks[0].start].strip()


def test_a_lone_title_is_not_a_section_break() -> None:
    text = "# Title\n\nIntro.\n\n## One\n\nFirst.\n\n## Two\n\nSecond.\n"
    from explorer.documents.load import load_document

    doc = load_document(text.encode(), name="t.md")
    assert page_starts(doc) == [text.index("## One"), text.index("## Two")]
    flat = load_document(b"Just one paragraph, no headings.\n", name="flat.md")
    assert page_starts(flat) == []
    assert len(split(flat, ChunkSettings(splitter="page", size=256))) == 1


def test_its_overlap_left_out_is_zero_and_the_cli_runs_on_its_defaults() -> None:
    assert ChunkSettings(splitter="page").overlap == 0
    res = run_cli(
        "chunk", "--splitter", "page", "--size", "2048", str(SAMPLES / "field-manual.pdf")
    )
    assert res.returncode == 0, res.stderr
    records = [json.loads(line) for line in res.stdout.splitlines()]
    assert [(r["page_start"], r["page_end"]) for r in records] == [(n, n) for n in range(1, 7)]
