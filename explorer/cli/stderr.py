"""What commands say on stderr while they work: a document's warnings, the files that could not
be used, and the progress."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from explorer.documents.folder import Skipped
from explorer.documents.load import load_path
from explorer.documents.model import Document
from explorer.workspace import Workspace


def load_document(path: str, workspace: Workspace | None = None) -> Document:
    """Load the document at ``path``, printing each of its warnings as one line on stderr."""
    doc = workspace.load_path(path) if workspace is not None else load_path(path)
    warn(doc)
    return doc


def warn(doc: Document) -> None:
    """One ``warning:`` line on stderr per assumption the document was loaded with."""
    for warning in doc.warnings:
        print(f"warning: {doc.name}: {warning}", file=sys.stderr)


def print_skipped(skipped: Sequence[Skipped]) -> None:
    """One ``skipped:`` line on stderr per file that could not be used, with its reason."""
    for s in skipped:
        print(f"skipped: {s.reason}", file=sys.stderr)


def progress(fraction: float, message: str) -> None:
    """Progress redrawn in place on stderr when it is a terminal (nothing otherwise)."""
    if sys.stderr.isatty():
        print(f"\r{fraction:4.0%} {message[:100]:100s}", end="", file=sys.stderr, flush=True)
        if fraction >= 1:
            print(file=sys.stderr)
