"""Where the app's documents come from: the bundled samples, uploads (their size limit, the last
few kept), and folders (a fingerprint that changes when their files do)."""

from __future__ import annotations

import hashlib
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


def folder_fingerprint(folder: Path) -> str:
    """A short hash of the names, sizes and modification times of the files in ``folder``: it
    changes when a file there is added, removed or rewritten."""
    entries = []
    for p in sorted(folder.iterdir()) if folder.is_dir() else []:
        try:
            stat = p.stat()
        except OSError:
            continue
        if p.is_file():
            entries.append(f"{p.name}\0{stat.st_size}\0{stat.st_mtime_ns}")
    return hashlib.sha256("\n".join(entries).encode("utf-8", "surrogatepass")).hexdigest()[:16]


KEEP_UPLOADS = 5
"""Uploaded documents a session keeps to switch back to; older ones are forgotten."""


def remember(uploads: dict[str, Any], name: str, entry: Any, *, keep: int = KEEP_UPLOADS) -> None:
    """Add ``name`` as the newest upload, forgetting the oldest beyond ``keep``."""
    uploads.pop(name, None)
    uploads[name] = entry
    while len(uploads) > keep:
        del uploads[next(iter(uploads))]
