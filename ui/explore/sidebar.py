"""The Explore page's own controls in the sidebar, above the shared configuration: the boundary
lesson, the document (a sample or an upload), the reset to the recommended setting, and "Show
and compare": flagged chunks only, the Markdown source, the PDF view, and an earlier version to
compare with."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import streamlit as st

from explorer.evaluation.lessons import Lesson
from explorer.workspace import Workspace
from ui import widgets
from ui.explore import moves, uploads
from ui.sources import UPLOAD_TYPES


def draw(
    *,
    ws: Workspace,
    sources: Sequence[str],
    source: str | None,
    lessons: Mapping[str, Lesson],
    problems: Sequence[str],
    comparing: bool,
    limit_mb: int,
) -> None:
    """The controls, for the documents ``sources`` (``source`` is shown), the ``lessons`` (with
    the lesson files that could not be used, ``problems``); ``comparing``: a version is picked."""
    if lessons:
        st.selectbox(
            "Boundary lesson",
            [None, *lessons],
            key="lesson",
            format_func=lambda n: "— none —" if n is None else lessons[n].title,
            placeholder="— none —",
            on_change=moves.on_lesson,
            help="Each lesson opens at a setting where the answer is incomplete, says why, and "
            "offers the moves that repair it.",
        )
    for problem in problems:
        widgets.message("error", problem)
    st.selectbox("Document", sources, key="source", on_change=moves.on_source)
    st.file_uploader(
        f"Upload a PDF, Markdown or text file (up to {limit_mb} MB)",
        type=list(UPLOAD_TYPES),
        key="upload",
        on_change=uploads.on_upload,
        help="It opens on the recommended configuration.",
    )
    st.button(
        "Reset to recommended",
        key="reset_recommended",
        icon=":material/restart_alt:",
        on_click=moves.reset_to_recommended,
        help="The recommended configuration, k and budget for this document (and no lesson).",
    )
    with st.expander("Show and compare"):
        st.toggle("Show only flagged chunks", key="only_flagged", help="In the Chunks view.")
        st.toggle("Raw Markdown source", key="raw", help="Markdown documents: the source text.")
        st.radio("PDF view", ["Page image", "Extracted text"], key="pdf_view", horizontal=True)
        st.file_uploader(
            "Compare with an earlier version",
            type=list(UPLOAD_TYPES),
            key="version_upload",
            on_change=uploads.on_version_upload,
            args=(ws, limit_mb),
            help="What changed since that version: this page tinted unchanged / changed / new "
            "chunk by chunk, the removed chunks listed, and the questions whose verdict changes.",
        )
        st.selectbox(
            "…or one of the documents above",
            [None, *(s for s in sources if s != source)],
            key="version_pick",
            format_func=lambda s: "—" if s is None else s,
            on_change=moves.on_version_pick,
        )
        if comparing:
            st.button("Stop comparing", key="version_clear", on_click=moves.clear_version)
