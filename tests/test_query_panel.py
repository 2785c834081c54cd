"""The query panel through ``AppTest``: a question ranks the chunks, the hits are drawn on the
document with their rank, the evidence check gives its verdict, and the refund demo fails at
the starting settings and is repaired by one move.

Most tests use the BM25 retriever (no model needed). The demo tests use the real bundled
all-MiniLM-L6-v2 through the hybrid retriever: it is loaded once per test process (Streamlit's
resource cache and the embeddings module both keep it), so only the first one waits for it.
"""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from explorer.chunking.measures import get_measure
from explorer.chunking.records import ChunkSettings
from explorer.chunking.splitters import split
from explorer.config import CARRY, Config
from explorer.documents.load import load_document, load_path
from explorer.retrieval import evidence
from explorer.retrieval.context import ContextPiece, context_pieces, context_tokens, widen_to_budget
from explorer.retrieval.retriever import Retriever
from explorer.retrieval.scoring import Hit
from explorer.workspace import Workspace, ask
from tests.conftest import REPO, SAMPLES, answer_one, make_chunks, make_doc, rank_chunks
from tests.test_app import APP, FIRST, doc_html, errors, open_app, picker, upload
from ui import render, render_markdown, render_pdf
from ui.answers import context_note, evidence_phrases, evidence_rows, hit_rows
from ui.highlights import (
    CONTEXT_COLOR,
    EVIDENCE_COVERED,
    EVIDENCE_MISSED,
    context_highlights,
    fill_highlights,
    subtract,
)
from ui.lessons import OPENING
from ui.settings import PERCENTILE_HELP
from ui.view_state import query_keys

assert OPENING is not None, "the app opens on lesson 1"
START = OPENING.failing
"""Lesson 1's failing setting (configuration, k, budget): the one the app opens on."""

MODEL_TIMEOUT = 180  # the first run loads sentence-transformers and the model (~15 s cold)
MANUAL = "field-manual.pdf"
MANUAL_QUESTION = "How long can I keep a water sample before testing it?"


# --------------------------------------------------------------------------- helpers


def question_box(at: AppTest, source: str = FIRST):  # type: ignore[no-untyped-def]
    return at.text_input(key=query_keys(source)[0])


def evidence_box(at: AppTest, source: str = FIRST):  # type: ignore[no-untyped-def]
    return at.text_area(key=query_keys(source)[1])


def hits_table(at: AppTest):  # type: ignore[no-untyped-def]
    found = [
        d.value
        for d in at.dataframe
        if "first words" in d.value.columns and "holds missing evidence" not in d.value.columns
    ]  # the hits, not the candidates just below the cut
    assert len(found) == 1, "expected one table of hits"
    return found[0]


def evidence_table(at: AppTest):  # type: ignore[no-untyped-def]
    found = [d.value for d in at.dataframe if "cut by a boundary" in d.value.columns]
    assert len(found) == 1, "expected one evidence table"
    return found[0]


def rank_badges(html: str) -> list[str]:
    return re.findall(r'class="ce-badge[^"]*"[^>]*>(#\d+)</span>', html)


def underlined(html: str) -> dict[str, str]:
    """The underlined text of the document by underline colour."""
    out = {EVIDENCE_COVERED: "", EVIDENCE_MISSED: ""}
    for color, text in re.findall(
        r'<span class="[^"]*ce-underline[^"]*" style="[^"]*text-decoration-color:(#\w+)[^"]*"'
        r"[^>]*>([^<]*)</span>",
        html,
    ):
        out[color] += text + " "
    return out


def verdicts(at: AppTest) -> dict[str, list[str]]:
    """The verdict as shown: which kind of box, and its text."""
    return {
        "success": [e.value for e in at.success],
        "error": [e.value for e in at.error],
        "warning": [e.value for e in at.warning if e.value[:1].isupper() and ":" in e.value],
    }


def assert_no_exception(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]


@pytest.fixture
def bm25() -> AppTest:
    """The app as it opens (the refund demo's question and evidence), BM25 retrieval."""
    return open_app(retriever="bm25")


def library_ranking(  # type: ignore[no-untyped-def]
    question: str, settings: ChunkSettings, retriever: str = "bm25", carry: float = CARRY
):
    """The library's ranking at the app's starting retrieval settings (carry on)."""
    doc = load_path(SAMPLES / FIRST)
    chunks = split(doc, settings)
    return doc, chunks, rank_chunks(chunks, question, retriever, doc=doc, carry=carry)


# --------------------------------------------------------------------------- the refund demo


@pytest.fixture(scope="module")
def demo_verdict() -> str:
    """What the library says at the demo's settings with the real model (hybrid)."""

    doc = load_path(SAMPLES / OPENING.doc)
    chunks = split(doc, START.config.chunking)
    ranking = rank_chunks(  # the app's default: dense scores from passages, carry on at the start
        chunks,
        OPENING.question,
        START.config.retriever,
        doc=doc,
        embedder=Workspace().embedder(Config().model),
        dense="passages",
        carry=CARRY,
    )
    pieces = context_pieces(ranking[: START.k], chunks, doc=doc)
    spans = [(p.start, p.end) for p in pieces]
    results = evidence.check(OPENING.evidence, doc.text, chunks, ranking, context=spans)
    limits = evidence.Limits(START.k, START.budget, taken=START.k)  # the top 2 fit the budget
    cut = [replace(r, cut_by=limits.cut(r.best_rank) if r.found and not r.covered else None)
           for r in results]  # fmt: skip
    return evidence.Verdict(tuple(cut), limits).sentence()


def test_the_refund_demo_fails_at_once_and_one_move_repairs_it(demo_verdict: str) -> None:
    at = open_app(timeout=MODEL_TIMEOUT)  # as a person opens it: hybrid, the real model
    assert_no_exception(at)
    assert question_box(at).value == OPENING.question
    assert evidence_box(at).value.splitlines() == list(OPENING.evidence)
    assert at.selectbox(key="retriever").value == "hybrid"
    assert (at.selectbox(key="splitter").value, at.slider(key="size").value) == ("fixed", 250)
    [shown] = [e.value for e in at.error]
    assert shown.startswith("Incomplete: 'does not apply to downloaded materials' is in chunk ")
    assert shown.lower() == demo_verdict  # exactly the library's sentence
    rows = evidence_table(at)
    assert list(rows["retrieved"]) == ["yes", "no"]
    assert sorted(rank_badges(doc_html(at))) == ["#1", "#2"]
    assert "does not apply" in underlined(doc_html(at))[EVIDENCE_MISSED]
    # the refund lesson says why and offers the three moves (the demo's hint, as buttons)
    assert any("cut the refund rule from its exception" in m.value for m in at.markdown)
    assert [b.label for b in at.button if b.label.startswith("Repair")] == [
        "Repair 1: Split by sentence",
        "Repair 2: Neighbours: 1",
        "Repair 3: Fill to budget",
    ]

    # one move: the sentence splitter keeps the rule and its exception in one chunk
    at.selectbox(key="splitter").set_value("sentence").run()
    assert_no_exception(at)
    assert verdicts(at)["success"] == [
        "Complete: every evidence phrase is inside the retrieved text"
    ]
    assert not at.error

    # or, back at the starting splitter, one slider: retrieve each hit with ±1 neighbour
    at.selectbox(key="splitter").set_value("fixed").run()
    assert at.error
    at.slider(key="neighbours").set_value(1).run()
    assert_no_exception(at)
    assert [e.value for e in at.success] == [
        "Complete: every evidence phrase is inside the retrieved text"
    ]
    assert "does not apply" not in underlined(doc_html(at))[EVIDENCE_MISSED]
    assert "does not apply" in underlined(doc_html(at))[EVIDENCE_COVERED]

    # or, back at no neighbours, one toggle: fill the context to the 512-token budget
    at.slider(key="neighbours").set_value(0).run()
    assert at.error
    at.toggle(key="fill").set_value(True).run()
    assert_no_exception(at)
    assert [e.value for e in at.success] == [
        "Complete: every evidence phrase is inside the retrieved text"
    ]
    assert "does not apply" in underlined(doc_html(at))[EVIDENCE_COVERED]


def test_dense_retrieval_matches_the_library(model_embedder) -> None:  # type: ignore[no-untyped-def]
    at = open_app(timeout=MODEL_TIMEOUT, retriever="dense")
    doc = load_path(SAMPLES / FIRST)
    chunks = split(doc, START.config.chunking)
    want = rank_chunks(
        chunks,
        OPENING.question,
        "dense",
        doc=doc,
        embedder=model_embedder,
        dense="passages",
        carry=CARRY,
    )[: START.k]
    table = hits_table(at)
    assert list(table["chunk"]) == [h.index for h in want]
    assert list(table["score"]) == pytest.approx([h.score for h in want], abs=1e-5)
    # with each chunk embedded whole instead
    at.radio(key="dense").set_value("chunks").run()
    whole = rank_chunks(
        chunks, OPENING.question, "dense", doc=doc, embedder=model_embedder, carry=CARRY
    )[: START.k]
    table = hits_table(at)
    assert list(table["chunk"]) == [h.index for h in whole]
    assert list(table["score"]) == pytest.approx([h.score for h in whole], abs=1e-5)


# --------------------------------------------------------------------------- hits


def test_hits_are_ranked_and_drawn_with_rank_badges(bm25: AppTest) -> None:
    at = bm25
    _, chunks, ranking = library_ranking(OPENING.question, START.config.chunking)
    table = hits_table(at)
    assert list(table["rank"]) == [1, 2]
    assert list(table["chunk"]) == [h.index for h in ranking[:2]]
    assert list(table["score"]) == pytest.approx([h.score for h in ranking[:2]])
    tokens = get_measure("tokens").count
    assert list(table["tokens"]) == [tokens(chunks[h.index].text) for h in ranking[:2]]
    assert table["first words"][0].split()[:3] == chunks[ranking[0].index].text.split()[:3]
    html = doc_html(at)
    assert sorted(rank_badges(html)) == ["#1", "#2"]
    assert f'data-index="{ranking[0].index}"' in html
    assert any(m.value.startswith("**Top 2 of") for m in at.markdown)


def test_top_k_slider(bm25: AppTest) -> None:
    bm25.slider(key="k").set_value(5).run()
    assert_no_exception(bm25)
    assert list(hits_table(bm25)["rank"]) == [1, 2, 3, 4, 5]
    assert sorted(rank_badges(doc_html(bm25)), key=lambda b: int(b[1:])) == [
        "#1",
        "#2",
        "#3",
        "#4",
        "#5",
    ]


def test_heat_view_tints_every_chunk_by_score(bm25: AppTest) -> None:
    bm25.radio(key="view").set_value("Heat").run()
    assert_no_exception(bm25)
    _, chunks, ranking = library_ranking(OPENING.question, START.config.chunking)
    html = doc_html(bm25)
    assert len(rank_badges(html)) == len(chunks)
    best, worst = ranking[0], ranking[-1]
    # the best chunk gets the scale's top colour, the worst its bottom colour
    assert f"background-color:{render.HEAT[-1]}" in html.replace(" ", "")
    assert f"background-color:{render.HEAT[0]}" in html.replace(" ", "")
    assert best.score > worst.score
    assert any("score" in h.value and "linear-gradient" in h.value for h in bm25.html)


def test_view_switch_back_to_chunks(bm25: AppTest) -> None:
    bm25.radio(key="view").set_value("Chunks").run()
    badges = re.findall(r'class="ce-badge[^"]*" data-index="(\d+)"[^>]*>(\d+)<', doc_html(bm25))
    assert [int(i) for i, _ in badges] == list(range(len(badges)))


def test_merge_sends_shared_text_once(bm25: AppTest) -> None:
    at = bm25
    at.slider(key="neighbours").set_value(1).run()
    merged = next(m.value for m in at.markdown if m.value.startswith("An LLM would receive"))
    at.toggle(key="merge").set_value(False).run()
    assert_no_exception(at)
    apart = next(m.value for m in at.markdown if m.value.startswith("An LLM would receive"))

    doc, chunks, ranking = library_ranking(OPENING.question, START.config.chunking)
    count = get_measure("tokens").count
    for merge, note in ((True, merged), (False, apart)):
        pieces = context_pieces(ranking[:2], chunks, neighbours=1, doc=doc, merge=merge)
        n = context_tokens(pieces, doc.text, count)
        assert f"**{n:,} tokens** (cl100k) in {len(pieces)} piece" in note
    assert "±1 chunk" in merged


def test_neighbours_and_section_draw_the_added_context(bm25: AppTest) -> None:
    at = bm25
    assert 'title="context added' not in doc_html(at)
    at.slider(key="neighbours").set_value(1).run()
    html = doc_html(at)
    assert 'title="context added around' in html
    assert ">+</span>" in html  # the badge of a widened part
    at.toggle(key="section").set_value(True).run()
    assert_no_exception(at)
    assert "widened to its section" in next(
        m.value for m in at.markdown if m.value.startswith("An LLM would receive")
    )


def test_a_new_question_reranks(bm25: AppTest) -> None:
    question_box(bm25).set_value("Are shipping costs refunded?").run()
    assert_no_exception(bm25)
    _, chunks, ranking = library_ranking("Are shipping costs refunded?", START.config.chunking)
    assert list(hits_table(bm25)["chunk"]) == [h.index for h in ranking[:2]]
    assert "Shipping costs are not" in " ".join(chunks[ranking[0].index].text.split())


def test_the_heading_prefix_changes_what_is_retrieved(bm25: AppTest) -> None:
    question = "What does the policy say about subscriptions?"
    doc = load_path(SAMPLES / FIRST)
    chunks = split(doc, START.config.chunking)
    plain = rank_chunks(chunks, question, "bm25", doc=doc, carry=CARRY)[:2]
    prefixed = rank_chunks(chunks, question, "bm25", doc=doc, carry=CARRY, heading_prefix=True)[:2]
    assert [h.index for h in plain] != [h.index for h in prefixed]
    question_box(bm25).set_value(question).run()
    assert list(hits_table(bm25)["chunk"]) == [h.index for h in plain]
    bm25.toggle(key="heading_prefix").set_value(True).run()
    assert_no_exception(bm25)
    assert list(hits_table(bm25)["chunk"]) == [h.index for h in prefixed]


def test_selecting_a_hit_outlines_it_and_says_its_rank(bm25: AppTest) -> None:
    _, _, ranking = library_ranking(OPENING.question, START.config.chunking)
    bm25.button(key="jump_1").click().run()
    assert_no_exception(bm25)
    assert picker(bm25).value == ranking[0].index
    assert re.search(
        rf'class="ce-badge ce-selected" data-index="{ranking[0].index}"[^>]*>#1<', doc_html(bm25)
    )
    assert any("ranked 1st for the question" in c.value for c in bm25.caption)


# --------------------------------------------------------------------------- evidence


def test_evidence_table_says_where_each_phrase_is(bm25: AppTest) -> None:
    rows = evidence_table(bm25).to_dict("records")
    doc, chunks, ranking = library_ranking(OPENING.question, START.config.chunking)
    spans = [(p.start, p.end) for p in context_pieces(ranking[:2], chunks, doc=doc)]
    results = evidence.check(OPENING.evidence, doc.text, chunks, ranking, context=spans)
    assert rows == evidence_rows(results)
    assert [r["phrase"] for r in rows] == list(OPENING.evidence)
    # and the verdict is the library's sentence, in a success box: with the carry, BM25 retrieves
    # both phrases
    assert all(r.covered for r in results)
    assert not bm25.error
    assert [e.value.lower() for e in bm25.success] == [evidence.Verdict(tuple(results)).sentence()]


def test_evidence_not_found_says_so(bm25: AppTest) -> None:
    evidence_box(bm25).set_value("refunds in gold bars").run()
    assert_no_exception(bm25)
    [row] = evidence_table(bm25).to_dict("records")
    assert (row["phrase"], row["found"], row["retrieved"]) == (
        "refunds in gold bars",
        "not found",
        "—",
    )
    warnings = [w.value for w in bm25.warning]
    assert "Unchecked: 'refunds in gold bars' was not found in the document" in warnings
    assert not bm25.error and not bm25.success


def test_evidence_is_underlined_green_if_retrieved_red_if_not(bm25: AppTest) -> None:
    html = doc_html(bm25)
    underlined = re.findall(
        r'<span class="[^"]*ce-underline[^"]*" style="[^"]*text-decoration-color:(#\w+)[^"]*"',
        html,
    )
    # "within seven days" is in the document twice; one of them is outside the retrieved text
    assert EVIDENCE_COVERED in underlined and EVIDENCE_MISSED in underlined
    assert set(underlined) <= {EVIDENCE_COVERED, EVIDENCE_MISSED}


def test_no_evidence_no_verdict(bm25: AppTest) -> None:
    evidence_box(bm25).set_value("  \n").run()
    assert_no_exception(bm25)
    assert not bm25.error and not bm25.success
    assert any("Add evidence phrases" in c.value for c in bm25.caption)


# --------------------------------------------------------------------------- documents


def test_each_document_keeps_its_own_question(bm25: AppTest) -> None:
    at = bm25
    question_box(at).set_value("Are shipping costs refunded?").run()
    at.selectbox(key="source").set_value("writing-guide.md").run()
    assert_no_exception(at)
    assert question_box(at, "writing-guide.md").value == ""
    assert not any("first words" in d.value.columns for d in at.dataframe)  # nothing asked
    assert not [r for r in at.radio if r.key == "view"]  # no hits to show: chunks only
    at.selectbox(key="source").set_value(FIRST).run()
    assert question_box(at).value == "Are shipping costs refunded?"
    assert evidence_box(at).value.splitlines() == list(OPENING.evidence)


def test_pdf_hits_turn_to_their_page_and_jump_buttons(bm25: AppTest) -> None:
    at = bm25
    at.selectbox(key="source").set_value(MANUAL).run()
    question_box(at, MANUAL).set_value(MANUAL_QUESTION).run()
    assert_no_exception(at)
    table = hits_table(at)
    first_page = int(str(table["pages"][0]).split("–")[0])
    assert at.number_input(key="page").value == first_page  # a new question turns the page
    caption = next(c.value for c in at.caption if "hits on this page" in c.value)
    assert "#1" in caption
    assert len(at.image) == 1
    at.button(key="next_page").click().run()
    at.button(key="jump_2").click().run()
    second_page = int(str(table["pages"][1]).split("–")[0])
    assert at.number_input(key="page").value == second_page
    labels = [b.label for b in at.button if b.key and b.key.startswith("jump_")]
    assert labels[0] == f"#1 → page {first_page}"


# --------------------------------------------------------------------------- model & splitter


def test_a_model_that_cannot_load_gives_one_error_and_bm25_still_works(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CHUNK_EXPLORER_DOCS", str(tmp_path))  # a folder the app may read
    model = tmp_path / "not-a-model"
    model.mkdir()
    at = open_app(timeout=MODEL_TIMEOUT, retriever="bm25", model=str(model))
    assert not errors(at)  # bm25 needs no model: nothing is loaded
    at.selectbox(key="retriever").set_value("hybrid").run()
    assert_no_exception(at)
    [message] = errors(at)
    assert "cannot load embedding model" in message and "not-a-model" in message
    assert "bm25 works without it (its answer is shown above)" in message
    # the BM25 answer drawn before the model was tried stays: its verdict and its hits
    _, _, bm25_alone = library_ranking(OPENING.question, START.config.chunking)
    assert list(hits_table(at)["chunk"]) == [h.index for h in bm25_alone[: START.k]]
    assert any(c.value.startswith("**BM25 answer** while the model embeds") for c in at.caption)
    lexical = ask(
        load_path(SAMPLES / FIRST),
        OPENING.question,
        OPENING.evidence,
        config=START.config.replace(retriever="bm25"),
        k=START.k,
        budget=START.budget,
    )
    assert lexical.verdict is not None
    shown = "success" if lexical.complete else "error"
    sentence = lexical.verdict.sentence()
    assert sentence[:1].upper() + sentence[1:] in verdicts(at)[shown]
    assert int(next(m.value for m in at.metric if m.label == "Chunks")) > 0  # still usable
    at.selectbox(key="retriever").set_value("bm25").run()
    assert_no_exception(at)
    assert len(hits_table(at)) == START.k


def test_semantic_splitter_has_a_percentile_slider(model_embedder) -> None:  # type: ignore[no-untyped-def]
    at = open_app(timeout=MODEL_TIMEOUT, retriever="bm25", splitter="semantic")
    assert_no_exception(at)
    slider = at.slider(key="percentile")
    assert (slider.min, slider.max, slider.value) == (50, 99, 95)
    assert slider.help == PERCENTILE_HELP
    doc = load_path(SAMPLES / FIRST)
    settings = ChunkSettings(
        "semantic", START.config.chunking.unit, START.config.chunking.size, percentile=80, overlap=0
    )
    slider.set_value(80).run()
    assert_no_exception(at)
    want = split(doc, settings, embed=model_embedder.embed)
    assert int(next(m.value for m in at.metric if m.label == "Chunks")) == len(want)


def test_the_chunk_view_never_imports_the_model() -> None:
    # a fresh interpreter: open the app with a BM25 question, move a slider, switch views
    script = f"""
import sys
from streamlit.testing.v1 import AppTest
at = AppTest.from_file({APP!r}, default_timeout=60)
at.session_state["retriever"] = "bm25"
at.run()
at.slider(key="size").set_value(300).run()
at.radio(key="view").set_value("Heat").run()
assert not at.exception, at.exception
heavy = sorted(m for m in ("sentence_transformers", "torch", "transformers") if m in sys.modules)
print("HEAVY", heavy)
"""
    out = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert "HEAVY []" in out.stdout


# --------------------------------------------------------------------------- pipeline pieces


def test_evidence_phrases_one_per_line() -> None:
    assert evidence_phrases(" a \n\n b\na\n  ") == ["a", "b"]


def test_subtract_spans() -> None:
    assert subtract((0, 10), [(2, 4), (6, 8)]) == [(0, 2), (4, 6), (8, 10)]
    assert subtract((3, 7), [(0, 4), (6, 9)]) == [(4, 6)]
    assert subtract((3, 7), [(0, 10)]) == []
    assert subtract((3, 7), []) == [(3, 7)]


def test_heat_colours_run_along_the_scale() -> None:
    assert render.heat_color(0) == render.HEAT[0]
    assert render.heat_color(1) == render.HEAT[-1]
    assert render.heat_color(2) == render.HEAT[-1] and render.heat_color(-1) == render.HEAT[0]
    assert render.heat_color(float("nan")) == render.HEAT[0]
    mid = render.heat_color(0.5)
    assert re.fullmatch(r"#[0-9a-f]{6}", mid) and mid not in (render.HEAT[0], render.HEAT[-1])
    # darker as the score rises: the sum of the channels never goes up
    sums = [
        sum(int(render.heat_color(x / 20)[i : i + 2], 16) for i in (1, 3, 5)) for x in range(21)
    ]
    assert sums == sorted(sums, reverse=True)


def test_context_highlights_are_the_widened_parts_only() -> None:
    doc = load_path(SAMPLES / FIRST)
    chunks = split(doc, START.config.chunking)
    _, _, ranking = library_ranking(OPENING.question, START.config.chunking)
    hits = ranking[:1]
    pieces = context_pieces(hits, chunks, neighbours=1, doc=doc)
    added = context_highlights(pieces, hits, chunks, doc.text)
    hit = chunks[hits[0].index]
    assert added and all(h.end <= hit.start or h.start >= hit.end for h in added)
    assert all(not doc.text[h.start].isspace() and not doc.text[h.end - 1].isspace() for h in added)
    assert min(h.start for h in added) == chunks[hits[0].index - 1].start
    assert max(h.end for h in added) == chunks[hits[0].index + 1].end


ALPHABET = "abcdefghijklmnopqrstuvwxyz"


def piece(start: int, end: int, rank: int = 1) -> ContextPiece:
    return ContextPiece(start, end, (rank,), (rank - 1,))


def filled(text: str, spans: list[tuple[int, int]], order: list[int], **config: Any) -> Retriever:
    """A retriever over ``text`` cut at ``spans``, counting one unit a character (easy to count),
    with fill on; :func:`ranked` gives the ranking ``order`` (chunk indices, best first)."""
    doc = make_doc(text)
    settings = Config(retriever="bm25", carry=0.0, table_headers=False, fill=True, **config)
    units = get_measure("chars").units(text)
    return Retriever(doc, settings, chunks=make_chunks(text, spans), units=lambda: units)


def ranked(order: list[int]) -> list[Hit]:
    return [Hit(r + 1, i, 1.0 / (r + 1), "bm25") for r, i in enumerate(order)]


def test_fill_widens_the_pieces_evenly_within_the_budget() -> None:
    cuts = [(0, 10), (10, 14), (14, 20), (20, 22), (22, 26)]
    ready = filled(ALPHABET, cuts, [1])
    # 4 characters of a 10-character budget: 3 more before, 3 more after
    answer = answer_one(ready, "q", k=1, budget=10, ranking=ranked([1, 0, 2, 3, 4]))
    assert (answer.context, answer.tokens, answer.widened) == (((7, 17),), 10, True)
    # two stretches share what is left: 8 characters, 4 each, 2 on either side
    two = filled(ALPHABET, [(0, 10), (10, 12), (12, 20), (20, 22), (22, 26)], [1, 3])
    answer = answer_one(two, "q", k=2, budget=12, ranking=ranked([1, 3, 0, 2, 4]))
    assert (answer.context, answer.tokens) == (((8, 14), (18, 24)), 12)
    assert all(any(s <= p.start and p.end <= e for s, e in answer.context) for p in answer.pieces)
    # at the document's start the side that cannot take its half gives it to the other
    start = filled(ALPHABET, [(0, 1), (1, 5), (5, 26)], [1])
    answer = answer_one(start, "q", k=1, budget=10, ranking=ranked([1, 0, 2]))
    assert (answer.context, answer.tokens) == (((0, 10),), 10)
    # a budget beyond the document takes it all, and the note says so
    answer = answer_one(ready, "q", k=1, budget=100, ranking=ranked([1, 0, 2, 3, 4]))
    assert (answer.context, answer.tokens) == (((0, 26),), 26)
    assert context_note(answer, length=26).endswith(
        "then widened to the whole document, within the 100-token budget."
    )


def test_a_budget_takes_the_hits_that_fit_and_says_so() -> None:
    ready = filled(ALPHABET, [(0, 8), (8, 14), (14, 26)], [0, 1])
    # the second hit would bring the context to 14 characters, over the 10 of the budget
    answer = answer_one(ready, "q", k=2, budget=10, ranking=ranked([0, 1, 2]))
    assert [h.index for h in answer.hits] == [0] and answer.context == ((0, 10),)
    # not even the best hit fits
    answer = answer_one(ready, "q", k=2, budget=5, ranking=ranked([0, 1, 2]))
    assert answer.hits == () and answer.context == ()
    assert context_note(answer, length=26).startswith(
        "Nothing fits the 5-token budget: the best hit's context alone costs more."
    )
    # one character left for two stretches: too little to share, nothing added
    two = filled(ALPHABET, [(0, 10), (10, 12), (12, 20), (20, 22), (22, 26)], [1, 3])
    answer = answer_one(two, "q", k=2, budget=5, ranking=ranked([1, 3, 0, 2, 4]))
    assert (answer.context, answer.widened) == (((10, 12), (20, 22)), False)
    assert context_note(answer, length=26).endswith(
        "as retrieved; nothing more fits the 5-token budget."
    )
    # without fill, the note says the budget cut the hits
    plain = two.using(two.config.replace(fill=False))
    answer = answer_one(plain, "q", k=3, budget=5, ranking=ranked([1, 3, 0, 2, 4]))
    assert context_note(answer, length=26).endswith(": all that fit the 5-token budget.")


def test_the_note_and_highlights_say_what_fill_added() -> None:
    text = "one two three four five six seven eight nine ten"
    ready = filled(text, [(0, 13), (14, 23), (24, 33), (34, 48)], [1])
    # "four five": 9 characters; 10 more: 5 before, 5 after
    answer = answer_one(ready, "q", k=1, budget=19, ranking=ranked([1, 0, 2, 3]))
    assert answer.context == ((9, 28),)
    assert context_note(answer, length=len(text)) == (
        "An LLM would receive **19 tokens** (cl100k) in 1 piece: the top 1 hit, as retrieved, "
        "then widened to fill the 19-token budget."
    )
    added = fill_highlights(answer, ready.chunks, text)
    # the text around the piece, its white space at the edges left out (a character measure
    # cuts "three"; real token bounds fall between words)
    assert [text[h.start : h.end] for h in added] == ["hree", "six"]
    assert [h.index for h in added] == [0, 2]
    assert {(h.color, h.label, h.title) for h in added} == {
        (CONTEXT_COLOR, "+", "filled to the 19-token budget")
    }
    wide = ready.using(ready.config.replace(neighbours=1))
    answer = answer_one(wide, "q", k=1, budget=None, ranking=ranked([1, 0, 2, 3]))
    assert "the top 1 hit, each widened by ±1 chunk." in context_note(answer, length=len(text))


def test_underline_highlights_have_no_badge_and_keep_the_tint() -> None:
    doc = load_path(SAMPLES / FIRST)
    start = doc.text.index("within seven days")
    tint = render.Highlight(0, len(doc.text), 0, "#4e79a7")
    line = render.Highlight(
        start, start + 17, 0, "#cf222e", underline=True, title="evidence 'within seven days'"
    )
    html = render_markdown.render_markdown(doc, [tint, line])
    assert len(re.findall(r'class="ce-badge', html)) == 1
    span = re.search(r'<span class="ce-hl ce-chunk-0 ce-underline" style="([^"]*)"', html)
    assert span is not None
    assert "background-color:rgba(78,121,167,0.35)" in span.group(1)
    assert "text-decoration-color:#cf222e" in span.group(1)
    assert "ce-overlap" not in html  # an underline does not stripe the tint


def test_underlines_are_drawn_on_the_pdf_page() -> None:
    pdf = (SAMPLES / MANUAL).read_bytes()
    doc = load_path(SAMPLES / MANUAL)
    start = doc.text.index("Samples must be tested")
    page, _ = doc.page_span(start, start + 10)
    assert page is not None
    plain = render_pdf.render_pdf_page(pdf, page, doc, [], zoom=1).png
    marked = render_pdf.render_pdf_page(
        pdf, page, doc, [render.Highlight(start, start + 40, 0, "#cf222e", underline=True)], zoom=1
    ).png
    assert marked != plain


def test_hit_rows_show_the_carried_part_only_when_there_is_one() -> None:
    text = "one two three four"
    chunks = make_chunks(text, [(0, 8), (8, 18)])
    plain = [Hit(1, 1, 2.0, "bm25"), Hit(2, 0, 1.0, "bm25")]
    rows = hit_rows(plain, chunks, count=len)
    assert list(rows[0]) == ["rank", "chunk", "score", "tokens", "pages", "first words"]
    carried = [Hit(1, 1, 2.0, "bm25", carried=0.3), Hit(2, 0, 1.0, "bm25")]
    rows = hit_rows(carried, chunks, count=len)
    assert list(rows[0]) == ["rank", "chunk", "score", "carried", "tokens", "pages", "first words"]
    assert [r["carried"] for r in rows] == [0.3, 0.0]  # numbers, so the table can format them


def test_embedding_hands_missing_texts_to_the_model_longest_first() -> None:
    import numpy as np

    from explorer.retrieval.embeddings import Embedder

    class Model:
        def __init__(self) -> None:
            self.batches: list[list[str]] = []

        def encode(self, batch: list[str], **_: object) -> np.ndarray:
            self.batches.append(list(batch))
            return np.array([[float(len(t)), 1.0] for t in batch], dtype=np.float32)

    emb = Embedder("fake")
    emb._model = model = Model()
    emb._cache["cached already"] = np.array([14.0, 1.0], dtype=np.float32)
    texts = ["a", "ccc", "cached already", "bb", "ccc"]
    out = emb.embed(texts)
    assert model.batches == [["ccc", "bb", "a"]]  # the missing ones, each once, longest first
    assert [row[0] for row in out] == [1, 3, 14, 2, 3]  # rows in the caller's order
    emb.embed(texts)
    assert model.batches == [["ccc", "bb", "a"]]  # nothing missing: the model is not called


def test_a_hit_on_table_rows_brings_the_table_header() -> None:
    guide = "writing-guide.md"
    at = open_app(retriever="bm25", splitter="structure", unit="tokens", size=64, overlap=0)
    at.selectbox(key="source").set_value(guide).run()
    question_box(at, guide).set_value("Which strategy is good for recall on short facts?").run()
    assert_no_exception(at)
    note = next(m.value for m in at.markdown if m.value.startswith("An LLM would receive"))
    assert note.endswith("with the header rows of 1 table, within the 512-token budget.")
    html = doc_html(at)
    assert re.search(r'title="table header for #\d', html)

    doc = load_path(SAMPLES / guide)
    chunks = split(doc, ChunkSettings("structure", "tokens", 64, 0))
    ranking = rank_chunks(
        chunks, "Which strategy is good for recall on short facts?", "bm25", doc=doc
    )
    pieces = context_pieces(
        ranking[: at.slider(key="k").value], chunks, doc=doc, table_headers=True
    )
    n = context_tokens(pieces, doc.text, get_measure("tokens").count)
    assert f"**{n:,} tokens** (cl100k)" in note
    [(hs, he)] = [h for p in pieces for h in p.headers]
    assert doc.text[hs:he].startswith("| Strategy") and doc.text[hs:he].endswith("|")

    at.toggle(key="table_headers").set_value(False).run()
    note = next(m.value for m in at.markdown if m.value.startswith("An LLM would receive"))
    assert "header rows" not in note
    assert 'title="table header for' not in doc_html(at)


RETURNS = """# Returns

Returned goods are checked at our warehouse within a week of arrival.

To claim a refund for a damaged parcel, fill in the damage form.

Attach two photos of the box and its label, or nothing is paid out.

Store credit never expires and can be spent on anything in the shop.

Lost parcels are traced by the courier before anything else happens.
"""
"""One sentence a chunk at 15 words. The question matches the second sentence; the third, which
completes it, shares no word with the question."""
RETURNS_QUESTION = "How do I claim a refund for a damaged parcel?"
PHOTOS = "Attach two photos of the box and its label"


def test_carry_lifts_the_chunk_after_a_strong_hit() -> None:
    at = open_app(retriever="bm25")
    upload(at, "returns.md", RETURNS.encode())  # an upload opens on the recommended ones
    assert at.slider(key="carry").value == CARRY  # on from the start
    settings = {"splitter": "sentence", "unit": "words", "size": 15, "overlap": 0, "k": 2}
    for key, value in {**settings, "retriever": "bm25", "fill": False}.items():
        at.session_state[key] = value
    at.run()
    evidence_box(at, "returns.md").set_value(PHOTOS).run()
    question_box(at, "returns.md").set_value(RETURNS_QUESTION).run()
    assert_no_exception(at)
    # chunk 1 matches; chunk 2, which shares no word with the question, comes 2nd with carry
    table = hits_table(at)
    assert list(table["chunk"]) == [1, 2]
    assert str(table["first words"][1]).startswith("Attach two photos")
    strong = table["score"][0]
    assert list(table["carried"]) == pytest.approx([0.0, CARRY * strong])
    assert table["score"][1] == pytest.approx(CARRY * strong)  # all of it carried
    assert [m.value for m in at.success] == [
        "Complete: every evidence phrase is inside the retrieved text"
    ]

    at.slider(key="carry").set_value(0.0).run()
    assert_no_exception(at)
    table = hits_table(at)
    assert "carried" not in table.columns
    assert list(table["chunk"]) == [1, 4]  # "Lost parcels…": one word of the question
    assert [e.value for e in at.error] == [
        f"Incomplete: '{PHOTOS}' is in chunk 2, ranked 4th, below the top 2"
    ]


FILLER = " ".join(
    f"Note {n}: the garden club meets on Tuesdays to talk about tulips, soil and rain."
    for n in range(12)
)
LONG_RETURNS = f"# Returns\n\n{FILLER}\n\n{RETURNS.split(chr(10), 2)[2]}\n{FILLER}\n"
""":data:`RETURNS` between two stretches of filler, so the document costs more than the budget
and filling it takes in part of it, not all."""


def test_fill_to_budget_brings_the_phrase_just_past_the_top_hit() -> None:
    at = open_app(retriever="bm25")
    assert (
        at.toggle(key="fill").value is START.config.fill
    )  # off at the start: the demo fails at once
    assert at.selectbox(key="budget").value == START.budget
    upload(at, "returns.md", LONG_RETURNS.encode())  # an upload opens on the recommended ones
    assert at.toggle(key="fill").value is True
    settings = {"splitter": "sentence", "unit": "words", "size": 15, "overlap": 0, "k": 1}
    for key, value in {**settings, "retriever": "bm25", "fill": False}.items():
        at.session_state[key] = value
    at.run()
    evidence_box(at, "returns.md").set_value(PHOTOS).run()
    question_box(at, "returns.md").set_value(RETURNS_QUESTION).run()
    assert_no_exception(at)
    [top] = hits_table(at)["first words"]
    assert str(top).startswith("To claim a refund")  # PHOTOS starts the next chunk
    assert [e.value for e in at.error] == [
        f"Incomplete: '{PHOTOS}' is in chunk 15, ranked 2nd, below the top 1"
    ]
    assert 'title="filled to the' not in doc_html(at)

    at.toggle(key="fill").set_value(True).run()
    at.selectbox(key="budget").set_value(256).run()
    assert_no_exception(at)
    assert [m.value for m in at.success] == [
        "Complete: every evidence phrase is inside the retrieved text"
    ]
    note = next(m.value for m in at.markdown if m.value.startswith("An LLM would receive"))
    assert note.endswith("the top 1 hit, as retrieved, then widened to fill the 256-token budget.")
    # what the note counts is what the library widens, within the budget
    doc = load_document(LONG_RETURNS.encode(), name="returns.md")
    units = get_measure("tokens").units(doc.text)
    assert units.total() > 256  # the document is longer than the budget
    chunks = split(doc, ChunkSettings("sentence", "words", 15, 0))
    ranking = rank_chunks(chunks, RETURNS_QUESTION, "bm25", doc=doc, carry=CARRY)
    spans = widen_to_budget(
        [(chunks[ranking[0].index].start, chunks[ranking[0].index].end)], units, 256
    )
    tokens = sum(units.size(s, e) for s, e in spans)
    assert tokens <= 256 and f"**{tokens:,} tokens** (cl100k) in {len(spans)} piece" in note
    html = doc_html(at)
    assert 'title="filled to the 256-token budget"' in html
    assert "Attach two photos" in underlined(html)[EVIDENCE_COVERED]
