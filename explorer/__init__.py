"""Chunk Explorer: see what chunking does to your documents before you build a RAG index.

The library never imports streamlit, and ``import explorer`` stays cheap: tokenizers, PyMuPDF
and sentence-transformers are imported inside the functions that need them.
"""

from explorer.chunking.splitters import Chunk, ChunkSettings, split
from explorer.documents.load import load_document, load_path
from explorer.documents.model import Document
from explorer.errors import DocumentError, ExplorerError, MeasureError, SettingsError

__all__ = [
    "Chunk",
    "ChunkSettings",
    "Document",
    "DocumentError",
    "ExplorerError",
    "MeasureError",
    "SettingsError",
    "load_document",
    "load_path",
    "split",
]
