"""The Evaluate page through ``AppTest``: query sets load, edit and fail cleanly; A/B shows the
questions that flipped and one document with both sets of boundaries; the sweep charts its grid
and loads a cell into the main page.

Every test opens ``app.py`` (the frame) and switches to ``app_pages/evaluate.py``, as a person
would. Everything
runs with BM25 (the page starts on the recommended hybrid retriever; :func:`open_page` sets
BM25 on every side) over small subsets of the bundled questions, so no embedding model is loaded.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from explorer.chunking.records import ChunkSettings
from explorer.chunking.splitters import split
from explorer.config import CARRY, Config
from explorer.documents.load import load_path
from tests.conftest import REPO, SAMPLES
from ui.lessons import OPENING
from ui.safe import md_text

assert OPENING is not None, "the app opens on lesson 1"
START = OPENING.failing
"""Lesson 1's failing setting (configuration, k, budget): the one the app opens on."""

PAGE = "app_pages/evaluate.py"
APP = str(REPO / "app.py")
BUNDLED = json.loads((REPO / "queries" / "boundary-questions.json").read_text(encoding="utf-8"))
REFUND = {
    "id": "refund",
    "doc": "refund-policy.md",
    "query": "How long do I have to ask for a refund?",
    "evidence": [
        "Refunds are available within seven days.",
        "This does not apply to downloaded materials.",
    ],
}


def questions(doc: str) -> list[dict[str, Any]]:
    return [q for q in BUNDLED if q["doc"] == doc]


def assert_ok(at: AppTest, *, errors: int = 0) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert len(at.error) == errors, [e.value for e in at.error]


def assert_no_exception(at: AppTest) -> None:
    """On the main page, which may show its own messages (an incomplete evidence check)."""
    assert not at.exception, [e.value for e in at.exception]


RECOMMENDED = Config()
QUICK = {"ab_A_retriever": "bm25", "ab_B_retriever": "bm25", "sw_retriever": "bm25"}
"""BM25 on both sides and in the sweep: no embedding model."""


def open_page(**state: Any) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    for key, value in (QUICK | state).items():
        at.session_state[key] = value
    at.switch_page(PAGE).run()
    assert_ok(at)
    return at


def markdown(at: AppTest) -> str:
    return "\n".join(m.value for m in at.markdown)


def frame(at: AppTest, column: str) -> Any:
    """The first table with ``column`` (tables without a selection have no key here)."""
    return next(d.value for d in at.dataframe if column in d.value.columns)


def set_side(at: AppTest, side: str, **values: Any) -> None:
    for name, value in values.items():
        at.session_state[f"ab_{side}_{name}"] = value


# --------------------------------------------------------------------------- first view


def test_opens_on_a_b_with_the_bundled_questions() -> None:
    at = open_page()
    assert len(at.session_state["query_set"]) == 75
    assert at.button(key="ab_run").label == "Run A and B on 75 questions"
    assert not at.button(key="ab_run").disabled
    assert at.selectbox(key="ab_B_splitter").value == "structure"  # B starts as recommended
    fresh = AppTest.from_file(APP, default_timeout=120).switch_page(PAGE).run()
    assert fresh.selectbox(key="ab_B_retriever").value == RECOMMENDED.retriever


def test_a_starts_as_the_main_page_settings() -> None:
    at = open_page(splitter="sentence", unit="words", size=120, overlap=10, heading_prefix=True)
    assert at.selectbox(key="ab_A_splitter").value == "sentence"
    assert at.selectbox(key="ab_A_unit").value == "words"
    assert (
        at.number_input(key="ab_A_size_exact").value,
        at.number_input(key="ab_A_overlap_exact").value,
    ) == (
        120,
        10,
    )
    assert at.toggle(key="ab_A_heading_prefix").value is True


def test_questions_added_by_the_main_page_are_used() -> None:
    added = {**REFUND, "id": "mine-1"}
    at = open_page(query_set=[added])
    assert at.button(key="ab_run").label == "Run A and B on 1 question"


def test_a_question_about_a_missing_document_is_left_out_with_a_warning() -> None:
    at = open_page(query_set=[REFUND, {**REFUND, "id": "gone", "doc": "nowhere.md"}])
    assert any("nowhere.md" in w.value for w in at.warning)
    assert at.button(key="ab_run").label == "Run A and B on 1 question"


def test_an_invalid_query_set_is_one_error_and_disables_the_runs() -> None:
    at = AppTest.from_file(APP, default_timeout=120).switch_page(PAGE)
    for key, value in QUICK.items():
        at.session_state[key] = value
    at.session_state["query_set"] = [REFUND, {"id": "x", "doc": "refund-policy.md", "query": ""}]
    at.run()
    assert_ok(at, errors=1)
    assert "entry 2" in at.error[0].value and "'query'" in at.error[0].value
    assert at.button(key="ab_run").disabled


def test_document_and_kind_filters_choose_the_questions() -> None:
    at = open_page(eval_docs=["refund-policy.md", "writing-guide.md"])
    assert at.button(key="ab_run").label == "Run A and B on 10 questions"
    at.multiselect(key="eval_kinds").set_value(["rule+exception"]).run()
    assert_ok(at)
    assert at.button(key="ab_run").label == "Run A and B on 3 questions"


# --------------------------------------------------------------------------- A/B


def test_a_b_shows_the_refund_question_flipping() -> None:
    at = AppTest.from_file(APP, default_timeout=120).switch_page(PAGE)
    for key, value in QUICK.items():
        at.session_state[key] = value
    at.session_state["query_set"] = [REFUND]
    set_side(
        at, "A", splitter="fixed", unit="chars", size=40, overlap=0, retriever="bm25", carry=0.0,
        merge=False,
    )  # fmt: skip
    set_side(at, "B", splitter="structure", unit="tokens", size=256, overlap=0, retriever="bm25")
    at.run()
    assert_ok(at)
    at.button(key="ab_run").click().run()
    assert_ok(at)
    text = markdown(at)
    assert "#### 0 · Covered with **A**, missed with **B**" in text
    assert "#### 1 · Covered with **B**, missed with **A**" in text
    assert "**refund** How long do I have to ask for a refund?" in text
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Coverage@5 with A (document scope)"] == "0%"
    assert metrics["Coverage@5 with B (document scope)"] == "100%"
    table = at.dataframe(key="ab_table").value
    assert list(table["flip"]) == ["B only"] and list(table["B ranks"]) == ["1 · 1"]
    # the document, drawn once with both sets of boundaries and the evidence
    doc = next(h.value for h in at.html if 'class="ce-doc ce-md"' in h.value)
    assert doc.count("border-left-color:#1d4ed8") > 50  # every 40 characters in A only
    assert doc.count("border-left-color:#c2410c") >= 1  # a heading B starts at, A does not
    assert doc.count('class="ce-badge ce-selected"') == 2  # evidence E1 and E2
    phrases = frame(at, "A cut")
    assert list(phrases["A cut"]) == [True, True] and list(phrases["B cut"]) == [False, False]
    # a smaller k is read from the same run
    at.segmented_control(key="ab_k").set_value(1).run()
    assert_ok(at)
    assert "Questions that flipped at k = 1" in [s.value for s in at.subheader]


def test_a_b_without_flips_says_so_and_a_pdf_question_shows_its_page() -> None:
    at = AppTest.from_file(APP, default_timeout=120).switch_page(PAGE)
    for key, value in QUICK.items():
        at.session_state[key] = value
    at.session_state["query_set"] = questions("field-manual.pdf")[:1]
    same = {
        "splitter": "structure",
        "unit": "tokens",
        "size": 256,
        "overlap": 0,
        "heading_prefix": True,
    }
    set_side(at, "A", **same)
    set_side(at, "B", **same)
    at.run()
    at.button(key="ab_run").click().run()
    assert_ok(at)
    assert any("No question flipped at k = 5" in i.value for i in at.info)
    assert at.session_state["ab_pdf_view"] == "Page image"
    assert len(at.get("image")) == 1
    at.radio(key="ab_pdf_view").set_value("Extracted text").run()
    assert_ok(at)
    assert any('class="ce-doc ce-plain"' in h.value for h in at.html)


def test_the_carry_inputs_reach_a_and_b() -> None:
    at = open_page(query_set=[REFUND], splitter="structure", carry=0.0)  # main page: no carry
    assert at.slider(key="ab_A_carry").label == "Carry from previous"
    assert at.slider(key="ab_A_carry").value == 0.0  # A starts as the main page
    assert at.slider(key="ab_B_carry").value == RECOMMENDED.carry  # B as recommended
    at.slider(key="ab_B_carry").set_value(0.2).run()
    at.button(key="ab_run").click().run()
    assert_ok(at)
    result = at.session_state["ab_result"]
    assert (result["a"].config.carry, result["b"].config.carry) == (0.0, 0.2)
    [caption] = [c.value for c in at.caption if c.value.startswith("A: ")]
    assert "carry 0.2" not in caption.split(" · B: ")[0]
    assert "carry 0.2" in caption.split(" · B: ")[1]


def test_the_fill_toggles_reach_a_and_b() -> None:
    at = open_page(query_set=[REFUND], splitter="structure", fill=False)  # main page: fill off
    assert at.toggle(key="ab_A_fill").label == "Fill to budget"
    assert at.toggle(key="ab_A_fill").value is False  # A starts as the main page
    assert at.toggle(key="ab_B_fill").value is RECOMMENDED.fill  # B as recommended
    at.button(key="ab_run").click().run()
    assert_ok(at)
    result = at.session_state["ab_result"]
    assert (result["a"].config.fill, result["b"].config.fill) == (False, True)
    [caption] = [c.value for c in at.caption if c.value.startswith("A: ")]
    assert "fill off" in caption.split(" · B: ")[0]
    assert "fill" not in caption.split(" · B: ")[1]  # as recommended
    at.toggle(key="ab_A_fill").set_value(True).run()  # a changed toggle flags the run
    assert any("changed since this run" in w.value for w in at.warning)


def test_changed_settings_after_a_run_are_flagged() -> None:
    at = open_page(query_set=[REFUND])
    at.button(key="ab_run").click().run()
    at.number_input(key="ab_B_size_exact").set_value(200).run()
    assert_ok(at)
    assert any("changed since this run" in w.value for w in at.warning)


def test_an_overlap_above_a_new_size_is_lowered_and_said_so() -> None:
    at = open_page(query_set=[REFUND])
    at.number_input(key="ab_A_overlap_exact").set_value(200).run()
    at.number_input(key="ab_A_size_exact").set_value(100).run()  # below the overlap now
    assert_ok(at)
    notes = [c.value for c in at.caption]
    assert "Overlap 200 is not below the new size 100: set to 99." in notes
    assert at.slider(key="ab_A_overlap").value == at.number_input(key="ab_A_overlap_exact").value
    assert at.slider(key="ab_A_overlap").value == 99
    assert not at.button(key="ab_run").disabled


def test_an_impossible_configuration_is_one_error() -> None:
    at = open_page(query_set=[REFUND], ab_A_unit="chars", ab_A_size=500, ab_A_overlap=0)
    at.selectbox(key="ab_A_splitter").set_value("langchain-token").run()
    assert_ok(at, errors=1)
    assert "langchain-token measures size in tokens, not 'chars'" in at.error[0].value
    assert at.button(key="ab_run").disabled


# --------------------------------------------------------------------------- sweep


def test_sweep_renders_its_grid_and_charts() -> None:
    at = open_page(query_set=questions("refund-policy.md"), eval_tab="Sweep")
    assert at.button(key="sw_run").label == "Run 6 cells × 6 questions"
    at.text_input(key="sw_sizes").set_value("64:256:64").run()
    at.text_input(key="sw_overlaps").set_value("0, 32").run()
    assert at.button(key="sw_run").label == "Run 8 cells × 6 questions"
    at.button(key="sw_run").click().run()
    assert_ok(at)
    assert len(at.get("plotly_chart")) == 4
    table = at.dataframe(key="sw_table").value
    assert list(zip(table["size"], table["overlap"], strict=True)) == [
        (s, o) for s in (64, 128, 192, 256) for o in (0, 32)
    ]
    # the best cell by the budget's coverage (what an LLM gets), or by k's when asked
    best = at.selectbox(key="sw_cell").value
    assert table["coverage@512 tokens"][best] == table["coverage@512 tokens"].max()
    assert list(table.columns)[:2] == ["cell", "vs best@512 tokens"]  # the verdict in view
    at.segmented_control(key="sw_budget").set_value(1024).run()
    assert_ok(at)
    best = at.selectbox(key="sw_cell").value
    table = at.dataframe(key="sw_table").value
    assert table["coverage@1024 tokens"][best] == table["coverage@1024 tokens"].max()
    at.segmented_control(key="sw_best").set_value("k").run()
    best = at.selectbox(key="sw_cell").value
    table = at.dataframe(key="sw_table").value
    assert table["coverage@5"][best] == table["coverage@5"].max()
    assert list(table.columns)[:2] == ["cell", "vs best@5"]
    # a new unit brings sizes that suit it
    assert (
        at.selectbox(key="sw_unit").value == Config().chunking.unit
    )  # the sidebar's: recommended here
    at.selectbox(key="sw_unit").set_value("words").run()
    assert at.text_input(key="sw_sizes").value == "75, 150, 300"


@pytest.mark.parametrize(
    ("sizes", "overlaps", "message"),
    [("abc", "0", "cannot read 'abc'"), ("64", "64", "no cell has an overlap smaller")],
)
def test_a_bad_grid_is_one_error(sizes: str, overlaps: str, message: str) -> None:
    at = AppTest.from_file(APP, default_timeout=120).switch_page(PAGE)
    for key, value in QUICK.items():
        at.session_state[key] = value
    at.session_state["query_set"] = [REFUND]
    at.session_state["eval_tab"] = "Sweep"
    at.session_state["sw_sizes"], at.session_state["sw_overlaps"] = sizes, overlaps
    at.run()
    assert_ok(at, errors=1)
    assert message in at.error[0].value
    assert at.button(key="sw_run").disabled


def test_the_sweep_carry_reaches_its_cells() -> None:
    at = open_page(query_set=[REFUND], eval_tab="Sweep", sw_sizes="64, 128", sw_overlaps="0")
    assert at.slider(key="sw_carry").value == RECOMMENDED.carry
    for carry in (CARRY, 0.0, 0.45):
        at.slider(key="sw_carry").set_value(carry).run()
        at.button(key="sw_run").click().run()
        assert_ok(at)
        assert [r.config.carry for r in at.session_state["sweep_result"]["reports"]] == [carry] * 2


def test_the_sweep_fill_toggle_reaches_its_cells() -> None:
    at = open_page(query_set=[REFUND], eval_tab="Sweep", sw_sizes="64, 128", sw_overlaps="0")
    assert at.toggle(key="sw_fill").value is Config().fill  # as the sidebar's (recommended)
    for on in (True, False):
        at.toggle(key="sw_fill").set_value(on).run()
        at.button(key="sw_run").click().run()
        assert_ok(at)
        assert [r.config.fill for r in at.session_state["sweep_result"]["reports"]] == [on] * 2


def test_load_this_configuration_sets_the_main_page() -> None:
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    assert_no_exception(at)
    at.switch_page(PAGE)
    at.session_state["query_set"] = questions("refund-policy.md")
    at.session_state["eval_tab"] = "Sweep"
    at.session_state["sw_splitter"] = "sentence"
    at.session_state["sw_unit"] = "words"
    at.session_state["sw_sizes"], at.session_state["sw_overlaps"] = "60, 120", "0, 20"
    at.session_state["sw_retriever"] = "bm25"
    at.session_state["sw_heading_prefix"] = False
    at.session_state["sw_carry"] = 0.0
    at.session_state["sw_fill"] = True  # the main page starts with it off
    at.run()
    assert_ok(at)
    at.button(key="sw_run").click().run()
    assert_ok(at)
    at.selectbox(key="sw_cell").set_value(3).run()  # size 120, overlap 20
    at.button(key="sw_load").click().run()
    assert_no_exception(at)
    assert at.selectbox(key="source").value  # the Explore page now
    keys = ("splitter", "unit", "size", "overlap", "heading_prefix", "carry", "fill")
    state = {k: at.session_state[k] for k in keys}
    assert state == {
        "splitter": "sentence",
        "unit": "words",
        "size": 120,
        "overlap": 20,
        "heading_prefix": False,
        "carry": 0.0,
        "fill": True,
    }
    assert at.toggle(key="fill").value is True
    note = next(m.value for m in at.markdown if m.value.startswith("An LLM would receive"))
    assert "512-token budget" in note
    assert (at.session_state["size_exact"], at.session_state["overlap_exact"]) == (120, 20)
    doc = load_path(SAMPLES / at.session_state["source"])
    expected = split(doc, ChunkSettings(splitter="sentence", unit="words", size=120, overlap=20))
    chunks = next(m.value for m in at.metric if m.label == "Chunks")
    assert int(chunks) == len(expected)


def test_open_a_b_side_in_the_explorer_brings_its_document() -> None:
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    at.switch_page(PAGE)
    at.session_state["query_set"] = questions("writing-guide.md")[:1]
    for key, value in QUICK.items():
        at.session_state[key] = value
    at.run()
    at.button(key="ab_run").click().run()
    assert_ok(at)
    at.button(key="ab_open_B").click().run()
    assert_no_exception(at)
    assert at.session_state["source"] == "writing-guide.md"
    assert (at.session_state["splitter"], at.session_state["size"]) == ("structure", 256)
    assert at.session_state["heading_prefix"] is RECOMMENDED.heading_prefix


# --------------------------------------------------------------------------- query set


def upload(at: AppTest, name: str, data: bytes) -> None:
    at.file_uploader(key="qs_upload").set_value((name, data, "application/json")).run()


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b'[{"id": "a", ', "not valid JSON"),
        (b'{"questions": []}', "expected a JSON list"),
        (b'[{"id": "a", "doc": "d.md", "query": "q", "evidence": "one"}]', "must be a list"),
        (b"\x89PNG\r\n", "not UTF-8"),
    ],
)
def test_a_bad_query_file_is_one_error_and_nothing_is_lost(data: bytes, message: str) -> None:
    at = open_page(eval_tab="Query set")
    before = at.session_state["query_set"]
    upload(at, "mine.json", data)
    assert_ok(at, errors=1)
    assert at.error[0].value.startswith("mine.json: ") and message in at.error[0].value
    assert at.session_state["query_set"] == before
    # still usable: the bundled set loads again and the error goes
    at.button(key="qs_bundled").click().run()
    assert_ok(at)


def test_a_good_query_file_replaces_or_adds_and_downloads_again() -> None:
    at = open_page(eval_tab="Query set")
    upload(at, "mine.json", json.dumps([REFUND]).encode())
    assert_ok(at)
    assert at.session_state["query_set"] == [REFUND]
    assert any("Loaded 1 question from mine.json" in s.value for s in at.success)
    assert len(at.data_editor) == 1
    # adding: the bundled set after it, no duplicates
    at.toggle(key="qs_merge").set_value(True).run()
    at.button(key="qs_bundled").click().run()
    assert_ok(at)
    ids = [q["id"] for q in at.session_state["query_set"]]
    assert ids[0] == "refund" and len(ids) == 76 == len(set(ids))
    assert at.download_button(key="qs_download").label == "Download the query set (JSON)"


def test_the_editor_shows_the_current_set() -> None:
    at = open_page(eval_tab="Query set", query_set=[{**REFUND, "kind": "rule+exception"}])
    table = at.data_editor[0].value
    assert list(table.columns) == ["id", "doc", "query", "evidence", "kind"]
    assert list(table["evidence"][0]) == REFUND["evidence"]
    assert at.session_state["query_set"][0]["kind"] == "rule+exception"


# --------------------------------------------------------------------------- state


def test_settings_survive_hidden_tabs_and_the_main_page() -> None:
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    at.switch_page(PAGE)
    at.session_state["query_set"] = [REFUND]
    at.run()
    at.number_input(key="ab_A_size_exact").set_value(77).run()
    at.session_state["eval_tab"] = "Sweep"  # the A/B inputs are not drawn now
    at.run()
    at.text_input(key="sw_sizes").set_value("100, 200").run()
    at.session_state["eval_tab"] = "A/B"
    at.run()
    assert_ok(at)
    assert at.number_input(key="ab_A_size_exact").value == 77
    at.session_state["eval_tab"] = "Sweep"
    at.run()
    assert at.text_input(key="sw_sizes").value == "100, 200"
    at.session_state["eval_tab"] = "A/B"
    at.run()
    at.switch_page("app_pages/explore.py")
    at.run()
    assert_no_exception(at)
    at.switch_page(PAGE)
    at.run()
    assert_ok(at)
    assert at.number_input(key="ab_A_size_exact").value == 77


def test_a_failure_during_a_run_is_one_error(monkeypatch: pytest.MonkeyPatch) -> None:
    import explorer.evaluation.coverage as evaluation
    from explorer.errors import EmbeddingError

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise EmbeddingError("cannot load embedding model 'x' offline")

    def buggy(*args: Any, **kwargs: Any) -> Any:
        raise KeyError("oops")

    for fake, message in ((broken, "cannot load embedding model"), (buggy, "KeyError")):
        monkeypatch.setattr(evaluation, "evaluate", fake)
        monkeypatch.setattr(evaluation, "sweep", fake)
        at = open_page(query_set=[REFUND])
        at.button(key="ab_run").click().run()
        assert_ok(at, errors=1)
        assert message in at.error[0].value
        at.session_state["eval_tab"] = "Sweep"
        at.run()
        at.button(key="sw_run").click().run()
        assert_ok(at, errors=1)
        assert message in at.error[0].value


# --------------------------------------------------------------------------- from the main page


UPLOADED = (
    "# Returns\n\nItems can be returned within thirty days of delivery.\n\n"
    "## Exceptions\n\nThis does not apply to gift cards.\n"
)


def test_a_question_added_on_the_main_page_about_an_upload_runs_here() -> None:
    at = AppTest.from_file(APP, default_timeout=120)
    at.session_state["retriever"] = "bm25"
    at.run()
    at.file_uploader(key="upload").set_value(
        ("returns.md", UPLOADED.encode(), "text/markdown")
    ).run()
    assert_no_exception(at)
    assert at.session_state["source"] == "returns.md"
    [question] = [t for t in at.text_input if t.label == "Question"]
    [evidence_box] = [t for t in at.text_area if t.label.startswith("Required evidence")]
    question.set_value("Can I return a gift card?")
    evidence_box.set_value("within thirty days\ndoes not apply to gift cards")
    at.run()
    at.button(key="add_query").click().run()
    assert_no_exception(at)
    added = at.session_state["query_set"][-1]
    assert added == {
        "id": "added-1",
        "doc": "returns.md",
        "query": "Can I return a gift card?",
        "evidence": ["within thirty days", "does not apply to gift cards"],
    }
    assert len(at.session_state["query_set"]) == len(BUNDLED) + 1  # the project's set, plus it
    assert any(s.value.startswith("Added as added-1") for s in at.success)
    at.button(key="add_query").click().run()  # the same again is not added twice
    assert len(at.session_state["query_set"]) == len(BUNDLED) + 1
    assert any("already in the query set" in i.value for i in at.info)

    at.switch_page(PAGE)
    at.session_state["eval_docs"] = ["returns.md"]
    set_side(
        at, "A", splitter="fixed", unit="chars", size=40, overlap=0, retriever="bm25", carry=0.0,
        merge=False,
    )  # fmt: skip
    set_side(at, "B", splitter="structure", unit="tokens", size=256, overlap=0, retriever="bm25")
    at.run()
    assert_ok(at)
    assert not any("returns.md" in w.value for w in at.warning)  # the upload serves it
    assert at.button(key="ab_run").label == "Run A and B on 1 question"
    at.button(key="ab_run").click().run()
    assert_ok(at)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Coverage@5 with A (document scope)"] == "0%"
    assert metrics["Coverage@5 with B (document scope)"] == "100%"


def test_add_query_gives_new_ids_and_refuses_empty_questions() -> None:
    from explorer.errors import QuerySetError
    from explorer.evaluation import queries

    items, new = queries.add_query([REFUND], doc="a.md", query=" Q? ", evidence=["x", " "])
    assert new == "added-1" and items[-1] == {
        "id": "added-1",
        "doc": "a.md",
        "query": "Q?",
        "evidence": ["x"],
    }
    items, new = queries.add_query(items, doc="a.md", query="Other?", evidence=["y"])
    assert new == "added-2"
    taken = [*items, {**REFUND, "id": "added-3"}]
    assert queries.add_query(taken, doc="b.md", query="Q?", evidence=["x"])[1] == "added-4"
    assert queries.add_query(items, doc="a.md", query="Q?", evidence=["x"]) == (items, None)
    with pytest.raises(QuerySetError, match="type a question"):
        queries.add_query(items, doc="a.md", query="  ", evidence=["x"])
    with pytest.raises(QuerySetError, match="at least one evidence phrase"):
        queries.add_query(items, doc="a.md", query="Q?", evidence=[" "])


def test_a_b_says_whether_the_difference_is_real() -> None:
    at = open_page(query_set=[REFUND])
    at.button(key="ab_run").click().run()  # A and B the same: nothing to tell apart
    assert_ok(at)
    assert any(i.value.startswith("**At k = 5: no detectable difference.**") for i in at.info), [
        i.value for i in at.info
    ]
    table = frame(at, "questions needed")
    assert list(table["at"]) == ["k=1", "k=3", "k=5", "512 tokens", "1024 tokens"]
    assert set(table["p"]) == {"1"}


def test_our_structure_splitter_against_a_langchain_1000_200_is_one_a_b() -> None:
    at = open_page(query_set=questions("refund-policy.md"))
    set_side(at, "B", splitter="langchain-recursive", unit="chars", size=1000, overlap=200)
    at.run()
    assert_ok(at)
    assert at.selectbox(key="ab_B_splitter").value == "langchain-recursive"
    at.button(key="ab_run").click().run()
    assert_ok(at)
    result = at.session_state["ab_result"]
    assert result["b"].config.chunking.splitter == "langchain-recursive"
    assert result["b"].chunks > 0
    assert any(i.value.startswith("**At k = 5:") for i in [*at.info, *at.success])


def test_a_query_set_naming_files_outside_the_folder_reads_none_of_them() -> None:
    """An uploaded query set names its documents; a name that climbs out of the documents
    folder is left out like a missing file, and nothing outside is read."""
    outside = ["/etc/passwd", "../../../etc/hosts", "../boundary-questions.json"]
    first = questions("refund-policy.md")[0]
    items = [dict(first, doc=name, id=f"out-{n}") for n, name in enumerate(outside)]
    items.append(questions("refund-policy.md")[0])
    at = open_page(query_set=items)
    [left_out] = [w.value for w in at.warning if w.value.startswith("Left out")]
    assert "3 questions about 3 documents" in left_out
    assert str(REPO) not in left_out  # the folder as the visitor typed it, not the server's path
    assert at.button(key="ab_run").label == "Run A and B on 1 question"
    assert "root:" not in markdown(at)


@pytest.mark.parametrize("folder", ["/etc", "../../.."])
def test_a_documents_folder_outside_the_allowed_ones_is_refused(folder: str) -> None:
    at = AppTest.from_file(APP, default_timeout=120)
    for key, value in (QUICK | {"eval_docs_dir": folder}).items():
        at.session_state[key] = value
    at.switch_page(PAGE).run()
    assert not at.exception, [e.value for e in at.exception]
    errors = [e.value for e in at.error if "is not a folder this app may read" in e.value]
    assert errors and "--docs" in errors[0], [e.value for e in at.error]


def test_a_folders_questions_match_by_path_else_by_a_unique_file_name(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The documents folder is read as a site: a question names a file by its path below the
    folder, else by a file name only one file has (run over that file); a file name two
    files share is left out as ambiguous, naming both, and a name no file has as not there."""
    refund = (SAMPLES / "refund-policy.md").read_bytes()
    for path in ("policies/refund-policy.md", "guides/a/setup.md", "guides/b/setup.md"):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_bytes(refund if "refund" in path else f"# {path}\n".encode())
    monkeypatch.setenv("CHUNK_EXPLORER_DOCS", str(tmp_path))
    items = [
        dict(REFUND, id="by-file-name"),  # refund-policy.md: one file has that name
        dict(REFUND, id="by-path", doc="policies/refund-policy.md"),
        dict(REFUND, id="shared-name", doc="setup.md"),
        dict(REFUND, id="absent", doc="missing.md"),
    ]
    at = open_page(
        query_set=items, eval_source="folder", eval_source_chosen=True, eval_docs_dir=str(tmp_path)
    )
    [left_out] = [w.value for w in at.warning if w.value.startswith("Left out")]
    assert "2 questions about 2 documents" in left_out, left_out
    assert "setup.md (1 question): ambiguous: 2 files named setup.md" in left_out
    assert "guides/a/setup.md, guides/b/setup.md" in left_out
    assert "missing.md (1 question): not in" in left_out
    assert md_text(str(tmp_path)) in left_out  # the folder as the visitor typed it
    assert at.button(key="ab_run").label == "Run A and B on 2 questions"
    at.button(key="ab_run").click().run()
    assert_ok(at)
    assert "policies/refund-policy.md" in markdown(at) + "".join(str(d.value) for d in at.dataframe)


def test_a_folder_that_cannot_be_listed_is_one_error_naming_it_as_typed(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A documents folder that exists but cannot be listed is one error that names it as the
    visitor typed it, never by the server's path."""
    import os

    served = tmp_path / "site"
    (served / "guides").mkdir(parents=True)
    (served / "guides" / "refund-policy.md").write_bytes(
        (SAMPLES / "refund-policy.md").read_bytes()
    )
    monkeypatch.setenv("CHUNK_EXPLORER_DOCS", str(served))
    typed = os.path.relpath(served, REPO)  # relative to the app's folder, as a visitor may type
    scandir = os.scandir

    def refused(path: Any = ".") -> Any:
        if os.fspath(path) == str(served):
            raise PermissionError(13, "Permission denied", str(path))
        return scandir(path)

    monkeypatch.setattr(os, "scandir", refused)
    at = AppTest.from_file(APP, default_timeout=120)
    state = {"query_set": [REFUND], "eval_source": "folder", "eval_source_chosen": True}
    for key, value in (QUICK | state | {"eval_docs_dir": typed}).items():
        at.session_state[key] = value
    at.switch_page(PAGE).run()
    assert not at.exception, [e.value for e in at.exception]
    shown = " ".join(e.value for e in [*at.error, *at.warning])
    assert f"The documents folder {md_text(typed)} cannot be read" in shown, shown
    rest = shown.replace(md_text(typed), "")  # the typed path holds the server's as its tail
    assert str(served) not in rest and md_text(str(served)) not in rest
