"""Chunk Explorer: see what chunking does to your documents before you build a RAG index.

The library never imports streamlit, and ``import explorer`` stays cheap: tokenizers, PyMuPDF
and sentence-transformers are imported inside the functions that need them.
"""

from explorer.documents import Document, load_document, load_path
from explorer.errors import DocumentError, ExplorerError, MeasureError, SettingsError
from explorer.splitters import Chunk, ChunkSettings, split

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
