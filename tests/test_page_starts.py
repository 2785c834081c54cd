"""Where each page starts (issue 36.11): the opening lesson belongs to the Explore page while it
is open, so a fresh session on the Corpus or Evaluate page starts on the recommended
configuration, not the lesson's failing one; leaving and coming back keeps the lesson; each page
has *Reset to recommended*; and the BM25 answer drawn while the model embeds shows no verdict
that the configuration's own answer could contradict a moment later."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from explorer.config import Config
from tests.conftest import REPO
from ui.lessons import OPENING
from ui.settings import config_of
from ui.view_state import query_keys

assert OPENING is not None, "the app opens on lesson 1"
START = OPENING.failing
APP = str(REPO / "app.py")
CORPUS = "app_pages/corpus.py"
EVALUATE = "app_pages/evaluate.py"
EXPLORE = "app_pages/explore.py"


def fresh(page: str | None) -> AppTest:
    """A new session whose first run is on ``page`` (None: the Explore page)."""
    at = AppTest.from_file(APP, default_timeout=180)
    # no question asked on either page: nothing needs the model
    at.session_state[query_keys(OPENING.doc)[0]] = ""
    at.session_state["cp_question"] = ""
    if page is not None:
        at.switch_page(page)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def sidebar_config(at: AppTest) -> Config:
    return config_of(at.session_state)


def test_the_opening_lesson_sets_the_explore_page() -> None:
    assert START.config != Config()
    at = fresh(None)
    assert sidebar_config(at) == START.config


def test_a_fresh_session_on_the_corpus_page_starts_on_the_recommended_configuration() -> None:
    at = fresh(CORPUS)
    assert sidebar_config(at) == Config()
    assert at.selectbox(key="splitter").value == Config().chunking.splitter
    # and the Explore page, opened next, shows the lesson at its own setting
    at.switch_page(EXPLORE).run()
    assert not at.exception
    assert sidebar_config(at) == START.config
    assert at.session_state["lesson"] == OPENING.name


def test_a_fresh_session_on_the_evaluate_page_starts_a_on_the_recommended_configuration() -> None:
    at = fresh(EVALUATE)
    assert config_of(at.session_state, prefix="ab_A_") == Config()
    assert at.session_state["ab_A_size"] == Config().chunking.size != START.config.chunking.size


def test_leaving_the_lesson_and_coming_back_keeps_it_and_a_change_elsewhere_stands() -> None:
    at = fresh(None)
    at.switch_page(CORPUS).run()
    assert sidebar_config(at).chunking == Config().chunking  # not the lesson's 250 characters
    at.switch_page(EXPLORE).run()
    assert sidebar_config(at) == START.config
    # a configuration changed on the other page is the visitor's: it stands on return
    at.switch_page(CORPUS).run()
    at.number_input(key="size_exact").set_value(300).run()
    at.switch_page(EXPLORE).run()
    assert not at.exception
    assert sidebar_config(at).chunking.size == 300


def test_each_page_has_reset_to_recommended() -> None:
    at = fresh(CORPUS)
    at.number_input(key="size_exact").set_value(300).run()
    at.slider(key="cp_k").set_value(9).run()
    at.button(key="cp_reset_recommended").click().run()
    assert not at.exception
    assert sidebar_config(at) == Config()
    assert at.session_state["cp_k"] == 5
    at.switch_page(EVALUATE).run()
    at.number_input(key="size_exact").set_value(300).run()
    at.session_state["ab_A_size"] = 333
    at.button(key="eval_reset_recommended").click().run()
    assert not at.exception
    assert sidebar_config(at) == Config()
    assert config_of(at.session_state, prefix="ab_A_") == Config()


def test_the_bm25_answer_while_the_model_embeds_shows_no_verdict_until_it_stands() -> None:
    def script() -> None:
        import streamlit as st

        from explorer.preparing import Pending
        from explorer.workspace import Workspace
        from tests.conftest import SAMPLES
        from ui.explore.question_panel import EarlyAnswer
        from ui.lessons import OPENING

        assert OPENING is not None
        setting = OPENING.failing
        ws = Workspace()
        doc = ws.load((SAMPLES / OPENING.doc).read_bytes(), name=OPENING.doc)
        config = setting.config.replace(retriever="bm25")
        early = ws.answer(
            OPENING.question, OPENING.evidence, config=config, names=[doc], k=setting.k,
            budget=setting.budget,
        )  # fmt: skip
        drawn = EarlyAnswer(
            st.empty(), doc=doc, chunks=ws.chunks(doc, config), config=setting.config
        )
        drawn(early, Pending(texts=12, what="passages", model="m", load_model=True))
        if st.session_state.get("stands"):
            drawn.stands()

    at = AppTest.from_function(script, default_timeout=120)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.success and not at.error and not at.warning
    assert any("The verdict waits for the" in c.value for c in at.caption)
    assert len(at.dataframe) == 1  # its hits are shown
    at.session_state["stands"] = True
    at.run()
    assert len(at.success) + len(at.error) + len(at.warning) == 1
