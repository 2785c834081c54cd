"""One escaping rule for everything the app shows from outside (:mod:`ui.safe`), checked where
it is shown: a link's question and evidence, an uploaded file's name and headings, a compared
version's name, a corpus of such files, an uploaded query set. Nothing shown may load, run or
link (:func:`tests.hostile.live`); a real browser checks the same in tests/test_browser_hostile.py.
"""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import REPO
from tests.hostile import HOSTILE, NAME, assert_inert, live, live_plot, plotly_figures
from tests.test_app import upload
from ui.safe import md_escape, md_text
from ui.view_state import query_keys

APP = str(REPO / "app.py")
DOC = (
    f"# Returns {HOSTILE}\n\nYou may return a book within seven days. {HOSTILE}\n\n"
    f"## Exceptions {HOSTILE}\n\nThis does not apply to downloaded materials.\n"
).encode()
QUESTION = f"Can I return it? {HOSTILE}"
EVIDENCE = f"within seven days\n{HOSTILE}"


def test_the_check_sees_what_the_hostile_text_would_do() -> None:
    """Without escaping, every kind of markup in the hostile text is live (or the tests below
    would prove nothing)."""
    found = " ".join(live(HOSTILE))
    for kind in (
        "<img src",
        "javascript:",
        "onerror",
        "<script>",
        "autolink www.",
        "autolink https",
    ):
        assert kind in found, (kind, found)
    assert live(NAME)


@pytest.mark.parametrize("escape", [md_text, md_escape])
def test_escaped_text_is_inert_and_reads_the_same(escape: object) -> None:
    for text in (HOSTILE, NAME):
        out = escape(text)  # type: ignore[operator]
        assert not live(out), live(out)
        shown = out.replace("\\", "").replace("\u2060", "")  # escapes, an invisible joiner
        assert shown == text.replace("\\", "")


def run(at: AppTest) -> AppTest:
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_a_hostile_link_shows_its_question_and_evidence_as_text() -> None:
    at = AppTest.from_file(APP, default_timeout=300)
    at.query_params.update(
        {"doc": "refund-policy.md", "config": "retriever=bm25", "q": QUESTION, "e": EVIDENCE}
    )
    run(at)
    q_key, _ = query_keys("refund-policy.md")
    assert at.session_state[q_key] == QUESTION  # kept as typed
    assert_inert(at)
    waiting = AppTest.from_file(APP, default_timeout=300)  # a link to an upload it cannot carry
    waiting.query_params.update({"doc": NAME + ".md", "upload": "1", "q": QUESTION})
    assert_inert(run(waiting))


def test_a_hostile_upload_its_headings_and_a_compared_version_stay_text() -> None:
    at = AppTest.from_file(APP, default_timeout=300)
    at.session_state["retriever"] = "bm25"
    run(at)
    upload(at, NAME + ".md", DOC)
    assert not at.exception, [e.value for e in at.exception]
    q_key, e_key = query_keys(NAME + ".md")
    at.session_state[q_key] = QUESTION
    at.session_state[e_key] = EVIDENCE
    run(at)
    assert_inert(at)
    for view in ("Chunks", "Heat", "Query hits"):
        if view in at.radio(key="view").options:
            at.radio(key="view").set_value(view)
            assert_inert(run(at))
    at.file_uploader(key="version_upload").set_value(
        (f"old {NAME}.md", DOC.replace(b"seven", b"ten"), "text/markdown")
    )
    run(at)
    assert any("What changed since" in s.value for s in at.subheader)
    assert_inert(at)


def test_a_hostile_corpus_and_question_stay_text() -> None:
    at = AppTest.from_file(APP, default_timeout=300)
    at.session_state["retriever"] = "bm25"
    at.session_state["cp_samples"] = []
    at.switch_page("app_pages/corpus.py")
    run(at)
    at.file_uploader(key="cp_upload").set_value(
        [(NAME + ".md", DOC, "text/markdown"), (f"two {NAME}.md", DOC * 2, "text/markdown")]
    )
    run(at)
    at.session_state["cp_question"] = QUESTION
    at.session_state["cp_evidence"] = EVIDENCE
    run(at)
    assert at.dataframe, "the corpus answered nothing"
    assert_inert(at)


def test_a_hostile_query_set_stays_text() -> None:
    item = {
        "id": f"q1 {HOSTILE}",
        "doc": "refund-policy.md",
        "query": QUESTION,
        "evidence": ["within seven days", HOSTILE],
        "kind": f"rule {NAME}",
    }
    at = AppTest.from_file(APP, default_timeout=300)
    for key in ("ab_A_retriever", "ab_B_retriever", "sw_retriever"):
        at.session_state[key] = "bm25"
    at.session_state["eval_tab"] = "Query set"
    at.switch_page("app_pages/evaluate.py")
    run(at)
    at.file_uploader(key="qs_upload").set_value(
        (
            f"{NAME}.json",
            json.dumps([item, dict(item, id="q2", doc=NAME)]).encode(),
            "application/json",
        )
    )
    run(at)
    assert_inert(at)
    at.session_state["eval_tab"] = "A/B"
    run(at)
    at.button(key="ab_run").click()
    run(at)
    assert_inert(at)


def test_hostile_document_names_reach_the_corpus_overview_as_text() -> None:
    """A folder uploaded with names that are plotly markup (a sign-in link, bold, a break):
    the overview draws no chart that could read them (issue 38.3: its bars are the table's,
    whose grid draws text as text) and the table holds each name as it is."""
    link = "evil/<a href='https:/127.0.0.1:8699/plotlink'>Session expired - CLICK HERE</a>.md"
    names = [link, f"evil/<b>bold</b><br>{NAME}.md"]
    at = AppTest.from_file(APP, default_timeout=300)
    at.session_state["retriever"] = "bm25"
    at.session_state["cp_samples"] = []
    at.switch_page("app_pages/corpus.py")
    run(at)
    at.file_uploader(key="cp_upload").set_value(
        [(n, DOC * (i + 1), "text/markdown") for i, n in enumerate(names)]
    )
    run(at)
    assert not [bad for f in plotly_figures(at) for bad in live_plot(f)]
    [overview] = [d.value for d in at.dataframe if "flagged" in d.value.columns]
    assert sorted(overview["document"]) == sorted(names)
    assert_inert(at)


def test_every_chart_of_the_app_draws_hostile_text_as_text() -> None:
    """Each chart maker, given hostile text wherever text reaches it, makes no live markup."""
    from ui import charts, evaluate_view

    rows = [
        {"cell": 0, "size": 100, "overlap": 0, HOSTILE: 0.5},
        {"cell": 1, "size": 200, "overlap": 0, HOSTILE: 0.7},
    ]
    figures = [
        evaluate_view.sweep_figure(rows, HOSTILE, title=HOSTILE, unit=HOSTILE, picked=0),
        charts.size_histogram([10, 20, 30], limit=25, unit=HOSTILE),
        charts.size_along([10, 20, 30], limit=25, unit=HOSTILE, flagged=[1]),
    ]
    for figure in figures:
        assert not live_plot(figure.to_plotly_json()), figure.layout.title
