"""Export: chunks as JSON Lines, and a manifest that records how they were made.

Each record holds the chunk as displayed (``text``, exactly ``doc.text[start:end]``) beside what
an index should embed for it (``embedded_text``: after its heading path when the configuration
prefixes it, or after the document's title and heading path with a contextual header, with its
table's header rows when it holds body rows without them), and the same
under the names LangChain and LlamaIndex take, so a line loads as either::

    from langchain_core.documents import Document
    from llama_index.core.schema import TextNode

    Document(page_content=r["page_content"], metadata=r["metadata"])
    TextNode(id_=r["id"], text=r["text"], metadata=r["metadata"],
             start_char_idx=r["start"], end_char_idx=r["end"])

The manifest records the document and its version, the splitter and its version, the size
measure, the overlap, the normalisation, the embedding model, the retrieval and the context
settings (and, from the app, k and the budget): all that made the chunks and their answers.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from explorer.chunking.edits import Edit, edits_json, encode_edits
from explorer.chunking.records import Chunk, embedded_text
from explorer.config import Config
from explorer.documents.model import Document
from explorer.retrieval.context import TableHeaders


def app_version() -> str:
    try:
        return version("chunk-explorer")
    except PackageNotFoundError:  # running from a source tree that was not installed
        return "0+unknown"


def records(
    doc: Document, config: Config, chunks: Sequence[Chunk], *, edits: Sequence[Edit] = ()
) -> list[dict[str, Any]]:
    """Every chunk as a flat JSON-ready dict (see the module); with what-if ``edits``, each
    names them (``"edits"``, in the compact form of :func:`explorer.chunking.edits.encode_edits`)
    and a dropped chunk is flagged ``dropped``."""
    headers = TableHeaders.of(doc) if config.table_headers else None
    out = [chunk_record(doc, config, c, headers=headers) for c in chunks]
    if edits:
        for r in out:
            r["edits"] = encode_edits(edits)
    return out


def chunk_record(
    doc: Document, config: Config, chunk: Chunk, *, headers: TableHeaders | None = None
) -> dict[str, Any]:
    """One chunk as a flat JSON-ready dict; ``text`` is exactly ``doc.text[start:end]``."""
    settings = config.chunking
    title = doc.title if config.context_header != "off" else ""
    embedded = embedded_text(chunk, heading_prefix=config.heading_prefix, title=title)
    if headers is not None:
        rows = [doc.text[s:e] for s, e in headers.for_span(chunk.start, chunk.end)]
        if rows:
            body = chunk.text
            embedded = embedded[: len(embedded) - len(body)] + "\n".join([*rows, body])
    where = {
        "id": chunk.id,
        "doc": doc.name,
        "doc_sha256": doc.sha256,
        "index": chunk.index,
        "start": chunk.start,
        "end": chunk.end,
    }
    metadata = {
        **where,
        "page_start": chunk.page_start,
        "page_end": chunk.page_end,
        "heading_path": list(chunk.heading_path),
        "embedded_text": embedded,
    }
    return {
        **where,
        "text": chunk.text,
        "embedded_text": embedded,
        "size": chunk.size,
        "unit": settings.unit,
        "page_start": chunk.page_start,
        "page_end": chunk.page_end,
        "heading_path": list(chunk.heading_path),
        "overlap": chunk.overlap,
        "flags": list(chunk.flags),
        "page_content": chunk.text,
        "metadata": metadata,
    }


def manifest(
    doc: Document,
    config: Config,
    chunks: Sequence[Chunk],
    *,
    k: int | None = None,
    budget: int | None = None,
    edits: Sequence[Edit] = (),
) -> dict[str, Any]:
    """Everything needed to reproduce or compare an export (``k`` and ``budget``: the answer's,
    when the export comes with one; ``edits``: the what-if edits the chunks were made with)."""
    settings = config.chunking
    out: dict[str, Any] = {
        "app": "chunk-explorer",
        "app_version": app_version(),
        "document": {
            "name": doc.name,
            "kind": doc.kind,
            "sha256": doc.sha256,
            "characters": len(doc.text),
            "pages": len(doc.pages) or None,
        },
        "splitter": {"name": settings.splitter, "version": settings.version},
        "size": {
            "unit": settings.unit,
            "measure": settings.measure.label,
            "encoding": settings.encoding if settings.unit == "tokens" else None,
            "limit": settings.size,
            "overlap": settings.overlap,
        },
        "separators": list(settings.separators) if settings.splitter == "recursive" else None,
        "options": dict(settings.options) or None,
        "normalisation": list(doc.normalisation),
        "embedding": {
            "model": config.model,
            "dense_scores_from": config.dense,
            "heading_prefix": config.heading_prefix,
            "context_header": config.context_header,
            "title": doc.title if config.context_header != "off" else None,
        },
        "retrieval": {
            "retriever": config.retriever,
            "carry": config.carry,
            "bm25_context_header": config.context_header == "embed+bm25",
        },
        "context": {
            "neighbours": config.neighbours,
            "section": config.section,
            "merge": config.merge,
            "table_headers": config.table_headers,
            "fill": config.fill,
            "k": k,
            "budget": budget,
        },
        "config": config.to_json(),
        "edits": edits_json(edits),
        "offsets": "half-open [start, end) code-point indices into the document text",
        "ids": "a hash of the settings, heading path, occurrence and text: an unchanged chunk "
        "keeps its id in another version of the document (doc_sha256 names the version)",
        "embedded_text": "what an index should embed for a chunk: after its heading path when "
        "heading_prefix is on, or after the document's title and heading path when "
        "context_header is on (with embed+bm25, BM25 indexes the chunk after that header too), "
        "with its table's header rows when it holds body rows without them and table_headers "
        "is on; text is what is displayed",
        "chunks": len(chunks),
    }
    return out


_LINE_BREAKS = str.maketrans({"\x85": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"})
"""The line breaks ``json.dumps`` leaves raw (it escapes those below U+0020) but
``str.splitlines()`` splits on: written as JSON's escapes, which read back as the same text."""


def jsonl_line(record: dict[str, Any]) -> str:
    """``record`` as one JSON Lines line (UTF-8 text kept as it is, ending in ``\\n``) that every
    reader sees as one line, ``str.splitlines()`` too."""
    return json.dumps(record, ensure_ascii=False).translate(_LINE_BREAKS) + "\n"


def to_jsonl(items: Iterable[dict[str, Any]]) -> str:
    return "".join(jsonl_line(r) for r in items)
