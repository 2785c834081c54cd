"""The Evaluate page's hand-over to the Explore page: a configuration (of A, B or a sweep's cell)
shown there, with the document when it is one of its samples, as the Explore page's view."""

from __future__ import annotations

import streamlit as st

from explorer.config import Config
from ui import frame
from ui.settings import SIZE_RANGES, splitter_names
from ui.view_state import View


def open_in_explorer(config: Config, source: str | None = None) -> None:
    """Show ``config`` on the Explore page (with the document, when it is one of its samples):
    the page's view with this configuration, no chunk selected, no lesson."""
    state = st.session_state
    view = View.of(state).replace(config=config, chunk=None, page=1, lesson=None, edits="")
    if source is not None:
        view = view.replace(source=source, question="", evidence="")
    view.apply(state)
    state.goto_explore = True


def fits_explorer(config: Config) -> bool:
    """The Explore page's widgets can show ``config`` (its splitter, its size)."""
    s = config.chunking
    return s.splitter in splitter_names() and s.size <= SIZE_RANGES[s.unit].high


def explorer_range(config: Config) -> str:
    """Why a configuration does not fit the Explore page (for a disabled button's help)."""
    rng = SIZE_RANGES[config.chunking.unit]
    return f"the explorer's sizes run up to {rng.high:,} {config.chunking.unit}"


def go_if_asked() -> None:
    """Switch to the Explore page when a button of this run asked for it."""
    if st.session_state.pop("goto_explore", False):
        st.switch_page(frame.EXPLORE)
