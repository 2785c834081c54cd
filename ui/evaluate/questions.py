"""Which questions the Evaluate page runs (its sidebar): the documents they are asked of — the
corpus the Corpus page gathered (its uploads, its folder, its samples) or a documents folder
with the Explore page's uploads —, the scope (every question searching the whole corpus, or its
own document), the documents and kinds chosen; and what keeps the others out, each document with
why."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import streamlit as st

from explorer.documents.folder import site_names
from explorer.documents.model import document_name
from explorer.errors import DocumentError, ExplorerError, QuerySetError
from explorer.evaluation.queries import (
    NO_SUCH_DOCUMENT,
    Query,
    Unmatched,
    documents_named,
    match_documents,
    parse_queries,
)
from explorer.workspace import Workspace
from ui import frame
from ui.allowed import allowed_folder, named_folders
from ui.answers import n_of
from ui.safe import md_text

REPO = Path(__file__).resolve().parents[2]
"""The app's folder: a relative documents folder starts here."""


SOURCES = {
    "corpus": "The corpus (Ask a corpus page)",
    "folder": "A documents folder",
}
"""Where the questions' documents come from (the sidebar's choice)."""
SCOPES = {
    "corpus": "Corpus: every question searches every document",
    "document": "Document: each question searches only its own",
}
"""What each question retrieves from (the sidebar's choice)."""


def corpus_is_loaded(state: Any) -> bool:
    """The Corpus page holds a site of the person's own: uploads, or a folder (the bundled
    samples alone are not one)."""
    folder = bool(named_folders()) and bool(str(state.get("cp_folder") or "").strip())
    return bool(state.get("cp_uploaded")) or folder


def scope_words(scope: str) -> str:
    """A figure's scope, as its label says it."""
    return "corpus scope" if scope == "corpus" else "document scope"


@dataclass(frozen=True)
class Questions:
    """The questions that will run (``queries``, named as the documents are), over ``ws``
    (None: it cannot be made), in ``scope``, and what keeps the others out: a ``problem`` with
    the query set, the folder's (``folder_problem``) and each document no document answers to
    (``absent``, with why)."""

    queries: list[Query]
    ws: Workspace | None
    folder: Path | None
    docs_named: list[str]
    uploads: dict[str, tuple[str, str, bytes]] = field(default_factory=dict)
    problem: str | None = None
    folder_problem: str | None = None
    absent: list[Unmatched] = field(default_factory=list)
    scope: str = "document"
    source: str = "folder"
    where: str = ""
    """The documents, as the visitor named them (never a path of the server's)."""

    @property
    def ready(self) -> bool:
        """Something can run: questions, a workspace, a readable query set."""
        return bool(self.queries) and self.ws is not None and not self.problem

    @property
    def scope_words(self) -> str:
        return scope_words(self.scope)

    def document_choices(self) -> list[str]:
        """The documents a question may name (the query set's table offers them): the corpus's,
        or the folder's files and the uploads, then those the set names already."""
        if self.source == "corpus" and self.ws is not None:
            found = list(self.ws.names())
        else:
            found = sorted(
                {document_name(p) for p in self.folder.iterdir() if p.is_file()}
                if self.folder is not None and self.folder.is_dir()
                else set()
            )
            found += [n for n in self.uploads if n not in found]
        return found + [d for d in self.docs_named if d not in found]

    def pdf_bytes(self, name: str) -> bytes:
        """A PDF's bytes, to draw its pages: an upload's, or the folder's file."""
        if name in self.uploads:
            return bytes(self.uploads[name][2])
        if self.folder is not None:
            return Workspace(self.folder).inside(name).read_bytes()
        if self.ws is not None and self.ws.docs_dir is not None:  # the corpus's own folder
            return self.ws.inside(name).read_bytes()
        typed = str(st.session_state.get("cp_folder") or "").strip()
        if self.source == "corpus" and typed and named_folders():  # the Corpus page's folder
            return Workspace(allowed_folder(typed)).inside(name).read_bytes()
        raise DocumentError(f"{name}: its PDF bytes are not at hand to draw its pages")


def start() -> None:
    """The sidebar's starting choices: the corpus, in corpus scope, when the Corpus page holds
    a site of the person's own; else the documents folder, in document scope. A choice the
    person made stays."""
    state = st.session_state
    if not state.get("eval_source_chosen"):
        state.eval_source = "corpus" if corpus_is_loaded(state) else "folder"
    if not state.get("eval_scope_chosen"):
        state.eval_scope = "corpus" if state.eval_source == "corpus" else "document"


def _chosen(key: str) -> None:
    st.session_state[f"{key}_chosen"] = True


def choose() -> Questions:
    """The sidebar's controls (where the documents are, the scope, the documents and kinds)
    and the questions they leave to run, with a line that counts them."""
    state = st.session_state
    items: list[dict[str, Any]] = state.query_set
    docs_named = documents_named(items)
    kinds = sorted({str(i["kind"]) for i in items if i.get("kind")})
    state.eval_docs = [d for d in state.eval_docs if d in docs_named]
    state.eval_kinds = [k for k in state.eval_kinds if k in kinds]

    st.header("Questions to run", anchor=False)
    st.radio(
        "Documents",
        list(SOURCES),
        key="eval_source",
        format_func=SOURCES.__getitem__,
        on_change=_chosen,
        args=("eval_source",),
    )
    if state.eval_source == "folder":
        st.text_input(
            "Documents folder",
            key="eval_docs_dir",
            help="Where the documents the questions name live. A relative path starts at the "
            "project folder.",
        )
    st.radio(
        "Scope",
        list(SCOPES),
        key="eval_scope",
        format_func=SCOPES.__getitem__,
        on_change=_chosen,
        args=("eval_scope",),
        help="Corpus: as a RAG index over the whole site is asked, each question competes with "
        "every chunk of every document. Document: each question ranks only its own document's "
        "chunks, which reads higher than an index will.",
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
    over = _over_the_corpus if state.eval_source == "corpus" else _over_a_folder
    made = over(chosen)
    made = replace(
        made, docs_named=docs_named, scope=state.eval_scope, problem=problem or made.problem
    )
    searched = (
        n_of(len(made.ws.names()), "document")
        if made.scope == "corpus" and made.ws is not None and made.queries
        else n_of(len({q.doc for q in made.queries}), "document")
    )
    st.caption(
        f"{len(made.queries)} of {n_of(len(items), 'question')} will run, in "
        f"{made.scope_words}, over {searched}."
    )
    return made


def _over_the_corpus(chosen: list[Query]) -> Questions:
    """The questions over the Corpus page's documents (read as that page reads them), each
    question's document matched to one of them by its path, else its file name."""
    from ui.corpus import documents

    documents.start()
    session = frame.workspace()
    gathered = documents.gather(session)
    queries, absent = match_documents(chosen, list(gathered.docs))
    uploads = {n: e for n in gathered.docs if (e := gathered.raw.get(n)) is not None}
    ws = session.view(documents=gathered.docs)
    where = f"the corpus of the Ask a corpus page ({n_of(len(gathered.docs), 'document')})"
    return Questions(queries, ws, None, [], uploads, absent=absent, source="corpus", where=where)


def _over_a_folder(chosen: list[Query]) -> Questions:
    """The questions over the documents folder's files and the Explore page's uploads."""
    state = st.session_state
    folder: Path | None = None
    folder_problem: str | None = None
    typed = str(state.eval_docs_dir or "").strip()
    try:  # only a folder this app may read (see ui.allowed)
        folder = allowed_folder(typed, base=REPO) if typed else None
    except DocumentError as exc:
        folder_problem = str(exc)
    # documents uploaded on the Explore page in this session serve the questions that name them
    uploads = dict(state.get("uploads", {}))
    where = (
        f"the documents folder {typed}" if folder is not None else "no documents folder"
    ) + " and the Explore page's uploads"
    none = (
        f"not in {typed} nor uploaded on the Explore page in this session"
        if folder is not None
        else "no documents folder is set, and it was not uploaded on the Explore page"
    )
    names = list(uploads)
    if folder is not None and folder.is_dir():
        try:  # the folder's files by their path in it, read only once a question needs them
            names += [n for n in site_names(folder)[0] if n not in uploads]
        except DocumentError:  # its message names the server's path: this one what was typed
            folder_problem = f"The documents folder {typed} cannot be read; no question runs on it."
    # by path, else by a unique file name, as the corpus matches (a name that climbs out of the
    # folder can only stand for one of its own files)
    queries, unmatched = match_documents(chosen, names)
    absent = [
        replace(u, reason=none if u.reason == NO_SUCH_DOCUMENT else u.reason) for u in unmatched
    ]
    ws: Workspace | None = None
    problem: str | None = None
    try:  # the folder's files and the session's uploads, over the session's workspace
        session = frame.workspace()
        ws = session.view(
            folder if folder is not None and folder.is_dir() else None,
            {
                name: session.load(data, name=file_name)
                for name, (file_name, _sha, data) in uploads.items()
            },
            recursive=True,  # every file below it, named by its path, as it was matched
        )
    except ExplorerError as exc:
        problem = f"an uploaded document cannot be read again ({exc})"
    return Questions(queries, ws, folder, [], uploads, problem, folder_problem, absent, where=where)


def problems(questions: Questions) -> None:
    """What keeps questions from running, each in one message: the query set's problem, the
    folder's, the documents no document answers to (each with why). No message shows a path
    of the server's: a folder is named as the visitor typed it."""
    state = st.session_state
    folder = questions.folder
    if questions.problem:
        st.error(
            f"The query set has a problem: {md_text(questions.problem)}. Fix it in the Query set "
            "tab."
        )
    if questions.folder_problem:
        st.error(md_text(questions.folder_problem))
    elif (
        questions.source == "folder"
        and folder is not None
        and not folder.is_dir()
        and not questions.uploads
    ):
        st.error(
            f"The documents folder {md_text(str(state.eval_docs_dir).strip())} does not exist; "
            "set it in the sidebar."
        )
    if questions.absent:
        n = sum(u.questions for u in questions.absent)
        how = (
            "Upload them on the Ask a corpus page, or name them in the query set by their path "
            "in the corpus."
            if questions.source == "corpus"
            else "Copy the files there, point the sidebar at their folder, or upload them on "
            "the Explore page."
        )
        lines = "\n".join(f"- {md_text(u.line())}" for u in questions.absent[:50])
        more = f"\n- … and {len(questions.absent) - 50} more" if len(questions.absent) > 50 else ""
        st.warning(
            f"Left out: {n_of(n, 'question')} about {n_of(len(questions.absent), 'document')} "
            f"not found in {md_text(questions.where)}. {how}\n\n{lines}{more}"
        )
