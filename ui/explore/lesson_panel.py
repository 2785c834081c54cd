"""The Explore page's lesson panel: the lesson in two lines (its title and where it stands), a
button per repair, the reset, presentation mode, why it fails (or works now), and the links
that reopen the lesson and each repair."""

from __future__ import annotations

import html

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from explorer.chunking.edits import Edit
from explorer.evaluation.lessons import Lesson
from ui.explore import moves
from ui.lessons import lesson_links, lesson_status
from ui.safe import md_text
from ui.view_state import link_url


def draw(
    panel: DeltaGenerator,
    lesson: Lesson,
    step: int | None,
    *,
    edits: tuple[Edit, ...],
    present: bool,
    url: str | None,
) -> None:
    """``lesson`` in ``panel``, at ``step`` (0: its failing setting, ``n``: after repair ``n``,
    None: changed by hand), with the what-if ``edits``; ``present``: presentation mode; ``url``:
    the app's address, for the links."""
    with panel:
        head, more = st.columns([6, 2], vertical_alignment="center")
        status = lesson_status(lesson, step)
        if edits:
            status += (
                f" With {len(edits)} what-if edit{'s' if len(edits) > 1 else ''} to the chunking "
                "(above the document)."
            )
        head.markdown(f"**Lesson: {md_text(lesson.title)}** · {status}")
        with more.container(horizontal=True, key="lesson_more"):
            st.button(
                "Leave presentation" if present else "Present",
                key="present_toggle",
                icon=":material/co_present:",
                on_click=moves.set_present,
                args=(not present,),
                help="Presentation mode: larger text, no sidebar, only the lesson, the question, "
                "the verdict and the document.",
            )
            if not present:
                with st.popover("", icon=":material/more_horiz:", help="Why it fails; links"):
                    st.markdown(f"**Why it fails:** {md_text(lesson.why)}")
                    if lesson.note:
                        st.markdown(md_text(lesson.note))
                    st.markdown("**Links to this lesson and its repairs**")
                    for label, params in lesson_links(lesson):
                        st.caption(md_text(label))
                        st.code(link_url(url, params), language=None)
        if present:
            st.html(f'<p class="ce-question">{html.escape(lesson.question)}</p>')
        with st.container(horizontal=True, key="lesson_moves"):
            for n, move in enumerate(lesson.repairs, 1):
                st.button(
                    f"Repair {n}: {move.label}",
                    key=f"repair_{n}",
                    type="primary" if step == n else "secondary",
                    on_click=moves.open_lesson,
                    args=(lesson.name, n),
                    help=move.why or None,
                )
            st.button(
                "Reset to the failing setting",
                key="lesson_reset",
                icon=":material/restart_alt:",
                on_click=moves.open_lesson,
                args=(lesson.name,),
                disabled=step == 0,
            )
        if step:  # repaired: why it works now
            move = lesson.repairs[step - 1]
            st.markdown(f"**Why it works now:** {md_text(move.why or move.label)}")
        elif present and step == 0:
            st.markdown(f"**Why it fails:** {md_text(lesson.why)}")
