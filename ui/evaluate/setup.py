"""The Evaluate page's state as a visit starts it: the query set (the project's, which the
Explore page appends to), A and the sweep starting as the sidebar's configuration and B as the
recommended one, the sweep's grid for its unit, and the A/B a link names."""

from __future__ import annotations

import streamlit as st

from explorer.config import Config
from explorer.errors import ExplorerError
from ui.allowed import check_config
from ui.evaluate import questions
from ui.evaluate.query_set import the_bundled_set
from ui.evaluate.sweep import SWEEP_GRIDS
from ui.settings import config_of, state_of
from ui.view_state import without_regexes


def start() -> None:
    """Set what a visit needs and nothing that is set already (a test's, a link's, an earlier
    visit's values stay)."""
    state = st.session_state
    state.setdefault("query_set", the_bundled_set())  # the main page appends to this list
    state.setdefault("qs_error", None)
    state.setdefault("qs_notice", None)
    state.setdefault("qs_version", 0)
    questions.start()
    main = config_of(state) if "splitter" in state else Config()
    for prefix, start in (("ab_A_", main), ("ab_B_", Config()), ("sw_", main)):
        # the first visit: A and the sweep start as the sidebar's, B as recommended; what a
        # test or a link set first stays
        if prefix + "splitter" not in state or prefix + "unit" not in state:
            for key, value in state_of(start, prefix=prefix).items():
                state.setdefault(key, value)
    if state.get("sw_sizes") is None or state.get("sw_grid_unit") not in (None, state.sw_unit):
        state.sw_sizes, state.sw_overlaps = SWEEP_GRIDS[state.sw_unit]  # the unit's own grid
    state.sw_grid_unit = state.sw_unit
    if "eval_link_read" not in state:
        read_link()


def read_link() -> None:
    """Once a session: a link to an A/B opens it (both configurations and k)."""
    state = st.session_state
    state.eval_link_read = True
    notes = []
    params = st.query_params.to_dict()
    try:
        for side in ("A", "B"):
            if side.lower() in params:
                config = check_config(Config.from_spec(str(params[side.lower()])))
                config, note = without_regexes(config, side=f" for {side}")
                if note:
                    notes.append(note)
                state.update(state_of(config, prefix=f"ab_{side}_"))
                state.eval_tab = "A/B"
    except ExplorerError as exc:
        notes = [f"The link's configuration cannot be used ({exc}); the starting ones are shown."]
    link_note = " ".join(notes) or None
    if str(params.get("k", "")).isdigit() and int(params["k"]) in (1, 3, 5):
        state.ab_k = int(params["k"])
    state.eval_link_note = link_note
