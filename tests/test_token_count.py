"""Token chunking counts a chunk on its own without re-encoding it where its edges cannot
re-tokenise (explorer.chunking.measures._TokenCounter): the same chunks, to the offset, as
encoding every candidate span whole."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import explorer.chunking.splitters as splitters
from explorer.chunking.measures import (
    DEFAULT_ENCODING,
    get_measure,
    standalone_counter,
    tiktoken_encoding,
)
from explorer.chunking.records import ChunkSettings
from explorer.chunking.splitters import split
from tests.conftest import SAMPLES, assert_span_counts_alone, corpus_files, load_cached

DOCUMENTS = [
    *(p for p in sorted(SAMPLES.iterdir()) if p.suffix in {".md", ".pdf"} and p.stem != "SOURCES"),
    *corpus_files(".md", ".pdf"),
]
SETTINGS = [
    ChunkSettings(splitter="recursive", unit="tokens", size=256, overlap=32),
    ChunkSettings(splitter="recursive", unit="tokens", size=64, overlap=16),
    ChunkSettings(splitter="fixed", unit="tokens", size=128, overlap=32),
    ChunkSettings(splitter="sentence", unit="tokens", size=96, overlap=0),
    ChunkSettings(),  # the recommended structure splitter
]


def encoded_whole(measure, text, units):  # type: ignore[no-untyped-def]
    """The reference: every span encoded on its own, whole."""
    enc = tiktoken_encoding(measure.encoding)
    return lambda a, b: len(enc.encode_ordinary(text[a:b]))


@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda p: Path(p).name)
def test_the_same_chunks_as_encoding_every_span_whole(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    doc = load_cached(path)
    for settings in SETTINGS:
        ours = [(c.start, c.end, c.size, c.flags) for c in split(doc, settings)]
        with monkeypatch.context() as m:
            m.setattr(splitters, "standalone_counter", encoded_whole)
            whole = [(c.start, c.end, c.size, c.flags) for c in split(doc, settings)]
        assert ours == whole, (path.name, settings.key())


EDGES = re.compile(r"[.,;:!?)\]\"'](?=[ \t\n])|\n(?=\S)|[A-Za-z](?=[ .,\n])| (?=\w)")


@pytest.mark.parametrize("path", DOCUMENTS[:4] + corpus_files(".md")[:3], ids=lambda p: p.name)
def test_spans_between_the_edges_that_matter_count_as_encoded_alone(path: Path) -> None:
    """Every span from one edge kind to another (after punctuation before a space or a line
    break, after a line break, after a word, before a word) counts exactly as its encoding."""
    text = load_cached(path).text[:60_000]
    measure = get_measure("tokens")
    counter = standalone_counter(measure, text, measure.units(text))
    assert counter is not None
    enc = tiktoken_encoding(DEFAULT_ENCODING)
    edges = [m.end() for m in EDGES.finditer(text)]
    checked = 0
    for i in range(0, len(edges) - 40, 3):
        for j in (i + 13, i + 40):
            a, b = edges[i], edges[j]
            assert counter(a, b) == len(enc.encode_ordinary(text[a:b])), (a, b, text[a:b][-20:])
            checked += 1
    assert checked > 50


PUNCTUATED = st.lists(
    st.sampled_from(
        ["word", "Word", " ", "  ", "\t", "\n", "\n\n", ".", "...", "?!", ",", "'s", "'", '"',
         "(", ")", "-", "—", "é", "12", "1234", " the", "\r\n", ":", "`", "**", "#"]
    ),
    max_size=60,
).map("".join)  # fmt: skip


@given(text=PUNCTUATED, a=st.integers(0, 300), length=st.integers(0, 300))
def test_punctuation_and_white_space_edges_count_exactly(text: str, a: int, length: int) -> None:
    assert_span_counts_alone(text * 3, a, length)  # long enough for the shortcut (over 64)


EDGE_CHARACTERS = "aZz.,!-_~ \t\n\r\x0b\x1c\x85\u00a0\u2028é1🙂'\"|@`{"


@given(
    before=st.sampled_from(EDGE_CHARACTERS) | st.characters(),
    after=st.sampled_from(EDGE_CHARACTERS) | st.characters(),
)
def test_a_piece_boundary_is_judged_on_its_two_characters_as_the_pattern_does(
    before: str, after: str
) -> None:
    """The counter's character test (``_boundary_between``) and :data:`_PIECE_BOUNDARY` agree
    on every pair, Unicode white space and non-ASCII letters included."""
    from explorer.chunking.measures import _PIECE_BOUNDARY, _boundary_between

    m = _PIECE_BOUNDARY.match(before + after)
    assert _boundary_between(before, after) == (m is not None and m.end() == 1)


def test_a_piece_boundary_agrees_with_the_pattern_on_every_pair_of_latin_characters() -> None:
    from explorer.chunking.measures import _PIECE_BOUNDARY, _boundary_between

    chars = [chr(c) for c in range(0x180)] + ["\u2028", "\u3000", "\ufeff", "🙂"]
    wrong = [
        (b, a)
        for b in chars
        for a in chars
        if _boundary_between(b, a) != bool((m := _PIECE_BOUNDARY.match(b + a)) and m.end() == 1)
    ]
    assert wrong == []
