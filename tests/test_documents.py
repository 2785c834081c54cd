"""Loading Markdown and plain text: exact source offsets, structure, and bad input."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from explorer.documents import load as documents
from explorer.documents import model
from explorer.documents.load import load_document
from explorer.errors import DocumentError
from tests.conftest import SAMPLES, corpus_files, load_cached

GUIDE = """---
title: Guide
---
# Install

Run the installer.

## Linux

| Distro | Command |
|--------|---------|
| Debian | `apt install x` |

```sh
make install
```

## Windows \\& Mac

- first item
- second item
  - nested item

# Use

Text.
"""


def test_markdown_text_is_the_source_and_structure_has_offsets() -> None:
    doc = load_document(GUIDE.encode(), name="guide.md")
    assert doc.text == GUIDE
    assert doc.kind == "markdown"
    kinds = [b.kind for b in doc.blocks]
    assert kinds[0] == "code"  # front matter
    assert doc.text[doc.blocks[0].start : doc.blocks[0].end].startswith("---\ntitle")
    titles = [(h.level, h.title, h.path) for h in doc.headings]
    assert titles == [
        (1, "Install", ("Install",)),
        (2, "Linux", ("Install", "Linux")),
        (2, "Windows \\& Mac", ("Install", "Windows \\& Mac")),
        (1, "Use", ("Use",)),
    ]
    for h in doc.headings:
        assert doc.text[h.start : h.end].lstrip("# ") == h.title
    table = next(b for b in doc.blocks if b.kind == "table")
    assert doc.text[table.start : table.end].startswith("| Distro")
    assert doc.text[table.start : table.end].endswith("`apt install x` |")
    assert [r.header for r in table.rows] == [True, False]
    assert doc.text[table.rows[0].start : table.rows[0].end] == "| Distro | Command |"
    code = [b for b in doc.blocks if b.kind == "code"][1]
    assert doc.text[code.start : code.end] == "```sh\nmake install\n```"
    items = [doc.text[b.start : b.end] for b in doc.blocks if b.kind == "list_item"]
    assert items[0] == "- first item"
    assert "nested item" in items[1] and items[-1] == "- nested item"
    assert doc.heading_path_at(GUIDE.index("make install")) == ("Install", "Linux")
    assert doc.heading_path_at(GUIDE.index("Text.")) == ("Use",)
    assert doc.heading_path_at(0) == ()


def test_crlf_markdown_offsets_stay_exact() -> None:
    src = GUIDE.replace("\n", "\r\n")
    doc = load_document(src.encode(), name="crlf.md")
    assert doc.text == src
    for h in doc.headings:
        assert doc.text[h.start : h.end].lstrip("# ") == h.title
    table = next(b for b in doc.blocks if b.kind == "table")
    assert doc.text[table.rows[0].start : table.rows[0].end] == "| Distro | Command |"


def test_bom_is_tolerated_and_recorded() -> None:
    doc = load_document("\ufeff# Title\n\nBody.".encode(), name="bom.md")
    assert doc.text == "# Title\n\nBody."
    assert doc.headings[0].title == "Title"
    assert any("byte-order mark" in w for w in doc.warnings)


def test_plain_text_paragraphs() -> None:
    doc = load_document(b"First para\nstill first.\n\n\nSecond para.\n", name="a.txt")
    assert [doc.text[b.start : b.end] for b in doc.blocks] == [
        "First para\nstill first.",
        "Second para.",
    ]


@pytest.mark.parametrize(
    ("data", "name", "message"),
    [
        (b"", "empty.md", "empty"),
        (b"   \n\t\n", "blank.md", "only white space"),
        ("# hi there".encode("utf-16-le"), "utf16.md", "UTF-16 without a byte-order mark"),
        (b"\xff\xfe\x00\xd8", "utf16.md", "not valid UTF-16"),  # a lone surrogate
        (b"\x00\x01\x02binary\x00junk", "junk.md", "binary"),
        (bytes(range(128, 256)) * 40, "c1.md", "binary"),  # latin-1 C1 controls
        (bytes(range(1, 32)) * 40, "ctrl.txt", "binary"),
        (b"%PDF-1.7\n...", "renamed.md", "this is a PDF"),
        (b"hello", "notes.docx", "unsupported file type"),
    ],
)
def test_bad_text_input_gets_a_specific_error(data: bytes, name: str, message: str) -> None:
    with pytest.raises(DocumentError, match=message):
        load_document(data, name=name)


@pytest.mark.parametrize("path", corpus_files(".md"), ids=lambda p: p.name)
def test_corpus_markdown_structure(path) -> None:  # type: ignore[no-untyped-def]
    doc = load_cached(path)
    assert doc.text == path.read_bytes().decode("utf-8-sig")
    assert doc.headings, "every corpus Markdown file has headings"
    for h in doc.headings:
        assert h.title in doc.text[h.start : h.end] or h.title == "(untitled)"
    starts = [b.start for b in doc.blocks]
    assert starts == sorted(starts)
    for b in doc.blocks:
        assert doc.text[b.start : b.end].strip() == doc.text[b.start : b.end]
    tables = [b for b in doc.blocks if b.kind == "table"]
    for t in tables:
        assert t.rows and t.rows[0].header and not t.rows[-1].header


@pytest.mark.parametrize(
    ("data", "text", "assumed"),
    [
        ("# Café\n\nDéjà vu.".encode("latin-1"), "# Café\n\nDéjà vu.", "Windows-1252"),
        ("“Quotes” cost €5".encode("cp1252"), "“Quotes” cost €5", "Windows-1252"),
        (b"caf\xe9 \x81", "café \x81", "latin-1"),  # 0x81 is undefined in Windows-1252
        ("# Hi ✓\n".encode("utf-16"), "# Hi ✓\n", "UTF-16"),
        (b"\xfe\xff" + "# Hi ✓\n".encode("utf-16-be"), "# Hi ✓\n", "big-endian"),
        ("naïve café\n".encode() + b"\xff", "naïve café\n\ufffd", "replaced"),
        ("Größe: ".encode() + "Größ".encode()[:-1], "Größe: Grö\ufffd", "replaced"),  # cut ß
    ],
)
def test_text_in_other_encodings_is_decoded_with_a_warning(
    data: bytes, text: str, assumed: str
) -> None:
    doc = load_document(data, name="notes.md")
    assert doc.text == text
    [warning] = doc.warnings
    assert assumed in warning


def test_a_latin1_warning_says_where_and_what_to_do() -> None:
    doc = load_document("# Café".encode("latin-1"), name="c.md")
    assert doc.headings[0].title == "Café"
    assert doc.warnings == (
        "not valid UTF-8 (byte 0xe9 at offset 5); decoded as Windows-1252 (Western European) — "
        "if letters look wrong, re-save the file as UTF-8",
    )


def test_text_over_the_limit_is_refused_with_the_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(documents, "MAX_CHARS", 1_000)  # the check
    monkeypatch.setattr(model, "MAX_CHARS", 1_000)  # the message (too_long lives with the records)
    assert load_document(b"x" * 1_000, name="ok.md").text == "x" * 1_000
    with pytest.raises(DocumentError) as err:
        load_document(b"x" * 1_001, name="big.md")
    assert str(err.value) == (
        "big.md is too long (1,001 characters); the limit for one document is 1,000 characters "
        "— split the file into parts and load them one at a time"
    )
    with pytest.raises(DocumentError, match=r"too long \(0\.0 MB\)"):
        load_document(b"x" * 4_001, name="big.txt")  # refused before decoding


def test_markdown_over_the_line_limit_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(documents, "MAX_MARKDOWN_LINES", 3)
    assert len(load_document(b"a\nb\r\nc", name="ok.md").blocks) == 1
    with pytest.raises(DocumentError) as err:
        load_document(b"a\nb\rc\n", name="long.md")
    assert str(err.value) == (
        "long.md has 4 lines, over the limit of 3 lines for reading Markdown structure; split "
        "the file into parts and load them one at a time (or rename it to .txt to read it as "
        "plain text)"
    )
    assert load_document(b"a\nb\rc\n", name="long.txt").text == "a\nb\rc\n"


def test_nesting_past_the_parser_limit_is_kept_as_text_with_a_warning() -> None:
    deep = "\n".join("  " * d + f"- level {d}" for d in range(40))
    doc = load_document(deep.encode(), name="deep.md")
    items = [b for b in doc.blocks if b.kind == "list_item"]
    assert len(items) == documents.MAX_NESTING // 2
    assert doc.text[items[-1].start : items[-1].end].endswith("- level 39")
    assert "nest deeper than the parser reads" in doc.warnings[0]
    shallow = load_document("\n".join("  " * d + "- x" for d in range(9)).encode(), name="s.md")
    assert shallow.warnings == ()


_MD_LINES = [
    "# Title", "## Sub", "Setext", "===", "---", "", "text here", "more text", "- item",
    "  - nested", "1. one", "> quote", "> > deeper", "```", "```py", "~~~", "    code",
    "| a | b |", "|---|---|", "| 1 | 2 |", "<div>", "</div>", "<!-- c", "-->", "<script>",
    "</script>", "[ref]: http://x", '  "title"', "***", "* star", "\tTab", "1) paren", "| x |",
]  # fmt: skip


@given(
    lines=st.lists(st.sampled_from(_MD_LINES), max_size=60),
    window=st.integers(1, 8),
    crlf=st.booleans(),
)
def test_markdown_parsed_in_windows_equals_one_parse(
    lines: list[str], window: int, crlf: bool
) -> None:
    text = ("\r\n" if crlf else "\n").join(lines)
    whole = documents.markdown_structure(text)
    old = documents.PARSE_WINDOW_LINES
    documents.PARSE_WINDOW_LINES = window
    try:
        assert documents.markdown_structure(text) == whole
    finally:
        documents.PARSE_WINDOW_LINES = old


@pytest.mark.parametrize(
    "path", [*SAMPLES.glob("*.md"), *corpus_files(".md")], ids=lambda p: p.name
)
def test_real_markdown_parsed_in_windows_equals_one_parse(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = path.read_bytes().decode("utf-8-sig")
    whole = documents.markdown_structure(text)
    for window in (1, 3, 40):
        monkeypatch.setattr(documents, "PARSE_WINDOW_LINES", window)
        assert documents.markdown_structure(text) == whole


PIPE_TABLE = (
    "Cash flows are summarised below.\n\n"
    "cash flows (millions) | 2014 | 2013\n"
    "cash provided by operating activities | $7385 | $6823\n"
    "cash used in investing activities | -4249 | -3405\n\n"
    "Home | About\n\n"
    "a | b | c\nd | e\nf | g | h\ni\n\n"
    "p | q | r\ns | t\nu | v\nw | x\n"
)


@pytest.mark.parametrize("name", ["export.md", "export.txt"])
def test_pipe_rows_without_a_delimiter_row_are_a_table_headed_by_the_first(name: str) -> None:
    from explorer.retrieval.context import TableHeaders

    doc = load_document(PIPE_TABLE.encode(), name=name)
    [table] = [b for b in doc.blocks if b.kind == "table"]
    rows = [(doc.text[r.start : r.end], r.header) for r in table.rows]
    assert rows == [
        ("cash flows (millions) | 2014 | 2013", True),
        ("cash provided by operating activities | $7385 | $6823", False),
        ("cash used in investing activities | -4249 | -3405", False),
    ]
    assert doc.text[table.start : table.end] == "\n".join(r for r, _ in rows)
    # one line is not a table; nor are lines whose cells disagree or that lack a separator
    kinds = {doc.text[b.start : b.end].split("\n")[0]: b.kind for b in doc.blocks}
    assert kinds["Home | About"] == kinds["a | b | c"] == kinds["p | q | r"] == "paragraph"
    # a hit on the rows brings the header line, as for any table
    body = (table.rows[2].start, table.rows[2].end)
    assert TableHeaders.of(doc).for_span(*body) == ((table.rows[0].start, table.rows[0].end),)


def test_a_markdown_table_keeps_its_own_header_rows() -> None:
    text = "| Plan | Days |\n|---|---|\n| Basic | 7 |\n| Pro | 30 |\n"
    doc = load_document(text.encode(), name="plans.md")
    [table] = [b for b in doc.blocks if b.kind == "table"]
    assert [(doc.text[r.start : r.end], r.header) for r in table.rows] == [
        ("| Plan | Days |", True),
        ("| Basic | 7 |", False),
        ("| Pro | 30 |", False),
    ]
