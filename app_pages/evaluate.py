"""Evaluate: choose chunking by measuring whether retrieval returns the evidence.

It reads top to bottom as the UI does: the page's starting state, the sidebar's own controls
(the documents — the Corpus page's corpus or a folder —, the scope, which questions run), then
four tabs, each a module of :mod:`ui.evaluate`:

* **Query set** (:mod:`ui.evaluate.query_set`): the bundled boundary questions or an uploaded
  JSON file, edited in a table and downloaded again. It lives in
  ``st.session_state["query_set"]`` (the Explore page adds to it).
* **Run** (:mod:`ui.evaluate.single`): the sidebar's configuration over the questions; in corpus
  scope also in document scope, the gap per question with the documents that crowded it out.
* **A/B** (:mod:`ui.evaluate.ab`): two configurations over the questions: coverage, the
  questions that flipped, the evidence ranks, and one document drawn once with both sets of
  chunk boundaries.
* **Sweep** (:mod:`ui.evaluate.sweep`): one configuration over sizes × overlaps: charts, a
  table, and "load this configuration" into the Explore page.

A starts as the sidebar's configuration, B as the recommended one; both are drawn with the same
widgets as the sidebar (:func:`ui.widgets.config_widgets`). Every run goes through the session's
workspace, so a document the Explore page read is not read again.
"""

from __future__ import annotations

import streamlit as st

from ui import frame
from ui.evaluate import ab, handover, query_set, questions, setup, single, sweep
from ui.widget_keys import EVALUATE_CONFIGS

setup.start()
with frame.page_slot():
    chosen = questions.choose()
    st.button(
        "Reset to recommended",
        key="eval_reset_recommended",
        icon=":material/restart_alt:",
        on_click=frame.reset_to_recommended,
        kwargs={"prefixes": EVALUATE_CONFIGS},
        help="The recommended configuration for the sidebar, A, B and the sweep.",
    )

st.title("Evaluate chunking")
st.caption(
    "Does retrieval return the text each answer needs? Every question lists its **evidence**: "
    "the exact phrases a complete answer needs. A question is *covered at k* when all of them "
    "lie inside the top k retrieved chunks — choose chunking by that, not by how chunks look."
)
questions.problems(chosen)

tab_set, tab_run, tab_ab, tab_sweep = st.tabs(
    ["Query set", "Run", "A/B", "Sweep"], key="eval_tab", on_change="rerun"
)
if tab_set.open:
    with tab_set:
        query_set.draw(doc_options=chosen.document_choices())
if tab_run.open:
    with tab_run:
        single.draw(chosen)
if tab_ab.open:
    with tab_ab:
        ab.draw(chosen)
if tab_sweep.open:
    with tab_sweep:
        sweep.draw(chosen)

handover.go_if_asked()
