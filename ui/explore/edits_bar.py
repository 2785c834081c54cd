"""The bar above the document while the chunking has what-if edits: what they are, Undo (the
last one) and Clear."""

from __future__ import annotations

import streamlit as st

from explorer.chunking.edits import Edit, undo
from ui.explore import moves
from ui.safe import md_text


def draw(edits: tuple[Edit, ...]) -> None:
    """The bar for ``edits`` (at least one)."""
    with st.container(key="edits_bar"):
        what, back, clear = st.columns([7, 2, 2], vertical_alignment="center")
        n = f"{len(edits)} edit{'s' if len(edits) > 1 else ''}"
        what.caption(
            f"**What-if chunking** (+ {n}): {md_text('; '.join(e.describe() for e in edits))}"
        )
        back.button(
            "Undo", key="undo_edit", icon=":material/undo:", on_click=moves.set_edits,
            args=(undo(edits),), help=f"Take back the last edit ({edits[-1].describe()}).",
            type="tertiary",
        )  # fmt: skip
        clear.button(
            "Clear edits", key="clear_edits", on_click=moves.set_edits, args=((),),
            help="The chunking as the splitter cut it.", type="tertiary",
        )  # fmt: skip
