"""The Corpus page's documents: the sidebar's choice of bundled samples, evaluation documents,
uploads and a folder on this machine (only inside the folders the app was started with), and
the documents they make — each read once by the workspace, the same bytes twice left out."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import streamlit as st

from explorer import resources
from explorer.documents.folder import Loaded
from explorer.documents.model import SUPPORTED_SUFFIXES, Document, document_name
from explorer.errors import ExplorerError
from explorer.workspace import Workspace
from ui import corpus_uploads, frame, widgets
from ui.allowed import allowed_folder, named_folders
from ui.answers import n_of
from ui.safe import md_text
from ui.sources import sample_paths

Entry = tuple[str, str, bytes]
"""(file name, sha256, bytes): how the page keeps a document's bytes."""

SAMPLES = {p.name: p for p in sample_paths()}
EVAL_DOCS_DIR = resources.query_sets_dir() / "docs"
EVAL_DOCS = {
    p.name: p
    for p in sorted(EVAL_DOCS_DIR.iterdir() if EVAL_DOCS_DIR.is_dir() else [])
    if p.suffix.lower() in SUPPORTED_SUFFIXES
}


@dataclass(frozen=True)
class Gathered:
    """The corpus's documents by name, the bytes of those chosen from the sidebar (``raw``),
    the files the folder's came from, and a reason for each file left out."""

    docs: dict[str, Document]
    raw: dict[str, Entry] = field(default_factory=dict)
    folder_paths: dict[str, Path] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)

    def entry(self, name: str) -> Entry | None:
        """The bytes of document ``name`` as the Explore page keeps an upload (a folder's file
        is read again), or None when it has none."""
        got = self.raw.get(name)
        if got is None and name in self.folder_paths:
            path = self.folder_paths[name]
            data = path.read_bytes()
            got = (document_name(path), frame.content_sha(data), data)
        return got


def start() -> None:
    """The page's own state, as a visit starts it."""
    state = st.session_state
    state.setdefault("cp_uploads", {})  # name -> (file name, sha256, bytes)
    state.setdefault("cp_upload_errors", [])
    state.setdefault("cp_to_read", {})  # name -> bytes: uploads taken and not read yet
    state.setdefault("cp_map", None)


def on_upload(limit_mb: int) -> None:
    """Take the uploaded files within the limits (read on this run, under a bar); list the
    others, each with its reason."""
    state = st.session_state
    files, folder_files = corpus_uploads.uploaded_files(state)
    fresh, refused = corpus_uploads.take(
        files, state.cp_uploads, limit_mb=limit_mb, folder_files=folder_files
    )
    state.cp_to_read = {**state.cp_to_read, **fresh}
    state.cp_upload_errors = refused


def add_samples() -> None:
    st.session_state.cp_samples = list(SAMPLES)


def uploaded(name: str) -> None:
    state = st.session_state
    if name not in state.cp_uploaded:
        state.cp_uploaded = [*state.cp_uploaded, name]


def controls(ws: Workspace, *, limit_mb: int) -> None:
    """The sidebar's choice of documents; the uploads taken are read here, under a bar."""
    state = st.session_state
    st.header("Documents", anchor=False)
    st.multiselect("Bundled samples", list(SAMPLES), key="cp_samples")
    if not state.cp_samples:  # a served site opens alone: the samples are one click away
        st.button("Add the bundled samples", key="cp_add_samples", on_click=add_samples)
    st.multiselect(
        "Evaluation documents",
        list(EVAL_DOCS),
        key="cp_eval_docs",
        help="The documents the bundled query sets ask about (public documents and samples).",
    )
    corpus_uploads.uploaders(lambda: on_upload(limit_mb))
    if state.cp_to_read:
        state.cp_upload_errors = [
            *state.cp_upload_errors,
            *corpus_uploads.read_pending(ws, state.cp_to_read, state.cp_uploads, on_read=uploaded),
        ]
    if state.cp_uploads:
        state.cp_uploaded = [n for n in state.cp_uploaded if n in state.cp_uploads]
        st.multiselect(
            "Uploaded files",
            list(state.cp_uploads),
            key="cp_uploaded",
            help="Files uploaded in this session; take one out of the corpus here.",
        )
    if named_folders():  # only where the person running the app named folders it may read
        st.text_input(
            "Folder on this machine",
            key="cp_folder",
            placeholder=str(named_folders()[0]),
            help="Every PDF, Markdown and text file in it, inside the folders the app was "
            "started with (`--docs FOLDER` or CHUNK_EXPLORER_DOCS); each named by its path in "
            "the folder.",
        )
        st.toggle(
            "With the folders inside it",
            key="cp_folder_inside",
            help="A documentation site keeps its pages in folders: on, every file below the "
            "folder is read; off, only the folder's own files.",
        )


def gather(ws: Workspace) -> Gathered:
    """The documents the sidebar chose (a folder not read yet is read under a bar with a
    Cancel button), each read once by the workspace, which holds the work of all of them; a
    file whose bytes are already in the corpus is left out, with its reason."""
    state = st.session_state
    raw: dict[str, Entry] = {}
    for name in state.cp_samples:
        if name in SAMPLES:
            data = SAMPLES[name].read_bytes()
            raw[name] = (name, frame.content_sha(data), data)
    for name in state.cp_eval_docs:
        if name in EVAL_DOCS and name not in raw:
            data = EVAL_DOCS[name].read_bytes()
            raw[name] = (name, frame.content_sha(data), data)
    for name in state.cp_uploaded:
        if name in state.cp_uploads:
            raw.setdefault(name, state.cp_uploads[name])
    skipped: list[str] = list(state.cp_upload_errors)
    folder_docs: dict[str, Document] = {}
    folder_paths: dict[str, Path] = {}
    if named_folders() and state.get("cp_folder", "").strip():
        loaded: Loaded | None = None
        try:
            folder = allowed_folder(state.cp_folder)
            inside = bool(state.get("cp_folder_inside", True))
            loaded = ws.folder_read(folder, recursive=inside)  # its files looked at once a run
            if loaded is None:  # a documentation site's folder takes a while: a bar, and Cancel
                loaded = widgets.cancellable(
                    f"Reading the folder {folder.name or folder}",
                    lambda progress: ws.load_folder(folder, recursive=inside, progress=progress),
                    key="cp_folder",
                    request=f"{folder}|{inside}",
                    meanwhile="The corpus is shown without it.",
                    again="Read it now",
                )
        except ExplorerError as exc:
            widgets.message("error", str(exc))
        if loaded is not None:
            skipped += [s.reason for s in loaded.skipped]
            for d, path in zip(loaded.documents, loaded.paths, strict=True):
                if d.name not in raw:
                    folder_docs[d.name], folder_paths[d.name] = d, path

    docs: dict[str, Document] = {}
    seen: dict[str, str] = {}  # content -> first name
    for name, (file_name, _sha, data) in raw.items():
        try:
            doc = ws.load(data, name=file_name)
        except ExplorerError as exc:
            skipped.append(str(exc))
            continue
        if doc.sha256 in seen:
            skipped.append(f"{name}: a duplicate of {seen[doc.sha256]} (the same bytes); left out")
            continue
        seen[doc.sha256] = name
        docs[name] = doc
    for name, doc in folder_docs.items():
        if doc.sha256 in seen:
            skipped.append(f"{name}: a duplicate of {seen[doc.sha256]} (the same bytes); left out")
            continue
        seen[doc.sha256] = name
        docs[name] = doc
    ws.hold(len(docs) + frame.KEEP_DOCUMENTS)  # a site of 10,000 pages is not chunked each run
    return Gathered(docs, raw, folder_paths, skipped)


def left_out(skipped: list[str]) -> None:
    """The files left out, each with its reason (open while there are any)."""
    if skipped:
        with st.expander(f"{n_of(len(skipped), 'file')} left out", expanded=True):
            for reason in skipped:
                st.markdown(f"- {md_text(reason)}")
