"""What-if edits in the app (AppTest): the refund lesson, missed at its failing setting, is
complete once the rule's chunk is merged with the next — by the chunk details' button or the
suggested repair's Apply; Undo brings the miss back; split and drop; the link carries the edits
and reopens them; a link with edits that cannot be read or applied says so."""

from __future__ import annotations

import re

from streamlit.testing.v1 import AppTest

from explorer.chunking.edits import decode_edits, encode_edits
from explorer.config import Config
from explorer.documents.load import load_path
from tests.conftest import REPO, SAMPLES
from tests.test_app import upload
from tests.test_edits import RULE_CHUNK, refund_versions, scenario_link

APP = str(REPO / "app.py")
REFUND_VERSION = load_path(SAMPLES / "refund-policy.md").version


def run(params: dict[str, str] | None = None, **preset: object) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=300)
    if params:
        at.query_params.update(params)
    for key, value in preset.items():
        at.session_state[key] = value
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def written_of(at: AppTest) -> str:
    """The link's edits without their anchors (``m3~4b28ce16`` is ``m3``)."""
    return encode_edits(decode_edits(at.query_params["edits"]))


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
    assert written_of(at) == "m3" and at.query_params["version"] == REFUND_VERSION
    assert any("oversize" in h.value for h in at.get("html")), "the merged chunk is flagged"
    flags = [w.value for w in at.warning if "Oversize" in w.value]
    assert flags and all("**Oversize by an edit**" in w for w in flags), flags
    assert not any("could not be split" in w for w in flags), "the edit made it, not the splitter"
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


def test_a_miss_no_single_edit_mends_shows_what_was_tried_and_the_checked_move() -> None:
    """Lesson 5 at its failing setting: no merge, split or drop completes it, and the box says
    so with the move that does (checked), rather than nothing (issue 36.2)."""
    at = run({"lesson": "5-overlap-crowds-out-a-second-source"})
    assert verdict(at).startswith("Incomplete")
    assert not markdown(at, "**Suggested repair:**")
    (box,) = markdown(at, "**Repair:**")
    assert "No single edit completes it (tried " in box
    assert "What does: raise the budget to 512 tokens (checked: complete" in box


def test_split_and_drop_from_the_chunk_details() -> None:
    at = run(chunk=RULE_CHUNK)
    picker = next(s for s in at.selectbox if s.label == "Split this chunk after")
    first = picker.options[0]
    assert re.fullmatch(r"[\d,]+ · ….+", first), first
    at.button(key="edit_split").click().run()
    assert overview(at).startswith("Chunking: 13 chunks")
    assert written_of(at).startswith("s")
    at.session_state["chunk"] = 0
    at.run()
    at.button(key="edit_drop").click().run()
    assert not at.exception
    assert written_of(at).endswith(".d0")
    assert overview(at).startswith("Chunking: 13 chunks"), "a dropped chunk stays shown"
    assert any("Dropped from the index" in c.value for c in at.caption)
    html = "".join(h.value for h in at.get("html"))
    assert "ce-dropped" in html and "line-through" in html


def test_a_link_with_edits_reopens_them() -> None:
    first = run(chunk=RULE_CHUNK)
    first.button(key="edit_merge").click().run()
    link = dict(first.query_params)
    assert written_of(first) == "m3" and "~" in link["edits"] and link["version"]
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
    assert any("1 was left out (drop chunk 999: there is no chunk 999" in n for n in notes), notes
    assert "edits" not in beyond.query_params
    same = run({"doc": "refund-policy.md", "config": "retriever=bm25", "edits": "d999",
                "version": REFUND_VERSION})  # fmt: skip  # on its version: as written
    notes = [w.value for w in same.warning]
    assert any("do not fit this chunking" in n and "no chunk 999" in n for n in notes), notes


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
    assert written_of(at) == "d1"
    assert any("Dropped from the index" in c.value for c in at.caption)
    at.button(key="edit_merge").click().run()  # the dropped chunk and the next: kept, as one
    assert written_of(at) == "d1.m1"
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
    (struck,) = render.dropped_highlights(c, [])  # no retrievable chunk holds its text
    assert struck.struck and struck.color == grey.color and struck.label == "✕1"
    plain = render_pdf.render_pdf_page(pdf, 1, doc, [grey], zoom=1.0)
    drawn = render_pdf.render_pdf_page(pdf, 1, doc, [struck], zoom=1.0)
    assert drawn.png != plain.png, "the strike-through lines are drawn"
    html = render.render_text(doc, [struck])
    assert "line-through" in html and "ce-dropped" in html


# --------------------------------------------------------------------------- another version


def link_on_upload(name: str, edits: str, version: str | None) -> dict[str, str]:
    params = {"doc": name, "upload": "1", "config": "retriever=bm25", "edits": edits}
    return params | ({"version": version} if version else {})


def opened(params: dict[str, str], name: str, data: bytes) -> AppTest:
    """A new session on the link, the file it names uploaded."""
    at = run(params)
    upload(at, name, data)
    assert not at.exception, [e.value for e in at.exception]
    assert at.session_state["source"] == name
    return at


def test_a_link_opened_on_another_version_moves_the_split_with_its_text_and_says_so() -> None:
    a, b, written, edits = scenario_link(Config().chunking)
    at = opened(
        link_on_upload("refunds.md", written, a.version), "refunds.md", refund_versions()[1]
    )
    notes = [w.value for w in at.warning if "another version" in w.value]
    assert notes == [
        "This link was made on another version of refunds.md; 1 of 2 edits still applies where "
        "its text stands (1 moved with its text), 1 was left out (drop chunk 0: the chunk it "
        "dropped is not in this version)."
    ]
    (bar,) = markdown(at, "**What-if chunking**")
    assert bar == f"**What-if chunking** (+ 1 edit): split at {edits[0].at + 42}"
    assert written_of(at) == f"s{edits[0].at + 42}" and at.query_params["version"] == b.version
    at.run()  # the note stays while these edits stand
    assert [w.value for w in at.warning if "another version" in w.value] == notes
    at.button(key="undo_edit").click().run()  # and goes with them
    assert not [w.value for w in at.warning if "another version" in w.value]


def test_a_link_opened_on_its_own_version_applies_silently() -> None:
    a, _b, written, edits = scenario_link(Config().chunking)
    at = opened(
        link_on_upload("refunds.md", written, a.version), "refunds.md", refund_versions()[0]
    )
    assert not [w.value for w in [*at.warning, *at.info] if "version" in w.value]
    (bar,) = markdown(at, "**What-if chunking**")
    assert bar == f"**What-if chunking** (+ 2 edits): split at {edits[0].at}; drop chunk 0"
    assert at.query_params["edits"] == written and at.query_params["version"] == a.version


def test_a_link_without_a_version_says_so_and_leaves_out_a_split_inside_a_sentence() -> None:
    edits = scenario_link(Config().chunking)[3]
    link = link_on_upload("refunds.md", encode_edits(edits), None)
    at = opened(link, "refunds.md", refund_versions()[1])
    (note,) = [w.value for w in at.warning if "version" in w.value]
    assert note.startswith(
        "This link does not record which version of refunds.md its edits were made on; "
        "1 of 2 edits applies"
    )
    assert f"split at {edits[0].at}: it falls inside a sentence here" in note
    (bar,) = markdown(at, "**What-if chunking**")
    assert bar == "**What-if chunking** (+ 1 edit): drop chunk 0"
