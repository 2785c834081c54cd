"""The budget's use per hit: what each hit costs of the context, the running total against the
budget, and what the budget (or ``k``) left out and why — drawn from one
:class:`~explorer.budget.BudgetUse`, the account ``explorer query`` prints as its ``budget_use``."""

from __future__ import annotations

from typing import Any

import streamlit as st

from explorer.budget import BudgetLine, BudgetUse


def why_words(line: BudgetLine, use: BudgetUse) -> str:
    """Why ``line`` is in the context or not, in words."""
    if line.taken:
        return "in the context"
    if line.why == "k":
        return f"left out: below k = {use.k}"
    if line.why == "budget" and use.budget is not None:
        return (
            f"left out: its {line.cost:,} tokens would pass the {use.budget:,} budget at "
            f"{line.used:,} used"
        )
    return (
        f"left out: its {line.cost:,} tokens would fit, but the ranking stops at the first hit "
        "that does not"
    )


SHORT = {
    None: "taken",
    "budget": "over budget",
    "stopped": "after the stop",
    "k": "below k",
}
"""A line's status in the table's ``why`` column."""


def budget_rows(use: BudgetUse) -> list[dict[str, Any]]:
    """One row per hit taken and per chunk just below the cut: what it adds, the running total
    (for a chunk left out, what it would reach) and why it is in or out."""
    several = use.documents > 1
    return [
        {
            "rank": line.rank,
            **({"document": line.doc} if several else {}),
            "chunk": line.index,
            "adds": line.cost,
            "used": line.used + (0 if line.taken else line.cost),
            "why": SHORT[line.why],
        }
        for line in use.lines
    ]


def budget_summary(use: BudgetUse, *, scope: str = "this document") -> str:
    """``"**375 of the 512-token budget** go to the 2 hits (this document); fill spends 137
    more on the text around them; 0 left."`` (Markdown)."""
    n = len(use.taken)
    hits = f"the {n} hit{'s' if n != 1 else ''}"
    if use.budget is None:
        head = f"**{use.hits_tokens:,} tokens** go to {hits} ({scope}; no budget)"
    else:
        head = f"**{use.hits_tokens:,} of the {use.budget:,}-token budget** go to {hits} ({scope})"
    if use.filled:
        head += f"; fill spends {use.filled:,} more on the text around them"
    if use.left is not None:
        head += f"; {use.left:,} left"
    return head + "."


HOW = (
    "A hit costs what it adds to the context: with its neighbours, section or table header, and "
    "text already in counted once. Hits are taken in rank order; the first that would pass the "
    "budget stops the ranking. Tokens are counted on the document's own cl100k tokens, as the "
    "budget counts them, so a hit's cost can differ by a token from its text counted alone."
)


def draw(use: BudgetUse, *, scope: str = "this document") -> None:
    """The summary, a bar of the budget used, the table, and why each chunk below the cut was
    left out."""
    st.markdown(budget_summary(use, scope=scope))
    if use.budget is not None:
        st.progress(
            min(1.0, use.tokens / use.budget), text=f"{use.tokens:,} of {use.budget:,} tokens"
        )
    narrow = st.column_config.NumberColumn(width=46)  # the table fits a narrow column whole
    st.dataframe(
        budget_rows(use),
        hide_index=True,
        key="budget_use",
        column_config={
            **dict.fromkeys(("rank", "chunk", "adds", "used"), narrow),
            "why": st.column_config.TextColumn(width=96),
        },
    )
    for line in use.left_out:
        st.markdown(f"- **#{line.rank}** (chunk {line.index}) {why_words(line, use)}.")
    st.caption(HOW)
