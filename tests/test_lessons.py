"""The boundary lessons: each fails at its failing setting and is complete after each repair,
through the app's answer path (``Workspace.ask``, the real all-MiniLM-L6-v2 where a lesson
ranks with dense or hybrid); what each explanation claims is checked on the chunks; bad lesson
files get one specific message; the app's picker, repair buttons, reset, presentation mode and
links; ``explorer lessons check``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

import ui.lessons
from explorer import cli, resources
from explorer.chunking.records import embedded_text
from explorer.config import Config
from explorer.documents.load import load_path
from explorer.errors import LessonError
from explorer.evaluation.lessons import (
    Lesson,
    Setting,
    check_lesson,
    load_lesson,
    load_lessons,
    read_lessons,
)
from explorer.workspace import Workspace
from tests.conftest import REPO, SAMPLES
from tests.test_app import APP, doc_html
from ui.highlights import hit_highlights
from ui.lessons import LESSON_PROBLEMS, OPENING, bundled_lessons, opening_view
from ui.sources import sample_paths
from ui.view_state import View, query_keys

LESSONS = load_lessons()
NAMES = [a.name for a in LESSONS]
BY_NAME = {a.name: a for a in LESSONS}
MODEL_TIMEOUT = 180


def answer(lesson: Lesson, setting: Setting) -> Any:
    doc = load_path(SAMPLES / lesson.doc)
    ws = Workspace()
    ready = ws.retriever(doc, setting.config)
    answer = ws.ask(
        doc,
        lesson.question,
        lesson.evidence,
        config=setting.config,
        k=setting.k,
        budget=setting.budget,
    )
    return ready, answer


# --------------------------------------------------------------------------- the lessons


def test_there_are_seven_lessons_each_on_a_sample() -> None:
    assert len(LESSONS) >= 6
    assert resources.lessons_dir() == REPO / "lessons"
    for lesson in LESSONS:
        assert (SAMPLES / lesson.doc).is_file(), lesson.doc
        assert lesson.repairs and lesson.why
    assert LESSON_PROBLEMS == []
    assert list(ui.lessons.LESSONS) == NAMES  # the app offers every one


@pytest.mark.parametrize("name", NAMES)
def test_a_lesson_fails_at_its_setting_and_each_repair_completes_it(name: str) -> None:
    lesson = BY_NAME[name]
    outcomes = check_lesson(lesson, load_path(SAMPLES / lesson.doc))
    assert outcomes[0].step == "failing"
    for o in outcomes:
        assert o.answer.scored, (o.step, o.answer.verdict)
        assert o.ok, (o.step, o.label, o.answer.verdict)
    assert not outcomes[0].answer.complete
    assert all(o.answer.complete for o in outcomes if o.step.startswith("repair"))


def test_the_app_opens_on_lesson_1_the_refund_rule_and_its_exception() -> None:
    assert OPENING is not None and OPENING.name == "1-rule-and-exception" == next(iter(BY_NAME))
    assert (OPENING.doc, OPENING.question, OPENING.evidence) == (
        "refund-policy.md",
        "How long do I have to ask for a refund?",
        ("within seven days", "does not apply to downloaded materials"),
    )
    fixed = Config().replace(splitter="fixed", unit="chars", size=250, overlap=0, fill=False)
    assert OPENING.failing == Setting(fixed, 2, 512)
    view = opening_view()
    assert view == View.of_lesson(OPENING)
    assert (view.source, view.config, view.k, view.budget) == ("refund-policy.md", fixed, 2, 512)
    assert (view.lesson, view.repair, view.chunk, view.view) == (
        OPENING.name,
        None,
        None,
        "Query hits",
    )
    assert view.evidence.splitlines() == list(OPENING.evidence)


def test_the_refund_lessons_hits_lack_the_exception() -> None:
    lesson = BY_NAME["1-rule-and-exception"]
    ready, got = answer(lesson, lesson.failing)
    texts = [ready.chunks[h.index].text for h in got.hits]
    assert any("within seven days" in t for t in texts)
    assert not any("downloaded materials" in t for t in texts)


def test_the_table_lessons_hit_is_a_row_and_the_header_is_elsewhere() -> None:
    lesson = BY_NAME["2-table-row-without-header"]
    ready, got = answer(lesson, lesson.failing)
    (hit,) = got.hits
    text = ready.chunks[hit.index].text
    assert "|Business|within 1 hour|" in text and "|Critical|High|Normal|" not in text


def test_the_referent_lessons_hit_says_these_conditions_without_them() -> None:
    lesson = BY_NAME["4-referent-in-the-previous-chunk"]
    ready, got = answer(lesson, lesson.failing)
    (hit,) = got.hits
    text = ready.chunks[hit.index].text
    assert text.startswith("Under these conditions") and "second person" not in text
    assert "second person" in ready.chunks[hit.index - 1].text


def test_the_overlap_lesson_fails_on_repeats_and_merging_fits_the_second_source() -> None:
    lesson = BY_NAME["5-overlap-crowds-out-a-second-source"]
    ready, got = answer(lesson, lesson.failing)
    spans = [(ready.chunks[h.index].start, ready.chunks[h.index].end) for h in got.hits]
    assert len(got.hits) < lesson.failing.k  # the budget stopped it, not k
    # every hit is a near-copy: it overlaps another hit
    assert all(any(s < b and a < e for a, b in spans if (a, b) != (s, e)) for s, e in spans)
    _, merged = answer(lesson, lesson.repaired(1))
    assert len(merged.hits) == lesson.failing.k and merged.tokens <= lesson.failing.budget


def test_the_heading_lesson_indexes_the_prefix_but_shows_the_source_text() -> None:
    lesson = BY_NAME["6-heading-indexed-not-shown"]
    ready, got = answer(lesson, lesson.failing)
    price = next(c for c in ready.chunks if "25 euros" in c.text)
    assert "park" not in price.text.lower()  # only its heading says it
    assert got.hits[0].index != price.index
    ready, fixed = answer(lesson, lesson.repaired(1))
    (hit,) = fixed.hits
    chunk = ready.chunks[hit.index]
    assert chunk.index == price.index
    assert "Parking" in embedded_text(chunk, heading_prefix=True)  # what is indexed
    doc = ready.doc
    assert chunk.text == doc.text[chunk.start : chunk.end]  # what is shown: the source, exactly
    assert all("Parking" not in doc.text[s:e] for s, e in fixed.context)
    shown = hit_highlights(fixed.hits, ready.chunks)
    assert [(h.start, h.end) for h in shown] == [(chunk.start, chunk.end)]


def test_the_index_lesson_ranks_the_cut_chunk_first_with_every_retriever() -> None:
    lesson = BY_NAME["7-a-better-index-does-not-help"]
    ready, got = answer(lesson, lesson.failing)
    first = got.hits[0].index
    assert ready.chunks[first].text.rstrip().endswith("archive storage")
    for move in lesson.no_help:
        _, other = answer(lesson, lesson.failing.apply(move.changes))
        assert other.hits[0].index == first and not other.complete, move.label
    for n in range(1, len(lesson.repairs) + 1):
        setting = lesson.repaired(n)
        assert (setting.k, setting.budget) == (lesson.failing.k, lesson.failing.budget)


# --------------------------------------------------------------------------- the file format


GOOD = """title = "T"
doc = "refund-policy.md"
question = "Q?"
evidence = ["within seven days"]
why = "W"
[failing]
splitter = "fixed"
size = 250
k = 2
budget = 512
[[repairs]]
label = "Split by sentence"
set = { splitter = "sentence" }
"""


def write(tmp_path: Path, text: str, name: str = "x.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_lesson_beyond_the_app_s_widgets_is_named_not_offered(tmp_path: Path) -> None:
    """The library reads any budget and k; the app offers only the lessons its widgets can
    show, and names the others with what does not fit."""
    write(tmp_path, GOOD.replace("budget = 512", "budget = 500"))
    write(tmp_path, GOOD.replace("k = 2", "k = 30"), name="y.toml")
    assert load_lesson(tmp_path / "x.toml").failing.budget == 500
    offered, problems = bundled_lessons(tmp_path, samples={"refund-policy.md"})
    assert offered == {}
    assert any(p.startswith("x.toml: failing: budget must be one of none, 256") for p in problems)
    assert any(p.startswith("y.toml: failing: k must be at most 20") for p in problems)


def test_a_good_file_reads_and_a_repair_keeps_the_overlap(tmp_path: Path) -> None:
    lesson = load_lesson(write(tmp_path, GOOD.replace("size = 250", "size = 250\noverlap = 10")))
    assert lesson.name == "x" and lesson.failing.k == 2 and lesson.failing.budget == 512
    assert lesson.repaired(1).config.chunking.splitter == "sentence"
    assert lesson.repaired(1).config.chunking.overlap == 10
    assert lesson.query().to_json()["evidence"] == ["within seven days"]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda t: t.replace('title = "T"\n', ""), "x.toml: 'title' must be a non-empty string"),
        (lambda t: t.replace("k = 2", "k = 0"), "x.toml: [failing]: k must be a whole number"),
        (lambda t: t.replace("budget = 512", "budget = 0"), "budget must be a number of tokens"),
        (lambda t: t.replace("size = 250", "sise = 250"), "[failing]: unknown setting 'sise'"),
        (lambda t: t.replace("size = 250", "size = -1"), "x.toml: [failing]: "),
        (lambda t: t.replace('"sentence"', '"sentences"'), "x.toml: repairs 1: set: "),
        (lambda t: t.replace('label = "Split by sentence"\n', ""), "repairs 1: 'label'"),
        (lambda t: t.replace('evidence = ["within seven days"]', "evidence = []"), "'evidence'"),
        (lambda t: t + "colour = 1\n", "unknown field(s) colour"),
        (lambda t: t.replace("[[repairs]]", "[[repair]]"), "unknown field(s) repair"),
        (lambda t: t.replace('why = "W"', 'why = "W'), "x.toml: is not valid TOML"),
    ],
)
def test_a_bad_file_names_the_file_the_field_and_the_problem(
    tmp_path: Path, change: Any, message: str
) -> None:
    with pytest.raises(LessonError, match=None) as info:
        load_lesson(write(tmp_path, change(GOOD)))
    assert message in str(info.value), str(info.value)
    assert "Traceback" not in str(info.value)


def test_a_folder_with_a_bad_file_keeps_the_good_ones(tmp_path: Path) -> None:
    write(tmp_path, GOOD, "a.toml")
    write(tmp_path, "title = ", "b.toml")
    write(tmp_path, GOOD.replace("refund-policy.md", "nowhere.md"), "c.toml")
    good, bad = read_lessons(tmp_path)
    assert [a.name for a in good] == ["a", "c"] and bad[0].startswith("b.toml: is not valid TOML")
    usable, problems = bundled_lessons(tmp_path)
    assert list(usable) == ["a"]
    assert problems[1].startswith("c.toml: doc: 'nowhere.md' is not a sample document")


def test_the_cli_checks_every_lesson(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["lessons", "check", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] and report["lessons"] == len(LESSONS)
    assert {c["lesson"] for c in report["checks"]} == set(NAMES)
    assert cli.main(["lessons", "queries"]) == 0
    queries = json.loads(capsys.readouterr().out)
    assert [q["id"] for q in queries] == NAMES


def test_the_cli_fails_on_a_lesson_that_does_not_fail(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tmp_path, GOOD.replace("k = 2", "k = 20"))  # every chunk: complete at "failing"
    assert cli.main(["lessons", "check", "--lessons", str(tmp_path)]) == 1
    assert "FAIL x" in capsys.readouterr().out
    write(tmp_path, "title = 3")
    assert cli.main(["lessons", "check", "--lessons", str(tmp_path)]) == 2
    assert capsys.readouterr().err.startswith("error: x.toml: 'title' must be a non-empty")


# --------------------------------------------------------------------------- links


def test_a_lesson_link_opens_its_setting_and_each_repair() -> None:
    lesson = BY_NAME["3-code-without-explanation"]
    samples = {p.name for p in sample_paths()}
    start = View("refund-policy.md")
    link = View.from_params(
        {"lesson": lesson.name, "repair": "2", "present": "1"},
        start=start,
        samples=samples,
        lessons=ui.lessons.LESSONS,
    )
    opened = link.view.state()
    assert link.note is None and opened["present"] is True
    assert opened["source"] == lesson.doc and opened["section"] is True
    assert opened[query_keys(lesson.doc)[0]] == lesson.question
    assert link.view.params()["lesson"] == lesson.name and link.view.params()["repair"] == "2"
    missing = View.from_params({"lesson": "nope"}, start=start, samples=samples, lessons={})
    assert missing.note and "no lesson 'nope'" in missing.note


# --------------------------------------------------------------------------- the app


def verdict_kinds(at: AppTest) -> tuple[int, int]:
    """How many complete (success) and incomplete (error) verdicts are shown."""
    ok = [e for e in at.success if e.value.startswith("Complete")]
    bad = [e for e in at.error if e.value.startswith("Incomplete")]
    return len(ok), len(bad)


def open_lesson(name: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=MODEL_TIMEOUT)
    at.run()
    assert not at.exception
    if at.session_state["lesson"] != name:
        at.selectbox(key="lesson").set_value(name).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_the_app_opens_on_the_refund_lesson_failing() -> None:
    at = AppTest.from_file(APP, default_timeout=MODEL_TIMEOUT)
    at.run()
    assert not at.exception
    assert at.session_state["lesson"] == OPENING.name
    assert at.session_state["source"] == OPENING.doc
    assert verdict_kinds(at) == (0, 1)
    assert any("At the failing setting" in m.value for m in at.markdown)
    assert at.query_params["lesson"] == OPENING.name


@pytest.mark.parametrize("name", NAMES)
def test_each_repair_button_completes_the_lesson_and_reset_fails_it_again(name: str) -> None:
    lesson = BY_NAME[name]
    at = open_lesson(name)
    assert at.session_state["source"] == lesson.doc
    assert verdict_kinds(at) == (0, 1)
    assert at.button(key="lesson_reset").disabled
    for n in range(1, len(lesson.repairs) + 1):
        at.button(key=f"repair_{n}").click().run()
        assert not at.exception
        assert verdict_kinds(at) == (1, 0), (n, lesson.repairs[n - 1].label)
        assert any(f"After repair {n}" in m.value for m in at.markdown)
        assert at.query_params["lesson"] == name and at.query_params["repair"] == str(n)
    at.button(key="lesson_reset").click().run()
    assert verdict_kinds(at) == (0, 1)
    assert "repair" not in at.query_params


def test_a_setting_changed_by_hand_says_so() -> None:
    at = open_lesson("1-rule-and-exception")
    at.slider(key="k").set_value(3).run()
    assert any("changed by hand" in m.value for m in at.markdown)
    assert "lesson" not in at.query_params


def test_presentation_mode_shows_the_lesson_its_verdict_and_the_document() -> None:
    at = open_lesson("2-table-row-without-header")
    at.button(key="present_toggle").click().run()
    assert not at.exception and at.session_state["present"] is True
    css = [h.proto.body for h in at.get("html") if "st-key-ce_hide_" in h.proto.body]
    assert css, "the presentation style is drawn"
    assert at.query_params["present"] == "1"
    # one verdict, beside the question the lesson panel shows large; the best hit outlined
    assert verdict_kinds(at) == (0, 1)
    assert re.search(r'class="ce-badge ce-selected" data-index="\d+"', doc_html(at))
    at.button(key="repair_1").click().run()
    assert verdict_kinds(at) == (1, 0)
    at.button(key="present_toggle").click().run()
    assert at.session_state["present"] is False and verdict_kinds(at) == (1, 0)


def test_a_broken_lesson_file_is_one_message_in_the_app(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ui.lessons, "LESSON_PROBLEMS", ["x.toml: 'title' must be a non-empty"])
    at = AppTest.from_file(APP, default_timeout=MODEL_TIMEOUT)
    at.run()
    assert not at.exception
    assert any("x.toml" in e.value for e in at.error)


def test_the_readme_lesson_example_reads(tmp_path: Path) -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8").split("## Lessons", 1)[1]
    example = readme.split("```toml\n", 1)[1].split("```", 1)[0]
    lesson = load_lesson(write(tmp_path, example))
    assert lesson.failing == BY_NAME["1-rule-and-exception"].failing
    assert lesson.repairs[0].changes == {"splitter": "sentence"}
