"""The Explore page's question: its boxes (question, evidence, k and budget), the BM25 answer
shown while the model embeds, the verdict with the one what-if edit that would complete a missed
answer, how each phrase matched, where the best hit is — and "Add to the query set"."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from explorer.answer import Answer, CorpusAnswer
from explorer.chunking.edits import Edit, encode_edits
from explorer.chunking.measures import get_measure
from explorer.chunking.records import Chunk
from explorer.config import Config
from explorer.documents.model import Document
from explorer.errors import ExplorerError
from explorer.evaluation.queries import add_query
from explorer.preparing import Pending
from explorer.repair import NoRepair, repair_or_move
from explorer.workspace import Workspace
from ui import evaluate_view, settings, widgets
from ui.answers import context_note, evidence_phrases, hit_rows, match_notes
from ui.explore import moves
from ui.safe import md_text
from ui.sources import QUERY_SET


def inputs(question_key: str, evidence_key: str) -> None:
    """The question and evidence boxes of the document shown, k and the budget."""
    with st.container(key="ce_hide_ask"):
        st.text_input("Question", key=question_key, placeholder="What would a user ask?")
        st.text_area(
            "Required evidence (one phrase per line)",
            key=evidence_key,
            height=90,
            help="Phrases a correct answer needs, as you read them on the page (or in the "
            "source). Matching ignores case, line breaks, Markdown markup, and quote or dash "
            "styles.",
        )
        left, right = st.columns(2)
        left.slider("Top k", 1, settings.TOP_K_MAX, key="k", help="How many chunks.")
        right.selectbox(
            "Token budget",
            settings.BUDGETS,
            key="budget",
            format_func=settings.budget_label,
            help=settings.BUDGET_HELP,
        )


class EarlyAnswer:
    """What draws the BM25 answer in ``placeholder`` while the model loads or embeds (for
    :func:`ui.widgets.answer_bm25_first`): its hits, and no verdict while the configuration's
    own answer may still come (BM25's could read "Complete" for a moment before the lesson's
    "Incomplete"); :meth:`stands` adds it when that answer does not come (the model cannot
    load, the embedding was cancelled)."""

    def __init__(
        self, placeholder: DeltaGenerator, *, doc: Document, chunks: Sequence[Chunk], config: Config
    ) -> None:
        self.placeholder, self.doc, self.chunks, self.config = placeholder, doc, chunks, config
        self.drawn: tuple[DeltaGenerator, Answer] | None = None

    def __call__(self, early: CorpusAnswer, pending: Pending) -> None:
        config = self.config
        with self.placeholder.container(border=True, key="early_answer"):
            waiting = f"{pending.texts:,} {pending.what}" if pending.texts else "the question"
            st.caption(
                f"**BM25 answer** while the model embeds {waiting}; the {config.retriever} "
                "answer replaces it when they are done."
            )
            own = early.answers.get(self.doc.name)
            if own is not None:
                slot = st.empty()
                slot.caption(f"The verdict waits for the {config.retriever} answer.")
                self.drawn = (slot, own)
                if own.hits:
                    st.dataframe(
                        hit_rows(own.hits, self.chunks, count=get_measure("tokens").count),
                        hide_index=True,
                        key="early_hits",
                    )

    def stands(self) -> None:
        """The BM25 answer is the one shown: its verdict too."""
        if self.drawn is not None:
            slot, own = self.drawn
            widgets.verdict_box(own.verdict, where=slot)


def turn_to_hits(answer: Answer, chunks: Sequence[Chunk], *, asked: str) -> None:
    """A new question (``asked``: the document and the question) shows its hits, best first:
    the hits view, at the best hit's page."""
    state = st.session_state
    if answer.hits and state.get("asked") != asked:
        state.asked = asked
        if state.view == "Chunks":
            state.view = "Query hits"
        first_page = chunks[answer.hits[0].index].page_start
        if first_page is not None:
            state.page = first_page


def verdict(
    ws: Workspace,
    answer: Answer,
    *,
    doc: Document,
    chunks: Sequence[Chunk],
    config: Config,
    edits: tuple[Edit, ...],
    question: str,
    phrases: Sequence[str],
    k: int,
    budget: int | None,
    present: bool,
) -> None:
    """The verdict; beside a missed one the suggested repair (not in presentation mode); how
    each phrase matched; the best hit and what the LLM would receive."""
    widgets.verdict_box(answer.verdict)
    origin = st.session_state.get("cp_origin")
    if origin is not None and (origin.doc, origin.question) == (doc.name, question):
        st.info(origin.note(answer, chunks=len(chunks)))  # opened at a corpus hit
    if answer.verdict is not None and not answer.complete and not present:
        repair(ws, doc=doc, config=config, edits=edits, question=question, phrases=phrases,
               k=k, budget=budget)  # fmt: skip
    for note in match_notes(answer.evidence):
        st.caption(md_text(note))
    if answer.hits:
        best = chunks[answer.hits[0].index]
        where = f"chunk {best.index}" + (f", page {best.page_start}" if best.page_start else "")
        # the note holds only numbers and settings: Markdown of our own
        st.caption(f"Best hit: {where} · {context_note(answer, length=len(doc.text))}")
    else:
        st.warning(context_note(answer, length=len(doc.text)))


def repair(
    ws: Workspace,
    *,
    doc: Document,
    config: Config,
    edits: tuple[Edit, ...],
    question: str,
    phrases: Sequence[str],
    k: int,
    budget: int | None,
) -> None:
    """Beside a missed verdict: the one what-if edit that would make it complete, its cost in
    tokens, and a button that applies it (searched once per document, setting, edits and
    question)."""
    state = st.session_state
    key = (doc.key, config.index_key(), config, encode_edits(edits), question, tuple(phrases),
           k, budget)  # fmt: skip
    found = state.get("repair_found")
    if found is None or found[0] != key:
        try:
            suggested = repair_or_move(
                ws, doc, question, phrases, config=config, edits=edits, k=k, budget=budget
            )
        except ExplorerError:
            suggested = None
        state.repair_found = found = (key, suggested)
    suggested = found[1]
    if suggested is None:
        return
    if isinstance(suggested, NoRepair):  # what was tried, and the move that does complete it
        with st.container(border=True, key="repair"):
            st.markdown(f"**Repair:** {md_text(suggested.sentence())}")
        return
    with st.container(border=True, key="repair"):
        st.markdown(f"**Suggested repair:** {md_text(suggested.sentence())}")
        st.button(
            "Apply",
            key="apply_repair",
            icon=":material/build:",
            on_click=moves.set_edits,
            args=((*edits, suggested.edit),),
            help="Make this edit to the chunking (Undo takes it back).",
        )


def add_to_query_set(source: str, question_key: str, evidence_key: str) -> None:
    """The button that keeps the question and its evidence in the session's query set, and
    what it did (shown while that question is on the screen)."""
    state = st.session_state
    with st.container(key="ce_hide_add"):
        st.button(
            "Add to the query set",
            key="add_query",
            on_click=on_add_query,
            args=(source, question_key, evidence_key),
            disabled=not (state[question_key].strip() and state[evidence_key].strip()),
            help="Keep this question and its evidence in the query set the Evaluate page "
            "runs (download it there).",
        )
        notice = state.get("add_notice")
        if notice and notice[2] == state[question_key]:  # about the question on the screen
            widgets.message("success" if notice[0] == "ok" else "info", notice[1])


def on_add_query(doc_name: str, question_key: str, evidence_key: str) -> None:
    """Append the question to the session's query set (started from the project's set)."""
    state = st.session_state
    if "query_set" not in state:
        state.query_set = evaluate_view.bundled_query_set(QUERY_SET)
    try:
        state.query_set, new = add_query(
            state.query_set,
            doc=doc_name,
            query=state[question_key],
            evidence=evidence_phrases(state[evidence_key]),
        )
    except ExplorerError as exc:
        new, note = None, str(exc)
    else:
        note = (
            f"Added as {new}: {len(state.query_set)} questions in the set. Run them on the "
            "Evaluate page."
            if new
            else "This question and its evidence are already in the query set."
        )
    state.add_notice = ("ok" if new else "info", note, state[question_key])
