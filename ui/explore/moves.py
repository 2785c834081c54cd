"""The Explore page's moves: the callbacks that change what it shows — another document, a
lesson's step, presentation mode, the recommended setting, the what-if edits, a chunk selected,
another version to compare with. Each writes the page's view (:class:`ui.view_state.View`) or
the state beside it, before the next run draws the widgets."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from explorer.chunking.edits import Edit, encode_edits
from explorer.errors import ExplorerError
from explorer.evaluation.lessons import Setting
from ui import frame
from ui.lessons import LESSONS
from ui.settings import config_of
from ui.view_state import View, edit_state, query_keys


def on_source() -> None:
    """Another document: its own question, no chunk selected, the first page. Leaving a
    lesson's document leaves the lesson, and its failing setting for the recommended one."""
    state = st.session_state
    state.chunk, state.page = None, 1
    state.version = state.version_pick = None  # a comparison belongs to its document
    state.upload_error = state.link_note = None
    state.waiting = None
    lesson = LESSONS.get(state.get("lesson") or "")
    if lesson is None or lesson.doc == state.source:
        return
    state.lesson = None
    try:
        setting = Setting(config_of(state), state.k, state.budget)
    except ExplorerError:
        setting = None
    if setting in [s for _, s in lesson.settings()]:  # the lesson's own setting, not the user's
        recommended = View(state.source).state()  # the recommended configuration, k and budget
        for key in ("source", "asked", *query_keys(state.source)):
            recommended.pop(key)
        state.update(recommended)


def open_lesson(name: str | None, repair: int | None = None) -> None:
    """Show lesson ``name`` at its failing setting, or after repair ``repair`` (from 1)."""
    state = st.session_state
    lesson = LESSONS.get(name or "")
    if lesson is None:
        state.lesson = None
        return
    View.of_lesson(lesson, repair).replace(present=state.present).apply(state)
    state.version = state.version_pick = None


def on_lesson() -> None:
    open_lesson(st.session_state.lesson)


def set_present(on: bool) -> None:
    st.session_state.present = on


def reset_to_recommended() -> None:
    """The recommended configuration, k and budget for the document shown; no lesson, no
    edits."""
    state = st.session_state
    start = View(state.source)
    View.of(state).replace(
        config=start.config, k=start.k, budget=start.budget, lesson=None, chunk=None, edits=""
    ).apply(state)


def set_edits(edits: Sequence[Edit]) -> None:
    """The what-if edits of the document and chunking shown (the chunking is made again from
    the splitter's chunks plus these, so taking the last one away restores it exactly)."""
    state = st.session_state
    state.edits = edit_state(state.source, config_of(state), encode_edits(edits))


def go_to_hit(index: int, page: int | None) -> None:
    """Select chunk ``index`` and, for a PDF, turn to ``page``."""
    state = st.session_state
    state.chunk = index
    if page is not None:
        state.page = page


def on_version_pick() -> None:
    """Compare with the document picked (a sample, or one of the session's uploads)."""
    state = st.session_state
    name = state.version_pick
    if name is None:
        state.version = None
    elif name in state.uploads:
        state.version = (name, *state.uploads[name])
    else:
        data = frame.sample_bytes(name)
        state.version = (name, name, frame.content_sha(data), data)


def clear_version() -> None:
    st.session_state.version = st.session_state.version_pick = None
