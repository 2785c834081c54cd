"""Many documents, one ranking: every chunk of every document ranked for a question at once.

A :class:`Corpus` is a set of named :class:`~explorer.retrieval.retriever.Retriever`\\ s under one
configuration (made by :class:`explorer.workspace.Workspace`, so each document's chunks,
passages, vectors, table headers and token units are its own and shared with any other use).
One document is a corpus of one: :func:`explorer.answer.answer` turns a corpus ranking into the
context an LLM would receive, whatever the number of documents. What a corpus changes is the
ranking, made over *all* the documents' chunks at once:

* BM25 is one index over every chunk, so a word's IDF and the average chunk length are the
  corpus's: a word every document uses weighs little, one only the refund policy uses weighs much.
* Dense scores are cosines, comparable across documents as they are.
* Hybrid normalises the dense and the BM25 scores over all chunks, then mixes them.
* The carry (a chunk's score gains a share of the previous chunk's) stays inside a document: a
  document's first chunk has nothing before it.

Ties go to the earlier document (in the corpus's order), then the earlier chunk. A corpus of one
document ranks exactly as its retriever does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from explorer.chunking.splitters import Chunk
from explorer.config import Config
from explorer.documents.model import Document
from explorer.errors import SettingsError
from explorer.retrieval.context import ContextPiece, Span
from explorer.retrieval.index import Bm25, Hit, carried, check_carry, combine, without
from explorer.retrieval.retriever import Retriever

DocSpan = tuple[str, int, int]
"""``(document name, start, end)``: a span of one document of a corpus."""


@dataclass(frozen=True, slots=True)
class CorpusHit:
    """One ranked chunk of a corpus: its document, its corpus rank (1-based) and its index among
    the document's chunks."""

    doc: str
    rank: int
    index: int
    score: float
    retriever: str
    carried: float = 0.0

    @property
    def hit(self) -> Hit:
        """The same hit as its document's retriever knows it (with the corpus rank)."""
        return Hit(self.rank, self.index, self.score, self.retriever, self.carried)


@dataclass(frozen=True)
class CorpusPiece:
    """One contiguous stretch of context, in one document (see
    :class:`~explorer.retrieval.ContextPiece`; ranks are corpus ranks)."""

    doc: str
    start: int
    end: int
    ranks: tuple[int, ...]
    chunk_indices: tuple[int, ...]
    headers: tuple[Span, ...] = ()

    @classmethod
    def of(cls, doc: str, p: ContextPiece) -> CorpusPiece:
        return cls(doc, p.start, p.end, p.ranks, p.chunk_indices, p.headers)

    @property
    def piece(self) -> ContextPiece:
        return ContextPiece(self.start, self.end, self.ranks, self.chunk_indices, self.headers)


class Corpus:
    """Named retrievers ranked as one collection, under ``config`` (each retriever must rank as
    ``config`` does; its context settings are taken from ``config``). Names are the mapping's
    keys, in its order."""

    def __init__(self, retrievers: Mapping[str, Retriever], config: Config) -> None:
        self.config = config
        self._retrievers: dict[str, Retriever] = {}
        for name, r in retrievers.items():
            if r.config.index_key() != config.index_key():
                raise SettingsError(
                    f"the retriever given for {name!r} ranks under another configuration"
                )
            self._retrievers[name] = r.using(config)
        self.names: tuple[str, ...] = tuple(self._retrievers)
        self._offsets: list[int] = []
        total = 0
        for name in self.names:
            self._offsets.append(total)
            total += len(self._retrievers[name].chunks)
        self._size = total
        self._where = [(n, i) for n in self.names for i in range(len(self._retrievers[n].chunks))]
        """The document and chunk index of each place of the corpus's score list."""
        self._dropped = frozenset(
            self._offsets[n] + i
            for n, name in enumerate(self.names)
            for i in self._retrievers[name].index.dropped
        )
        """Places of chunks a what-if edit dropped: never ranked."""
        self._bm25: Bm25 | None = None

    def __len__(self) -> int:
        return len(self.names)

    def using(self, config: Config) -> Corpus:
        """This corpus under ``config``, which may differ in how the context is made but not in
        the ranking (as :meth:`Retriever.using`)."""
        if config == self.config:
            return self
        if config.index_key() != self.config.index_key():
            raise SettingsError("a corpus can change how it builds context, not how it ranks")
        other = Corpus.__new__(Corpus)
        other.__dict__.update(self.__dict__)
        other.config = config
        other._retrievers = {n: r.using(config) for n, r in self._retrievers.items()}
        return other

    def retriever(self, name: str) -> Retriever:
        """The retriever of the document ``name``."""
        try:
            return self._retrievers[name]
        except KeyError:
            raise SettingsError(f"no document named {name!r} in the corpus") from None

    def document(self, name: str) -> Document:
        return self.retriever(name).doc

    @property
    def chunks(self) -> dict[str, list[Chunk]]:
        """Each document's chunks, by name."""
        return {n: r.chunks for n, r in self._retrievers.items()}

    @property
    def size(self) -> int:
        """Chunks over all documents."""
        return self._size

    # ------------------------------------------------------------------ ranking

    def _lexical(self, question: str) -> list[float]:
        if len(self.names) == 1:  # the document's own index: the same statistics
            return list(self._retrievers[self.names[0]].index.bm25().scores(question))
        if self._bm25 is None:
            texts = [t for n in self.names for t in self._retrievers[n].index.texts]
            self._bm25 = Bm25(texts)
        return list(self._bm25.scores(question))

    def _dense(self, question: str) -> list[float]:
        embedders = {id(r.embedder): r.embedder for r in self._retrievers.values()}
        if None in embedders.values() or not embedders:
            raise SettingsError("dense retrieval needs an embedding model")
        query: dict[int, Any] = {}
        out: list[float] = []
        for name in self.names:
            r = self._retrievers[name]
            assert r.embedder is not None
            if id(r.embedder) not in query:
                query[id(r.embedder)] = r.embedder.embed_query(question)
            if r.chunks:
                out += r.index.dense_scores(query[id(r.embedder)])
        return out

    def rank(self, question: str) -> list[CorpusHit]:
        """Every chunk of every document ranked for ``question``, best first (see the module)."""
        config = self.config
        check_carry(config.carry)
        if not self._size:
            return []
        if config.retriever == "bm25":
            scores = self._lexical(question)
        elif config.retriever == "dense":
            scores = self._dense(question)
        else:
            scores = combine(self._dense(question), self._lexical(question))
        scores = without(scores, self._dropped)
        total: list[float] = []
        for n, name in enumerate(self.names):
            lo = self._offsets[n]
            hi = lo + len(self._retrievers[name].chunks)
            total += carried(scores[lo:hi], config.carry)
        where = self._where
        dropped = self._dropped
        order = sorted(
            (j for j in range(self._size) if j not in dropped), key=lambda j: (-total[j], j)
        )
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

    # ------------------------------------------------------------------ context

    def pieces(self, hits: Sequence[CorpusHit], *, merge: bool | None = None) -> list[CorpusPiece]:
        """The context pieces of ``hits``, each document's made by its retriever, in rank order
        of each piece's best hit (``merge`` overrides the configuration's)."""
        per: dict[str, list[Hit]] = {}
        for h in hits:
            per.setdefault(h.doc, []).append(h.hit)
        out = [
            CorpusPiece.of(name, p)
            for name, hs in per.items()
            for p in self._retrievers[name].pieces(hs, merge=merge)
        ]
        return sorted(out, key=lambda p: p.ranks[0])

    def cost(self, pieces: Sequence[CorpusPiece]) -> int:
        """cl100k tokens of ``pieces`` sent as they are (a piece repeated counts again)."""
        return sum(self._retrievers[p.doc].units.size(p.start, p.end) for p in pieces)
