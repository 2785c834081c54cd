"""Which questions the Evaluate page runs (its sidebar): the documents folder, the documents and
kinds chosen; the questions whose documents are in that folder or uploaded on the Explore page,
over the session's workspace; and what keeps the others out."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import streamlit as st

from explorer.errors import DocumentError, ExplorerError, QuerySetError
from explorer.evaluation.queries import Query, documents_named, parse_queries
from explorer.workspace import Workspace
from ui import frame
from ui.allowed import allowed_folder
from ui.answers import n_of
from ui.safe import md_text

REPO = Path(__file__).resolve().parents[2]
"""The app's folder: a relative documents folder starts here."""


@dataclass(frozen=True)
class Questions:
    """The questions that will run (``queries``), over ``ws`` (None: it cannot be made), and
    what keeps the others out: a ``problem`` with the query set, the folder's (``folder``,
    ``folder_problem``) and the documents in neither the folder nor the uploads (``absent``)."""

    queries: list[Query]
    ws: Workspace | None
    folder: Path | None
    docs_named: list[str]
    uploads: dict[str, tuple[str, str, bytes]] = field(default_factory=dict)
    problem: str | None = None
    folder_problem: str | None = None
    absent: list[str] = field(default_factory=list)

    @property
    def ready(self) -> bool:
        """Something can run: questions, a workspace, a readable query set."""
        return bool(self.queries) and self.ws is not None and not self.problem

    def pdf_bytes(self, name: str) -> bytes:
        """A PDF's bytes, to draw its pages: an upload's, or the folder's file."""
        if name in self.uploads:
            return bytes(self.uploads[name][2])
        assert self.folder is not None
        return Workspace(self.folder).inside(name).read_bytes()


def choose() -> Questions:
    """The sidebar's controls (the folder, the documents and kinds) and the questions they
    leave to run, with a line that counts them."""
    state = st.session_state
    folder: Path | None = None
    folder_problem: str | None = None
    try:  # only a folder this app may read (see ui.allowed)
        folder = allowed_folder(state.eval_docs_dir, base=REPO)
    except DocumentError as exc:
        folder_problem = str(exc)
    items: list[dict[str, Any]] = state.query_set
    docs_named = documents_named(items)
    kinds = sorted({str(i["kind"]) for i in items if i.get("kind")})
    state.eval_docs = [d for d in state.eval_docs if d in docs_named]
    state.eval_kinds = [k for k in state.eval_kinds if k in kinds]

    st.header("Questions to run", anchor=False)
    st.text_input(
        "Documents folder",
        key="eval_docs_dir",
        help="Where the documents the questions name live. A relative path starts at the "
        "project folder.",
    )
    st.multiselect("Only these documents", docs_named, key="eval_docs", placeholder="All documents")
    if kinds:
        st.multiselect("Only these kinds", kinds, key="eval_kinds", placeholder="All kinds")

    problem: str | None = None
    try:
        all_queries = parse_queries(list(items), source="query set")
    except QuerySetError as exc:
        all_queries, problem = [], str(exc)
    chosen = [
        q
        for q, item in zip(all_queries, items, strict=False)
        if (not state.eval_docs or q.doc in state.eval_docs)
        and (not state.eval_kinds or item.get("kind") in state.eval_kinds)
    ]
    # documents uploaded on the Explore page in this session serve the questions that name them
    uploads = dict(state.get("uploads", {}))
    absent = sorted({q.doc for q in chosen if q.doc not in uploads and not _in(folder, q.doc)})
    queries = [q for q in chosen if q.doc not in absent]
    ws: Workspace | None = None
    try:  # the folder's files and the session's uploads, over the session's workspace
        session = frame.workspace()
        ws = session.view(
            folder if folder is not None and folder.is_dir() else None,
            {
                name: session.load(data, name=file_name)
                for name, (file_name, _sha, data) in uploads.items()
            },
        )
    except ExplorerError as exc:
        problem = f"an uploaded document cannot be read again ({exc})"
    st.caption(
        f"{len(queries)} of {n_of(len(items), 'question')} will run, over "
        f"{n_of(len({q.doc for q in queries}), 'document')}."
    )
    return Questions(queries, ws, folder, docs_named, uploads, problem, folder_problem, absent)


def _in(folder: Path | None, name: str) -> bool:
    """The document is a file inside the documents folder (a name reaching out of it is not)."""
    if folder is None or not folder.is_dir():
        return False
    try:
        return Workspace(folder).inside(name).is_file()
    except QuerySetError:
        return False


def problems(questions: Questions) -> None:
    """What keeps questions from running, each in one message: the query set's problem, the
    folder's, the documents found in neither the folder nor the uploads."""
    folder = questions.folder
    if questions.problem:
        st.error(
            f"The query set has a problem: {md_text(questions.problem)}. Fix it in the Query set "
            "tab."
        )
    if questions.folder_problem:
        st.error(md_text(questions.folder_problem))
    elif folder is not None and not folder.is_dir() and not questions.uploads:
        st.error(
            f"The documents folder {md_text(str(folder))} does not exist; set it in the sidebar."
        )
    if questions.absent:
        st.warning(
            f"Left out: questions about {len(questions.absent)} document(s) neither in "
            f"{md_text(str(folder))} nor uploaded on the main page in this session: "
            f"{md_text(', '.join(questions.absent))}. Copy the files there, point the sidebar at "
            "their folder, or upload them on the main page."
        )
