"""The diff of two versions: a real document edited in three places, small golden cases, and
properties over random edits (the diff is always a correct update of an index keyed by id)."""

from __future__ import annotations

import json
from collections.abc import Sequence

import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from explorer.chunking.diff import (
    Changed,
    ChunkDiff,
    ChunkRef,
    DiffError,
    PositionMap,
    diff_chunks,
    pieces,
)
from explorer.chunking.measures import get_measure
from explorer.chunking.records import Chunk, ChunkSettings
from explorer.chunking.splitters import split
from explorer.config import Config
from explorer.documents.model import Document
from tests.conftest import CORPUS, load_cached, make_doc

# --------------------------------------------------------------------------- a real document

CURL = CORPUS / "curl-vulnerability-disclosure-policy.md"
EDIT_OLD = "There is no bug bounty and"
EDIT_NEW = "There is no bug bounty program and"
INSERT = (
    "# Reporting checklist\n\n"
    "Before you report a problem, check that it reproduces with the most recent curl release "
    "and that it is not already listed on the security page. Say which version, which "
    "operating system and which build options you used, and give the smallest command line or "
    "program that shows the problem. Tell us what you expected to happen and what happened "
    "instead, and why you think the problem is a security issue rather than an ordinary bug. "
    "If you have found a way to exploit it, describe the conditions an attacker needs: network "
    "access, a malicious server, a crafted URL or local access to the machine. Do not include "
    "real credentials or private data from other people in the report. Keep the report to one "
    "problem; file separate reports for separate problems, so that each can be judged, fixed "
    "and disclosed on its own schedule. We read every report, but a clear one is handled "
    "sooner, and one that comes with a proposed fix sooner still. Thank you for helping us "
    "keep curl safe for everyone who uses it.\n\n"
)
BEFORE = "# Not security issues"
DELETED = "A log is kept of all external and internal communication.\n\n"


def holding(chunks: Sequence[Chunk], text: str, at: int) -> list[Chunk]:
    return [c for c in chunks if c.start <= at and at + len(text) <= c.end]


def test_a_real_document_edited_in_three_places() -> None:
    """curl's disclosure policy, split with the recommended settings (structure splitter, 256
    tokens, overlap 64), edited three times: words inserted in a sentence near the start, a
    section inserted in the middle, a sentence deleted near the end.

    Reasoning, independent of the diff: the structure splitter ends a chunk at the furthest
    heading within reach, and each edit lies in a chunk that starts and ends at a heading (or
    the end of the text) and still fits after the edit; the inserted section fits alone but not
    together with the section before it. So every cut outside the edited chunks stays where it
    was, and:

    * the chunk holding the first edit and the last chunk (holding the deleted sentence) are
      *changed*, each replacing the old chunk at its place;
    * the inserted section is one new chunk overlapping no old text: *added*;
    * nothing is *removed*; every other chunk is *unchanged*, its span shifted by the change
      in length of the edits before it;
    * three texts are new, so three must be embedded.
    """
    old_doc = load_cached(CURL)
    text = old_doc.text
    assert text.count(EDIT_OLD) == text.count(BEFORE) == text.count(DELETED) == 1
    new_text = (
        text.replace(EDIT_OLD, EDIT_NEW).replace(BEFORE, INSERT + BEFORE).replace(DELETED, "")
    )
    new_doc = make_doc(new_text, kind="markdown", name=CURL.name)
    settings = Config().chunking
    old, new = split(old_doc, settings), split(new_doc, settings)

    # the premises of the reasoning, checked on the old chunks
    e1, ins, dl = text.index(EDIT_OLD), text.index(BEFORE), text.index(DELETED)
    [first] = holding(old, EDIT_OLD, e1)
    nxt = old[first.index + 1]
    assert text.startswith("## ", nxt.start) and nxt.start > first.end, "a heading follows it"
    before_insert = [c for c in old if c.end <= ins][-1]
    assert old[before_insert.index + 1].start == ins, "a chunk starts where the section goes"
    assert old[-1].start <= dl and holding(old, DELETED.strip(), dl) == [old[-1]]
    tokens = get_measure("tokens")
    assert tokens.count(INSERT.strip()) <= settings.size
    assert tokens.count(before_insert.text + "\n\n" + INSERT.strip()) > settings.size

    diff = diff_chunks(old_doc, old, new_doc, new)

    d1, d2 = len(EDIT_NEW) - len(EDIT_OLD), len(INSERT)
    new_first = new[first.index]
    assert EDIT_NEW in new_first.text and new_first.text == first.text.replace(EDIT_OLD, EDIT_NEW)
    new_last = new[-1]
    assert new_last.text == old[-1].text.replace(DELETED, "")
    assert diff.changed == (
        Changed(new=ChunkRef.of(new_first), replaces=(ChunkRef.of(first),)),
        Changed(new=ChunkRef.of(new_last), replaces=(ChunkRef.of(old[-1]),)),
    )
    [added] = diff.added
    assert new_text[added.start : added.end] == INSERT.strip()
    assert added.start == ins + d1
    assert diff.removed == ()
    kept = [c for c in old if c.index not in (first.index, old[-1].index)]
    shift = [0 if c.start < e1 else d1 if c.start < ins else d1 + d2 for c in kept]
    assert [(u.old, u.new.id, u.new.start, u.new.end) for u in diff.unchanged] == [
        (ChunkRef.of(c), c.id, c.start + s, c.end + s) for c, s in zip(kept, shift, strict=True)
    ]
    assert diff.reembed == 3
    assert [r.id for r in diff.stale] == [first.id, old[-1].id]

    out = json.loads(json.dumps(diff.to_json()))
    assert set(out) == {"unchanged", "changed", "added", "removed", "counts"}
    assert out["counts"] == {
        "unchanged": len(old) - 2, "changed": 2, "added": 1, "removed": 0, "stale": 2,
        "reembed": 3,
    }  # fmt: skip
    assert out["added"] == [{"id": added.id, "index": added.index, "start": added.start,
                             "end": added.end}]  # fmt: skip
    assert out["changed"][0]["replaces"] == [ChunkRef.of(first).to_json()]
    assert out["unchanged"][0] == {**ChunkRef.of(new[0]).to_json(), "old_index": 0,
                                   "old_start": old[0].start, "old_end": old[0].end}  # fmt: skip


# --------------------------------------------------------------------------- golden cases

SECTIONS = (
    "# Shop\n\n"
    "## Refunds\n\nRefunds are available within seven days of purchase.\n\n"
    "## Shipping\n\nShipping is free for orders over fifty euros.\n\n"
    "## Gift cards\n\nGift cards are valid until spent.\n"
)
SMALL = ChunkSettings(splitter="structure", unit="chars", size=70, overlap=0)


def diff_texts(
    old: str, new: str, settings: ChunkSettings = SMALL
) -> tuple[ChunkDiff, list[Chunk], list[Chunk]]:
    a, b = make_doc(old, kind="markdown"), make_doc(new, kind="markdown")
    ca, cb = split(a, settings), split(b, settings)
    return diff_chunks(a, ca, b, cb), ca, cb


def test_the_same_version_is_all_unchanged() -> None:
    diff, _, new = diff_texts(SECTIONS, SECTIONS)
    assert [u.new for u in diff.unchanged] == [ChunkRef.of(c) for c in new]
    assert (diff.changed, diff.added, diff.removed, diff.stale, diff.reembed) == ((), (), (), (), 0)


def test_a_deleted_section_is_removed_and_the_rest_unchanged() -> None:
    shipping = "## Shipping\n\nShipping is free for orders over fifty euros.\n\n"
    diff, old, new = diff_texts(SECTIONS, SECTIONS.replace(shipping, ""))
    [gone] = [c for c in old if "Shipping is free" in c.text]
    assert gone.text == shipping.strip(), "the section was one chunk"
    assert diff.removed == (ChunkRef.of(gone),)
    assert (diff.changed, diff.added, diff.reembed) == ((), (), 0)
    assert len(diff.unchanged) == len(old) - 1 == len(new)


def test_a_chunk_that_grows_past_the_limit_is_cut_and_every_piece_replaces_it() -> None:
    """The Refunds section (64 characters, one chunk) grows to 96: its heading and the two
    pieces of its paragraph are three changed chunks, each replacing the one old chunk."""
    longer = "Refunds are available within seven days of purchase, and within thirty for members."
    diff, old, new = diff_texts(
        SECTIONS, SECTIONS.replace("Refunds are available within seven days of purchase.", longer)
    )
    was = old[1]
    assert was.text.startswith("## Refunds") and "seven days" in was.text
    assert [c.text for c in new[1:4]] == [
        "## Refunds",
        "Refunds are available within seven days of purchase, and within thirty",
        "for members.",
    ]
    assert diff.changed == tuple(
        Changed(new=ChunkRef.of(c), replaces=(ChunkRef.of(was),)) for c in new[1:4]
    )
    assert diff.stale == (ChunkRef.of(was),) and diff.removed == () and diff.added == ()
    assert diff.reembed == 3


def test_a_chunk_under_a_renamed_heading_is_changed_even_with_the_same_text() -> None:
    """The heading path is part of an id, so the paragraph's record is stale (its heading path
    would be wrong); its vector may be kept, so ``reembed`` counts only the heading's text."""
    text = SECTIONS.replace(
        "valid until spent.", "valid until spent, for three years from the day."
    )
    diff, old, new = diff_texts(text, text.replace("## Gift cards", "## Vouchers"))
    assert [c.text for c in old[-2:]] == [
        "## Gift cards", "Gift cards are valid until spent, for three years from the day."
    ]  # fmt: skip
    assert new[-1].text == old[-1].text and new[-1].heading_path == ("Shop", "Vouchers")
    assert diff.changed == tuple(
        Changed(new=ChunkRef.of(n), replaces=(ChunkRef.of(o),))
        for o, n in zip(old[-2:], new[-2:], strict=True)
    )
    assert diff.reembed == 1
    assert len(diff.unchanged) == len(old) - 2


def test_chunks_of_another_document_are_refused() -> None:
    a, b = make_doc(SECTIONS, kind="markdown", name="a.md"), make_doc("other text")
    with pytest.raises(DiffError, match=r"not in 'a\.md'"):
        diff_chunks(a, split(b, SMALL), b, split(b, SMALL))


def test_records_refuse_what_cannot_be() -> None:
    with pytest.raises(DiffError, match="empty or negative"):
        ChunkRef(id="x", index=0, start=3, end=3)
    with pytest.raises(DiffError, match="replaces at least one"):
        Changed(new=ChunkRef(id="x", index=0, start=0, end=1), replaces=())
    ref = ChunkRef(id="x", index=0, start=0, end=1)
    with pytest.raises(DiffError, match="listed twice"):
        ChunkDiff(unchanged=(), changed=(), added=(ref, ref), removed=(), reembed=0)
    with pytest.raises(DiffError, match="reembed"):
        ChunkDiff(unchanged=(), changed=(), added=(ref,), removed=(), reembed=2)


# --------------------------------------------------------------------------- positions


@given(st.text(alphabet="ab .!?\n\t", max_size=80))
def test_pieces_join_back_to_the_text(text: str) -> None:
    assert "".join(pieces(text)) == text and all(pieces(text))


def test_positions_map_exactly_outside_an_edit_and_onto_the_replacement_inside() -> None:
    old = "One line.\nTwo words here.\nThree.\n"
    new = "One line.\nTwo other words.\nThree.\n"
    m = PositionMap(old, new)
    two, three = old.index("Two"), old.index("Three")
    assert m.span(0, 9) == (0, 9)
    assert m.span(three, len(old)) == (new.index("Three"), len(new))
    assert m.span(two + 4, two + 9) == (new.index("Two"), new.index("Three"))
    gone = PositionMap(old, old.replace("Two words here.\n", ""))
    assert gone.span(two, two + 15) == (two, two), "deleted text maps to a point"


# --------------------------------------------------------------------------- properties

WORDS = ("refund", "days", "seven", "order", "ship", "gift", "card", "valid", "free", "paid")
paragraph = st.lists(st.sampled_from(WORDS), min_size=1, max_size=12).map(
    lambda ws: " ".join(ws) + "."
)
block = st.one_of(paragraph, paragraph, st.sampled_from(["# Shop", "## Refunds", "## Gift"]))
versions = st.lists(block, min_size=1, max_size=12)


@st.composite
def edited(draw: st.DrawFn) -> tuple[list[str], list[str]]:
    old = draw(versions)
    new = list(old)
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(new)))
        kind = draw(st.sampled_from(["insert", "delete", "replace", "move"]))
        if kind == "insert" or not new:
            new.insert(i, draw(block))
        elif kind == "delete" and len(new) > 1:
            del new[min(i, len(new) - 1)]
        elif kind == "replace":
            new[min(i, len(new) - 1)] = draw(block)
        else:
            new.insert(i, new.pop(draw(st.integers(0, len(new) - 1))))
    return old, new


def as_doc(blocks: Sequence[str]) -> Document:
    return make_doc("\n\n".join(blocks) + "\n", kind="markdown")


@pytest.mark.parametrize("splitter", ["fixed", "structure"])
@given(pair=edited(), size=st.integers(20, 90), overlap=st.sampled_from([0, 10]))
def test_a_diff_is_a_partition_and_a_correct_index_update(
    splitter: str, pair: tuple[list[str], list[str]], size: int, overlap: int
) -> None:
    """Every new chunk is unchanged, changed or added, once; every old chunk is unchanged or
    stale, once; an index keyed by id (id → text) updated by deleting the stale chunks and
    adding the changed and added ones is exactly the new version's index; ``reembed`` counts the
    new texts not among the old ones."""
    settings = ChunkSettings(splitter=splitter, unit="chars", size=size, overlap=overlap)
    a, b = as_doc(pair[0]), as_doc(pair[1])
    old, new = split(a, settings), split(b, settings)
    diff = diff_chunks(a, old, b, new)
    for kind in ("changed", "added", "removed"):
        event(f"{kind}: {'some' if getattr(diff, kind) else 'none'}")
    listed = [u.new.index for u in diff.unchanged] + [c.new.index for c in diff.changed]
    listed += [x.index for x in diff.added]
    assert sorted(listed) == list(range(len(new)))
    kept = [u.old.index for u in diff.unchanged] + [r.index for r in diff.stale]
    assert sorted(kept) == list(range(len(old)))
    index = {c.id: c.text for c in old}
    for r in diff.stale:
        del index[r.id]
    for ref in [c.new for c in diff.changed] + list(diff.added):
        assert ref.id not in index
        index[ref.id] = new[ref.index].text
    assert index == {c.id: c.text for c in new}
    assert diff.reembed == len({c.text for c in new} - {c.text for c in old})
    old_ids = {c.id for c in old}
    for c in diff.changed:
        assert all(r.id not in {x.id for x in new} and r.id in old_ids for r in c.replaces)
