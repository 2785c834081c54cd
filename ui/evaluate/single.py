"""The Evaluate page's Run tab: the sidebar's configuration over the questions, in the scope
the sidebar chose. In corpus scope the same questions also run in document scope, so the gap
between the scopes shows per question, with the sibling documents that took the right one's
place among the top k (crowding)."""

from __future__ import annotations

import time
from typing import Any

import streamlit as st

from explorer.config import Config
from explorer.evaluation import coverage
from explorer.evaluation.coverage import EvalReport
from explorer.evaluation.scopes import ScopeGap, scope_gaps
from ui import widgets
from ui.answers import n_of
from ui.evaluate.questions import Questions, scope_words
from ui.evaluate.runs import pct, run_button, run_failed
from ui.safe import md_text
from ui.settings import describe_config


def draw(questions: Questions) -> None:
    """The tab: the configuration, the run, and what it found."""
    state = st.session_state
    config = widgets.configuration()
    st.caption(f"The sidebar's configuration: {md_text(describe_config(config))}" if config else "")
    queries, ws = questions.queries, questions.ws
    both = questions.scope == "corpus"
    label = f"Run {n_of(len(queries), 'question')} in {questions.scope_words}"
    widgets.cancelled_note("run_cancelled")
    if run_button(label, "run_run", ready=questions.ready and config is not None):
        assert ws is not None and config is not None
        progress, bar = widgets.progress_bar("Running the questions", cancel="run_cancelled")
        t0 = time.monotonic()
        share = 0.8 if both else 1.0
        try:  # looked up as it runs (a test replaces it)
            report = coverage.evaluate(
                queries,
                ws,
                config,
                scope=questions.scope,
                progress=lambda f, m: progress(f * share, m),
            )
            alone = (
                coverage.evaluate(
                    queries,
                    ws,
                    config,
                    scope="document",
                    progress=lambda f, m: progress(share + f * (1 - share), f"alone · {m}"),
                )
                if both
                else None
            )
        except Exception as exc:  # a typed error, or a bug: one message, no traceback
            st.error(md_text(run_failed(exc)))
        else:
            state.run_result = {
                "report": report,
                "alone": alone,
                "seconds": time.monotonic() - t0,
                "documents": len(ws.names()) if both else len({q.doc for q in queries}),
            }
        bar.empty()
    result = state.get("run_result")
    if result is None:
        st.caption(
            "Run the questions to see which ones the configuration covers"
            + (", and which the corpus's other documents crowd out." if both else ".")
        )
        return
    show(result, config, scope=questions.scope)


def show(result: dict[str, Any], config: Config | None, *, scope: str) -> None:
    """A run's figures (each naming its scope), and every question."""
    state = st.session_state
    report: EvalReport = result["report"]
    alone: EvalReport | None = result["alone"]
    if (config is not None and report.config != config) or report.scope != scope:
        st.warning("The configuration or the scope changed since this run; run again to update.")
    where = scope_words(report.scope)
    searched = (
        f"every question searches all {n_of(result['documents'], 'document')}"
        if report.scope == "corpus"
        else "each question searches its own document"
    )
    st.caption(
        f"{md_text(describe_config(report.config))} · {n_of(len(report.results), 'question')} "
        f"· {where}: {searched} · {result['seconds']:.1f} s"
    )
    st.segmented_control("Hits retrieved (k)", list(report.ks), key="run_k", required=True)
    k = state.get("run_k") if state.get("run_k") in report.ks else report.ks[-1]
    budget = report.budgets[0] if report.budgets else None
    cols = [*st.columns(2), *st.columns(2)]  # two to a row: four cut their labels at 1280 px
    cols[0].metric(f"Coverage@{k} ({where})", pct(report.coverage_at_k[k]))
    if alone is not None:
        gap = report.coverage_at_k[k] - alone.coverage_at_k[k]
        cols[1].metric(
            f"Coverage@{k} (document scope)",
            pct(alone.coverage_at_k[k]),
            delta=f"corpus {gap * 100:+.0f} points" if gap else "no gap",
            delta_color="normal" if gap else "off",
            help="The same questions, each ranking only its own document's chunks: what a "
            "page-by-page evaluation reports. The corpus's figure is what an index over the "
            "whole site gives.",
        )
    if budget is not None:
        cols[2].metric(
            f"Coverage@{budget} tokens ({where})", pct(report.coverage_at_budget[budget])
        )
    cols[3].metric(
        f"Chunks ({'corpus' if report.scope == 'corpus' else 'their documents'})",
        f"{report.chunks:,}",
        help=f"{report.index_tokens:,} cl100k tokens over all of them: what an index holds.",
    )
    if alone is not None:
        gaps = scope_gaps(report, alone, k=k)
        lost = [g for g in gaps if g.lost]
        st.subheader(f"What the corpus costs at k = {k}", anchor=False)
        st.caption(
            f"{n_of(len(lost), 'question')} covered on its own document but not in the "
            "corpus (lost ones first): other documents took the top places (crowding). Each "
            f"row lists the documents in the corpus's top {k} other than the question's own, "
            "with their hits."
        )
        st.dataframe(gap_rows(gaps), hide_index=True, key="run_gaps")
    else:
        st.dataframe(
            [
                {
                    "id": r.query.id,
                    f"covered@{k}": r.covered_at_k[k],
                    "question": r.query.query,
                    "document": r.query.doc,
                }
                for r in report.results
            ],
            hide_index=True,
            key="run_rows",
        )


OWN = "no other page: its own page's other chunks ranked first over the whole corpus"
"""Why a question lost in the corpus when no sibling is among the top k: a ranking over the
whole corpus (BM25's term statistics, the fill of the budget) orders its own chunks otherwise."""


def gap_rows(gaps: list[ScopeGap]) -> list[dict[str, Any]]:
    """One row per question: covered alone, covered in the corpus, who crowded it."""
    return [
        {
            "id": g.id,
            "lost in the corpus": "✗ lost" if g.lost else "",
            f"document scope@{g.k}": g.in_document,
            f"corpus scope@{g.k}": g.in_corpus,
            "other documents in the top k (hits)": g.crowding_text() or (OWN if g.lost else ""),
            "question": g.query,
            "document": g.doc,
        }
        for g in gaps
    ]
