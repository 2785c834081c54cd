"""Splitters: invariants over arbitrary Unicode, golden offsets, and the real corpus."""

from __future__ import annotations

import bisect
import hashlib
import itertools
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from explorer.chunking.measures import (
    DEFAULT_ENCODING,
    UNITS,
    get_measure,
    tiktoken_encoding,
)
from explorer.chunking.records import SPLITTERS, Chunk, ChunkSettings
from explorer.chunking.splitters import split
from explorer.documents.model import Document
from explorer.errors import MeasureError, SettingsError
from tests.conftest import assert_span_counts_alone, corpus_files, load_cached, make_doc

PIECES = [
    "a", "b", "Z", "word", "é", "e\u0301", "🙂", "👩‍👩‍👧", "𝔘𝔫𝔦", "中文", "ﬁ", " ", "  ", "\t",
    "\n", "\r\n", "\n\n", "\r\n\r\n", ". ", "! ", "? ", "e.g. ", "U.S. ", "Dr. ", "# ", "## ",
    "| a | b |\n|---|---|\n| 1 | 2 |\n", "- ", "1. ", "```\n", "> ", "\u200b", "\x0c",
    "<|endoftext|>", "Refunds are available within seven days. ",
    "This does not apply to downloaded materials.",
]  # fmt: skip

texts = st.lists(st.one_of(st.sampled_from(PIECES), st.text(max_size=6)), max_size=50).map("".join)


def fake_embed(texts: Sequence[str]) -> np.ndarray:
    """Deterministic unit vectors from a hash of each text: enough for offset properties."""
    rows = []
    for t in texts:
        seed = int.from_bytes(hashlib.sha256(t.encode("utf-8", "surrogatepass")).digest()[:8])
        v = np.random.default_rng(seed).standard_normal(16)
        rows.append(v / np.linalg.norm(v))
    return np.array(rows, dtype=np.float32).reshape(len(texts), 16)


def check_invariants(doc: Document, settings: ChunkSettings, chunks: Sequence[Chunk]) -> None:
    text = doc.text
    measure = settings.measure
    units = measure.units(text)
    covered = bytearray(len(text))
    prev: Chunk | None = None
    for i, c in enumerate(chunks):
        assert c.index == i
        assert text[c.start : c.end] == c.text, "offsets must be exact"
        assert c.text == c.text.strip() and c.text, "chunks are trimmed and non-empty"
        if prev is not None:
            assert c.start > prev.start, "starts strictly increase"
            assert c.end > prev.end, "every chunk adds text"
        assert c.size == measure.count(c.text), "size is the measure of the chunk text alone"
        if settings.unit in ("chars", "words"):
            assert c.size == units.size(c.start, c.end)
        assert ("oversize" in c.flags) == (c.size > settings.size)
        if settings.splitter != "sentence" and c.size > settings.size:
            # only what cannot be cut may exceed the limit: one character that carries several
            # tokens or word pieces ("🙂" in tiktoken, "킘" in WordPiece's jamo), so no cut
            # position lies strictly inside the chunk
            nxt = bisect.bisect_right(units.bounds, c.start)
            assert nxt >= len(units.bounds) or units.bounds[nxt] >= c.end, (c, settings)
        shared = max(0, min(prev.end, c.end) - c.start) if prev is not None else 0
        if shared:
            assert prev is not None
            expected = units.size(c.start, prev.end)
            if settings.unit in ("chars", "words"):
                expected = measure.count(text[c.start : prev.end])
            assert c.overlap == expected, "reported overlap equals the measured one"
            assert c.overlap <= settings.overlap
        else:
            assert c.overlap == 0
        covered[c.start : c.end] = b"\x01" * (c.end - c.start)
        prev = c
    missed = [i for i, ch in enumerate(text) if not covered[i] and not ch.isspace()]
    assert not missed, f"non-white-space characters not in any chunk: {missed[:5]}"


@pytest.mark.parametrize("splitter", SPLITTERS)
@pytest.mark.parametrize("unit", UNITS)
@given(text=texts, size=st.integers(1, 40), overlap_frac=st.floats(0, 0.9), markdown=st.booleans())
def test_invariants_hold_for_any_text(
    splitter: str, unit: str, text: str, size: int, overlap_frac: float, markdown: bool
) -> None:
    doc = make_doc(text, kind="markdown" if markdown else "text")
    settings = ChunkSettings(
        splitter=splitter, unit=unit, size=size, overlap=min(int(size * overlap_frac), size - 1)
    )
    chunks = split(doc, settings, embed=fake_embed)
    check_invariants(doc, settings, chunks)
    again = split(doc, settings, embed=fake_embed)
    assert [(c.id, c.start, c.end) for c in again] == [(c.id, c.start, c.end) for c in chunks]


SITE_PIECES = [
    "::: tip\n", ":::tip Title\n", ":::note[A *title*]{.x}\n", "::::danger\n", ":::\n", "::::\n",
    "  :::\n", "## Heading {#anchor}\n", "- item\n", "```\n::: tip\n```\n", "\n\n", "\r\n",
]  # fmt: skip
FRONT_MATTER = ["", "---\ntitle: Page\n---\n", "---\r\nid: x\r\ntitle: 'A: b'\r\n---\r\n\r\n"]
site_texts = st.tuples(
    st.sampled_from(FRONT_MATTER),
    st.lists(
        st.one_of(st.sampled_from(SITE_PIECES), st.sampled_from(PIECES), st.text(max_size=4)),
        max_size=30,
    ).map("".join),
).map("".join)


@pytest.mark.parametrize("splitter", SPLITTERS)
@pytest.mark.parametrize("unit", UNITS)
@hypothesis_settings(max_examples=40)
@given(text=site_texts, size=st.integers(1, 40), overlap_frac=st.floats(0, 0.9))
def test_invariants_hold_with_front_matter_and_containers(
    splitter: str, unit: str, text: str, size: int, overlap_frac: float
) -> None:
    doc = make_doc(text, kind="markdown", name="site.md")
    settings = ChunkSettings(
        splitter=splitter, unit=unit, size=size, overlap=min(int(size * overlap_frac), size - 1)
    )
    check_invariants(doc, settings, split(doc, settings, embed=fake_embed))


RETOKENISING = [
    " recreational", " reimbursement", " unauthorised", "\n\nrecreational", " 12345", "\r\n",
    " ", "\n", ".\n", "  \n", " 🙂", "é", "Ø", " naïve", "-", "'s", " of", " the",
]  # fmt: skip
"""Pieces whose tokens change when a chunk boundary trims the space in front of them."""

token_texts = st.lists(
    st.one_of(st.sampled_from(RETOKENISING), st.sampled_from(PIECES), st.text(max_size=4)),
    max_size=80,
).map("".join)


@pytest.mark.parametrize("splitter", ["fixed", "recursive", "structure", "sentence"])
@given(
    text=token_texts,
    size=st.integers(1, 24),
    overlap_frac=st.floats(0, 0.9),
    markdown=st.booleans(),
)
def test_a_token_chunk_encoded_alone_fits_its_limit(
    splitter: str, text: str, size: int, overlap_frac: float, markdown: bool
) -> None:
    """What a user checks: ``len(enc.encode(chunk.text)) <= size`` unless flagged oversize."""
    doc = make_doc(text, kind="markdown" if markdown else "text")
    settings = ChunkSettings(
        splitter=splitter, unit="tokens", size=size, overlap=min(int(size * overlap_frac), size - 1)
    )
    enc = tiktoken_encoding(settings.encoding)
    for c in split(doc, settings):
        alone = len(enc.encode_ordinary(c.text))
        assert c.size == alone
        assert alone <= size or "oversize" in c.flags, (c, alone)


@given(text=token_texts, a=st.integers(0, 400), length=st.integers(0, 400))
def test_standalone_token_count_equals_encoding_the_span(text: str, a: int, length: int) -> None:
    """The shortcut (encode head and tail, count the middle from the document's tokens) is exact."""
    assert_span_counts_alone(text, a, length)


def test_fixed_token_chunks_fit_when_encoded_alone_on_the_corpus() -> None:
    """The case that showed the bug: fixed 256/32 chunks re-encoded with ``enc.encode``."""
    enc = tiktoken_encoding(DEFAULT_ENCODING)
    for path in corpus_files(".md", ".pdf"):
        doc = load_cached(path)
        for splitter in ("fixed", "recursive"):
            settings = ChunkSettings(splitter=splitter, unit="tokens", size=256, overlap=32)
            for c in split(doc, settings):
                assert len(enc.encode(c.text)) <= 256 or "oversize" in c.flags, (path.name, c)


def test_token_overlap_matches_tiktoken_offsets() -> None:
    """The reported token overlap, checked against tiktoken's own token offsets."""
    text = (
        "Refunds are available within seven days. This does not apply to downloaded materials. "
        "Café crème 🙂 costs €5. " * 12
    )
    doc = make_doc(text)
    settings = ChunkSettings(splitter="fixed", unit="tokens", size=20, overlap=6)
    enc = tiktoken_encoding(settings.encoding)
    tokens = enc.encode_ordinary(text)
    _, starts = enc.decode_with_offsets(tokens)
    ends = [*starts[1:], len(text)]
    chunks = split(doc, settings)
    for prev, c in itertools.pairwise(chunks):
        lo, hi = c.start, prev.end
        brute = sum(1 for s, e in zip(starts, ends, strict=True) if s < hi and e > lo and e > s)
        assert c.overlap == brute
        assert 0 < c.overlap <= 6


@pytest.mark.parametrize("unit", ["model-tokens", "tokens"])
def test_one_character_of_several_units_stands_alone_flagged(unit: str) -> None:
    """Found by the large hypothesis profile: WordPiece splits "킘" into 3 jamo pieces."""
    for text in ("킘", "뉴 a", "🙂🙂"):
        doc = make_doc(text)
        for splitter in ("recursive", "structure", "fixed"):
            settings = ChunkSettings(splitter=splitter, unit=unit, size=1, overlap=0)
            chunks = split(doc, settings)
            check_invariants(doc, settings, chunks)
            for c in chunks:
                assert ("oversize" in c.flags) == (c.size > 1)


def test_empty_and_whitespace_text_give_no_chunks() -> None:
    for text in ("", " ", "\n\n\t \r\n"):
        for splitter in SPLITTERS:
            settings = ChunkSettings(splitter=splitter, unit="chars", overlap=0)
            assert split(make_doc(text), settings, embed=fake_embed) == []


# --------------------------------------------------------------------------- golden cases

REFUND = (
    "# Refund policy\n\n## Refunds\n\n"
    "Refunds are available within seven days. This does not apply to downloaded materials.\n\n"
    "## Shipping\n\nWe ship worldwide.\n"
)


def spans(chunks: Sequence[Chunk]) -> list[tuple[int, int]]:
    return [(c.start, c.end) for c in chunks]


def test_golden_fixed_chars() -> None:
    doc = make_doc("abcdefghij klmnopqrst", kind="text")
    chunks = split(doc, ChunkSettings(splitter="fixed", unit="chars", size=8, overlap=3))
    # windows step by size - overlap = 5; a window starting on white space starts after it
    assert spans(chunks) == [(0, 8), (5, 13), (11, 19), (16, 21)]
    assert [c.text for c in chunks] == ["abcdefgh", "fghij kl", "klmnopqr", "pqrst"]
    assert [c.overlap for c in chunks] == [0, 3, 2, 3]


def test_golden_fixed_cuts_the_exception_away() -> None:
    doc = make_doc(REFUND, kind="markdown", name="refund.md")
    chunks = split(doc, ChunkSettings(splitter="fixed", unit="chars", size=40, overlap=0))
    rule = REFUND.index("Refunds are available")
    exception = REFUND.index("This does not apply")
    holding_rule = [c for c in chunks if c.start <= rule < c.end]
    assert holding_rule and not any(
        c.start <= exception and REFUND.index("materials.") + 10 <= c.end for c in holding_rule
    )


def test_golden_sentence() -> None:
    doc = make_doc(REFUND, kind="markdown", name="refund.md")
    chunks = split(doc, ChunkSettings(splitter="sentence", unit="chars", size=50, overlap=0))
    assert [c.text for c in chunks] == [
        "# Refund policy\n\n## Refunds",
        "Refunds are available within seven days.",
        "This does not apply to downloaded materials.",
        "## Shipping\n\nWe ship worldwide.",
    ]
    assert spans(chunks) == [(0, 27), (29, 69), (70, 114), (116, 147)]
    assert all(not c.flags for c in chunks)


def test_sentence_ends_ignore_abbreviations_initials_and_list_numbers() -> None:
    text = (
        "Dr. Smith paid approx. 5 lbs. of gold to J. Doe in the U.S. last year. It was fine.\n\n"
        "1. First step.\n2. Second step.\nok. lowercase starts count too."
    )
    # size 16: no two of these sentences fit together, so each chunk is one sentence
    chunks = split(
        make_doc(text), ChunkSettings(splitter="sentence", unit="chars", size=16, overlap=0)
    )
    assert [c.text for c in chunks] == [
        "Dr. Smith paid approx. 5 lbs. of gold to J. Doe in the U.S. last year.",
        "It was fine.",
        "1. First step.",
        "2. Second step.",
        "ok.",
        "lowercase starts count too.",
    ]


def test_golden_sentence_oversize_stands_alone() -> None:
    doc = make_doc("Short one. " + "x" * 30 + " long sentence here. End.", kind="text")
    chunks = split(doc, ChunkSettings(splitter="sentence", unit="chars", size=20, overlap=0))
    assert [c.text for c in chunks] == ["Short one.", "x" * 30 + " long sentence here.", "End."]
    assert [c.flags for c in chunks] == [(), ("oversize",), ()]


def test_golden_structure_keeps_rule_with_exception() -> None:
    doc = make_doc(REFUND, kind="markdown", name="refund.md")
    chunks = split(doc, ChunkSettings(splitter="structure", unit="chars", size=120, overlap=0))
    assert [c.text for c in chunks] == [
        "# Refund policy\n\n## Refunds\n\n"
        "Refunds are available within seven days. This does not apply to downloaded materials.",
        "## Shipping\n\nWe ship worldwide.",
    ]
    assert chunks[0].heading_path == ("Refund policy",)
    assert chunks[1].heading_path == ("Refund policy", "Shipping")


def test_golden_recursive_prefers_paragraphs_then_sentences() -> None:
    text = "One two three. Four five six.\n\nSeven eight nine ten eleven twelve.\n\nEnd."
    doc = make_doc(text)
    chunks = split(doc, ChunkSettings(splitter="recursive", unit="words", size=6, overlap=0))
    assert [c.text for c in chunks] == [
        "One two three. Four five six.",
        "Seven eight nine ten eleven twelve.",
        "End.",
    ]
    chunks = split(doc, ChunkSettings(splitter="recursive", unit="words", size=4, overlap=0))
    assert [c.text for c in chunks] == [
        "One two three.",
        "Four five six.",
        "Seven eight nine ten",
        "eleven twelve.\n\nEnd.",
    ]
    assert "hard_cut" not in chunks[2].flags  # a word boundary, not a cut inside a word


def test_recursive_overlap_prefers_a_sentence_start() -> None:
    text = "Alpha beta gamma delta. Epsilon zeta eta. Theta iota kappa lambda mu nu xi omicron."
    doc = make_doc(text)
    chunks = split(doc, ChunkSettings(splitter="recursive", unit="words", size=8, overlap=4))
    assert chunks[1].text.startswith("Epsilon")
    assert chunks[1].overlap == 3


def test_structure_keeps_tables_and_code_whole_and_glues_headings() -> None:
    text = (
        "# Guide\n\nIntro paragraph with several words in it.\n\n"
        "| Plan | Refund |\n|------|--------|\n| Monthly | 7 days |\n| Annual | 14 days |\n\n"
        "## Code\n\n```python\nfor i in range(3):\n    print(i)\n```\n\nAfter the code.\n"
    )
    doc = make_doc(text, kind="markdown", name="g.md")
    table = next(b for b in doc.blocks if b.kind == "table")
    code = next(b for b in doc.blocks if b.kind == "code")
    for size in (20, 30, 40, 60):
        chunks = split(doc, ChunkSettings(splitter="structure", unit="words", size=size, overlap=0))
        for block in (table, code):
            holders = [c for c in chunks if c.start <= block.start and block.end <= c.end]
            assert holders, f"size {size}: {block.kind} split"
        assert not any({"table_split", "code_split"} & set(c.flags) for c in chunks)
        for c in chunks:  # a heading never ends a chunk
            assert not re.search(r"(^|\n)#+ [^\n]*$", c.text), c.text


GLUE = (
    "# Install\n\nThe tool runs on any machine with Python three.\n\n"
    "To install it, run the following command:\n\n"
    "```sh\npip install tool\n```\n\n"
    "The command puts the tool on your path.\n\n"
    "It needs these three things:\n\n"
    "- a network connection\n- a writable home folder\n- twenty megabytes of disk space\n\n"
    "That is all it needs.\n"
)


def test_structure_keeps_a_lead_in_with_what_it_introduces() -> None:
    """A chunk ends at a block boundary that separates nothing that belongs together: not after
    a lead-in ending in ':', not between two items of a list, not between a code block and the
    paragraph after it, as long as another block boundary is within reach."""
    doc = make_doc(GLUE, kind="markdown", name="glue.md")
    texts = [c.text for c in split(doc, ChunkSettings("structure", "words", 22, 0))]
    assert texts == [
        "# Install\n\nThe tool runs on any machine with Python three.",
        "To install it, run the following command:\n\n```sh\npip install tool\n```\n\n"
        "The command puts the tool on your path.",
        "It needs these three things:\n\n- a network connection\n- a writable home folder\n"
        "- twenty megabytes of disk space",
        "That is all it needs.",
    ]


def test_structure_cuts_inside_glued_blocks_only_when_nothing_else_is_in_reach() -> None:
    doc = make_doc(GLUE, kind="markdown", name="glue.md")
    chunks = split(doc, ChunkSettings("structure", "words", 9, 0))
    for c in chunks:
        assert c.size <= 9
        assert not {"code_split", "hard_cut"} & set(c.flags), c  # a glued cut, not one inside
    assert any(c.text == "To install it, run the following command:" for c in chunks)
    assert any(c.text.startswith("```sh") and c.text.endswith("```") for c in chunks)


def test_structure_splits_an_oversize_table_on_rows_and_flags_it() -> None:
    rows = "".join(f"| row {i} | value {i} |\n" for i in range(30))
    text = "# T\n\n| Name | Value |\n|---|---|\n" + rows
    doc = make_doc(text, kind="markdown", name="t.md")
    chunks = split(doc, ChunkSettings(splitter="structure", unit="words", size=40, overlap=0))
    assert len(chunks) > 1
    assert all(c.text.startswith("|") or c.text.startswith("# T") for c in chunks)
    assert all(c.text.endswith("|") for c in chunks), "cuts fall between rows"
    assert any("table_split" in c.flags for c in chunks)


def test_structure_overlap_stays_inside_the_section() -> None:
    doc = make_doc(REFUND, kind="markdown", name="refund.md")
    chunks = split(doc, ChunkSettings(splitter="structure", unit="chars", size=90, overlap=40))
    shipping = REFUND.index("## Shipping")
    for prev, c in itertools.pairwise(chunks):
        if c.start >= shipping:
            assert c.start == shipping or prev.end <= c.start or prev.start >= shipping


# --------------------------------------------------------------------------- settings


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"size": 0}, "size must be"),
        ({"size": -5}, "size must be"),
        ({"overlap": -1}, "overlap must be"),
        ({"size": 10, "overlap": 10}, "must be smaller than size"),
        ({"splitter": "magic"}, "unknown splitter"),
        ({"unit": "bytes"}, "unknown size unit"),
        ({"separators": ("paragraph", "comma")}, "unknown separator"),
    ],
)
def test_bad_settings_fail_at_construction(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(SettingsError, match=message):
        ChunkSettings(**kwargs)  # type: ignore[arg-type]


def test_unknown_or_unloadable_encoding_fails_at_construction() -> None:
    with pytest.raises(MeasureError, match="unknown tiktoken encoding 'nope'"):
        ChunkSettings(unit="tokens", encoding="nope", overlap=0)


def test_ids_are_stable_and_depend_on_settings_and_content_not_the_version() -> None:
    doc = make_doc(REFUND, kind="markdown", name="refund.md")
    a = split(doc, ChunkSettings(splitter="recursive", unit="chars", size=60, overlap=0))
    b = split(doc, ChunkSettings(splitter="recursive", unit="chars", size=60, overlap=0))
    c = split(doc, ChunkSettings(splitter="recursive", unit="chars", size=61, overlap=0))
    # another version of the document (a trailing space): other hash, the same chunks
    version = make_doc(REFUND + " ", kind="markdown", name="refund.md")
    other = split(version, ChunkSettings(splitter="recursive", unit="chars", size=60, overlap=0))
    assert version.sha256 != doc.sha256
    assert [x.id for x in a] == [x.id for x in b] == [x.id for x in other]
    assert a[0].id != c[0].id
    assert len({x.id for x in a}) == len(a)


# --------------------------------------------------------------------------- real documents

SITE_DOCS = sorted((Path(__file__).parent / "data" / "docsite").glob("*.md"))
CORPUS_DOCS = corpus_files(".md", ".pdf") + SITE_DOCS


@pytest.mark.parametrize("path", CORPUS_DOCS, ids=lambda p: p.name)
@pytest.mark.parametrize("splitter", SPLITTERS)
def test_every_splitter_on_every_corpus_document(path, splitter: str) -> None:  # type: ignore[no-untyped-def]
    doc = load_cached(path)
    for unit, size, overlap in (("tokens", 256, 32), ("chars", 1000, 200), ("words", 120, 0)):
        settings = ChunkSettings(splitter=splitter, unit=unit, size=size, overlap=overlap)
        chunks = split(doc, settings, embed=fake_embed)
        assert chunks
        check_invariants(doc, settings, chunks)
        if doc.kind == "pdf":
            assert all(c.page_start is not None and c.page_end is not None for c in chunks)
            assert all(c.page_start <= c.page_end for c in chunks)  # type: ignore[operator]


@pytest.mark.parametrize("path", corpus_files(".md"), ids=lambda p: p.name)
def test_structure_keeps_corpus_tables_and_code_whole(path) -> None:  # type: ignore[no-untyped-def]
    doc = load_cached(path)
    settings = ChunkSettings(splitter="structure", unit="tokens", size=512, overlap=0)
    measure = get_measure("tokens")
    units = measure.units(doc.text)
    chunks = split(doc, settings)
    checked = 0
    for block in doc.blocks:
        if block.kind not in ("table", "code"):
            continue
        inside = [c for c in chunks if c.start <= block.start and block.end <= c.end]
        if units.size(block.start, block.end) <= settings.size:
            assert inside, f"{block.kind} at {block.start} split though it fits"
            checked += 1
        cutting = [c for c in chunks if block.start < c.start < block.end]
        cutting += [c for c in chunks if block.start < c.end < block.end]
        if units.size(block.start, block.end) <= settings.size:
            assert not cutting
    assert checked or not any(b.kind in ("table", "code") for b in doc.blocks)


def test_model_token_measure_matches_the_model_tokenizer() -> None:
    from explorer.chunking.measures import model_tokenizer

    text = "Refunds are available within seven days; naïve café 🙂 ﬁle."
    enc = model_tokenizer("").encode(text, add_special_tokens=False)
    m = get_measure("model-tokens")
    assert m.count(text) == len(enc.ids)
    assert m.units(text).total() == len(enc.ids)
