"""Links that reopen a view: the main page writes its view into the URL and opens the view a
link names (AppTest here; a real browser in tests/test_browser.py)."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from explorer.config import Config
from tests.conftest import REPO
from ui import view

APP = str(REPO / "app.py")


def run(params: dict[str, str] | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=300)
    if params:
        at.query_params.update(params)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_the_start_page_writes_its_view_into_the_url() -> None:
    at = run({"config": "retriever=bm25"})  # bm25: no model needed
    params = at.query_params
    assert params["doc"] == "refund-policy.md"
    assert Config.from_spec(params["config"]) == Config().replace(retriever="bm25")
    assert params["q"] == view.DEMO.question
    assert params["e"].splitlines() == list(view.DEMO.evidence)


def test_a_link_round_trips_through_a_new_session() -> None:
    config = Config().replace(
        splitter="sentence", unit="words", size=40, overlap=0, retriever="bm25", carry=0.2
    )
    first = run(
        {
            "doc": "writing-guide.md",
            "config": config.to_spec(),
            "k": "3",
            "budget": "none",
            "q": "Which strategy keeps tables whole?",
            "e": "Keeps tables whole",
            "chunk": "4",
            "view": "heat",
        }
    )
    link = dict(first.query_params)
    again = run(link)  # a new session opened on the link the first one wrote
    s = again.session_state
    assert s["source"] == "writing-guide.md"
    assert view.config_of(s) == config  # carry 0.2 stays 0.2
    assert (s["k"], s["budget"], s["chunk"], s["view"]) == (3, None, 4, "Heat")
    question_key, evidence_key = view.query_keys("writing-guide.md")
    assert s[question_key] == "Which strategy keeps tables whole?"
    assert s[evidence_key] == "Keeps tables whole"
    assert dict(again.query_params) == link
    assert any(h.value == "Chunk #4" for h in again.subheader)


def test_a_link_to_an_upload_says_it_cannot_carry_the_file() -> None:
    at = run({"doc": "returns.md", "upload": "1", "config": "retriever=bm25"})
    assert at.session_state["source"] == "refund-policy.md"
    (note,) = [w.value for w in at.warning if "a link cannot carry" in w.value]
    assert "returns.md" in note and "upload it here" in note
    assert at.session_state["retriever"] == "bm25"  # its settings still apply


def test_a_link_with_bad_settings_says_so_and_opens_the_start() -> None:
    at = run({"config": "size=10,overlap=50", "k": "many"})
    (note,) = [w.value for w in at.warning if "settings cannot be used" in w.value]
    assert "overlap (50) must be smaller than size (10)" in note
    assert at.session_state["k"] == view.DEMO.k


def test_an_a_b_link_reopens_both_configurations() -> None:
    page = str(REPO / "pages" / "evaluate.py")
    a = Config().replace(splitter="fixed", unit="chars", size=500, overlap=0, retriever="bm25")
    b = Config().replace(retriever="bm25", carry=0.2)
    at = AppTest.from_file(page, default_timeout=300)
    at.query_params.update({"a": a.to_spec(), "b": b.to_spec(), "k": "3"})
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert view.config_of(at.session_state, prefix="ab_A_") == a
    assert view.config_of(at.session_state, prefix="ab_B_") == b
    assert at.session_state["ab_k"] == 3
    assert dict(at.query_params) == {"a": a.to_spec(), "b": b.to_spec(), "k": "3"}
