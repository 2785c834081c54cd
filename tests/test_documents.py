"""Loading Markdown and plain text: exact source offsets, structure, and bad input."""

from __future__ import annotations

import pytest

from explorer.documents import load_document
from explorer.errors import DocumentError
from tests.conftest import corpus_files, load_cached

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
        ("café".encode("latin-1"), "latin1.md", "not valid UTF-8"),
        ("# hi".encode("utf-16"), "utf16.md", "UTF-16"),
        (b"\x00\x01\x02binary\x00junk", "junk.md", "binary"),
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
