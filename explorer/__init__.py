"""Chunk Explorer: see what chunking does to your documents before you build a RAG index.

The public API::

    from explorer import Config, Workspace, ask, load_path, split

    doc = load_path("sample_docs/refund-policy.md")
    chunks = split(doc, Config().chunking)
    answer = ask(doc, "How long do I have to ask for a refund?", evidence=["within seven days"])

    ws = Workspace("queries/docs")  # documents, chunks, retrievers and vectors, made once
    answer = ws.answer("How long do I have to ask for a refund?", ["within seven days"],
                       config=Config())  # one ranking over every document of the folder

The library never imports streamlit, and ``import explorer`` stays cheap: tokenizers, PyMuPDF
and sentence-transformers are imported inside the functions that need them.
"""

from explorer.answer import Answer, CorpusAnswer
from explorer.chunking.edits import Edit, apply_edits
from explorer.chunking.records import Chunk, ChunkSettings
from explorer.chunking.splitters import split
from explorer.config import Config
from explorer.corpus import Corpus
from explorer.documents import Document, load_document, load_folder, load_path
from explorer.errors import (
    DocumentError,
    EditError,
    EmbeddingError,
    ExplorerError,
    MeasureError,
    QuerySetError,
    SettingsError,
)
from explorer.retrieval.evidence import Verdict
from explorer.retrieval.retriever import Retriever
from explorer.workspace import Workspace, ask

__all__ = [
    "Answer",
    "Chunk",
    "ChunkSettings",
    "Config",
    "Corpus",
    "CorpusAnswer",
    "Document",
    "DocumentError",
    "Edit",
    "EditError",
    "EmbeddingError",
    "ExplorerError",
    "MeasureError",
    "QuerySetError",
    "Retriever",
    "SettingsError",
    "Verdict",
    "Workspace",
    "apply_edits",
    "ask",
    "load_document",
    "load_folder",
    "load_path",
    "split",
]
