"""The export: JSON Lines records that load as LangChain Documents and LlamaIndex TextNodes,
what is embedded beside what is displayed, and a manifest of everything that made them."""

from __future__ import annotations

import json

from explorer.config import Config
from explorer.export import manifest, records, to_jsonl
from explorer.workspace import Workspace
from tests.conftest import SAMPLES

GUIDE = SAMPLES / "writing-guide.md"


def test_records_load_as_langchain_documents_and_llamaindex_nodes() -> None:
    from langchain_core.documents import Document as LangChainDocument
    from llama_index.core.schema import TextNode

    ws = Workspace()
    doc = ws.load_path(GUIDE)
    config = Config().replace(size=64, overlap=0, heading_prefix=True)
    chunks = ws.chunks(doc, config)
    lines = [json.loads(line) for line in to_jsonl(records(doc, config, chunks)).splitlines()]
    assert len(lines) == len(chunks)
    for r, c in zip(lines, chunks, strict=True):
        assert r["text"] == r["page_content"] == doc.text[r["start"] : r["end"]] == c.text
        lc = LangChainDocument(page_content=r["page_content"], metadata=r["metadata"])
        node = TextNode(
            id_=r["id"],
            text=r["text"],
            metadata=r["metadata"],
            start_char_idx=r["start"],
            end_char_idx=r["end"],
        )
        assert lc.page_content == node.text == c.text and node.id_ == c.id
        assert lc.metadata["doc_sha256"] == doc.sha256 and node.metadata["index"] == c.index


def test_what_is_embedded_stands_beside_what_is_displayed() -> None:
    ws = Workspace()
    doc = ws.load_path(GUIDE)
    config = Config().replace(splitter="fixed", unit="chars", size=120, overlap=0)
    prefixed = config.replace(heading_prefix=True)
    plain = {r["index"]: r for r in records(doc, config, ws.chunks(doc, config))}
    with_prefix = records(doc, prefixed, ws.chunks(doc, prefixed))
    headed = [r for r in with_prefix if r["heading_path"]]
    assert headed
    for r in headed:
        assert r["embedded_text"].startswith(" > ".join(r["heading_path"]) + "\n\n")
        assert r["embedded_text"].endswith(r["text"]) and r["text"] == plain[r["index"]]["text"]
    # a chunk of a table's body rows, without its header, is embedded after the header rows
    table = next(b for b in doc.blocks if b.kind == "table")
    header = doc.text[table.rows[0].start : table.rows[0].end]
    body = [r for r in plain.values() if r["start"] > table.rows[0].end and r["end"] <= table.end]
    assert body, "some chunk holds body rows only"
    assert all(r["embedded_text"].startswith(header) for r in body)
    off = records(doc, config.replace(table_headers=False), ws.chunks(doc, config))
    assert all(r["embedded_text"] == r["text"] for r in off)


def test_the_manifest_records_the_model_retrieval_and_context() -> None:
    ws = Workspace()
    doc = ws.load_path(GUIDE)
    config = Config().replace(size=128, overlap=16, retriever="bm25", neighbours=1, fill=False)
    m = json.loads(json.dumps(manifest(doc, config, ws.chunks(doc, config), k=3, budget=512)))
    assert m["splitter"] == {"name": "structure", "version": config.chunking.version}
    assert m["size"]["unit"] == "tokens" and m["size"]["encoding"]
    assert (m["size"]["limit"], m["size"]["overlap"]) == (128, 16)
    assert m["document"]["sha256"] == doc.sha256 and m["app_version"]
    assert m["embedding"] == {
        "model": config.model,
        "dense_scores_from": "passages",
        "heading_prefix": False,
        "context_header": "off",
        "title": None,
    }
    assert m["retrieval"] == {
        "retriever": "bm25",
        "carry": config.carry,
        "bm25_context_header": False,
    }
    assert m["context"]["neighbours"] == 1 and m["context"]["fill"] is False
    assert (m["context"]["k"], m["context"]["budget"]) == (3, 512)
    assert Config.from_json(m["config"]) == config  # the flat configuration, without loss
