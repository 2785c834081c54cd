"""The Evaluate page's presets: a picker per A/B side that fills its settings with a published
baseline's (:mod:`explorer.evaluation.presets`), the baseline's source and claim beside it, and
after a run, whether these questions agree with the claim."""

from __future__ import annotations

import streamlit as st

from explorer.config import Config
from explorer.errors import ExplorerError
from explorer.evaluation.claims import judge_claim, reading_rows
from explorer.evaluation.coverage import EvalReport
from explorer.evaluation.presets import PRESETS, preset
from ui.safe import md_text
from ui.settings import config_of, state_of

NONE = ""
"""The picker's first option: no preset (the settings as they are)."""


def picker_key(prefix: str) -> str:
    return f"{prefix}preset"


def fill(prefix: str) -> None:
    """The picked preset's settings into the widgets under ``prefix`` (a callback)."""
    name = st.session_state.get(picker_key(prefix)) or NONE
    if name != NONE:
        st.session_state.update(state_of(preset(name).config(), prefix=prefix))


def preset_picker(prefix: str) -> None:
    """A select box of the presets that fills the settings under ``prefix``; under it the
    picked preset's source and claim, and a note when the settings have changed since."""
    key = picker_key(prefix)
    st.session_state.setdefault(key, NONE)
    st.selectbox(
        "Start from a published baseline",
        [NONE, *PRESETS],
        key=key,
        format_func=lambda n: "(none: the settings below)" if n == NONE else PRESETS[n].title,
        on_change=fill,
        args=(prefix,),
        help="Fills the settings below with a baseline's, as published; change any of them "
        "afterwards. Each names its source and what the source claimed.",
    )
    name = st.session_state.get(key) or NONE
    if name == NONE:
        return
    p = preset(name)
    try:
        current: Config | None = config_of(st.session_state, prefix=prefix)
    except ExplorerError:  # the widgets say what is wrong
        current = None
    changed = (
        " *(the settings below have changed since)*"
        if current is not None and current != p.config()
        else ""
    )
    st.caption(
        md_text(f"{p.source} — {p.url}") + f"  \n**Claim:** {md_text(p.claim)}{changed}",
    )


def claim_note(ra: EvalReport, rb: EvalReport) -> None:
    """Whether these questions agree with the claim of the preset one side is (the other being
    ours, both with the same retriever), on the measures the claim names at equal k and at equal
    budget side by side, and which of them the verdict rests on; nothing for any other pair."""
    said = judge_claim(ra, rb)
    if said is None:
        return
    show = {"agrees": st.success, "disagrees": st.warning}.get(said.verdict, st.info)
    show(
        f"**The published claim, on these questions: {said.verdict}.** "
        + md_text(
            f"{said.sentence()}. (The claim compared the setting with the other strategies of "
            "its study; here the one other is ours. Read at the run's largest k and at every "
            "budget it has, whatever k this page shows.)"
        ),
        icon=None,
    )
    st.dataframe(reading_rows(said), hide_index=True, key="ab_claim_readings")
