"""Export: chunks as JSON Lines, and a manifest that records how they were made."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from explorer.chunking.splitters import Chunk, ChunkSettings
from explorer.documents.model import Document


def app_version() -> str:
    try:
        return version("chunk-explorer")
    except PackageNotFoundError:  # running from a source tree that was not installed
        return "0+unknown"


def chunk_record(doc: Document, settings: ChunkSettings, chunk: Chunk) -> dict[str, Any]:
    """One chunk as a flat JSON-ready dict; ``text`` is exactly ``doc.text[start:end]``."""
    return {
        "id": chunk.id,
        "doc": doc.name,
        "doc_sha256": doc.sha256,
        "index": chunk.index,
        "start": chunk.start,
        "end": chunk.end,
        "text": chunk.text,
        "size": chunk.size,
        "unit": settings.unit,
        "page_start": chunk.page_start,
        "page_end": chunk.page_end,
        "heading_path": list(chunk.heading_path),
        "overlap": chunk.overlap,
        "flags": list(chunk.flags),
    }


def manifest(doc: Document, settings: ChunkSettings, chunks: Sequence[Chunk]) -> dict[str, Any]:
    """Everything needed to reproduce or compare an export."""
    return {
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
        "normalisation": list(doc.normalisation),
        "offsets": "half-open [start, end) code-point indices into the document text",
        "ids": "a hash of the settings, heading path, occurrence and text: an unchanged chunk "
        "keeps its id in another version of the document (doc_sha256 names the version)",
        "chunks": len(chunks),
    }


def to_jsonl(records: Iterable[dict[str, Any]]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
