"""Chunk ids name what a chunk is (text, heading path, settings, occurrence), not where it sits.

The property tests edit a random document inside one paragraph near its start and check that
the chunks after the edit keep their ids wherever the splitter's boundaries re-align.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass

import pytest
from hypothesis import assume, event, given
from hypothesis import strategies as st

from explorer.chunking.records import Chunk, ChunkSettings, chunk_id, chunk_ids, chunks_from_texts
from explorer.chunking.splitters import split
from tests.conftest import make_doc

# --------------------------------------------------------------------------- documents

WORDS = (
    "the", "and", "refund", "days", "seven", "order", "ship", "item", "return", "within",
    "apply", "gift", "card", "valid", "euro", "free", "policy", "goods", "paid", "back",
)  # fmt: skip
"""Lowercase words of 3 to 6 letters: no Markdown syntax, no abbreviation, no initial, so an
edit made of whole words changes neither the block structure nor a cut outside the edit."""

Sentence = list[str]
Paragraph = list[Sentence]


@dataclass(frozen=True)
class Heading:
    level: int
    words: tuple[str, ...]


Block = Paragraph | Heading

words = st.sampled_from(WORDS)
sentences = st.lists(words, min_size=1, max_size=8)
paragraphs = st.lists(sentences, min_size=1, max_size=4)
headings = st.builds(Heading, st.integers(1, 3), st.lists(words, min_size=1, max_size=3).map(tuple))


def render(blocks: Sequence[Block]) -> tuple[str, list[tuple[int, int]]]:
    """Markdown with one line per block and a blank line between blocks; each block's span."""
    parts: list[str] = []
    for b in blocks:
        if isinstance(b, Heading):
            parts.append("#" * b.level + " " + " ".join(b.words))
        else:
            parts.append(" ".join(" ".join(s) + "." for s in b))
    out, pos = [], 0
    for part in parts:
        out.append((pos, pos + len(part)))
        pos += len(part) + 2
    return "\n\n".join(parts) + "\n", out


EDITS = (
    "insert word", "delete word", "replace word", "same-length word", "insert sentence",
    "delete sentence",
)  # fmt: skip


def edit(p: Paragraph, data: st.DataObject) -> Paragraph:
    """One edit of whole words or sentences inside ``p`` (``p`` stays non-empty)."""
    p = [list(s) for s in p]
    kind = data.draw(st.sampled_from(EDITS), label="edit")
    s = data.draw(st.integers(0, len(p) - 1), label="sentence")
    if kind == "insert word":
        p[s].insert(data.draw(st.integers(0, len(p[s]))), data.draw(words))
    elif kind == "delete word":
        assume(len(p[s]) > 1)
        del p[s][data.draw(st.integers(0, len(p[s]) - 1))]
    elif kind == "replace word":
        w = data.draw(st.integers(0, len(p[s]) - 1))
        p[s][w] = data.draw(words.filter(lambda x: x != p[s][w]))
    elif kind == "same-length word":  # nothing moves: fixed windows stay aligned
        w = data.draw(st.integers(0, len(p[s]) - 1))
        alike = [x for x in WORDS if len(x) == len(p[s][w]) and x != p[s][w]]
        p[s][w] = data.draw(st.sampled_from(alike))
    elif kind == "insert sentence":
        p.insert(s, data.draw(sentences))
    else:
        assume(len(p) > 1)
        del p[s]
    return p


# --------------------------------------------------------------------------- checks


def occurrences(chunks: Sequence[Chunk]) -> list[int]:
    """For each chunk, how many earlier chunks have the same text and heading path."""
    seen: dict[tuple[str, tuple[str, ...]], int] = {}
    out = []
    for c in chunks:
        n = seen.get((c.text, c.heading_path), 0)
        seen[(c.text, c.heading_path)] = n + 1
        out.append(n)
    return out


def check_ids_name_content(old: Sequence[Chunk], new: Sequence[Chunk]) -> None:
    """Two chunks share an id exactly when text, heading path and occurrence are the same."""
    what_old = {
        (c.text, c.heading_path, n): c.id for c, n in zip(old, occurrences(old), strict=True)
    }
    what_new = {
        (c.text, c.heading_path, n): c.id for c, n in zip(new, occurrences(new), strict=True)
    }
    assert len(set(what_new.values())) == len(new), "ids are unique within a document"
    for what, cid in what_new.items():
        assert (cid in what_old.values()) == (what in what_old)
        if what in what_old:
            assert what_old[what] == cid


def later_chunks(
    old: Sequence[Chunk], new: Sequence[Chunk], *, old_fence: int, new_fence: int
) -> int | None:
    """Check the chunks from the first re-aligned one on; return its index in ``new``.

    A new chunk is *re-aligned* when it starts at or after ``new_fence`` (the end of the edited
    paragraph) and an old chunk starts at the same place in the old text (``start - delta``).
    """
    delta = new_fence - old_fence
    old_at = {c.start: i for i, c in enumerate(old)}
    j = next(
        (j for j, c in enumerate(new) if c.start >= new_fence and c.start - delta in old_at), None
    )
    if j is None:
        return None
    i = old_at[new[j].start - delta]
    assert len(new) - j == len(old) - i, "from a re-aligned chunk on, the same chunks follow"
    occ_old, occ_new = occurrences(old), occurrences(new)
    for o, n, k_old, k_new in zip(old[i:], new[j:], occ_old[i:], occ_new[j:], strict=True):
        assert (n.text, n.heading_path, n.start) == (o.text, o.heading_path, o.start + delta)
        assert (n.id == o.id) == (k_new == k_old), "the id changes only with the occurrence"
    return j


# --------------------------------------------------------------------------- properties

PACKING = ("fixed", "sentence", "recursive", "structure")


@pytest.mark.parametrize("splitter", PACKING)
@given(
    before=st.lists(st.one_of(paragraphs, headings), max_size=2),
    target=paragraphs,
    after=st.lists(st.one_of(paragraphs, headings), min_size=1, max_size=8),
    size=st.integers(30, 160),
    data=st.data(),
)
def test_chunks_after_a_realigned_boundary_keep_their_ids(
    splitter: str,
    before: list[Block],
    target: Paragraph,
    after: list[Block],
    size: int,
    data: st.DataObject,
) -> None:
    """Edit one paragraph near the start (after at most two blocks) by inserting, deleting or
    replacing a word or a sentence; split both versions with ``splitter``, characters, no
    overlap.

    Property: let ``delta`` be the change in length and call a new chunk *re-aligned* if it
    starts after the edited paragraph at ``start`` and an old chunk starts at ``start - delta``.
    From the first re-aligned chunk on, both versions have the same chunks (text, heading path,
    start shifted by ``delta``), and each keeps its old id unless its occurrence number (earlier
    chunks with the same text and heading path) changed, which only the edited chunks can cause.
    This is what the id rule can promise: the packing splitters cut greedily, so before the
    boundaries re-align, later chunks may have other texts (for ``fixed`` windows, every window
    after an edit that changes the length, until a skipped space happens to re-align them).
    Across the whole document, two chunks share an id exactly when they have the same text,
    heading path and occurrence number.
    """
    edited = edit(target, data)
    old_text, old_spans = render([*before, target, *after])
    new_text, new_spans = render([*before, edited, *after])
    settings = ChunkSettings(splitter=splitter, unit="chars", size=size, overlap=0)
    old = split(make_doc(old_text, kind="markdown"), settings)
    new = split(make_doc(new_text, kind="markdown"), settings)
    t = len(before)
    j = later_chunks(old, new, old_fence=old_spans[t][1], new_fence=new_spans[t][1])
    event("re-aligned" if j is not None else "not re-aligned")
    check_ids_name_content(old, new)


@pytest.mark.parametrize("splitter", ["recursive", "structure"])
@given(
    blocks=st.lists(
        st.lists(st.lists(words, min_size=4, max_size=8), min_size=2, max_size=4),
        min_size=3,
        max_size=8,
    ),
    target=st.integers(0, 1),
    data=st.data(),
)
def test_every_chunk_after_the_edited_paragraph_keeps_its_id(
    splitter: str, blocks: list[Paragraph], target: int, data: st.DataObject
) -> None:
    """Paragraphs only (each at least 33 characters), one edited among the first two; the size
    limit (characters, no overlap) is at most the next paragraph's length + 2.

    Property: the end of the edited paragraph is a chunk end in both versions — a chunk cannot
    reach past it, because the next paragraph break is further than the size limit from any
    start inside the edited paragraph, and a paragraph break within reach is always preferred
    to a finer cut. So every chunk after the edited paragraph is re-aligned: the new version has
    exactly the old chunks there (texts equal, starts shifted by the change in length), each
    with its old id unless its occurrence number changed.
    """
    old_text, old_spans = render(blocks)
    nxt = old_spans[target + 1]
    size = data.draw(st.integers(30, nxt[1] - nxt[0] + 2), label="size")
    edited = [*blocks[:target], edit(blocks[target], data), *blocks[target + 1 :]]
    new_text, new_spans = render(edited)
    settings = ChunkSettings(splitter=splitter, unit="chars", size=size, overlap=0)
    old = split(make_doc(old_text, kind="markdown"), settings)
    new = split(make_doc(new_text, kind="markdown"), settings)
    old_fence, new_fence = old_spans[target][1], new_spans[target][1]
    j = later_chunks(old, new, old_fence=old_fence, new_fence=new_fence)
    assert j is not None and new[j].start == new_spans[target + 1][0]
    assert new[j - 1].end == new_fence, "the edited paragraph's end is a chunk end"
    assert sum(c.start >= old_fence for c in old) == len(new) - j
    check_ids_name_content(old, new)


# --------------------------------------------------------------------------- examples

NOTES = (
    "# Returns\n\n"
    "Items can be returned within seven days.\n\n"
    "## Gift cards\n\n"
    "Gift cards cannot be returned.\n\n"
    "Gift cards are valid until spent.\n\n"
    "## Vouchers\n\n"
    "Gift cards cannot be returned.\n\n"
    "Gift cards cannot be returned.\n"
)


def test_ids_name_text_heading_path_settings_and_occurrence() -> None:
    doc = make_doc(NOTES, kind="markdown")
    settings = ChunkSettings(splitter="structure", unit="chars", size=40, overlap=0)
    chunks = split(doc, settings)
    same = [c for c in chunks if c.text == "Gift cards cannot be returned."]
    assert [c.heading_path for c in same] == [
        ("Returns", "Gift cards"),
        ("Returns", "Vouchers"),
        ("Returns", "Vouchers"),
    ]
    key = settings.key()
    assert [c.id for c in same] == [
        chunk_id(same[0].text, same[0].heading_path, key, 0),
        chunk_id(same[1].text, same[1].heading_path, key, 0),  # another section: its own count
        chunk_id(same[2].text, same[2].heading_path, key, 1),  # the second in its section
    ]
    assert len({c.id for c in chunks}) == len(chunks)
    assert chunk_ids(doc, [(c.start, c.end) for c in chunks], key) == [c.id for c in chunks]
    other = split(doc, ChunkSettings(splitter="structure", unit="chars", size=41, overlap=0))
    assert {c.id for c in other}.isdisjoint(c.id for c in chunks), "settings are part of an id"


def test_chunk_id_is_a_fixed_function() -> None:
    """Changing the hash renames every chunk of every index that stored one: do it on purpose."""
    assert chunk_id("Gift cards cannot be returned.", ("Returns",), "k", 0) == "0bbfe1b9da281e4d"
    assert chunk_id("a", ("b",), "k", 0) != chunk_id("a", (), "k", 0)
    assert chunk_id("a", ("b", "c"), "k", 0) != chunk_id("a", ("b,c",), "k", 0)
    assert chunk_id("a", (), "k", 0) != chunk_id("a", (), "k", 1)
    assert chunk_id("\ud800 astral 🙂", (), "k", 0) != chunk_id("? astral 🙂", (), "k", 0)


@given(
    text=st.text(min_size=1),
    path=st.lists(st.text(), max_size=4),
    key=st.text(),
    occurrence=st.integers(min_value=0, max_value=10**6),
)
def test_chunk_id_hashes_the_json_of_what_the_chunk_is(
    text: str, path: list[str], key: str, occurrence: int
) -> None:
    """The id is the sha256 of ``json.dumps([key, path, occurrence, text])``, whatever the text
    holds (quotes, control characters, lone surrogates, astral characters), however it is built."""
    parts = json.dumps([key, path, occurrence, text], ensure_ascii=True)
    want = hashlib.sha256(parts.encode("ascii")).hexdigest()[:16]
    assert chunk_id(text, tuple(path), key, occurrence) == want


def test_a_same_length_edit_keeps_every_fixed_window_it_does_not_touch() -> None:
    """Fixed windows do not move when an edit keeps the length, so only the windows that
    contain the edit get new ids."""
    old_text = " ".join(f"line {i} of the policy says the same thing." for i in range(40))
    at = old_text.index("line 3 ")
    new_text = old_text[:at] + "LINE" + old_text[at + 4 :]
    settings = ChunkSettings(splitter="fixed", unit="chars", size=50, overlap=0)
    old = split(make_doc(old_text), settings)
    new = split(make_doc(new_text), settings)
    assert [(c.start, c.end) for c in old] == [(c.start, c.end) for c in new]
    touched = [c.start < at + 4 and at < c.end for c in new]
    assert sum(touched) == 1
    assert [o.id == n.id for o, n in zip(old, new, strict=True)] == [not t for t in touched]


def test_chunks_of_another_library_follow_the_same_rule() -> None:
    doc = make_doc(NOTES, kind="markdown")
    texts = ["Gift cards cannot be returned.", "Gift cards cannot be returned."]
    chunks = chunks_from_texts(doc, texts)
    assert [c.id for c in chunks] == chunk_ids(doc, [(c.start, c.end) for c in chunks], "ext")
    assert chunks[0].id != chunks[1].id  # different sections
    edited = NOTES.replace("within seven days", "within fourteen days")
    again = chunks_from_texts(make_doc(edited, kind="markdown"), texts)
    assert [c.start for c in again] != [c.start for c in chunks]
    assert [c.id for c in again] == [c.id for c in chunks]
