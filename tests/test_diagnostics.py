"""Diagnostics: each check on tiny documents with exact offsets, then over the samples."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from explorer.chunking.diagnostics import (
    ISSUE_CODES,
    SPECIAL_TOKENS,
    Diagnosis,
    diagnose,
    embedded_text,
    issue,
)
from explorer.chunking.measures import MODEL_WINDOW, Words, get_measure
from explorer.chunking.records import Chunk, ChunkSettings
from explorer.chunking.splitters import split
from explorer.documents.load import load_path
from explorer.documents.model import Document
from tests.conftest import SAMPLES, make_doc


def chunk_at(doc: Document, start: int, end: int, index: int = 0, **kw: Any) -> Chunk:
    """A chunk of ``doc`` over ``[start, end)``; other fields are plausible defaults."""
    return Chunk(
        id=f"c{index}",
        index=index,
        start=start,
        end=end,
        text=doc.text[start:end],
        size=end - start,
        overlap=0,
        heading_path=doc.heading_path_at(start),
        page_start=None,
        page_end=None,
        **kw,
    )


def issues_of(doc: Document, *spans: tuple[int, int], **kw: Any) -> list[tuple[str, ...]]:
    chunks = [chunk_at(doc, s, e, i) for i, (s, e) in enumerate(spans)]
    kw.setdefault("model_measure", Words())
    return list(diagnose(doc, chunks, **kw).issues)


def span_of(doc: Document, needle: str) -> tuple[int, int]:
    i = doc.text.index(needle)
    return i, i + len(needle)


# --------------------------------------------------------------------------- mid-sentence

PROSE = "First sentence here. Second one runs on and on.\n\nA new paragraph without a stop\n"


def test_a_chunk_ending_at_a_full_stop_is_clean() -> None:
    doc = make_doc(PROSE)
    assert issues_of(doc, span_of(doc, "First sentence here.")) == [()]


def test_a_chunk_ending_inside_a_sentence_is_flagged() -> None:
    doc = make_doc(PROSE)
    assert issues_of(doc, span_of(doc, "First sentence here. Second one")) == [("mid_sentence",)]


def test_the_end_of_a_block_or_the_document_ends_a_sentence() -> None:
    doc = make_doc(PROSE)
    # "A new paragraph without a stop" is the last block and ends the document
    assert issues_of(doc, span_of(doc, "A new paragraph without a stop")) == [()]
    md = make_doc("# Title\n\n- item one\n- item two\n\nText.\n", kind="markdown", name="t.md")
    assert issues_of(md, span_of(md, "- item one")) == [()]  # a list item's end


def test_closing_quotes_and_brackets_after_the_stop_are_allowed() -> None:
    doc = make_doc('He said "stop." Then (it ended.) And more words follow here.')
    assert issues_of(doc, span_of(doc, 'He said "stop."')) == [()]
    assert issues_of(doc, span_of(doc, 'He said "stop." Then (it ended.)')) == [()]


# --------------------------------------------------------------------------- tables

TABLE_MD = """# Prices

| Plan | Price |
|------|-------|
| One  | $1    |
| Two  | $2    |
| Three | $3   |

After the table.
"""


def test_a_chunk_with_the_header_and_rows_is_clean() -> None:
    doc = make_doc(TABLE_MD, kind="markdown", name="t.md")
    assert issues_of(
        doc, span_of(doc, TABLE_MD[TABLE_MD.index("| Plan") : TABLE_MD.index("\n\nAfter")])
    ) == [()]


def test_rows_without_their_header_row_are_flagged() -> None:
    doc = make_doc(TABLE_MD, kind="markdown", name="t.md")
    rows = span_of(doc, "| Two  | $2    |\n| Three | $3   |")
    assert issues_of(doc, rows) == [("table_header",)]
    # from a body row into the paragraph after the table
    tail = (rows[0], doc.text.index("After the table.") + len("After the table."))
    assert issues_of(doc, tail) == [("table_header",)]


def test_a_chunk_with_only_the_header_row_is_not_flagged_for_the_header() -> None:
    doc = make_doc(TABLE_MD, kind="markdown", name="t.md")
    head = span_of(doc, "# Prices\n\n| Plan | Price |\n|------|-------|")
    assert "table_header" not in issues_of(doc, head)[0]


# --------------------------------------------------------------------------- code

CODE_MD = """# Setup

Install it:

```bash
pip install quarry
quarry init
```

Done.
"""


def test_a_chunk_ending_inside_a_code_block_is_a_cut_code_block_not_mid_sentence() -> None:
    doc = make_doc(CODE_MD, kind="markdown", name="t.md")
    assert issues_of(
        doc, span_of(doc, "# Setup\n\nInstall it:\n\n```bash\npip install quarry")
    ) == [("code_fence",)]


def test_a_chunk_starting_inside_a_code_block_is_flagged() -> None:
    doc = make_doc(CODE_MD, kind="markdown", name="t.md")
    assert issues_of(doc, span_of(doc, "quarry init\n```\n\nDone.")) == [("code_fence",)]


def test_a_chunk_holding_the_whole_code_block_is_clean() -> None:
    doc = make_doc(CODE_MD, kind="markdown", name="t.md")
    assert issues_of(doc, (0, len(doc.text.rstrip()))) == [()]


# --------------------------------------------------------------------------- headings

HEAD_MD = "# Guide\n\nIntro text.\n\n## Install\n\nRun the installer.\n"


def test_a_heading_at_a_chunk_end_is_orphaned() -> None:
    doc = make_doc(HEAD_MD, kind="markdown", name="t.md")
    first = (0, doc.text.index("## Install") + len("## Install"))
    second = span_of(doc, "Run the installer.")
    assert issues_of(doc, first, second) == [("orphan_heading",), ()]


def test_a_heading_followed_by_its_text_is_not_orphaned() -> None:
    doc = make_doc(HEAD_MD, kind="markdown", name="t.md")
    assert issues_of(doc, span_of(doc, "## Install\n\nRun the installer.")) == [()]


def test_a_last_heading_with_nothing_after_it_is_not_orphaned() -> None:
    doc = make_doc("Some text.\n\n## The end\n", kind="markdown", name="t.md")
    assert issues_of(doc, (0, len(doc.text.rstrip()))) == [()]


# --------------------------------------------------------------------------- model window


def test_the_window_counts_the_special_tokens() -> None:
    doc = make_doc("one two three four five six")
    three, four = (0, len("one two three")), (0, len("one two three four"))
    # Words as the model measure: 3 words + 2 specials = 5 fits a window of 5; 4 + 2 does not
    assert "model_window" not in issues_of(doc, three, window=5)[0]
    assert "model_window" in issues_of(doc, four, window=5)[0]
    d = diagnose(doc, [chunk_at(doc, *three)], model_measure=Words(), window=5)
    assert d.model_tokens == (3 + SPECIAL_TOKENS,)


def test_the_heading_prefix_counts_towards_the_window() -> None:
    doc = make_doc("# Big Heading\n\nalpha beta gamma.\n", kind="markdown", name="t.md")
    body = span_of(doc, "alpha beta gamma.")
    assert issues_of(doc, body, window=5) == [()]
    assert issues_of(doc, body, window=5, heading_prefix=True) == [("model_window",)]


def test_the_real_model_window_catches_a_long_chunk() -> None:
    text = " ".join(f"word{i}" for i in range(400)) + "."
    doc = make_doc(text)
    d = diagnose(doc, [chunk_at(doc, 0, len(text))])
    assert d.model_tokens[0] > MODEL_WINDOW
    assert d.issues[0] == ("model_window",)


def test_embedded_text_prefixes_the_heading_path() -> None:
    doc = make_doc("# A\n\n## B\n\nBody text.\n", kind="markdown", name="t.md")
    c = chunk_at(doc, *span_of(doc, "Body text."))
    assert embedded_text(c, heading_prefix=True) == "A > B\n\nBody text."
    assert embedded_text(c, heading_prefix=False) == "Body text."
    plain = make_doc("No headings.")
    assert embedded_text(chunk_at(plain, 0, 12), heading_prefix=True) == "No headings."


# --------------------------------------------------------------------------- oversize & totals


def test_oversize_comes_from_the_splitter_flag() -> None:
    doc = make_doc("A sentence.")
    c = chunk_at(doc, 0, 11, flags=("oversize",))
    assert diagnose(doc, [c], model_measure=Words()).issues == (("oversize",),)


def test_counts_and_flagged() -> None:
    d = Diagnosis(issues=((), ("mid_sentence", "oversize"), ("oversize",)), model_tokens=(5, 6, 7))
    assert d.counts() == {
        "mid_sentence": 1,
        "table_header": 0,
        "code_fence": 0,
        "orphan_heading": 0,
        "model_window": 0,
        "oversize": 2,
        "edit_oversize": 0,
    }
    assert d.flagged() == [1, 2]
    assert issue("oversize").label == "Oversize unit"


def test_a_diagnosis_refuses_unknown_codes_and_mismatched_lengths() -> None:
    with pytest.raises(ValueError, match="unknown issue"):
        Diagnosis(issues=(("nonsense",),), model_tokens=(1,))
    with pytest.raises(ValueError, match="one entry per chunk"):
        Diagnosis(issues=((),), model_tokens=())


# --------------------------------------------------------------------------- real documents

SAMPLE_FILES = sorted(
    p for p in SAMPLES.iterdir() if p.suffix in (".md", ".pdf") and p.name != "SOURCES.md"
)


@pytest.mark.parametrize("path", SAMPLE_FILES, ids=lambda p: p.name)
@pytest.mark.parametrize("splitter", ["fixed", "sentence", "recursive", "structure"])
def test_samples_agree_with_the_splitter_flags(path: Path, splitter: str) -> None:
    doc = load_path(path)
    chunks = split(doc, ChunkSettings(splitter=splitter, unit="tokens", size=120, overlap=10))
    d = diagnose(doc, chunks)
    assert len(d.issues) == len(chunks)
    for c, codes in zip(chunks, d.issues, strict=True):
        assert set(codes) <= set(ISSUE_CODES)
        # both define a cut code block as a chunk edge strictly inside a code block
        assert ("code_fence" in codes) == ("code_split" in c.flags)
        assert ("oversize" in codes) == ("oversize" in c.flags)


def test_fixed_windows_cut_mid_sentence_and_separate_table_headers() -> None:
    doc = load_path(SAMPLES / "writing-guide.md")
    fixed = diagnose(doc, split(doc, ChunkSettings("fixed", "chars", 500, 0))).counts()
    assert fixed["mid_sentence"] > 10
    assert fixed["table_header"] > 0
    assert fixed["code_fence"] > 0


def test_large_structure_chunks_keep_tables_and_code_whole() -> None:
    doc = load_path(SAMPLES / "writing-guide.md")
    counts = diagnose(doc, split(doc, ChunkSettings("structure", "tokens", 1500, 0))).counts()
    assert counts["code_fence"] == 0
    assert counts["table_header"] == 0
    assert counts["mid_sentence"] == 0


# ---------------------------------------------------------------------- true under the settings


def test_the_window_flag_judges_what_the_settings_embed() -> None:
    """600-token chunks of the field manual: embedded whole, some need more than the window;
    with dense scores from passages (the default) a chunk is flagged only where a passage it
    holds does; BM25 embeds nothing (issue 36.5)."""
    from explorer.config import Config
    from explorer.workspace import Workspace

    ws = Workspace(SAMPLES)
    doc = "field-manual.pdf"
    whole = Config().replace(size=600, dense="chunks")
    assert ws.diagnosis(doc, whole).counts()["model_window"] > 0
    passages = Config().replace(size=600)
    assert passages.dense == "passages"
    r = ws.retriever(doc, passages)
    measure = get_measure("model-tokens")
    over = [
        any(measure.count(t) + SPECIAL_TOKENS > MODEL_WINDOW for t in r.embedded_for(i))
        for i in range(len(r.chunks))
    ]
    flagged = ["model_window" in codes for codes in ws.diagnosis(doc, passages).issues]
    assert flagged == over
    assert not all(flagged) and sum(flagged) < ws.diagnosis(doc, whole).counts()["model_window"]
    assert (
        ws.diagnosis(doc, Config(retriever="bm25").replace(size=600)).counts()["model_window"] == 0
    )


def test_a_chunk_an_edit_made_oversize_says_the_edit_made_it() -> None:
    """A merge over the size limit is "Oversize by an edit", not a unit that could not be split."""
    from explorer.chunking.edits import Edit
    from explorer.config import Config
    from explorer.workspace import Workspace

    ws = Workspace(SAMPLES)
    config = Config(retriever="bm25")
    merged = ws.diagnosis("field-manual.pdf", config, edits=[Edit("merge", 3)])
    assert merged.issues[3] == ("edit_oversize",) or "edit_oversize" in merged.issues[3]
    assert "oversize" not in merged.issues[3]
    described = issue("edit_oversize").description
    assert "edit" in described and "could not be split" not in described
