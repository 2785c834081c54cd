"""The table audit as a diagnostics filter on the main page: the chunks that split a table, cut
a row, or continue a table without its header row are the only ones listed, tinted and offered
by the picker; the audit is cached per document and chunking."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from explorer.chunking.tables import table_audit_by_chunk
from explorer.documents.load import load_path
from tests.conftest import SAMPLES
from tests.test_app import (
    CHUNK_VIEW,
    assert_ok,
    badges,
    chunk_table,
    doc_html,
    expected_chunks,
    open_app,
    picker,
)
from ui import table_filter

SIZE = 32
"""32-token chunks split every table of the field manual and cut six of its rows."""


def _opened(name: str) -> AppTest:
    at = open_app(**(CHUNK_VIEW | {"size": SIZE}), pdf_view="Extracted text")
    at.selectbox(key="source").set_value(name).run()
    assert_ok(at)
    return at


def test_the_filter_keeps_the_chunks_that_harm_a_table() -> None:
    name = "field-manual.pdf"
    chunks = expected_chunks(name, size=SIZE)
    audit, problems = table_audit_by_chunk(load_path(SAMPLES / name), chunks)
    assert audit.split and audit.rows_cut and audit.without_header
    at = _opened(name)
    assert len(chunk_table(at)) == len(chunks)
    for choice, code in table_filter.FILTERS.items():
        if code is None:
            continue
        at.segmented_control(key=table_filter.KEY).set_value(choice).run()
        assert_ok(at)
        expected = sorted(i for i, codes in problems.items() if code in codes)
        assert 0 < len(expected) < len(chunks)
        assert list(chunk_table(at)["chunk"]) == expected
        assert len(picker(at).options) == len(expected)
        assert sorted({int(b) for b in badges(doc_html(at))}) == expected
        note = next(i.value for i in at.info if i.value.startswith("Table filter"))
        assert f"{len(expected):,}" in note or "one chunk" in note or "no chunk" in note
    at.segmented_control(key=table_filter.KEY).set_value(None).run()  # off again
    assert len(chunk_table(at)) == len(chunks)


def test_a_document_without_tables_has_no_filter() -> None:
    at = _opened("lab-rules.md")
    assert not [s for s in at.get("segmented_control") if s.key == table_filter.KEY]
