"""The Corpus page's retrieval map: every question of a query set asked of the whole corpus —
the text no question's context reaches (grey), and the chunks that turn up among the top k of
many questions they do not answer (red, with the count of those questions)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import streamlit as st

from explorer import resources
from explorer.chunking.records import Chunk
from explorer.config import Config
from explorer.documents.model import Document
from explorer.errors import ExplorerError
from explorer.evaluation.coverage import evaluate
from explorer.evaluation.queries import (
    Query,
    Unmatched,
    load_queries,
    match_documents,
    parse_queries,
)
from explorer.evaluation.reach import DocumentReach, retrieval_map
from explorer.workspace import Workspace
from ui import corpus_view, render, render_markdown, widgets
from ui.answers import first_words
from ui.document_view import highlights_key
from ui.safe import md_text

SESSION = "::session"
"""The Evaluate page's query set (uploaded or edited there), among the sets to map."""
SESSION_LABEL = "The Evaluate page's query set"


@st.cache_data(max_entries=16, show_spinner="Drawing the document…")
def document_html(
    doc_key: str, view_key: str, _doc: Document, _highlights: list[render.Highlight]
) -> str:
    window = render.Window(0, len(_doc.text), len(_doc.text))
    if _doc.kind == "markdown":
        return render_markdown.render_markdown(_doc, _highlights, window=window)
    return render.render_text(_doc, _highlights, window=window)


def map_key(docs: Mapping[str, Document], config: Config, k: int) -> tuple[object, ...]:
    """What the retrieval map was made for: the corpus, the configuration, the set and k."""
    state = st.session_state
    corpus_key = tuple((n, d.key) for n, d in docs.items())
    # the Evaluate page's set is the session's: what it asks is part of what the map was made for
    asked = repr(state.get("query_set")) if state.get("cp_set") == SESSION else ""
    return (corpus_key, config.to_spec(), state.get("cp_set"), asked, k)


def current(
    docs: Mapping[str, Document], config: Config, k: int
) -> Mapping[str, DocumentReach] | None:
    """The retrieval map made for this corpus, configuration, set and k, if one is."""
    made = st.session_state.get("cp_map")
    if made is None or made[0] != map_key(docs, config, k):
        return None
    reach: Mapping[str, DocumentReach] = made[2]
    return reach


def draw(
    corpus: Workspace,
    docs: Mapping[str, Document],
    chunks: Mapping[str, Sequence[Chunk]],
    *,
    config: Config,
    k: int,
) -> None:
    """The query set picker, the run (its questions about ``docs``, at ``k``), and its map: a
    row per document, the chunks retrieved for unrelated questions, one document tinted."""
    state = st.session_state
    st.subheader("What a query set never reaches", anchor=False)
    st.caption(
        "Every question of a query set asked of the whole corpus: the text no question's "
        "context reaches (grey), and the chunks that turn up among the top k of many questions "
        "they do not answer (red, with the count of those questions)."
    )
    sets = {p.name: p for p in sorted(resources.query_sets_dir().glob("*.json"))}
    names = [None, SESSION, *sets]
    set_col, run_col = st.columns([3, 1], vertical_alignment="bottom")
    set_col.selectbox(
        "Query set",
        names,
        key="cp_set",
        format_func=lambda s: "—" if s is None else SESSION_LABEL if s == SESSION else s,
        help="A bundled set, or the Evaluate page's (the one uploaded or edited there).",
    )
    queries: list[Query] = []
    unmatched: list[Unmatched] = []
    try:
        if state.get("cp_set") == SESSION:
            asked = parse_queries(list(state.get("query_set") or []), source="the query set")
        elif state.get("cp_set") in sets:
            asked = load_queries(sets[state.cp_set])
        else:
            asked = []
        # a set names its documents by path or by file name (explorer.evaluation.queries)
        queries, unmatched = match_documents(asked, list(docs))
    except ExplorerError as exc:
        widgets.message("error", str(exc))
    made_for = map_key(docs, config, k)
    widgets.cancelled_note("cp_map_cancelled")
    if run_col.button(
        f"Run {len(queries)} questions", key="cp_map_run", disabled=not queries, type="primary"
    ):
        progress, bar = widgets.progress_bar("Answering the query set", cancel="cp_map_cancelled")
        made = False
        try:
            report = evaluate(
                queries, corpus, config, ks=(k,), budgets=(), progress=progress, scope="corpus"
            )
            state.cp_map = (made_for, report.coverage_at_k[k], retrieval_map(report, corpus))
            made = True
        except ExplorerError as exc:
            widgets.message("error", str(exc))
        finally:
            bar.empty()
        if made:  # the overview above sorts by what the map never reaches
            st.rerun()
    if unmatched:
        n = sum(u.questions for u in unmatched)
        st.caption(
            f"{n} of its questions ask about {len(unmatched)} document(s) not in this corpus "
            f"(first: {md_text(unmatched[0].line())})."
        )
    if state.get("cp_set") and not queries:
        st.caption("None of its questions asks about a document of this corpus.")
    elif state.cp_map is not None and state.cp_map[0] == made_for:
        _, coverage, reach = state.cp_map
        reach = {n: r for n, r in reach.items() if n in docs}
        st.markdown(
            f"Coverage@{k} over the corpus: **{coverage:.0%}** of {len(queries)} questions."
        )
        st.dataframe(corpus_view.reach_rows(reach), hide_index=True, key="cp_reach")
        names = list(reach)
        if state.get("cp_map_doc") not in names:
            state.cp_map_doc = names[0]
        st.selectbox("Show on the page", names, key="cp_map_doc")
        shown: DocumentReach = reach[state.cp_map_doc]
        shown_doc = docs[state.cp_map_doc]
        if shown.always:
            st.dataframe(
                [
                    {
                        "chunk": c.index,
                        "questions": c.questions,
                        "unrelated": c.unrelated,
                        "first words": first_words(chunks[shown.doc][c.index].text),
                    }
                    for c in shown.always
                ],
                hide_index=True,
                key="cp_always",
            )
        highlights = corpus_view.reach_highlights(shown, chunks[shown.doc])
        st.html(document_html(shown_doc.key, highlights_key(highlights), shown_doc, highlights))
