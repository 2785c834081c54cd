"""Every input of ``tests/bad_inputs.py``, through the library and the command line.

An input that cannot be read raises one :class:`DocumentError` whose single line names the file,
says what is wrong and what to do; the command line exits 2 with exactly that line on stderr.
An input that can be read loads — with a warning for every assumption — and splits into exact
chunks; the command line succeeds and prints each warning as one ``warning:`` line on stderr.
The limits (characters, pages, table grids) are tested at small values, not by timing.
"""

from __future__ import annotations

import contextlib
import functools
import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pymupdf as _pymupdf
import pytest

from explorer.chunking.records import ChunkSettings
from explorer.chunking.splitters import split
from explorer.documents import load as documents
from explorer.documents import pdf
from explorer.documents.load import load_document
from explorer.documents.model import Document
from explorer.documents.pdf import opening, reader
from explorer.errors import DocumentError
from tests import bad_inputs
from tests.bad_inputs import BadInput, make
from tests.bad_inputs import bad_inputs as all_inputs
from tests.conftest import SAMPLES

pymupdf: Any = _pymupdf

#: What each error's message must say (besides the file name).
MESSAGES = {
    "empty": "the file is empty (0 bytes); choose a file with text in it",
    "one-byte-pdf": "is not a PDF (it does not start with %PDF-)",
    "truncated-pdf": "is truncated (it ends before the PDF end marker %%EOF)",
    "not-a-pdf": "is not a PDF (it does not start with %PDF-)",
    "encrypted-user": "is encrypted; open it without a password or remove the password first",
    "scanned": "has no text layer — it may be scanned; OCR is not supported",
    "junk-md": "looks binary",
    "md-50mb": "the limit for one document is 10,000,000 characters — split the file",
    "late-nul": "looks binary, not a text file: it holds NUL bytes (the first at byte 204,800",
    "late-binary": "looks binary, not text: 4,096 of the 12,920 characters from character 196,608",
}

#: What each warning of an input that loads must say, in order.
WARNINGS: dict[str, list[str]] = {
    "one-byte": [],
    "broken-xref": ["the PDF was damaged and MuPDF repaired it"],
    "encrypted-owner": ["the PDF's owner does not permit copying its text"],
    "pages-2000": [],
    "rotated": [],
    "latin1-md": ["not valid UTF-8 (byte 0xe9 at offset 5); decoded as Windows-1252"],
    "cp1252-md": ["not valid UTF-8 (byte 0x93 at offset 2); decoded as Windows-1252"],
    "utf16-md": ["decoded as UTF-16 (little-endian, from its byte-order mark)"],
    "line-1mb": [],
    "nested-lists": ["lists or block quotes nest deeper than the parser reads (20 levels"],
    "nested-quotes": [
        "1 line quoted deeper than the 19 levels the parser reads (the deepest: 5,000 levels, "
        "line 3) kept their first 19 '>' markers only; every word is kept"
    ],
    "mostly-invalid-utf8": ["not valid UTF-8 (byte 0xef at offset 0); decoded as Windows-1252"],
    "table-1000-cols": [],
    "html-md": [],
}

ERRORS = [x for x in all_inputs() if x.expect == "error"]
LOADS = [x for x in all_inputs() if x.expect == "loads"]


def ids(x: BadInput) -> str:
    return x.name


def test_every_input_has_an_expected_outcome() -> None:
    assert {x.name for x in ERRORS} == set(MESSAGES)
    assert {x.name for x in LOADS} == set(WARNINGS)
    assert len({x.filename for x in all_inputs()}) == len(all_inputs())


def test_inputs_are_built_the_same_every_time() -> None:
    for x in all_inputs():
        if x.name.startswith("encrypted"):  # encryption salts are random
            continue
        if x.name in ("pages-2000", "md-50mb"):  # the same builders as small ones, but slow
            continue
        assert bad_inputs._BUILDERS[x.name]() == make(x), x.name


# --------------------------------------------------------------------------- library


@pytest.mark.parametrize("item", ERRORS, ids=ids)
def test_an_unreadable_input_raises_one_clear_document_error(item: BadInput) -> None:
    with pytest.raises(DocumentError) as err:
        load_document(make(item), name=item.filename)
    message = str(err.value)
    assert message.startswith(item.filename), message
    assert MESSAGES[item.name] in message
    assert "\n" not in message and len(message) < 300


@functools.cache
def loaded(item: BadInput) -> Document:
    """The loaded input (once per session), its warnings checked."""
    doc = load_document(make(item), name=item.filename)
    assert len(doc.warnings) == len(WARNINGS[item.name]), doc.warnings
    for warning, expected in zip(doc.warnings, WARNINGS[item.name], strict=True):
        assert warning.startswith(expected) and "\n" not in warning
    return doc


@pytest.mark.parametrize("item", LOADS, ids=ids)
def test_a_readable_input_loads_and_splits_exactly(item: BadInput) -> None:
    doc = loaded(item)
    chunks = split(doc, ChunkSettings())  # the command line's default
    assert chunks
    for c in chunks:
        assert doc.text[c.start : c.end] == c.text
    ends = [0, *(c.end for c in chunks)]
    gaps = [doc.text[a : c.start] for a, c in zip(ends, chunks, strict=False)]
    assert not "".join(gaps).strip() and not doc.text[ends[-1] :].strip()  # all text covered


def test_text_decoded_from_latin1_and_utf16_is_the_same_document() -> None:
    latin1, utf16 = loaded(bad_inputs.by_name("latin1-md")), loaded(bad_inputs.by_name("utf16-md"))
    assert latin1.text == utf16.text == bad_inputs._FRENCH
    assert [h.path for h in latin1.headings] == [("Café",), ("Café", "Crème brûlée")]
    assert latin1.blocks == utf16.blocks


def test_the_2000_page_pdf_keeps_every_page() -> None:
    doc = loaded(bad_inputs.by_name("pages-2000"))
    assert [p.number for p in doc.pages] == list(range(1, bad_inputs.PAGES + 1))
    assert "Page 2000, line 4:" in doc.text
    last = split(doc, ChunkSettings())[-1]
    assert last.page_end == bad_inputs.PAGES


def test_rotated_pages_read_in_line_order() -> None:
    doc = loaded(bad_inputs.by_name("rotated"))
    for n in range(1, 5):
        page = doc.pages[n - 1]
        text = doc.text[page.start : page.end]
        lines = [text.index(f"Page {n}, line {i}:") for i in range(1, 7)]
        assert text.startswith(f"Section {n}") and lines == sorted(lines), text[:200]


def test_a_pdf_with_a_broken_xref_table_keeps_its_text() -> None:
    doc = loaded(bad_inputs.by_name("broken-xref"))
    assert len(doc.pages) == 3 and "Page 3, line 6:" in doc.text


def test_an_owner_restricted_pdf_is_read() -> None:
    doc = loaded(bad_inputs.by_name("encrypted-owner"))
    assert "Page 2, line 1:" in doc.text


def test_a_1mb_line_is_cut_into_chunks_within_the_size() -> None:
    doc = loaded(bad_inputs.by_name("line-1mb"))
    chunks = split(doc, ChunkSettings(size=512, overlap=0))
    assert max(c.size for c in chunks) <= 512
    assert "".join(c.text for c in chunks[1:]) == doc.text[chunks[1].start :].rstrip()


def test_deep_nesting_keeps_every_level_as_text() -> None:
    doc = loaded(bad_inputs.by_name("nested-lists"))
    items = [b for b in doc.blocks if b.kind == "list_item"]
    assert len(items) == documents.MAX_NESTING // 2
    assert doc.text[items[-1].start : items[-1].end].endswith(f"- level {bad_inputs.NESTING_DEPTH}")


def test_a_5000_level_quote_is_cut_to_the_depth_the_parser_reads() -> None:
    doc = loaded(bad_inputs.by_name("nested-quotes"))
    [line] = [x for x in doc.text.splitlines() if x.startswith(">")]
    assert line == "> " * documents.MAX_QUOTE_DEPTH + "the innermost words"
    assert doc.text.endswith("After the quote.\n")
    quotes = [b for b in doc.blocks if b.kind == "blockquote"]
    assert len(quotes) == documents.MAX_QUOTE_DEPTH  # every level the parser reads is a block
    assert doc.text[quotes[-1].start : quotes[-1].end].endswith("> the innermost words")


def test_mostly_invalid_utf8_is_read_as_windows_1252() -> None:
    doc = loaded(bad_inputs.by_name("mostly-invalid-utf8"))
    data = make("mostly-invalid-utf8")
    assert doc.text == data.decode("cp1252") and len(doc.text) == len(data)


def test_a_1000_column_table_is_one_table_block_with_its_rows() -> None:
    doc = loaded(bad_inputs.by_name("table-1000-cols"))
    [table] = [b for b in doc.blocks if b.kind == "table"]
    assert len(table.rows) == bad_inputs.TABLE_ROWS + 1 and table.rows[0].header
    header = doc.text[table.rows[0].start : table.rows[0].end]
    assert header.count("|") == bad_inputs.TABLE_COLUMNS + 1
    chunks = split(doc, ChunkSettings(splitter="structure", size=256, overlap=0))
    assert any("table_split" in c.flags for c in chunks)


def test_html_in_markdown_is_kept_as_source_text() -> None:
    doc = loaded(bad_inputs.by_name("html-md"))
    assert "<script>alert('x')</script>" in doc.text
    assert "html" in {b.kind for b in doc.blocks}


# --------------------------------------------------------------------------- command line


def run_cli(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "explorer", *args], capture_output=True, timeout=600, check=False
    )


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("bad")
    out = {}
    for x in all_inputs():
        out[x.name] = folder / x.filename
        out[x.name].write_bytes(make(x))
    return out


@pytest.mark.parametrize("command", ["text", "chunk"])
@pytest.mark.parametrize("item", ERRORS, ids=ids)
def test_the_command_line_exits_2_with_one_line(
    files: dict[str, Path], item: BadInput, command: str
) -> None:
    res = run_cli(command, str(files[item.name]))
    err = res.stderr.decode()
    assert res.returncode == 2, err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith(f"error: {item.filename}") and MESSAGES[item.name] in err
    assert res.stdout == b""


@pytest.mark.parametrize("item", LOADS, ids=ids)
def test_the_command_line_chunks_with_a_line_per_warning(
    files: dict[str, Path], item: BadInput
) -> None:
    res = run_cli("chunk", str(files[item.name]))
    assert res.returncode == 0, res.stderr
    warnings = res.stderr.decode().splitlines()
    assert len(warnings) == len(WARNINGS[item.name]), warnings
    for line, expected in zip(warnings, WARNINGS[item.name], strict=True):
        assert line.startswith(f"warning: {item.filename}: {expected}")
    records = [json.loads(line) for line in res.stdout.decode().splitlines()]
    assert records and [r["index"] for r in records] == list(range(len(records)))


def test_the_command_line_prints_decoded_text(files: dict[str, Path]) -> None:
    res = run_cli("text", str(files["utf16-md"]))
    assert res.returncode == 0 and res.stdout.decode() == bad_inputs._FRENCH
    assert res.stderr.decode().startswith("warning: utf16.md: decoded as UTF-16")


def run_main(*args: str) -> tuple[int, str, str]:
    """``explorer.cli.main`` in this process: the exit status, stdout and stderr."""
    from explorer.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


#: JSON no command may fail on with a traceback, and what the one line says of each.
HOSTILE_JSON = {
    "deep": ("[" * 2000, "nested too deeply (more than 100 levels"),
    "digits": ("[" + "1" * 5001 + "]", "a number has 5,001 digits (at most 4,300 are read)"),
    "surrogate": ('["\\ud800"]', "half of a UTF-16 surrogate pair"),
}

#: Every place a command reads JSON: the command line, with FILE for the hostile file (written
#: as the command wants it) and TEXT for the hostile text itself.
BM25 = ["--retriever", "bm25"]
REFUND, LAB = str(SAMPLES / "refund-policy.md"), str(SAMPLES / "lab-rules.md")
JSON_READERS = {
    "chunk --options": ["chunk", REFUND, "--options", "TEXT"],
    "chunk --edits": ["chunk", REFUND, "--edits", "FILE"],
    "query --edits": ["query", REFUND, "q", "--edits", "FILE", *BM25],
    "query --docs --edits": ["query", "q", "--docs", REFUND, LAB, "--edits", "FILE", *BM25],
    "eval --queries": ["eval", "--queries", "FILE", "--docs", str(SAMPLES), *BM25],
    "eval --edits": ["eval", "--queries", "QUERIES", "--docs", str(SAMPLES), "--edits", "FILE",
                     *BM25],
    "sweep --queries": ["sweep", "--queries", "FILE", "--docs", str(SAMPLES), "--sizes", "99",
                        *BM25],
    "ab --queries": ["ab", "--queries", "FILE", "--docs", str(SAMPLES), "--a", "retriever=bm25"],
    "ab --edits": ["ab", "--queries", "QUERIES", "--docs", str(SAMPLES), "--edits", "FILE",
                   "--a", "retriever=bm25"],
    "diff --queries": ["diff", REFUND, LAB, "--queries", "FILE", *BM25],
    "index --queries": ["index", str(SAMPLES), "--queries", "FILE", "--no-cache"],
    "convert jsonl": ["convert", "jsonl", "FILE", str(SAMPLES), "--out", "OUT"],
    "convert chroma": ["convert", "chroma", "CSV", str(SAMPLES), "--out", "OUT"],
}  # fmt: skip


@pytest.mark.parametrize("payload", HOSTILE_JSON)
@pytest.mark.parametrize("reader", JSON_READERS)
def test_hostile_json_is_one_error_line_from_every_command(
    tmp_path: Path, reader: str, payload: str
) -> None:
    """2,000 nested brackets, a 5,001-digit number or a lone surrogate, wherever a command reads
    JSON: exit 2 and one ``error:`` line (not a RecursionError or ValueError traceback), and
    no output written."""
    text, message = HOSTILE_JSON[payload]
    hostile = tmp_path / "hostile.json"
    hostile.write_text(text, encoding="utf-8")
    queries = tmp_path / "queries.json"
    queries.write_text(json.dumps([{"id": "a", "doc": "refund-policy.md", "query": "refund?",
                                    "evidence": ["within seven days"]}]))  # fmt: skip
    chroma = tmp_path / "questions.csv"
    chroma.write_text(
        "question,references,corpus_id\n" + f'refund?,"{text.replace(chr(34), 2 * chr(34))}",'
        "refund-policy\n",
        encoding="utf-8",
    )
    out = tmp_path / "out.json"
    given = {"TEXT": text, "FILE": str(hostile), "QUERIES": str(queries), "CSV": str(chroma),
             "OUT": str(out)}  # fmt: skip
    args = [given.get(a, a) for a in JSON_READERS[reader]]
    code, printed, err = run_main(*args)
    assert code == 2, err
    assert err.count("\n") == 1 and err.startswith("error: ") and message in err, err
    assert printed == "" and not out.exists()


@pytest.mark.parametrize(
    "content", ["x = " + "[" * 3000 + "]" * 3000, "x = " + "1" * 5001], ids=["deep", "digits"]
)
def test_a_hostile_lesson_file_is_one_error_line(tmp_path: Path, content: str) -> None:
    (tmp_path / "1-bad.toml").write_text(content + "\n", encoding="utf-8")
    code, _, err = run_main("lessons", "check", "--lessons", str(tmp_path))
    assert code == 2 and err == (
        "error: 1-bad.toml: cannot be read as a lesson (nested too deeply, or a number too long)\n"
    )


# --------------------------------------------------------------------------- limits


def _pdf(pages: int, *, text: str = "Some words on a page.") -> bytes:
    doc = pymupdf.open()
    for n in range(pages):
        doc.new_page().insert_text((72, 72), f"{text} {n + 1}")
    data: bytes = doc.tobytes()
    return data


def test_a_pdf_over_the_page_limit_is_refused_before_reading(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(opening, "MAX_PAGES", 3)  # read where it is defined
    assert len(load_document(_pdf(3), name="ok.pdf").pages) == 3
    with pytest.raises(DocumentError) as err:
        load_document(_pdf(4), name="long.pdf")
    assert str(err.value) == (
        "long.pdf has 4 pages, over the limit of 3 pages for one document; split the PDF "
        "(for example by chapter) and load the parts one at a time"
    )


def test_a_pdf_over_the_character_limit_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reader, "MAX_CHARS", 50)  # read in reader, as pages are read
    with pytest.raises(DocumentError) as err:
        load_document(_pdf(5), name="wordy.pdf")
    assert str(err.value).startswith("wordy.pdf is too long (over 50 characters by page 3)")
    assert "split the file" in str(err.value)


def test_the_limits_are_what_the_docs_say() -> None:
    assert documents.MAX_CHARS == 10_000_000
    assert pdf.MAX_PAGES == 3_000
    assert documents.MAX_NESTING == 20
    assert documents.MAX_MARKDOWN_LINES == 300_000
    assert bad_inputs.PAGES <= pdf.MAX_PAGES
    assert len(make("md-50mb")) > documents.MAX_CHARS


def test_a_grid_page_is_read_as_text_without_find_tables() -> None:
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 60), "Graph paper with a caption.")
    for i in range(60):  # 60 x 60 ruling lines: 3,600 crossings
        page.draw_line((50, 80 + i * 10), (550, 80 + i * 10), width=0.3)
        page.draw_line((50 + i * 8.3, 80), (50 + i * 8.3, 670), width=0.3)
    page.insert_text((60, 95), "cell text")
    loaded_doc = load_document(doc.tobytes(), name="grid.pdf")
    assert "Graph paper with a caption." in loaded_doc.text
    assert any("find_tables skipped on 1 pages" in n for n in loaded_doc.normalisation)
