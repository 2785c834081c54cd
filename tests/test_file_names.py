"""File names that are not UTF-8: on Linux a name is bytes, and Python keeps the bytes that are not
UTF-8 as lone surrogates (``b"caf\\xe9.md"`` is ``"caf\\udce9.md"``), which no UTF-8 output, JSON
or browser accepts. Such a document is named with U+FFFD everywhere it is shown (its name, its
chunks, the command line's text and JSON, the app's tables) and still read from its real path."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from explorer.documents.folder import load_folder
from explorer.documents.load import load_path
from explorer.documents.model import display_name, document_name
from explorer.workspace import Workspace
from tests.test_cli import run_cli
from tests.test_corpus_page import corpus_page, table

pytestmark = pytest.mark.skipif(
    sys.platform != "linux", reason="only Linux keeps file names as bytes that may not be UTF-8"
)

RAW = b"caf\xe9.md"  # latin-1 "café.md"
SHOWN = "caf\ufffd.md"
TEXT = "# Café\n\nRefunds are available within seven days of purchase.\n"


def write(folder: Path, raw_name: bytes, text: str = TEXT) -> Path:
    """A file whose name is the bytes ``raw_name``; its path as Python sees it."""
    path = os.path.join(os.fsencode(str(folder)), raw_name)
    with open(path, "wb") as f:
        f.write(text.encode("utf-8"))
    return Path(os.fsdecode(path))


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    write(tmp_path, RAW)
    write(tmp_path, b"plain.md", "# Plain\n\nParcels abroad take two weeks to arrive.\n")
    return tmp_path


def test_a_name_that_is_not_utf8_is_shown_with_replacement_characters() -> None:
    assert display_name("caf\udce9.md") == SHOWN
    assert display_name(Path("/docs/caf\udce9/x.md")) == "/docs/caf\ufffd/x.md"
    assert display_name("café.md") == "café.md"  # UTF-8 names are left alone
    assert display_name("caf\ud800.md") == "caf\ufffd\ufffd\ufffd.md"  # not from a file system
    assert document_name(Path("/docs/caf\udce9.md")) == SHOWN
    SHOWN.encode("utf-8")  # writable


def test_the_document_is_read_from_its_real_path(folder: Path) -> None:
    path = next(p for p in folder.iterdir() if p.name != "plain.md")
    assert path.name == "caf\udce9.md" and path.is_file()
    doc = load_path(path)
    assert doc.name == SHOWN and doc.text == TEXT
    assert Workspace().load_path(path).name == SHOWN
    loaded = load_folder(folder)
    assert loaded.names == (SHOWN, "plain.md")
    assert loaded.paths[0] == path  # the real path, to read it again


def test_two_names_that_read_the_same_are_one_document_and_one_sentence(tmp_path: Path) -> None:
    write(tmp_path, b"caf\xe9.md")
    write(tmp_path, b"caf\xea.md", "# Other\n\nA different text altogether.\n")
    loaded = load_folder(tmp_path)
    assert loaded.names == (SHOWN,)
    [skipped] = loaded.skipped
    assert (
        skipped.reason.startswith(f"{SHOWN}: the same name as ") and "rename one" in skipped.reason
    )
    skipped.reason.encode("utf-8")


def test_chunk_and_text_print_the_name_shown(folder: Path) -> None:
    path = str(next(p for p in folder.iterdir() if p.name != "plain.md"))
    res = run_cli("chunk", path, "--splitter", "recursive", "--unit", "chars", "--size", "40")
    assert res.returncode == 0, res.stderr.decode("utf-8", "replace")
    records = [json.loads(line) for line in res.stdout.decode("utf-8").splitlines()]
    assert records and {r["doc"] for r in records} == {SHOWN}
    text = run_cli("text", path)
    assert text.returncode == 0 and text.stdout.decode("utf-8") == TEXT


def test_query_over_the_folder_prints_json_with_the_name_shown(folder: Path) -> None:
    write(folder, b"r\xe9sum\xe9.docx")  # a type that is not read: skipped, its name shown
    res = run_cli("query", "--docs", str(folder), "--retriever", "bm25", "How long for a refund?")
    assert res.returncode == 0, res.stderr.decode("utf-8", "replace")
    out = json.loads(res.stdout.decode("utf-8"))
    assert [d["name"] for d in out["documents"]] == [SHOWN, "plain.md"]
    assert out["documents"][0]["path"] == str(folder / SHOWN)
    assert out["hits"][0]["doc"] == SHOWN
    [skipped] = out["skipped"]
    assert skipped["path"] == str(folder / "r\ufffdsum\ufffd.docx")
    assert skipped["reason"].startswith("r\ufffdsum\ufffd.docx")


def test_eval_over_the_folder_as_a_corpus_prints_the_name_shown(folder: Path) -> None:
    queries = folder.parent / "queries.json"
    question = {"id": "p", "doc": "plain.md", "query": "How long do parcels abroad take?"}
    queries.write_text(json.dumps([{**question, "evidence": ["two weeks"]}]), encoding="utf-8")
    common = ["--queries", str(queries), "--docs", str(folder), "--retriever", "bm25"]
    res = run_cli("eval", *common, "--scope", "corpus", "--json")
    assert res.returncode == 0, res.stderr.decode("utf-8", "replace")
    out = json.loads(res.stdout.decode("utf-8"))
    assert out["documents"] == [SHOWN, "plain.md"]
    assert set(out["retrieval_map"]["documents"]) == {SHOWN, "plain.md"}
    text = run_cli("eval", *common, "--scope", "corpus")
    assert text.returncode == 0, text.stderr.decode("utf-8", "replace")
    assert f"{SHOWN}:" in text.stdout.decode("utf-8")


def test_the_corpus_page_lists_the_folder_s_document(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CHUNK_EXPLORER_DOCS", str(folder))  # what --docs allows
    at = corpus_page(cp_samples=[], cp_folder=str(folder))
    assert not at.error, [e.value for e in at.error]
    [overview] = table(at, "flagged")
    assert list(overview["document"]) == [SHOWN, "plain.md"]
