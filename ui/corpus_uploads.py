"""Many files, or a whole folder, uploaded to the Corpus page from the browser.

An upload is taken in two steps, so that nothing is lost: the uploader's callback checks the
limits (how many files, how many bytes in all, each file's own size) and keeps the files it
takes, listing each one it cannot take with its reason; the page then reads them under a bar
with counts and the time left (:func:`read_pending`), each file that cannot be used listed
with its reason while the others load. A click during the reading stops the run, and the files
still to read are read on the next run.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import PurePosixPath
from typing import Any, Protocol

import streamlit as st

from explorer.errors import DocumentError, ExplorerError
from explorer.progress import Rate
from explorer.workspace import Workspace
from ui import frame, widgets
from ui.answers import n_of
from ui.sources import UPLOAD_TYPES, check_upload_size, remember

MAX_FILES = 500
"""Files one session's corpus takes from uploads (a documentation site's section)."""
MAX_TOTAL_MB = 200
"""Megabytes of uploads one session's corpus keeps in all (they stay in the session's memory)."""

KINDS = "not a PDF, Markdown or text file (.pdf, .md, .markdown, .txt); left out"

Entry = tuple[str, str, bytes]
"""(file name, sha256, bytes): how the page keeps an upload."""


class Uploaded(Protocol):
    name: str

    def getvalue(self) -> bytes: ...


def upload_name(file: Uploaded) -> str:
    """The name an uploaded file is known by: its path inside an uploaded folder (a browser
    gives ``docs/guide/intro.md``), else its file name. A name no file could have (empty, only
    ``/`` or ``..``, a NUL or another control character: a client other than a browser can send
    one) is refused with one :class:`DocumentError` that shows it escaped."""
    raw = str(file.name)
    shown = safe_name(raw)
    if any(ord(c) < 32 or ord(c) == 127 for c in raw):
        raise DocumentError(f"{shown}: the file name holds a control character; rename the file")
    parts = [p for p in PurePosixPath(raw.replace("\\", "/")).parts if p not in ("/", "..", ".")]
    if not parts:
        raise DocumentError(f"{shown}: not a file name; rename the file")
    return "/".join(parts)


def safe_name(raw: str) -> str:
    """A file name as a message shows it: control characters escaped, at most 120 characters."""
    shown = "".join(c if ord(c) >= 32 and ord(c) != 127 else f"\\x{ord(c):02x}" for c in raw)
    shown = shown if len(shown) <= 120 else shown[:117] + "…"
    return shown or "(an empty name)"


def folder_names(names: Sequence[str]) -> list[str]:
    """The names of a folder's files as the corpus keeps them: their paths inside the folder
    uploaded (a browser sends ``site/guide/intro.md`` for ``guide/intro.md`` of the folder
    ``site``), so a query set written inside the site names them as they are."""
    heads = {n.split("/", 1)[0] for n in names}
    if len(heads) == 1 and all("/" in n for n in names):
        return [n.split("/", 1)[1] for n in names]
    return list(names)


def take(
    files: Iterable[Uploaded],
    kept: dict[str, Entry],
    *,
    limit_mb: int,
    folder_files: Iterable[Uploaded] = (),
    max_files: int = MAX_FILES,
    max_total_mb: int = MAX_TOTAL_MB,
) -> tuple[dict[str, bytes], list[str]]:
    """The files to read (name → bytes) within the limits, beside those ``kept`` already, and
    one reason for each file left out. ``folder_files`` came from a folder's upload: they are
    named by their paths inside it (:func:`folder_names`)."""
    fresh: dict[str, bytes] = {}
    refused: list[str] = []
    count = len(kept)
    total = sum(len(e[2]) for e in kept.values())
    named: list[tuple[str, Uploaded]] = []
    for group, in_folder in ((files, False), (folder_files, True)):
        good: list[tuple[str, Uploaded]] = []
        for file in group:
            try:
                good.append((upload_name(file), file))
            except DocumentError as exc:
                refused.append(str(exc))
        names = folder_names([n for n, _ in good]) if in_folder else [n for n, _ in good]
        other: list[str] = []
        for n, (_, f) in zip(names, good, strict=True):
            suffix = PurePosixPath(n).suffix.lower().lstrip(".")
            if suffix in UPLOAD_TYPES:
                named.append((n, f))
            elif in_folder:  # a site's images and styles: one line for them all
                other.append(n)
            else:
                refused.append(f"{n}: {KINDS}")
        if other:
            suffixes = sorted({PurePosixPath(n).suffix.lower() or "(none)" for n in other})
            refused.append(
                f"{n_of(len(other), 'other file')} of the folder ({', '.join(suffixes[:8])}): "
                f"{KINDS}"
            )
    for name, file in named:
        data = file.getvalue()
        if name in fresh:
            refused.append(f"{name}: a second file of that name in this upload; rename one")
            continue
        try:
            check_upload_size(name, len(data), limit_mb=limit_mb)
        except DocumentError as exc:
            refused.append(str(exc))
            continue
        again = name in kept
        if not again and count + 1 > max_files:
            refused.append(
                f"{name}: the corpus holds at most {max_files:,} uploaded files; take some out "
                "(Uploaded files) or index the folder with `python -m explorer index DIR`"
            )
            continue
        before = len(kept[name][2]) if again else 0
        if total - before + len(data) > max_total_mb * 1024 * 1024:
            refused.append(
                f"{name}: the uploads would pass {max_total_mb:,} MB in all; take some out "
                "(Uploaded files) or ask the person running the app to allow the folder"
            )
            continue
        fresh[name] = data
        count += 0 if again else 1
        total += len(data) - before
    return fresh, refused


def read_pending(
    ws: Workspace,
    pending: dict[str, bytes],
    kept: dict[str, Entry],
    *,
    on_read: Callable[[str], None],
    keep: int = MAX_FILES,
) -> list[str]:
    """Read the files still ``pending`` (each removed from it once read, so a run stopped part
    way goes on where it stopped), under a bar with counts and the time left; returns one reason
    for each file that could not be used."""
    errors: list[str] = []
    if not pending:
        return errors
    rate = Rate(len(pending))
    progress, bar = widgets.progress_bar("Reading the uploads")
    try:
        for n, name in enumerate(list(pending)):
            progress(rate.fraction(n), f"{rate.note(n, 'files')} · {name}")
            data = pending[name]
            try:
                ws.load(data, name=name)
            except ExplorerError as exc:
                errors.append(_named(name, str(exc)))
            except Exception as exc:  # a bug in a reader: still one clear line, no traceback
                errors.append(f"{name}: could not be read ({type(exc).__name__}: {exc})")
            else:
                remember(kept, name, (name, frame.content_sha(data), data), keep=keep)
                on_read(name)
            del pending[name]
    finally:
        bar.empty()
    return errors


def _named(name: str, reason: str) -> str:
    """``reason`` naming the file by its path in the upload (a reader names it by its file name)."""
    base = PurePosixPath(name).name
    if name != base and reason.startswith(f"{base}:"):
        return name + reason[len(base) :]
    return reason if reason.startswith(f"{name}:") else f"{name}: {reason}"


def uploaders(on_change: Callable[[], None]) -> None:
    """The two uploaders: files (several at once) and a whole folder. They take any name: the
    names and kinds are checked here (:func:`take`), one line per file refused, since Streamlit's
    own check of a name a non-browser client crafted (a NUL, no suffix) stops the page."""
    st.file_uploader(
        "Upload PDF, Markdown or text files",
        accept_multiple_files=True,
        key="cp_upload",
        on_change=on_change,
        help=f"As many as {MAX_FILES:,} files, {MAX_TOTAL_MB:,} MB in all.",
    )
    st.file_uploader(
        "Or upload a folder",
        accept_multiple_files="directory",
        key="cp_upload_dir",
        on_change=on_change,
        help="Every PDF, Markdown and text file in the folder and the folders inside it, named "
        "by its path inside the folder; the other files are left out.",
    )


def uploaded_files(state: Any) -> tuple[list[Uploaded], list[Uploaded]]:
    """What the two uploaders hold now: the files, and the folder's files."""
    return list(state.get("cp_upload") or []), list(state.get("cp_upload_dir") or [])
