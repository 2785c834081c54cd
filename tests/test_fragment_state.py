"""Every page's state across a page switch after a fragment's own run, through ``AppTest``.

The document panel is a fragment (:func:`ui.frame.fragment`): picking a chunk, turning a PDF page
or choosing what the document shows reruns it alone, without the entry file that keeps each
page's widget values while another page is shown (:func:`ui.frame.keep`). A value it did not set
again was dropped at the next page switch, as the state of a widget not drawn: the Explore page
came back on the opening lesson's document, k and question.

``AppTest`` runs the whole script on every run; :func:`fragment_run` makes one run the fragment's
own, as a browser's interaction with it does (the run names the fragments, and Streamlit runs only
them). The same paths in Chromium: ``tests/test_browser_state.py``.
"""

from __future__ import annotations

import contextlib
import functools
import re
from collections.abc import Iterator
from unittest import mock

from streamlit.runtime.scriptrunner import RerunData
from streamlit.testing.v1 import AppTest, local_script_runner

from explorer.config import Config
from tests.conftest import REPO
from ui.settings import state_of
from ui.view_state import query_keys

APP = str(REPO / "app.py")
GUIDE = "writing-guide.md"
QUESTION = "How should headings be written?"


@contextlib.contextmanager
def fragment_run(at: AppTest) -> Iterator[None]:
    """Make the runs inside the block the fragments' own (the fragments the last full run drew),
    as a browser's interaction with a widget inside one makes them."""
    fragments = list(at._fragment_storage._fragments)  # the ids the browser would name
    assert fragments, "the page drew no fragment"
    partial = functools.partial(RerunData, fragment_id_queue=fragments)
    with mock.patch.object(local_script_runner, "RerunData", partial):
        yield


def open_app() -> AppTest:
    """The app on a view of the visitor's own: the writing guide, a question, k = 6.

    The sidebar's configuration is set through ``at.session_state``, which AppTest sets again
    on every run: a browser sends those widgets' values on every page switch (they belong to the
    entry file, drawn on every page), where AppTest sends only what the last run drew."""
    at = AppTest.from_file(APP, default_timeout=120)
    for key, value in state_of(Config()).items():
        at.session_state[key] = value
    at.run()
    at.selectbox(key="source").set_value(GUIDE).run()
    at.text_input(key=query_keys(GUIDE)[0]).set_value(QUESTION).run()
    at.slider(key="k").set_value(6).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def explore_view(at: AppTest) -> dict[str, object]:
    """What the Explore page shows: its document, question, k, view and picked chunk."""
    source = at.selectbox(key="source").value
    return {
        "source": source,
        "question": at.text_input(key=query_keys(str(source))[0]).value,
        "k": at.slider(key="k").value,
        "view": at.radio(key="view").value,
        "chunk": at.session_state["chunk"],
    }


def pick(at: AppTest, index: int) -> None:
    """Pick chunk ``index`` in the document panel's picker (its key names the chunking)."""
    (picker,) = [s for s in at.selectbox if str(s.key).startswith("pick_")]
    picker.set_value(index).run()


def test_a_fragment_run_is_the_panels_alone() -> None:
    # the helper means what it says: the run draws the document panel and nothing else
    at = open_app()
    with fragment_run(at):
        at.radio(key="view").set_value("Chunks").run()
    assert not at.exception, [e.value for e in at.exception]
    assert [r.key for r in at.radio] == ["view"]
    assert any(str(s.key).startswith("pick_") for s in at.selectbox)
    assert not any(s.key in ("source", "lesson", "splitter") for s in at.selectbox)
    assert not any(s.key == "k" for s in at.slider)


def test_the_explore_page_keeps_its_view_after_a_fragment_run_and_a_page_switch() -> None:
    at = open_app()
    with fragment_run(at):
        at.radio(key="view").set_value("Chunks").run()
    with fragment_run(at):
        pick(at, 3)
    at.switch_page("app_pages/explore.py").run()  # the full run of the page, as drawn now
    before = explore_view(at)
    assert before == {"source": GUIDE, "question": QUESTION, "k": 6, "view": "Chunks", "chunk": 3}
    with fragment_run(at):
        at.radio(key="view").set_value("Query hits").run()
    for other in ("app_pages/corpus.py", "app_pages/evaluate.py"):
        at.switch_page(other).run()
        assert not at.exception, [e.value for e in at.exception]
        at.switch_page("app_pages/explore.py").run()
        assert not at.exception, [e.value for e in at.exception]
        assert explore_view(at) == {**before, "view": "Query hits"}, other
        with fragment_run(at):
            at.radio(key="view").set_value("Query hits").run()


def test_the_corpus_pages_question_survives_an_explore_fragment_run() -> None:
    at = open_app()
    at.switch_page("app_pages/corpus.py").run()
    at.text_input(key="cp_question").set_value("What is a chunk?").run()
    at.switch_page("app_pages/explore.py").run()
    with fragment_run(at):
        at.radio(key="view").set_value("Chunks").run()
    at.switch_page("app_pages/corpus.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.text_input(key="cp_question").value == "What is a chunk?"


def test_every_fragment_of_the_app_keeps_the_pages_values() -> None:
    # a panel made a fragment with st.fragment itself would drop the kept values again
    sources = [REPO / "app.py", *REPO.glob("app_pages/*.py"), *REPO.glob("ui/**/*.py")]
    made = re.compile(r"@st\.fragment\b|\bst\.fragment\(")
    direct = [
        str(p.relative_to(REPO))
        for p in sources
        if p != REPO / "ui" / "frame.py" and made.search(p.read_text(encoding="utf-8"))
    ]
    assert direct == []
    assert "@frame.fragment" in (REPO / "ui" / "document_view.py").read_text(encoding="utf-8")
