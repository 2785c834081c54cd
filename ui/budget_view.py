"""The budget's use per hit: what each hit costs of the context, the running total against the
budget, and what the budget (or ``k``) left out and why — drawn from one
:class:`~explorer.budget.BudgetUse`, the account ``explorer query`` prints as its ``budget``."""

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


def budget_rows(use: BudgetUse) -> list[dict[str, Any]]:
    """One row per hit taken and per chunk just below the cut."""
    several = use.documents > 1
    rows = []
    for line in use.lines:
        rows.append(
            {
                "rank": line.rank,
                **({"document": line.doc} if several else {}),
                "chunk": line.index,
                "chunk tokens": line.chunk_tokens,
                "adds": line.cost,
                "used": line.used + (0 if line.taken else line.cost),
                "why": why_words(line, use),
            }
        )
    return rows


def budget_summary(use: BudgetUse, *, scope: str = "this document") -> str:
    """``"Hits use 365 of the 512-token budget (this document); fill added 146 …"`` (Markdown)."""
    n = len(use.taken)
    hits = f"{n} hit{'s' if n != 1 else ''}"
    if use.budget is None:
        head = f"The {hits} use **{use.hits_tokens:,} tokens** ({scope}; no budget)"
    else:
        head = (
            f"The {hits} use **{use.hits_tokens:,} of the {use.budget:,}-token budget** ({scope})"
        )
    if use.filled:
        head += f"; fill added {use.filled:,} tokens of the text around them"
    if use.left is not None:
        head += f"; {use.left:,} left"
    head += ". "
    head += (
        "Each hit costs what it adds to the context (with its neighbours, section or table "
        "header; text already in costs nothing); *used* is the running total"
        + (" the left-out chunk would reach." if use.left_out else ".")
    )
    return head


def draw(use: BudgetUse, *, scope: str = "this document") -> None:
    """The budget table under its summary, and a bar of the budget used."""
    st.markdown(budget_summary(use, scope=scope))
    if use.budget is not None:
        st.progress(min(1.0, use.tokens / use.budget), text=f"{use.tokens:,} / {use.budget:,}")
    small = st.column_config.NumberColumn(width="small")
    st.dataframe(
        budget_rows(use),
        hide_index=True,
        key="budget_use",
        column_config={
            **dict.fromkeys(("rank", "chunk", "chunk tokens", "adds", "used"), small),
            "why": st.column_config.TextColumn(width="large"),
        },
    )
