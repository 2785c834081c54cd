"""The documents the app offers: the bundled samples (and the project's query set, which the
Evaluate page starts with), and a visitor's uploads: the types taken, the size limit, the last
few kept. (What the app may read on the machine, folders and models, is :mod:`ui.allowed`'s.)"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from explorer import resources
from explorer.documents.load import documents_in
from explorer.errors import DocumentError

SAMPLES_DIR = resources.samples_dir()


QUERY_SET = resources.query_set()
"""The project's query set: what the Evaluate page starts with."""


UPLOAD_TYPES = ("pdf", "md", "markdown", "txt")
"""Suffixes the app accepts for upload (without the dot)."""


NOT_SAMPLES = frozenset({"SOURCES.md", "README.md", "LICENSE.md"})
"""Files in the samples folder that describe the samples rather than being one."""


def sample_paths(folder: Path = SAMPLES_DIR) -> list[Path]:
    """The bundled sample documents, Markdown first, then the rest by name."""
    if not folder.is_dir():
        return []
    found = [p for p in documents_in(folder) if p.name not in NOT_SAMPLES]
    return sorted(found, key=lambda p: (p.suffix.lower() != ".md", p.name))


def check_upload_size(name: str, n_bytes: int, *, limit_mb: int) -> None:
    """Refuse a file over the upload limit with a message that names both sizes."""
    if n_bytes > limit_mb * 1024 * 1024:
        raise DocumentError(
            f"{name}: the file is {n_bytes / 1024 / 1024:.1f} MB; the upload limit is "
            f"{limit_mb} MB. Split the document or raise server.maxUploadSize in "
            ".streamlit/config.toml"
        )


KEEP_UPLOADS = 5
"""Uploaded documents a session keeps to switch back to; older ones are forgotten."""


def remember(uploads: dict[str, Any], name: str, entry: Any, *, keep: int = KEEP_UPLOADS) -> None:
    """Add ``name`` as the newest upload, forgetting the oldest beyond ``keep``."""
    uploads.pop(name, None)
    uploads[name] = entry
    while len(uploads) > keep:
        del uploads[next(iter(uploads))]
