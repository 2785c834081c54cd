"""The Corpus page's question: its boxes (question, k, budget, evidence), the BM25 answer shown
while the model embeds, and the answer: its verdict and evidence, then the hits grouped by
document, each a button that opens its document at the hit on the Explore page."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from explorer.answer import CorpusAnswer
from explorer.chunking.measures import get_measure
from explorer.chunking.records import Chunk
from explorer.config import Config
from explorer.preparing import Pending
from ui import corpus_view, frame, widgets
from ui.answers import cut_note, n_of
from ui.corpus.documents import SAMPLES, Entry, Gathered
from ui.safe import md_escape, md_text
from ui.settings import BUDGET_HELP, BUDGETS, TOP_K_MAX, budget_label
from ui.sources import remember
from ui.view_state import View


def inputs() -> None:
    """The question, k, the budget and the evidence boxes."""
    st.subheader("Ask the corpus", anchor=False)
    ask_col, evidence_col = st.columns([3, 2], gap="large")
    with ask_col:
        st.text_input("Question", key="cp_question", placeholder="What would a user ask?")
        left, right = st.columns(2)
        left.slider("Top k", 1, TOP_K_MAX, key="cp_k")
        right.selectbox(
            "Token budget", BUDGETS, key="cp_budget", format_func=budget_label, help=BUDGET_HELP
        )
    with evidence_col:
        st.text_area("Required evidence (one phrase per line)", key="cp_evidence", height=110)


def early_answer(
    placeholder: DeltaGenerator, *, config: Config
) -> Callable[[CorpusAnswer, Pending], None]:
    """What draws the BM25 answer in ``placeholder`` while the model loads or embeds (for
    :func:`ui.widgets.answer_bm25_first`)."""

    def draw(early: CorpusAnswer, pending: Pending) -> None:
        with placeholder.container(border=True, key="cp_early"):
            st.caption(
                f"**BM25 answer** while the model embeds {pending.texts:,} texts; the "
                f"{config.retriever} answer replaces it when they are done."
            )
            widgets.verdict_box(early.verdict)
            st.dataframe(
                [{"rank": h.rank, "document": h.doc, "chunk": h.index} for h in early.hits],
                hide_index=True,
                key="cp_early_hits",
            )

    return draw


def open_hit(view: View, entry: Entry | None, origin: corpus_view.CorpusOrigin) -> None:
    """Show the hit's document on the Explore page at the hit (:func:`corpus_view.open_at_hit`),
    with what the corpus said of it (the Explore page ranks one document and says so)."""
    state = st.session_state
    if entry is not None:  # the Explore page opens samples and the session's uploads
        remember(state.setdefault("uploads", {}), view.source, entry)
    view.apply(state)
    state.cp_origin = origin
    state.cp_open = True


def go_if_asked() -> None:
    """Switch to the Explore page when an "Open at" button of this run asked for it."""
    if st.session_state.pop("cp_open", False):
        st.switch_page(frame.EXPLORE)


def answer_panel(
    answer: CorpusAnswer,
    *,
    gathered: Gathered,
    chunks: Mapping[str, Sequence[Chunk]],
    config: Config,
    k: int,
    budget: int | None,
    evidence: str,
) -> None:
    """The verdict and the evidence table, then each document's hits (``evidence``: the
    evidence box's text, which the Explore page opens with)."""
    if answer.verdict:
        widgets.verdict_box(answer.verdict)
        st.dataframe(corpus_view.evidence_rows(answer), hide_index=True, key="cp_evidence_table")
    groups = corpus_view.group_hits(answer)
    st.markdown(
        f"**Top {len(answer.hits)} of {len(answer.ranking):,} chunks** in "
        f"{sum(1 for g in groups if g.hits)} of {len(gathered.docs)} documents "
        f"({config.retriever}); an LLM would receive **{answer.tokens:,} tokens** (cl100k)."
    )
    cut = cut_note(answer)
    if cut:
        st.markdown(f"✂ {cut}")
    count = get_measure("tokens").count
    for group in groups:
        with st.container(border=True, key=f"cp_doc_{frame.content_sha(group.doc.encode())[:8]}"):
            best = f"best hit #{group.best}, " if group.hits else "no hit, "
            st.markdown(
                f"**{md_escape(group.doc)}** · {n_of(len(group.hits), 'hit')}"
                f" · {best}"
                f"{group.tokens:,} tokens of context"
            )
            if group.hits:
                st.dataframe(
                    corpus_view.hit_rows(group, chunks[group.doc], count=count),
                    hide_index=True,
                    key=f"cp_hits_{group.doc}",
                )
            with st.container(horizontal=True):
                for h in group.hits:
                    target = corpus_view.open_at_hit(
                        answer,
                        h,
                        chunks[h.doc],
                        config=config,
                        k=k,
                        budget=budget,
                        evidence=evidence,
                        uploaded=h.doc not in SAMPLES,
                    )
                    page = chunks[h.doc][h.index].page_start
                    st.button(
                        f"Open at #{h.rank}" + (f" (page {page})" if page else ""),
                        key=f"cp_open_{h.rank}",
                        on_click=open_hit,
                        args=(
                            target,
                            None if h.doc in SAMPLES else gathered.entry(h.doc),
                            corpus_view.corpus_origin(answer, h),
                        ),
                        help=f"Show {md_text(h.doc)} on the main page, which ranks that "
                        f"document alone, with chunk {h.index} selected",
                    )
