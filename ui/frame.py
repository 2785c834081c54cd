"""What every page of the app shares, set up once per run by the entry file (``app.py``): the one
workspace, the session's documents, the main page's view read from a link when a session starts,
the widget values kept while another page is shown (on every run, a fragment's too:
:func:`fragment`), and the sidebar's slot for a page's own controls above the shared
configuration.
"""

from __future__ import annotations

import functools
import hashlib
import threading
from collections.abc import Callable, Iterable, Mapping
from typing import Any, NoReturn, ParamSpec, TypeVar

import streamlit as st
from streamlit.delta_generator import DeltaGenerator
from streamlit.runtime.scriptrunner import get_script_run_ctx

from explorer.config import Config
from explorer.documents.model import Document
from explorer.errors import ExplorerError
from explorer.evaluation.lessons import Setting
from explorer.workspace import Workspace
from explorer.workspace import shared_workspace as library_workspace
from ui.lessons import LESSONS, opening_view
from ui.settings import config_of, state_of
from ui.sources import SAMPLES_DIR, sample_paths
from ui.view_state import View
from ui.widget_keys import (
    EVALUATE_KEYS,
    EVALUATE_PREFIXES,
    EVALUATE_WIDGETS,
    EXPLORE_WIDGETS,
    corpus_widgets,
)

EXPLORE = "app_pages/explore.py"
"""The Explore page, where the other pages hand a view over (:func:`streamlit.switch_page`)."""
KEEP_DOCUMENTS = 256
"""Documents the app's workspace keeps the work of (all sessions together)."""
MAIN_DEFAULTS: dict[str, Any] = {
    "uploads": {},  # display name -> (file name, sha256, bytes) of the session's uploads
    "queries": {},  # document -> (question, evidence) last typed for it
    "only_flagged": False,
    "table_filter": None,
    "layers": [],
    "raw": False,
    "pdf_view": "Page image",
    "present": False,
    "upload_error": None,
    "version": None,
}
"""The main page's state besides its view, and its starting values."""
KEPT_PREFIXES = ("question::", "evidence::", "opt_")
"""Widget keys starting with these are kept while another page is shown (with the keys each
page names in :func:`keep`)."""


@st.cache_resource(show_spinner=False)
def shared_workspace() -> Workspace:
    """The process's workspace (the library's one, :func:`explorer.workspace.shared_workspace`):
    documents, chunkings, retrievers and vectors, keyed by content and settings, shared by every
    session (a session only reaches an entry by holding the same bytes), kept for
    :data:`KEEP_DOCUMENTS` documents."""
    return library_workspace(keep=KEEP_DOCUMENTS)


def workspace() -> Workspace:
    """This session's workspace: names of its own over the shared caches."""
    state = st.session_state
    if "workspace" not in state:
        state.workspace = shared_workspace().view()
    ws: Workspace = state.workspace
    return ws


def start_session() -> None:
    """Once per session: the view a link names (else the start), and the main page's state."""
    state = st.session_state
    if "session_started" in state:
        return
    state.session_started = True
    opened = View.from_params(
        st.query_params.to_dict(),
        start=opening_view(),
        samples={p.name for p in sample_paths()},
        lessons=LESSONS,
    )
    for key, value in opened.view.state().items():  # what a test or a caller set first stays
        state.setdefault(key, value)
    for key, value in MAIN_DEFAULTS.items():
        state.setdefault(key, type(value)() if isinstance(value, dict) else value)
    state.link_note = opened.note
    state.waiting = opened.waiting


def open_next(view: View, **values: Any) -> NoReturn:
    """Show ``view`` (and set ``values`` beside it) from the next run on, which starts now. A
    page's body cannot change the widgets the frame drew before it (the configuration), so the
    view waits in the session for :func:`apply_next`, at the start of the next run."""
    state = st.session_state
    state.next_view, state.next_values = view, values
    st.rerun()
    raise AssertionError("st.rerun() returned")  # pragma: no cover


def apply_next() -> None:
    """Before any widget is drawn: the view :func:`open_next` left for this run, if any."""
    state = st.session_state
    view: View | None = state.pop("next_view", None)
    values: dict[str, Any] = state.pop("next_values", None) or {}
    if view is not None:
        view.apply(state)
    state.update(values)


def keep(
    defaults: Mapping[str, Any], *, also: Iterable[str] = (), prefixes: Iterable[str] = ()
) -> None:
    """Keep the values of the pages' widgets while another page is shown: Streamlit forgets the
    state of a widget not drawn in a run, unless its key is set again. ``defaults`` are the
    widgets' starting values (a key not set yet gets its own); ``also`` and keys starting with
    ``prefixes`` are kept once a page has set them."""
    state = st.session_state
    for key, value in defaults.items():
        if key not in state and value is not None:
            state[key] = value
    starts = tuple(prefixes) + KEPT_PREFIXES
    for key in [*defaults, *also, *(k for k in list(state.keys()) if str(k).startswith(starts))]:
        if key in state:
            state[key] = state[key]


def keep_pages() -> None:
    """:func:`keep` every page's widgets (:mod:`ui.widget_keys`). Called before any widget is
    drawn on every run: by the entry file on a full run, by :func:`fragment` on a fragment's own
    run (which does not run the entry file)."""
    keep(
        {**EXPLORE_WIDGETS, **corpus_widgets(), **EVALUATE_WIDGETS},
        also=EVALUATE_KEYS,
        prefixes=EVALUATE_PREFIXES,
    )


P = ParamSpec("P")
R = TypeVar("R")


def fragment(body: Callable[P, R]) -> Callable[P, R]:
    """``st.fragment`` for the app's panels: a run of the fragment alone first keeps every page's
    widget values (:func:`keep_pages`), as a full run does; a value it did not set again would be
    dropped by Streamlit at the next page switch, as the state of a widget not drawn. Inside a
    full run the body is only called: the entry file has kept the values, and a widget drawn
    before the fragment could not be set again."""

    @functools.wraps(body)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        if _fragment_rerun():
            keep_pages()
        return body(*args, **kwargs)

    return st.fragment(run)


def _fragment_rerun() -> bool:
    """This run is a fragment's own (Streamlit runs the fragments it names, not the script)."""
    ctx = get_script_run_ctx(suppress_warning=True)
    return bool(ctx is not None and ctx.fragment_ids_this_run)


# --------------------------------------------------------------------------- the lesson's page

PARKED = "lesson_parked"
"""The Explore page's lesson configuration, while another page is shown: (the configuration
set in its place, the lesson's widget values)."""


def enter_page(*, explore: bool) -> None:
    """Before the configuration is drawn: a lesson belongs to the Explore page while it is open.

    Leaving the Explore page (or starting a session on another page) while the sidebar holds a
    lesson's own setting, the other page starts on the recommended configuration and the
    lesson's is parked; back on the Explore page it is restored, unless the configuration was
    changed meanwhile (then the visitor's choice stands)."""
    state = st.session_state
    was_explore = state.get("on_explore")
    state.on_explore = explore
    if explore:
        parked = state.pop(PARKED, None)
        if parked is not None and _config() == parked[0]:
            state.update(parked[1])
        return
    if was_explore is False or PARKED in state:  # from one other page to another
        return
    lesson = LESSONS.get(state.get("lesson") or "")
    config = _config()
    if lesson is None or config is None:
        return
    try:
        setting = Setting(config, state.get("k"), state.get("budget"))
    except (ExplorerError, ValueError, TypeError):
        return
    if setting not in [s for _, s in lesson.settings()]:
        return
    state[PARKED] = (Config(), state_of(config))
    state.update(state_of(Config()))


def _config() -> Config | None:
    try:
        return config_of(st.session_state)
    except ExplorerError:
        return None


def reset_to_recommended(*, prefixes: Iterable[str] = (), values: Mapping[str, Any] = {}) -> None:
    """The sidebar's configuration (and the page's own under each of ``prefixes``) back to the
    recommended one, and the page's ``values``; a parked lesson is let go."""
    state = st.session_state
    state.pop(PARKED, None)
    for prefix in ("", *prefixes):
        state.update(state_of(Config(), prefix=prefix))
    state.update(values)


# --------------------------------------------------------------------------- the sidebar's slot

_run = threading.local()


def set_page_slot(slot: DeltaGenerator) -> None:
    """The sidebar container (above the shared configuration) for this run's page."""
    _run.slot = slot


def page_slot() -> DeltaGenerator:
    """Where a page draws its own sidebar controls: above the shared configuration."""
    slot: DeltaGenerator | None = getattr(_run, "slot", None)
    return slot if slot is not None else st.sidebar


# --------------------------------------------------------------------------- documents


def sample_bytes(name: str) -> bytes:
    return (SAMPLES_DIR / name).read_bytes()


def document_of(source: str) -> tuple[Document, bytes]:
    """The main page's document ``source`` (a sample or one of the session's uploads) and its
    bytes, read once by the workspace."""
    state = st.session_state
    if source in state.uploads:
        file_name, _sha, data = state.uploads[source]
    else:
        file_name, data = source, sample_bytes(source)
    return workspace().load(data, name=file_name), data


def content_sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
