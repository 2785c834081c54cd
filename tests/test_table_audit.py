"""The table audit (issue 26): tables split, rows cut mid-row, continuations without the header
row and cohesion, for any chunks with exact offsets — checked against chunks made by hand, the
shared corpus's PDFs at 250-character windows and the default configuration, and the CLI."""

from __future__ import annotations

import json

import pytest

from explorer.chunking.records import Chunk, ChunkSettings
from explorer.chunking.splitters import split
from explorer.chunking.tables import table_audit, table_audit_by_chunk
from explorer.config import Config
from explorer.documents.load import load_document
from tests.conftest import SAMPLES, corpus_files, load_cached
from tests.test_cli import run_cli

TABLE = (
    "# Prices\n\nIntro paragraph.\n\n"
    "| Plan | Price |\n|---|---|\n| Basic | 5 |\n| Team | 20 |\n| Enterprise | 90 |\n\n"
    "After the table.\n"
)


def chunk(doc, a: int, b: int, index: int, flags: tuple[str, ...] = ()) -> Chunk:  # type: ignore[no-untyped-def]
    return Chunk(f"c{index}", index, a, b, doc.text[a:b], 1, 0, (), None, None, flags)


def test_made_by_hand_each_count_is_what_the_chunks_do() -> None:
    doc = load_document(TABLE.encode(), name="t.md")
    [table] = [b for b in doc.blocks if b.kind == "table"]
    head, basic, team, _enterprise = (r for r in table.rows if r.start != r.end)
    assert head.header and not basic.header
    mid_team = team.start + 4
    chunks = [
        chunk(doc, 0, basic.end, 0),  # the intro, the header and Basic
        chunk(doc, basic.end + 1, mid_team, 1),  # half of Team, no header
        chunk(doc, mid_team, len(doc.text.rstrip()), 2),  # the rest of Team, Enterprise
    ]
    audit = table_audit(doc, chunks)
    assert (audit.tables, audit.split, audit.rows_cut, audit.without_header) == (1, 1, 1, 2)
    assert audit.cohesion == pytest.approx(1 / 3)
    whole = table_audit(doc, [chunk(doc, 0, len(doc.text.rstrip()), 0)])
    assert (whole.split, whole.rows_cut, whole.without_header, whole.cohesion) == (0, 0, 0, 1.0)
    # a dropped chunk never reaches the index: the audit leaves it out
    dropped = [chunks[0], chunk(doc, basic.end + 1, len(doc.text.rstrip()), 1, ("dropped",))]
    assert table_audit(doc, dropped).cohesion == 1.0


def test_each_chunk_is_named_with_what_it_does_to_the_table() -> None:
    doc = load_document(TABLE.encode(), name="t.md")
    [table] = [b for b in doc.blocks if b.kind == "table"]
    _head, basic, team, _enterprise = (r for r in table.rows if r.start != r.end)
    mid_team = team.start + 4
    chunks = [
        chunk(doc, 0, basic.end, 0),  # the header and Basic, whole
        chunk(doc, basic.end + 1, mid_team, 1),  # half of Team, no header
        chunk(doc, mid_team, len(doc.text.rstrip()), 2),  # the rest of Team, Enterprise
    ]
    audit, by_chunk = table_audit_by_chunk(doc, chunks)
    assert audit == table_audit(doc, chunks)
    assert by_chunk == {
        0: {"splits_table"},  # whole rows, the header with them: only part of the table
        1: {"splits_table", "cuts_row", "no_header"},
        2: {"splits_table", "cuts_row", "no_header"},
    }
    assert sum("no_header" in p for p in by_chunk.values()) == audit.without_header
    # one chunk over the whole table harms nothing
    assert table_audit_by_chunk(doc, [chunk(doc, 0, len(doc.text.rstrip()), 0)])[1] == {}


def test_a_document_without_tables_has_nothing_to_say() -> None:
    doc = load_document(b"# Title\n\nJust words.\n", name="plain.md")
    audit = table_audit(doc, split(doc, ChunkSettings()))
    assert audit.summary() == {
        "tables": 0, "split": 0, "rows_cut": 0, "without_header": 0, "cohesion": 1.0, "rows": 0,
    }  # fmt: skip


PDFS = [SAMPLES / "field-manual.pdf", *corpus_files(".pdf")]


def test_250_character_windows_cut_rows_and_the_default_cuts_none() -> None:
    """The issue's check over the shared corpus's PDFs with tables and the bundled manual."""
    windows = ChunkSettings(splitter="fixed", unit="chars", size=250, overlap=0)
    cut_by_windows = cut_by_default = tables = 0
    for path in PDFS:
        doc = load_cached(path)
        tables += table_audit(doc, split(doc, windows)).tables
        cut_by_windows += table_audit(doc, split(doc, windows)).rows_cut
        cut_by_default += table_audit(doc, split(doc, Config().chunking)).rows_cut
    assert tables >= 5
    assert cut_by_windows > 20
    assert cut_by_default == 0


def test_the_cli_audit_reports_tables_for_ours_and_a_library_s() -> None:
    pdf = str(SAMPLES / "field-manual.pdf")
    for extra in ([], ["--splitter", "langchain-recursive"]):
        res = run_cli("audit", pdf, "--json", *extra)
        assert res.returncode == 0, res.stderr
        tables = json.loads(res.stdout)["tables"]
        assert set(tables) == {"tables", "split", "rows_cut", "without_header", "cohesion", "rows"}
        assert tables["tables"] == 3 and 0 < tables["cohesion"] <= 1
    text = run_cli("audit", pdf, "--splitter", "fixed", "--unit", "chars", "--size", "250")
    assert b"tables: 3 (3 split, " in text.stdout


def test_eval_json_gives_the_table_audit_of_the_documents_it_searched() -> None:
    from tests.conftest import REPO

    queries = REPO / "queries" / "boundary-questions.json"
    args = ["eval", "--queries", str(queries), "--docs", str(REPO / "queries" / "docs")]
    bm25 = ["--retriever", "bm25", "--json"]
    default = json.loads(run_cli(*args, *bm25).stdout)["tables"]
    windows = json.loads(
        run_cli(*args, *bm25, "--splitter", "fixed", "--unit", "chars", "--size", "250").stdout
    )["tables"]
    assert default["tables"] == windows["tables"] > 0
    assert default["rows_cut"] == 0 < windows["rows_cut"]
    assert windows["cohesion"] < default["cohesion"] <= 1
