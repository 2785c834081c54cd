"""The corpus ranks every chunk of every document with numpy over the whole corpus (one BM25
index, one array of cosines, one reduction per chunk, the carry and the order vectorised). This
checks it against the straightforward ranking it replaced, kept here as the reference: each
document's own dense scores (:meth:`ChunkIndex.dense_scores`), one BM25 over every chunk's text,
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

from explorer.answer import answer
from explorer.chunking.edits import Edit
from explorer.config import Config
from explorer.corpus import Corpus, CorpusHit
from explorer.retrieval.index import Bm25, carried, check_carry, combine, without
from explorer.retrieval.retriever import Retriever
from explorer.workspace import Workspace
from tests.conftest import SAMPLES, load_cached

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
            return list(retrievers[0].index.bm25().scores(question))
        return list(Bm25([t for r in retrievers for t in r.index.texts]).scores(question))

    def dense() -> list[float]:
        out: list[float] = []
        for r in retrievers:
            assert r.embedder is not None
            if r.chunks:
                out += r.index.dense_scores(r.embedder.embed_query(question))
        return out

    if config.retriever == "bm25":
        scores = lexical()
    elif config.retriever == "dense":
        scores = dense()
    else:
        scores = combine(dense(), lexical())
    where = [(n, i) for n, r in zip(names, retrievers, strict=True) for i in range(len(r.chunks))]
    offsets = np.cumsum([0, *(len(r.chunks) for r in retrievers)])
    dropped = frozenset(
        int(offsets[n]) + i for n, r in enumerate(retrievers) for i in r.index.dropped
    )
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
        assert any(corpus.retriever(n).index.dropped for n in corpus.names)
    for q in QUESTIONS:
        got = corpus.rank(q)
        want = reference_rank(corpus, q)
        assert_same_ranking(got, want)
        dropped = {(n, i) for n in corpus.names for i in corpus.retriever(n).index.dropped}
        assert not dropped & {(h.doc, h.index) for h in got}
        assert len(got) == corpus.size - len(dropped)


def test_a_corpus_of_one_ranks_as_its_retriever_with_dropped_chunks() -> None:
    for config in CONFIGS.values():
        corpus = build([SAMPLES / "refund-policy.md"], config, drop=True)
        (name,) = corpus.names
        r = corpus.retriever(name)
        assert r.index.dropped
        for q in QUESTIONS:
            assert [h.hit for h in corpus.rank(q)] == r.rank(q)


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
                got = answer(corpus, q, phrases, k=k, budget=budget, doc=doc)
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
        assert_same_ranking(corpus.rank(q), reference_rank(corpus, q))
    assert Corpus({"empty": retrievers["empty"]}, config).rank("refund") == []


def test_a_ranking_reads_as_the_list_of_its_hits() -> None:
    """:class:`Ranking` makes each hit when read: as a sequence it is the list of them."""
    corpus = build(CORPORA["sample_docs"], Config(), drop=True, repeat=True)
    assert len(corpus) > 8
    q = QUESTIONS[0]
    ranking = corpus.rank(q)
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
