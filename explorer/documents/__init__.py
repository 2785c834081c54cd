"""Documents: one text that every offset refers to, plus its structure.

A :class:`Document` is built from the bytes of a Markdown, plain-text or PDF file. Its ``text`` is
the single string that every offset in the project refers to: offsets are half-open
``[start, end)`` Python string indices (code points). For Markdown and plain text, ``text`` is the
decoded source itself (a UTF-8 byte-order mark is dropped), so offsets are source positions. For
PDF, ``text`` is the extracted text in reading order, and ``layout`` maps every offset that came
from a glyph back to its page and rectangle (see :mod:`explorer.documents.pdf`).

* :mod:`~explorer.documents.model` — the records (``Document``, ``Block``, ``Layout`` …);
* :mod:`~explorer.documents.load` — reading bytes: text, Markdown, pipe tables, folders;
* :mod:`~explorer.documents.pdf` — the PDF reader (PyMuPDF, imported on first use);
* :mod:`~explorer.documents.folder` — many files at once, the ones that cannot be used listed.
"""

from explorer.documents.folder import Loaded, Skipped, load_folder, load_paths
from explorer.documents.load import documents_in, load_document, load_path
from explorer.documents.model import (
    SUPPORTED_SUFFIXES,
    Block,
    Document,
    Heading,
    Layout,
    Line,
    Page,
    Rect,
    TableRow,
)

__all__ = [
    "SUPPORTED_SUFFIXES",
    "Block",
    "Document",
    "Heading",
    "Layout",
    "Line",
    "Loaded",
    "Page",
    "Rect",
    "Skipped",
    "TableRow",
    "documents_in",
    "load_document",
    "load_folder",
    "load_path",
    "load_paths",
]
