"""The embedding an answer waits for, on the process's queue (:mod:`explorer.background`): a bar
with the time left and a Cancel button while it runs; the work goes on when the person turns to
another page (coming back shows the same run), and a second session asking for the same
documents and settings follows the same run.

*Cancel* holds: the page's own requests for that embedding — another question, another k — do
not start it again until the person clicks the button that asks for it; what was embedded
before the click stays in the lasting index.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Hashable

import streamlit as st

from explorer.background import Queue, shared_queue
from explorer.progress import Progress
from ui.safe import md_text

POLL = 0.25
"""Seconds between two looks at the job while it has no new step."""


def owner() -> str:
    """This session's name on the queue."""
    me: str = st.session_state.setdefault("queue_owner", uuid.uuid4().hex)
    return me


def held(key: str, request: Hashable) -> bool:
    """``request`` of ``key`` was cancelled and not asked for again (a Cancel click, seen on
    this run, is turned into the hold here and leaves the queue)."""
    state = st.session_state
    if state.pop(f"{key}_cancelled", None):
        state[f"{key}_held"] = request
        queue().drop(request, owner())
    return bool(state.get(f"{key}_held") == request)


def hold_note(key: str, what: str, *, meanwhile: str, again: str) -> None:
    """The note of a held request beside the button that asks for it again."""
    state = st.session_state
    note, button = st.columns([4, 1], vertical_alignment="center")
    note.info(md_text(f"Cancelled: {what}. {meanwhile}"))
    button.button(
        again,
        key=f"{key}_again",
        icon=":material/play_arrow:",
        on_click=lambda: state.pop(f"{key}_held", None),
        help="Start it now; what was embedded before the Cancel is not embedded again.",
    )


def queue() -> Queue:
    return shared_queue()


def run(
    what: str,
    work: Callable[[Progress], object],
    *,
    key: str,
    request: Hashable,
    progress_bar: Callable[..., tuple[Progress, object]],
) -> bool:
    """``work`` on the queue as ``request`` (the same run when it is waiting or running already),
    followed under ``progress_bar(what, cancel=...)`` until it ends; True once done. A failed run
    raises what it raised; a run stopped (nobody wanted it) returns False. Streamlit ends this
    script at the bar's next step when a widget is used: the run goes on."""
    q = queue()
    job = q.submit(request, work, owner=owner())
    progress, holder = progress_bar(what, cancel=f"{key}_cancelled")
    try:
        while True:
            status = q.status(job)
            if status.finished:
                break
            progress(status.fraction, status.note)
            job.wait(POLL)
    finally:
        holder.empty()  # type: ignore[attr-defined]
    if status.state == "failed" and status.error is not None:
        raise status.error
    return status.state == "done"
