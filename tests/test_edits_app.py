"""What-if edits in the app (AppTest): the refund lesson, missed at its failing setting, is
complete once the rule's chunk is merged with the next — by the chunk details' button or the
suggested repair's Apply; Undo brings the miss back; split and drop; the link carries the edits
and reopens them; a link with edits that cannot be read or applied says so."""

from __future__ import annotations

import re

from streamlit.testing.v1 import AppTest

from tests.conftest import REPO
from tests.test_edits import RULE_CHUNK

APP = str(REPO / "app.py")


def run(params: dict[str, str] | None = None, **preset: object) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=300)
    if params:
        at.query_params.update(params)
    for key, value in preset.items():
        at.session_state[key] = value
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def verdict(at: AppTest) -> str:
    shown = [e.value for e in [*at.success, *at.error] if e.value.startswith(("Complete", "Inc"))]
    assert len(shown) == 1, shown
    return shown[0]


def markdown(at: AppTest, start: str) -> list[str]:
    return [m.value for m in [*at.markdown, *at.caption] if m.value.startswith(start)]


def overview(at: AppTest) -> str:
    (head,) = [e.label for e in at.expander if e.label.startswith("Chunking: ")]
    return head


def test_merge_with_next_completes_the_refund_lesson_and_undo_takes_it_back() -> None:
    at = run(chunk=RULE_CHUNK)  # the app opens on the refund lesson at its failing setting
    assert verdict(at).startswith("Incomplete: 'does not apply to downloaded materials'")
    assert overview(at).startswith("Chunking: 12 chunks")
    assert not markdown(at, "**What-if chunking**")
    at.button(key="edit_merge").click().run()
    assert not at.exception
    assert verdict(at) == "Complete: every evidence phrase is inside the retrieved text"
    assert overview(at).startswith("Chunking: 11 chunks") and "+ 1 edit)" in overview(at)
    (bar,) = markdown(at, "**What-if chunking**")
    assert bar == "**What-if chunking** (+ 1 edit): merge chunk 3 with the next"
    assert any("With 1 what-if edit to the chunking" in m.value for m in at.markdown)
    assert at.query_params["edits"] == "m3"
    assert any("oversize" in h.value for h in at.get("html")), "the merged chunk is flagged"
    at.button(key="edit_undo").click().run()
    assert verdict(at).startswith("Incomplete")
    assert overview(at).startswith("Chunking: 12 chunks")
    assert "edits" not in at.query_params


def test_the_suggested_repair_applies_with_one_click() -> None:
    at = run()
    (suggestion,) = markdown(at, "**Suggested repair:**")
    assert "merge chunk 3 with the next: complete, +" in suggestion
    assert "tokens of context" in suggestion
    at.button(key="apply_repair").click().run()
    assert verdict(at).startswith("Complete")
    assert not markdown(at, "**Suggested repair:**"), "nothing to repair once complete"
    at.button(key="clear_edits").click().run()
    assert verdict(at).startswith("Incomplete")


def test_split_and_drop_from_the_chunk_details() -> None:
    at = run(chunk=RULE_CHUNK)
    picker = next(s for s in at.selectbox if s.label == "Split this chunk after")
    first = picker.options[0]
    assert re.fullmatch(r"[\d,]+ · ….+", first), first
    at.button(key="edit_split").click().run()
    assert overview(at).startswith("Chunking: 13 chunks")
    assert at.query_params["edits"].startswith("s")
    at.session_state["chunk"] = 0
    at.run()
    at.button(key="edit_drop").click().run()
    assert not at.exception
    assert at.query_params["edits"].endswith(".d0")
    assert overview(at).startswith("Chunking: 13 chunks"), "a dropped chunk stays shown"
    assert any("Dropped from the index" in c.value for c in at.caption)
    html = "".join(h.value for h in at.get("html"))
    assert "ce-dropped" in html and "line-through" in html


def test_a_link_with_edits_reopens_them() -> None:
    first = run(chunk=RULE_CHUNK)
    first.button(key="edit_merge").click().run()
    link = dict(first.query_params)
    assert link["edits"] == "m3"
    again = run(link)
    assert verdict(again).startswith("Complete")
    assert "+ 1 edit" in overview(again)
    assert dict(again.query_params) == link


def test_a_link_with_bad_edits_says_so() -> None:
    unreadable = run({"doc": "refund-policy.md", "config": "retriever=bm25", "edits": "x9"})
    notes = [w.value for w in unreadable.warning]
    assert any("The link's edits cannot be used" in n and "'x9'" in n for n in notes), notes
    assert "edits" not in unreadable.query_params
    beyond = run({"doc": "refund-policy.md", "config": "retriever=bm25", "edits": "d999"})
    notes = [w.value for w in beyond.warning]
    assert any("do not fit this chunking" in n and "no chunk 999" in n for n in notes), notes
    assert "edits" not in beyond.query_params


def test_a_hostile_edits_parameter_is_quoted_as_text() -> None:
    at = run({"doc": "refund-policy.md", "config": "retriever=bm25", "edits": "<img src=x>"})
    notes = [w.value for w in at.warning if "edits cannot be used" in w.value]
    assert len(notes) == 1 and "'\\<img src=x\\>'" in notes[0], notes  # escaped: shown as text
    assert not at.exception


def test_drop_merge_and_undo_on_the_pdf() -> None:
    at = run(
        {"doc": "field-manual.pdf", "config": "retriever=bm25", "chunk": "1", "view": "chunks"}
    )
    before = overview(at)
    at.button(key="edit_drop").click().run()
    assert not at.exception
    assert at.query_params["edits"] == "d1"
    assert any("Dropped from the index" in c.value for c in at.caption)
    at.button(key="edit_merge").click().run()  # the dropped chunk and the next: kept, as one
    assert at.query_params["edits"] == "d1.m1"
    assert not any("Dropped from the index" in c.value for c in at.caption)
    assert "+ 2 edits" in overview(at)
    at.button(key="edit_undo").click().run()
    at.button(key="edit_undo").click().run()
    assert overview(at) == before and "edits" not in at.query_params


def test_a_dropped_chunk_is_struck_through_on_the_pdf_page() -> None:
    from explorer.chunking.records import ChunkSettings
    from explorer.chunking.splitters import split
    from tests.conftest import SAMPLES, load_cached
    from ui import render, render_pdf

    path = SAMPLES / "field-manual.pdf"
    doc, pdf = load_cached(path), path.read_bytes()
    chunks = split(doc, ChunkSettings(splitter="recursive", unit="tokens", size=120, overlap=0))
    c = chunks[1]
    grey = render.Highlight(c.start, c.end, c.index, render.DROPPED_COLOR, label="✕1")
    struck = render.dropped_highlight(c)
    assert struck.struck and struck.color == grey.color and struck.label == "✕1"
    plain = render_pdf.render_pdf_page(pdf, 1, doc, [grey], zoom=1.0)
    drawn = render_pdf.render_pdf_page(pdf, 1, doc, [struck], zoom=1.0)
    assert drawn.png != plain.png, "the strike-through lines are drawn"
    html = render.render_text(doc, [struck])
    assert "line-through" in html and "ce-dropped" in html
