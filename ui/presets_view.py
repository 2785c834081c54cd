"""The Evaluate page's presets: a picker per A/B side that fills its settings with a published
baseline's (:mod:`explorer.evaluation.presets`), the baseline's source and claim beside it, and
after a run, whether these questions agree with the claim."""

from __future__ import annotations

from collections.abc import Mapping

import streamlit as st

from explorer.config import Config
from explorer.errors import ExplorerError
from explorer.evaluation.presets import PRESETS, judge, preset
from explorer.evaluation.stats import PairedComparison
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


def claim_note(a: Config, b: Config, comparisons: Mapping[str, PairedComparison], k: int) -> None:
    """Whether these questions agree with the claim of the preset one side is (the other being
    ours, both with the same retriever); nothing for any other pair."""
    said = judge(a, b, comparisons, k=k)
    if said is None:
        return
    show = {"agrees": st.success, "disagrees": st.warning}.get(said.verdict, st.info)
    lo, hi = said.comparison.ci95
    show(
        f"**The published claim, on these questions: {said.verdict}.** "
        + md_text(
            f"{said.sentence()}. (The claim compared the setting with the other strategies of "
            f"its study; here the one other is ours. 95% interval for B − A: "
            f"{lo * 100:+.0f} to {hi * 100:+.0f} points.)"
        ),
        icon=None,
    )
