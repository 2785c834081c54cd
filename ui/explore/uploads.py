"""The Explore page's uploads: a document to explore, read as the page starts under a progress
bar with a Cancel button, and an earlier version to compare with. Each is read once by the
workspace; a file that cannot be read leaves one clear message in ``upload_error``."""

from __future__ import annotations

import streamlit as st

from explorer.errors import ExplorerError
from explorer.progress import Progress, quiet
from explorer.workspace import Workspace
from ui import frame, widgets
from ui.sources import check_upload_size, remember
from ui.view_state import View

READING_CANCELLED = "reading_cancelled"
"""Set by the reading bar's Cancel button (:func:`ui.widgets.progress_bar`)."""


def read_bytes(
    ws: Workspace, file_name: str, data: bytes, *, limit_mb: int, progress: Progress = quiet
) -> tuple[str, str, bytes] | None:
    """The bytes of an uploaded file, read once by the workspace (``progress`` follows it): its
    name, sha256 and bytes; or None, with one clear message in ``state.upload_error`` when it
    cannot be read."""
    state = st.session_state
    state.upload_error = None
    try:
        check_upload_size(file_name, len(data), limit_mb=limit_mb)
        ws.load(data, name=file_name, progress=progress)
    except ExplorerError as exc:
        state.upload_error = str(exc)
        return None
    except Exception as exc:  # a bug in a reader: still one clear message, no traceback
        state.upload_error = f"{file_name}: could not be read ({type(exc).__name__}: {exc})"
        return None
    return file_name, frame.content_sha(data), data


def on_upload() -> None:
    """Take the uploaded file: the page reads it as it starts (:func:`open_upload`), where a
    progress bar can follow a long file and a Cancel button stop it."""
    state = st.session_state
    file = state.upload
    state.upload_error = None
    if file is not None:
        state.reading = (file.name, file.getvalue())


def open_upload(ws: Workspace, sample_names: set[str], *, limit_mb: int) -> None:
    """Read the file :func:`on_upload` took, with a progress bar and a Cancel button. It opens
    on the recommended configuration (or the view a link left waiting for it) in a rerun, as
    the configuration's widgets are drawn before the page; on failure the current document
    stays and the message is kept. A file that is cancelled leaves the current one too.

    The file stays taken until it is read: a click elsewhere while it is read ends this run at
    the bar's next step, and the next run reads it again (the parsed document is kept once
    made), so an upload is never dropped without a word. Only Cancel lets it go."""
    state = st.session_state
    if state.get(READING_CANCELLED):
        state.pop("reading", None)  # the note is shown by the page (widgets.cancelled_note)
        return
    reading = state.get("reading")
    if reading is None:
        return
    file_name, data = reading
    progress, bar = widgets.progress_bar(f"Reading {file_name}", cancel=READING_CANCELLED)
    # a rerun asked meanwhile raises here
    read = read_bytes(ws, file_name, data, limit_mb=limit_mb, progress=progress)
    state.pop("reading", None)
    bar.empty()
    if read is None:
        return
    name = file_name if file_name not in sample_names else f"{file_name} (uploaded)"
    remember(state.uploads, name, read)
    waiting: View | None = state.get("waiting")
    if waiting is not None and waiting.source == file_name:
        view = waiting.replace(source=name, uploaded=True)
        state.waiting = None
    else:
        question, evidence = state.queries.get(name, ("", ""))
        view = View(name, question=question, evidence=evidence, uploaded=True)
    state.link_note = None
    frame.open_next(view, version=None, version_pick=None)


def on_version_upload(ws: Workspace, limit_mb: int) -> None:
    """Compare with the uploaded file (an earlier version of the document shown)."""
    state = st.session_state
    file = state.version_upload
    if file is None:
        return
    read = read_bytes(ws, file.name, file.getvalue(), limit_mb=limit_mb)
    if read is not None:
        state.version = (f"{read[0]} (uploaded)", *read)
