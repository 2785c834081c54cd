"""The Explore page's ranking under the verdict: the hits, the line where k or the budget cut the
ranking and the chunks just below it, a button per hit that selects it, where each evidence
phrase is, and what the LLM gets."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from explorer.answer import Answer
from explorer.budget import BudgetUse
from explorer.chunking.measures import get_measure
from explorer.chunking.records import Chunk
from explorer.config import Config
from explorer.documents.model import Document
from ui import budget_view
from ui.answers import candidate_rows, context_note, cut_note, evidence_rows, hit_rows
from ui.explore import moves


def draw(
    answer: Answer,
    *,
    doc: Document,
    chunks: Sequence[Chunk],
    config: Config,
    phrases: Sequence[str],
    budget: BudgetUse | None = None,
) -> None:
    """The ranking of ``answer`` over ``doc``'s ``chunks``, what each hit costs of the context
    (``budget``, its account), its evidence (``phrases``) and the LLM's context."""
    hits(answer, doc=doc, chunks=chunks, config=config)
    if budget is not None and budget.lines:
        cut = any(x.why in ("budget", "stopped") for x in budget.lines)
        with st.expander("Budget: what each hit costs", expanded=cut):
            budget_view.draw(budget)
    if phrases:
        with st.expander("Evidence: where each phrase is", expanded=not answer.complete):
            st.dataframe(
                evidence_rows(answer.evidence),
                hide_index=True,
                key="evidence_table",
                column_config={"phrase": st.column_config.TextColumn(width="medium")},
            )
    else:
        st.caption("Add evidence phrases to check that the retrieved text holds them.")
    with st.expander("What the LLM gets"):
        st.markdown(context_note(answer, length=len(doc.text)))
        count = get_measure("tokens").count
        shown = {**answer.to_json(chunks, count=count), "document": doc.name}
        if budget is not None:
            shown["budget_use"] = budget.to_json()  # as explorer query prints it
        st.json(shown, expanded=1)


def hits(answer: Answer, *, doc: Document, chunks: Sequence[Chunk], config: Config) -> None:
    """The hits, the line where k or the budget cut the ranking and the chunks just below it,
    and a button per hit that selects it (and turns to its page)."""
    if not answer.hits:
        return
    count = get_measure("tokens").count
    st.markdown(
        f"**Top {len(answer.hits)} of {len(answer.ranking):,} chunks** ({config.retriever})"
    )
    rows = hit_rows(answer.hits, chunks, count=count)
    small = st.column_config.NumberColumn(width="small")
    st.dataframe(
        rows,
        hide_index=True,
        key="hits",
        column_order=[k for k in rows[0] if k != "pages" or doc.pages],
        column_config={
            **dict.fromkeys(("rank", "chunk", "tokens"), small),
            "score": st.column_config.NumberColumn(format="%.4f", width="small"),
            "carried": st.column_config.NumberColumn(
                format="%.4f",
                width="small",
                help="The part of the score carried from the chunk before it.",
            ),
            "pages": st.column_config.TextColumn(width="small"),
        },
    )
    cut = cut_note(answer)
    if cut:
        st.markdown(f"✂ {cut} Just below the cut:")
        st.dataframe(
            candidate_rows(answer, chunks, count=count),
            hide_index=True,
            key="below_cut",
            column_config={"score": st.column_config.NumberColumn(format="%.4f")},
        )
    with st.container(horizontal=True, key="jumps"):
        for h in answer.hits:
            page_of_hit = chunks[h.index].page_start
            st.button(
                f"#{h.rank} → page {page_of_hit}" if page_of_hit else f"Show #{h.rank}",
                key=f"jump_{h.rank}",
                on_click=moves.go_to_hit,
                args=(h.index, page_of_hit),
                help=f"Select chunk {h.index}" + (" and turn to its page" if page_of_hit else ""),
            )
