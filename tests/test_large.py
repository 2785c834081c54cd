"""A long document's open and new sizes (issue 38 item 10): what a settings change makes again.

A new size re-tokenises nothing for BM25 (the document's words are found once) and encodes only
the chunks cut inside a word for the diagnosis (the others are counted from the document's own
word pieces); the levels of cuts are found once per document; the rendered page is read only for
an evidence phrase and the sentence passages only for dense scores. Each shortcut gives what the
long way gives: the same tokens, counts, chunks and answers. Behaviour, not timing: the figures
are ``benchmarks/bench_large.py``'s.
"""

from __future__ import annotations

import bm25s
import pytest
import Stemmer
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.chunking import splitters
from explorer.chunking.diagnostics import diagnose
from explorer.chunking.measures import ModelTokens, count_each, count_spans, get_measure
from explorer.chunking.records import embedded_text
from explorer.config import Config
from explorer.documents import markdown_view
from explorer.retrieval import scoring
from explorer.retrieval.words import Words, words_of
from explorer.workspace import Workspace
from tests.conftest import corpus_files, load_cached

QUESTION = "How do I take a dependency from a git repository?"
BM25 = Config().replace(retriever="bm25")


def stems_of(tokenized: object) -> list[list[str]]:
    """Each text's stems, whatever numbers the vocabulary gives them."""
    ids, vocab = tokenized  # type: ignore[misc]
    word = {i: w for w, i in vocab.items()}
    return [[word[i] for i in row] for row in ids]


def bm25s_tokens(texts: list[str]) -> object:
    stemmer = Stemmer.Stemmer("english")
    return bm25s.tokenize(texts, stopwords="en", stemmer=stemmer, show_progress=False)


# --------------------------------------------------------------------------- BM25's words


TEXTS = st.text(
    alphabet=st.sampled_from(list("abcdeXYZ the and \n\t.,-_'é9ßİΣσςﬁ日本")), max_size=300
)


@settings(max_examples=150, deadline=None)
@given(TEXTS, st.lists(st.tuples(st.integers(0, 300), st.integers(0, 300)), max_size=12),
       st.sampled_from(["", "Guide > Install\n\n", "Σύνοψη\n\n", "x"]))  # fmt: skip
def test_the_words_of_any_spans_are_what_bm25s_makes_of_their_text(
    text: str, cuts: list[tuple[int, int]], header: str
) -> None:
    words = words_of(text)
    if words is None:  # lower case that is not each character's own: tokenised text by text
        assert "Σ" in text or len(text.lower()) != len(text)
        return
    spans = [(min(a, b, len(text)), min(max(a, b), len(text))) for a, b in cuts]
    texts = [header + text[a:b] for a, b in spans]
    got = words.tokenized(text, spans, texts)
    if spans and header and (header[-1] == "x" or "Σ" in header):  # not a header ending in space
        assert got is None
        return
    assert got is not None
    assert stems_of(got) == stems_of(bm25s_tokens(texts))


def test_a_text_that_is_not_its_span_is_tokenised_as_text() -> None:
    words = Words.of("alpha beta gamma", Stemmer.Stemmer("english"))
    assert words is not None
    assert words.tokenized("alpha beta gamma", [(0, 5)], ["other"]) is None


def test_a_new_size_tokenises_no_chunk_for_bm25_and_scores_the_same(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    doc = load_cached(corpus_files(".md")[0])
    ws = Workspace()
    texts: list[int] = []
    real = bm25s.tokenize

    def counted(batch: object, **kwargs: object) -> object:
        texts.append(len(batch) if isinstance(batch, list) else 1)  # type: ignore[arg-type]
        return real(batch, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(bm25s, "tokenize", counted)
    for config in (BM25, BM25.replace(size=300), BM25.replace(heading_prefix=True, size=200),
                   BM25.replace(context_header="embed+bm25", size=320)):  # fmt: skip
        r = ws.retriever(doc, config)
        scores = r.bm25().scores(QUESTION)
        assert sum(texts) == len(texts)  # the questions only, one text each
        assert scores == scoring.Bm25(r.bm25_texts).scores(QUESTION)  # tokenised text by text
        texts.clear()


# --------------------------------------------------------------------------- word pieces


PIECE_TEXTS = st.text(alphabet=st.sampled_from(list("ab Xé\n\t.,()-'日ﬁ\u0301\x0b")), max_size=200)


@settings(max_examples=150, deadline=None)
@given(PIECE_TEXTS, st.lists(st.tuples(st.integers(0, 200), st.integers(0, 200)), max_size=10))
def test_spans_counted_from_the_documents_word_pieces_count_as_on_their_own(
    text: str, cuts: list[tuple[int, int]]
) -> None:
    measure = get_measure("model-tokens")
    spans = [(min(a, b, len(text)), min(max(a, b), len(text))) for a, b in cuts]
    want = count_each(measure, [text[a:b] for a, b in spans])
    assert count_spans(measure, text, spans, measure.units(text)) == want


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(-1, 3)), max_size=12), st.integers(0, 5))
def test_word_pieces_made_into_units_in_numpy_are_the_loops_units(
    steps: list[tuple[int, int]], tail: int
) -> None:
    # spans in order, with gaps, touching, and now and then empty or overlapping (the loop's)
    import numpy as np

    from explorer.chunking.measures import _from_span_arrays, _from_spans

    spans, at = [], 0
    for gap, width in steps:
        start = max(at + gap - (1 if width < 0 else 0), 0)
        spans.append((start, start + max(width, 0)))
        at = max(at, start + max(width, 0))
    length = at + tail
    starts = np.asarray([a for a, _ in spans], dtype=np.int64)
    ends = np.asarray([b for _, b in spans], dtype=np.int64)
    want, got = _from_spans(spans, length), _from_span_arrays(starts, ends, length)
    assert list(got.bounds) == list(want.bounds)
    assert [got.size(a, b) for a in got.bounds for b in got.bounds if a <= b] == [
        want.size(a, b) for a in want.bounds for b in want.bounds if a <= b
    ]


def test_a_new_size_encodes_only_the_chunks_cut_inside_a_word(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    doc = load_cached(corpus_files(".md")[0])
    ws = Workspace()
    ws.diagnosis(doc, BM25)
    encoded: list[int] = []
    real = ModelTokens.count_many

    def counted(self: ModelTokens, texts: list[str]) -> list[int]:
        encoded.append(len(texts))
        return real(self, texts)

    monkeypatch.setattr(ModelTokens, "count_many", counted)
    for config in (BM25.replace(size=300), BM25.replace(heading_prefix=True, size=200)):
        chunks = ws.chunks(doc, config)
        encoded.clear()
        got = ws.diagnosis(doc, config)
        cut_inside = sum(1 for c in chunks if "hard_cut" in c.flags)
        assert encoded[0] <= cut_inside < len(chunks) / 2  # the chunks: those cut in a word
        paths = {c.heading_path for c in chunks} if config.heading_prefix else set()
        assert sum(encoded[1:]) <= len(paths)  # the heading paths, each once
        want = diagnose(doc, chunks, heading_prefix=config.heading_prefix,
                        embedded=[0] * len(chunks))  # fmt: skip
        assert got == want
        assert list(got.model_tokens) == [
            n + 2
            for n in count_each(
                get_measure("model-tokens"),
                [embedded_text(c, heading_prefix=config.heading_prefix) for c in chunks],
            )
        ]


# --------------------------------------------------------------------------- made once, or never


def test_the_levels_of_cuts_are_found_once_for_every_size(monkeypatch: pytest.MonkeyPatch) -> None:
    doc = load_cached(corpus_files(".md")[0])
    calls: list[str] = []
    real = splitters._structure_levels

    def counted(d: object) -> object:
        calls.append("levels")
        return real(d)  # type: ignore[arg-type]

    monkeypatch.setattr(splitters, "_structure_levels", counted)
    ws = Workspace()
    made = [ws.chunks(doc, Config().replace(size=size, overlap=16)) for size in (128, 200, 256)]
    assert calls == ["levels"]
    for size, chunks in zip((128, 200, 256), made, strict=True):
        settings_ = Config().replace(size=size, overlap=16).chunking
        alone = splitters.split(doc, settings_, units=ws.units(doc))
        assert [(c.id, c.start, c.end, c.text, c.heading_path) for c in chunks] == [
            (c.id, c.start, c.end, c.text, c.heading_path) for c in alone
        ]


def test_an_answer_without_evidence_reads_no_rendered_page(monkeypatch: pytest.MonkeyPatch) -> None:
    doc = load_cached(corpus_files(".md")[0])
    calls: list[str] = []
    real = markdown_view.rendered_text

    def counted(d: object) -> object:
        calls.append("rendered")
        return real(d)  # type: ignore[arg-type]

    monkeypatch.setattr(markdown_view, "rendered_text", counted)
    ws = Workspace()
    ws.ask(doc, QUESTION, (), config=BM25)
    ws.ask(doc, QUESTION, ("  ",), config=BM25)  # a blank phrase is no phrase
    assert calls == []
    with_evidence = ws.ask(doc, QUESTION, ("git repository",), config=BM25)
    assert calls == ["rendered"]
    assert with_evidence.evidence[0].found


def test_a_bm25_retriever_makes_no_passages_until_they_are_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    doc = load_cached(corpus_files(".md")[0])
    calls: list[str] = []
    real = scoring.split_passages

    def counted(*args: object, **kwargs: object) -> object:
        calls.append("passages")
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(scoring, "split_passages", counted)
    ws = Workspace()
    ws.ask(doc, QUESTION, ("git repository",), config=BM25)
    assert calls == []
    r = ws.retriever(doc, BM25)
    assert r.passages == ws.passages(doc) and calls == ["passages"]
    assert len(r.held) == len(r.chunks) and r.dense_texts
