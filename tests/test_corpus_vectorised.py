"""The corpus ranks every chunk of every document with numpy over the whole corpus (one BM25
index, one array of cosines, one reduction per chunk, the carry and the order vectorised): the
one ranking of the library. This checks it against the straightforward ranking it replaced, kept
here as the reference, written again in plain Python over each retriever's vectors and texts:
each document's own dense scores (:func:`dense_scores`), one BM25 over every chunk's text,
:func:`combine`, :func:`without` and :func:`carried` document by document, then a sort.

The scores must be the same floats and the order the same, over real documents (``sample_docs``
and ``queries/docs``), for hybrid, dense and BM25, dense from passages and from chunks, with the
carry on and off and with chunks a what-if edit dropped; and the answers (hits, context, verdict)
made from either ranking must be the same.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from explorer.answer import answer
from explorer.chunking.edits import Edit
from explorer.config import Config, check_carry
from explorer.corpus import HYBRID_WEIGHT, Corpus, CorpusHit
from explorer.errors import SettingsError
from explorer.retrieval.retriever import Retriever
from explorer.retrieval.scoring import Bm25
from explorer.workspace import Workspace
from tests.conftest import SAMPLES, load_cached, rank_one

QUERY_DOCS = Path(__file__).resolve().parents[1] / "queries" / "docs"
DIM = 48


class HashEmbedder:
    """A model-free stand-in for the embedding model: a text's vector is its words hashed into
    :data:`DIM` buckets, normalised (float32, as the model's). Equal texts get equal vectors, so
    repeated passages tie exactly."""

    name = "hash"
    dimension = DIM

    def embed(self, texts: Sequence[str], *, progress: Any = None) -> Any:
        out = np.zeros((len(texts), DIM), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"\w+", text.lower()):
                h = hashlib.blake2b(word.encode(), digest_size=4).digest()
                out[row, h[0] % DIM] += 1.0 + h[1] / 255
            norm = np.linalg.norm(out[row])
            out[row] /= max(norm, 1e-12)
        return out

    def embed_query(self, query: str) -> Any:
        return self.embed([query])[0]


# --------------------------------------------------------------------------- the reference


def dense_scores(retriever: Retriever, query_vector: Any) -> list[float]:
    """Each chunk's cosine with ``query_vector`` (normalised, as the embedder makes it): its
    own vector's, or the best of its passages' and of its neighbouring passage pairs' (a pair
    counts when the chunk holds both of its passages), document by document."""
    vecs = retriever.vectors()
    sims = vecs @ query_vector
    if retriever.config.dense == "chunks":
        return [float(x) for x in sims]
    if not retriever.held:
        return []
    pairs = retriever.pair_vectors()
    # the best of sims[lo:hi] and of pairs[lo:hi - 1] for every chunk at once: both arrays
    # end in -1 (a cosine's floor), so an empty range reads it
    floor = np.full(1, -1.0, dtype=sims.dtype)
    best = np.maximum(
        range_max(np.concatenate([sims, floor]), retriever.held, 0),
        range_max(np.concatenate([pairs @ query_vector, floor]), retriever.held, 1),
    )
    return [float(x) for x in best]


def range_max(values: Any, ranges: Sequence[tuple[int, int]], shorten: int) -> Any:
    """``max(values[lo : hi - shorten])`` for each ``(lo, hi)`` of ``ranges``, where ``values``
    ends in a floor that an empty range reads instead."""
    n = len(values) - 1  # the floor's index
    bounds = np.array(ranges, dtype=np.intp).reshape(-1, 2)
    lo = np.minimum(bounds[:, 0], n)
    hi = np.clip(bounds[:, 1] - shorten, 0, n)
    lo = np.where(hi <= lo, n, lo)  # empty: reduceat reads values[lo] alone, the floor
    return np.maximum.reduceat(values, np.stack([lo, hi], axis=1).ravel())[::2]


def without(scores: Sequence[float], dropped: frozenset[int]) -> list[float]:
    """``scores`` with the dropped chunks' set to 0, so they carry nothing to the next chunk."""
    return [0.0 if i in dropped else s for i, s in enumerate(scores)] if dropped else list(scores)


def carried(scores: Sequence[float], carry: float) -> list[float]:
    """Each chunk's score plus ``carry`` × the positive part of the own score of the chunk
    before it (chunks in document order)."""
    check_carry(carry)
    if not carry:
        return list(scores)
    return [s + carry * max(0.0, scores[i - 1]) if i else s for i, s in enumerate(scores)]


def normalised(scores: Sequence[float]) -> list[float]:
    """Min–max normalised to [0, 1]; all equal scores become 0."""
    lo, hi = min(scores, default=0.0), max(scores, default=0.0)
    if hi <= lo:
        return [0.0] * len(scores)
    return [(x - lo) / (hi - lo) for x in scores]


def combine(
    dense: Sequence[float], lexical: Sequence[float], *, weight: float = HYBRID_WEIGHT
) -> list[float]:
    """The hybrid score of each chunk."""
    return [
        weight * d + (1.0 - weight) * b
        for d, b in zip(normalised(dense), normalised(lexical), strict=True)
    ]


def reference_rank(corpus: Corpus, question: str) -> list[CorpusHit]:
    """The corpus ranking as it was made before it was vectorised (document by document)."""
    config = corpus.config
    check_carry(config.carry)
    names = corpus.names
    retrievers = [corpus.retriever(n) for n in names]
    if not corpus.size:
        return []

    def lexical() -> list[float]:
        if len(names) == 1:
            return list(retrievers[0].bm25().scores(question))
        return list(Bm25([t for r in retrievers for t in r.bm25_texts]).scores(question))

    def dense() -> list[float]:
        out: list[float] = []
        for r in retrievers:
            assert r.embedder is not None
            if r.chunks:
                out += dense_scores(r, r.embedder.embed_query(question))
        return out

    if config.retriever == "bm25":
        scores = lexical()
    elif config.retriever == "dense":
        scores = dense()
    else:
        scores = combine(dense(), lexical())
    where = [(n, i) for n, r in zip(names, retrievers, strict=True) for i in range(len(r.chunks))]
    offsets = np.cumsum([0, *(len(r.chunks) for r in retrievers)])
    dropped = frozenset(int(offsets[n]) + i for n, r in enumerate(retrievers) for i in r.dropped)
    scores = without(scores, dropped)
    total: list[float] = []
    for n, _ in enumerate(names):
        total += carried(scores[offsets[n] : offsets[n + 1]], config.carry)
    order = sorted((j for j in range(len(total)) if j not in dropped), key=lambda j: (-total[j], j))
    return [
        CorpusHit(
            where[j][0],
            r + 1,
            where[j][1],
            float(total[j]),
            config.retriever,
            float(total[j] - scores[j]),
        )
        for r, j in enumerate(order)
    ]


def rank(corpus: Corpus, question: str) -> Any:
    """The one ranking (:meth:`Corpus.rank`), the question embedded by the corpus's embedder as
    the workspace embeds it (BM25 needs no vector)."""
    vector = None if corpus.config.retriever == "bm25" else HashEmbedder().embed_query(question)
    return corpus.rank(question, vector)


def build(
    paths: Sequence[Path], config: Config, *, drop: bool = False, repeat: bool = False
) -> Corpus:
    """A corpus of ``paths`` (each document's chunks from a workspace, vectors from
    :class:`HashEmbedder`); with ``drop``, every third document loses its second chunk to a
    what-if edit; with ``repeat``, the first document again under another name (exact ties)."""
    ws = Workspace()
    emb = HashEmbedder()
    retrievers: dict[str, Retriever] = {}
    docs = [load_cached(p) for p in paths]
    named = [(d.name, d) for d in docs]
    if repeat:
        named.append((f"again-{docs[0].name}", docs[0]))
    for n, (name, doc) in enumerate(named):
        edits: tuple[Edit, ...] = ()
        chunks = ws.chunks(doc, config)
        if drop and n % 3 == 0 and len(chunks) > 1:
            edits = (Edit("drop", 1),)
        retrievers[name] = Retriever(
            doc,
            config,
            chunks=ws.chunks(doc, config, edits=edits),
            embedder=emb if config.retriever != "bm25" else None,  # type: ignore[arg-type]
            passages=ws.passages(doc) if config.dense == "passages" else None,
        )
    return Corpus(retrievers, config)


SAMPLE = [*sorted(SAMPLES.glob("*.md")), SAMPLES / "field-manual.pdf"]
QUERY = [
    QUERY_DOCS / "refund-policy.md",
    QUERY_DOCS / "curl-vulnerability-disclosure-policy.md",
    QUERY_DOCS / "docker-container-run.md",
    QUERY_DOCS / "cargo-specifying-dependencies.md",
    QUERY_DOCS / "irs-notice-1036-2011-withholding.pdf",
]
CORPORA = {
    "sample_docs": SAMPLE,
    "queries_docs": QUERY,
    "one document": [QUERY_DOCS / "github-terms-of-service.md"],
    "mixed": [SAMPLE[0], QUERY[2], SAMPLE[-1], QUERY[0]],
}
QUESTIONS = [
    "How long do I have to ask for a refund?",
    "How do I report a security vulnerability?",
    "Which dependencies can be specified with a git URL?",
    "What does the container do when it exits?",
    "What are the rates of withholding?",
    "the the the",  # stop words only: BM25 scores nothing
    "zyxwvut qqqq",  # no word of any document
]
CONFIGS = {
    "hybrid": Config(),
    "hybrid, no carry": Config().replace(carry=0.0),
    "dense": Config().replace(retriever="dense"),
    "dense, carry 0.4": Config().replace(retriever="dense", carry=0.4),
    "bm25": Config().replace(retriever="bm25"),
    "bm25, no carry": Config().replace(retriever="bm25", carry=0.0),
    "hybrid, chunk vectors": Config().replace(dense="chunks"),
}


def assert_same_ranking(got: list[CorpusHit], want: list[CorpusHit]) -> None:
    assert [(h.doc, h.index, h.rank) for h in got] == [(h.doc, h.index, h.rank) for h in want]
    for g, w in zip(got, want, strict=True):
        assert g.retriever == w.retriever
        assert g.score == pytest.approx(w.score, abs=1e-9, rel=0)
        assert g.carried == pytest.approx(w.carried, abs=1e-9, rel=0)
    # not only within the tolerance: the same floats
    assert [(h.score, h.carried) for h in got] == [(h.score, h.carried) for h in want]


@pytest.mark.parametrize("corpus_name", list(CORPORA))
@pytest.mark.parametrize("config_name", list(CONFIGS))
@pytest.mark.parametrize("drop", [False, True])
def test_the_vectorised_ranking_is_the_reference_ranking(
    corpus_name: str, config_name: str, drop: bool
) -> None:
    config = CONFIGS[config_name]
    corpus = build(CORPORA[corpus_name], config, drop=drop, repeat=corpus_name == "mixed")
    if drop and len(corpus) > 1:
        assert any(corpus.retriever(n).dropped for n in corpus.names)
    for q in QUESTIONS:
        got = list(rank(corpus, q))
        want = reference_rank(corpus, q)
        assert_same_ranking(got, want)
        dropped = {(n, i) for n in corpus.names for i in corpus.retriever(n).dropped}
        assert not dropped & {(h.doc, h.index) for h in got}
        assert len(got) == corpus.size - len(dropped)


def test_a_corpus_of_one_ranks_as_the_reference_with_dropped_chunks() -> None:
    for config in CONFIGS.values():
        corpus = build([SAMPLES / "refund-policy.md"], config, drop=True)
        (name,) = corpus.names
        r = corpus.retriever(name)
        assert r.dropped
        for q in QUESTIONS:
            want = [h.hit for h in reference_rank(corpus, q)]
            assert [h.hit for h in rank(corpus, q)] == want
            assert rank_one(r, q) == want  # the tests' ranking of one retriever is the same


@pytest.mark.parametrize("config_name", ["dense", "dense, carry 0.4"])
def test_a_documents_dense_scores_are_its_own_among_other_documents(config_name: str) -> None:
    """Each document's vectors are multiplied by the question's on their own: its chunks score
    the same floats, in the same order, alone and among other documents."""
    config = CONFIGS[config_name]
    together = build(CORPORA["mixed"], config, drop=True)
    for q in QUESTIONS:
        grouped = rank(together, q).by_doc(together.names)
        for n, name in enumerate(together.names):
            alone = Corpus({name: together.retriever(name)}, config)
            own = [(h.index, h.score, h.carried) for h in rank(alone, q)]
            assert [(h.index, h.score, h.carried) for h in grouped[name]] == own, (n, q)


@pytest.mark.parametrize("config_name", ["hybrid", "dense", "bm25", "hybrid, no carry"])
@pytest.mark.parametrize("budget", [None, 300, 1024])
def test_answers_from_either_ranking_are_the_same(config_name: str, budget: int | None) -> None:
    corpus = build(CORPORA["sample_docs"], CONFIGS[config_name], drop=True)
    evidence = {
        "How long do I have to ask for a refund?": ["within seven days", "downloaded materials"],
        "How do I report a security vulnerability?": ["security", "not a phrase of any document"],
        "What does the container do when it exits?": ["exits"],
    }
    for q, phrases in evidence.items():
        for k in (1, 5, None):
            for doc in (None, corpus.names[0]):
                got = answer(
                    corpus, q, phrases, k=k, budget=budget, doc=doc, ranking=rank(corpus, q)
                )
                reference = reference_rank(corpus, q)
                want = answer(corpus, q, phrases, k=k, budget=budget, doc=doc, ranking=reference)
                assert got == want
                assert str(got.verdict) == str(want.verdict)


def test_the_empty_corpus_and_a_document_without_chunks_rank() -> None:
    from tests.conftest import make_doc

    config = Config()
    emb = HashEmbedder()
    empty = make_doc("", name="empty.txt")
    full = make_doc("Refunds are paid within seven days.\n\nDownloads are not refunded.")
    ws = Workspace()
    retrievers = {
        "empty": Retriever(empty, config, chunks=[], embedder=emb, passages=[]),  # type: ignore[arg-type]
        "full": Retriever(
            full,
            config,
            chunks=ws.chunks(full, config),
            embedder=emb,  # type: ignore[arg-type]
            passages=ws.passages(full),
        ),
    }
    corpus = Corpus(retrievers, config)
    for q in QUESTIONS:
        assert_same_ranking(list(rank(corpus, q)), reference_rank(corpus, q))
    assert rank(Corpus({"empty": retrievers["empty"]}, config), "refund") == []
    with pytest.raises(SettingsError, match="needs the question's vector"):
        corpus.rank("refund", None)  # dense scores need the question embedded


@given(
    st.lists(st.floats(-1, 1, width=32), min_size=0, max_size=12),
    st.lists(st.tuples(st.integers(0, 13), st.integers(0, 14)), max_size=10),
    st.sampled_from([0, 1]),
)
def test_the_references_range_max_is_the_max_of_each_range(values, ranges, shorten) -> None:  # type: ignore[no-untyped-def]
    """The reference's reduction: every range's max, or the floor when it is empty or past the
    end (a chunk after the last passage), as the plain ``max(values[lo:hi - shorten],
    default=floor)`` says."""
    ranges = [(lo, max(lo, hi)) for lo, hi in ranges]
    floored = np.array([*values, -1.0], dtype=np.float32)
    got = range_max(floored, ranges, shorten) if ranges else []
    want = [max(values[lo : max(0, hi - shorten)], default=-1.0) for lo, hi in ranges]
    assert [float(x) for x in got] == pytest.approx(want)


def test_a_ranking_reads_as_the_list_of_its_hits() -> None:
    """:class:`Ranking` makes each hit when read: as a sequence it is the list of them."""
    corpus = build(CORPORA["sample_docs"], Config(), drop=True, repeat=True)
    assert len(corpus) > 8
    q = QUESTIONS[0]
    ranking = rank(corpus, q)
    hits = reference_rank(corpus, q)
    assert len(ranking) == len(hits) and list(ranking) == hits
    assert ranking == hits and ranking == tuple(hits) and hash(ranking) == hash(tuple(hits))
    assert ranking[0] == hits[0] and ranking[-1] == hits[-1]
    assert ranking[3:9] == tuple(hits[3:9]) and ranking[::7] == tuple(hits[::7])
    with pytest.raises(IndexError):
        ranking[len(hits)]
    names = list(corpus.names)
    for wanted in (names[:2], names):  # a few documents, or all (two ways of grouping)
        grouped = ranking.by_doc(wanted)
        assert grouped == {n: [h for h in hits if h.doc == n] for n in wanted}
