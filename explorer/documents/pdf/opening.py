"""Opening a PDF: PyMuPDF's document, or a DocumentError that says why it cannot be read.

Encrypted, empty, damaged or truncated files, and files of more than :data:`MAX_PAGES` pages, are
refused here, before any page is read.
"""

from __future__ import annotations

import contextlib
from typing import Any

import pymupdf as _pymupdf

from explorer.errors import DocumentError

#: The most pages read from one PDF, so that one load of a long report stays bounded in time; a
#: longer PDF is refused with a message to split it. (The text is also held to ``MAX_CHARS``.)
MAX_PAGES = 3_000

pymupdf: Any = _pymupdf  # PyMuPDF ships partial annotations only; treat it as untyped


def _reason(exc: Exception) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text[:120]


def open_pdf(data: bytes, *, name: str) -> Any:
    """Open the bytes with PyMuPDF, turning every way this fails into a DocumentError."""
    try:
        doc = pymupdf.open(stream=data, filetype="pdf")
        needs_pass, page_count, repaired = doc.needs_pass, doc.page_count, doc.is_repaired
    except Exception as exc:
        raise DocumentError(
            f"{name} is a damaged PDF that cannot be opened ({_reason(exc)}); "
            "it may be truncated or corrupt — download or export it again"
        ) from None
    truncated = b"%%EOF" not in data[-2048:]
    problem = None
    if needs_pass:
        problem = f"{name} is encrypted; open it without a password or remove the password first"
    elif page_count > MAX_PAGES:
        problem = (
            f"{name} has {page_count:,} pages, over the limit of {MAX_PAGES:,} pages for one "
            "document; split the PDF (for example by chapter) and load the parts one at a time"
        )
    elif page_count == 0 and (repaired or truncated):
        problem = (
            f"{name} is a damaged PDF (truncated or corrupt) and none of its pages could be "
            "recovered; download or export it again"
        )
    elif page_count == 0:
        problem = f"{name} has no pages; there is nothing to read in it"
    elif repaired and truncated:
        problem = (
            f"{name} is truncated (it ends before the PDF end marker %%EOF) and parts of it are "
            "missing; download or export it again"
        )
    if problem is not None:
        with contextlib.suppress(Exception):
            doc.close()
        raise DocumentError(problem)
    return doc
