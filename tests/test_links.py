"""Links that reopen a view: the main page writes its view into the URL and opens the view a
link names (AppTest here; a real browser in tests/test_browser.py)."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from explorer.config import Config
from tests.conftest import REPO
from tests.test_app import upload
from ui.lessons import OPENING
from ui.settings import config_of
from ui.view_state import query_keys

assert OPENING is not None, "the app opens on lesson 1"
START = OPENING.failing
"""Lesson 1's failing setting (configuration, k, budget): the one the app opens on."""

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
    assert params["q"] == OPENING.question
    assert params["e"].splitlines() == list(OPENING.evidence)


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
    assert config_of(s) == config  # carry 0.2 stays 0.2
    assert (s["k"], s["budget"], s["chunk"], s["view"]) == (3, None, 4, "Heat")
    question_key, evidence_key = query_keys("writing-guide.md")
    assert s[question_key] == "Which strategy keeps tables whole?"
    assert s[evidence_key] == "Keeps tables whole"
    assert dict(again.query_params) == link
    assert any(h.value == "Chunk #4" for h in again.subheader)


def test_a_link_to_an_upload_waits_for_the_file_and_then_opens_its_view() -> None:
    at = run(
        {
            "doc": "returns.md",
            "upload": "1",
            "config": "retriever=bm25,splitter=sentence",
            "q": "How do I return a book?",
            "e": "within seven days",
        }
    )
    assert at.session_state["source"] == "refund-policy.md"
    (note,) = [w.value for w in at.warning if "a link cannot carry" in w.value]
    assert "returns.md" in note and "upload a file named returns.md here" in note
    # nothing of the link is shown on the sample meanwhile: not its settings, not its question
    assert at.session_state["splitter"] == "fixed" and at.session_state["retriever"] == "hybrid"
    # the upload opens the link's view, and the note goes
    upload(at, "returns.md", b"# Returns\n\nWithin seven days.\n")
    assert not at.exception
    s = at.session_state
    assert s["source"] == "returns.md"
    assert (s["splitter"], s["retriever"]) == ("sentence", "bm25")
    assert s[query_keys("returns.md")[0]] == "How do I return a book?"
    assert not [w for w in at.warning if "a link cannot carry" in w.value]
    assert at.query_params["upload"] == "1" and at.query_params["doc"] == "returns.md"


def test_the_link_note_goes_when_another_document_is_chosen() -> None:
    at = run({"doc": "returns.md", "upload": "1"})
    assert [w for w in at.warning if "a link cannot carry" in w.value]
    at.selectbox(key="source").set_value("writing-guide.md").run()
    assert not [w for w in at.warning if "a link cannot carry" in w.value]


def test_a_link_with_bad_settings_says_so_and_opens_the_start() -> None:
    at = run({"config": "size=10,overlap=50", "k": "many"})
    (note,) = [w.value for w in at.warning if "settings cannot be used" in w.value]
    assert "overlap (50) must be smaller than size (10)" in note
    assert at.session_state["k"] == START.k


def test_an_a_b_link_reopens_both_configurations() -> None:
    a = Config().replace(splitter="fixed", unit="chars", size=500, overlap=0, retriever="bm25")
    b = Config().replace(retriever="bm25", carry=0.2)
    at = AppTest.from_file(APP, default_timeout=300)
    at.query_params.update({"a": a.to_spec(), "b": b.to_spec(), "k": "3"})
    at.switch_page("app_pages/evaluate.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert config_of(at.session_state, prefix="ab_A_") == a
    assert config_of(at.session_state, prefix="ab_B_") == b
    assert at.session_state["ab_k"] == 3
    assert dict(at.query_params) == {"a": a.to_spec(), "b": b.to_spec(), "k": "3"}


def test_a_link_cannot_make_the_server_read_a_path_or_fetch_anything() -> None:
    """A link is written by anyone: its model, encoding and document name reach no file the
    person running the app did not allow, and no network."""
    start = config_of(run().session_state)
    for spec, says in (
        ("model=/etc", "the embedding model must be the bundled"),
        ("model=../../../root", "the embedding model must be the bundled"),
        ("encoding=gpt2", "would be downloaded on first use"),
    ):
        at = run({"config": f"retriever=hybrid,{spec}"})
        (note,) = [w.value for w in at.warning if "settings cannot be used" in w.value]
        assert says in note, note
        assert config_of(at.session_state) == start, spec  # the start, untouched
    at = run({"doc": "../../../etc/passwd", "config": "retriever=bm25"})
    assert at.session_state["source"] == "refund-policy.md"
    (note,) = [w.value for w in at.warning if "a link cannot carry" in w.value]
    assert "root:" not in " ".join(m.value for m in at.markdown)


def test_a_link_naming_only_a_document_opens_it_as_choosing_it_would() -> None:
    """What the link leaves out is the document's recommended view, not the opening lesson's
    settings (the refund lesson's k of 2 stayed on a linked PDF)."""
    linked = run({"doc": "field-manual.pdf"})
    chosen = run()  # the opening lesson, then the document picked from the list
    chosen.selectbox(key="source").set_value("field-manual.pdf").run()
    for key in ("source", "k", "budget", "fill", "splitter", "size", "overlap", "retriever"):
        assert linked.session_state[key] == chosen.session_state[key], key
    assert linked.session_state["k"] != 2  # the lesson's
    assert linked.session_state["lesson"] in (None, "")
