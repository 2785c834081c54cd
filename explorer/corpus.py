"""Many documents, one ranking: every chunk of every document ranked for a question at once.

A :class:`Corpus` is a set of named :class:`~explorer.retrieval.retriever.Retriever`\\ s under one
configuration (made by :class:`explorer.workspace.Workspace`, so each document's chunks,
passages, vectors, table headers and token units are its own and shared with any other use).
One document is a corpus of one: :meth:`Corpus.rank` is the one ranking of chunks, and
:func:`explorer.answer.answer` turns it into the context an LLM would receive, whatever the
number of documents.

The ranking is model-free, as ``sentence_transformers.util.semantic_search``: the question's
vector (embedded by the workspace, :meth:`~explorer.workspace.Workspace.question_vector`) and its
text (for BM25) in, every chunk ranked out. Every chunk is ranked, so the evidence check can say
where a chunk that was not retrieved would have ranked ("ranked 9th"). The scores:

* Dense: each chunk's cosine with the question — its own vector's, or the best of its passages'
  and of its neighbouring passage pairs' (a pair counts when the chunk holds both of its
  passages; see :mod:`explorer.retrieval.scoring`). Cosines are comparable across documents.
* BM25: one index over every chunk, so a word's IDF and the average chunk length are the
  corpus's: a word every document uses weighs little, one only the refund policy uses weighs much
  (a corpus of one document uses the document's own index: the same statistics).
* Hybrid: ``HYBRID_WEIGHT × dense + (1 − HYBRID_WEIGHT) × BM25``, each min–max normalised over
  all the chunks (all equal scores normalise to 0: they tell nothing apart).
* A chunk a what-if edit dropped scores 0 (it carries nothing) and is never ranked.
* The carry (``config.carry``): each chunk's score gains that share of the positive part of the
  own score of the chunk before it, inside its document (a document's first chunk has nothing
  before it). Text that follows a relevant passage often completes it — the exception after a
  rule, the explanation after a code line, the rest of a list — while sharing few of the
  question's words. The own scores, not the carried ones, are passed on, so a strong chunk lifts
  the next one only.

Ties go to the earlier document (in the corpus's order), then the earlier chunk.

The ranking is computed over the whole corpus at once, in numpy: the scores of all chunks are one
array (the documents in order, each document's chunks in order), normalised, carried and sorted
as one, and :meth:`Corpus.rank` returns a :class:`Ranking` whose hits are made when read. Each
document's cosines are the same floats as a ranking of that document alone (see
:meth:`Corpus._dense`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, overload

from explorer.chunking.records import Chunk
from explorer.config import Config, check_carry
from explorer.documents.model import Document
from explorer.errors import SettingsError
from explorer.retrieval.context import ContextPiece, Span
from explorer.retrieval.retriever import Retriever
from explorer.retrieval.scoring import Bm25, Hit

if TYPE_CHECKING:
    from explorer.chunking.measures import Units
    from explorer.documents.markdown_view import Rendered
    from explorer.retrieval.embeddings import Vectors

HYBRID_WEIGHT = 0.5
"""Hybrid score = ``HYBRID_WEIGHT × dense + (1 − HYBRID_WEIGHT) × BM25``, each min–max normalised
over the chunks ranked for the question, so both lie in [0, 1]. A convex combination of
normalised scores ranks better than reciprocal rank fusion and has no rank constant to choose
(Bruch, Gai & Ingber, "An Analysis of Fusion Functions for Hybrid Retrieval", ACM TOIS 2023).
Equal weights: not tuned to any query set."""

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
        """The same hit within its document (with the corpus rank)."""
        return Hit(self.rank, self.index, self.score, self.retriever, self.carried)


class Ranking(Sequence[CorpusHit]):
    """Every chunk of a corpus ranked for one question, best first (:meth:`Corpus.rank`): a
    sequence of :class:`CorpusHit`, each made when it is read, so an answer that takes the
    first few hits of 100,000 makes those few (a slice is a tuple)."""

    __slots__ = ("_carried", "_doc", "_index", "_names", "_retriever", "_score")

    def __init__(
        self,
        names: Sequence[str],
        doc: Any,
        index: Any,
        score: Any,
        carried: Any,
        retriever: str,
    ) -> None:
        self._names = tuple(names)
        self._doc, self._index, self._score, self._carried = doc, index, score, carried
        self._retriever = retriever

    def __len__(self) -> int:
        return len(self._doc)

    def _hit(self, j: int) -> CorpusHit:
        return CorpusHit(
            self._names[int(self._doc[j])],
            j + 1,
            int(self._index[j]),
            float(self._score[j]),
            self._retriever,
            float(self._carried[j]),
        )

    @overload
    def __getitem__(self, i: int) -> CorpusHit: ...

    @overload
    def __getitem__(self, i: slice) -> tuple[CorpusHit, ...]: ...

    def __getitem__(self, i: int | slice) -> CorpusHit | tuple[CorpusHit, ...]:
        if isinstance(i, slice):
            return tuple(self._hit(j) for j in range(*i.indices(len(self))))
        j = i + len(self) if i < 0 else i
        if not 0 <= j < len(self):
            raise IndexError("ranking index out of range")
        return self._hit(j)

    def __iter__(self) -> Iterator[CorpusHit]:
        return (self._hit(j) for j in range(len(self)))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"Ranking({len(self)} chunks of {len(self._names)} documents)"

    def by_doc(self, names: Sequence[str]) -> dict[str, list[CorpusHit]]:
        """The hits of each of ``names``, best first (as iterating and keeping each document's
        would give, without making the others' hits)."""
        import numpy as np

        number = {n: d for d, n in enumerate(self._names)}
        out: dict[str, list[CorpusHit]] = {}
        if len(names) <= 8:
            for name in names:
                out[name] = [self._hit(int(j)) for j in np.flatnonzero(self._doc == number[name])]
            return out
        order = np.argsort(self._doc, kind="stable")
        bounds = np.searchsorted(self._doc[order], np.arange(len(self._names) + 1))
        for name in names:
            d = number[name]
            out[name] = [self._hit(int(j)) for j in order[bounds[d] : bounds[d + 1]]]
        return out


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
        self._bm25: Bm25 | None = None
        self._layout: _Places | None = None
        self._dense_layout: _Dense | None = None

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
        """The document ``name`` (a name not in the corpus is a SettingsError)."""
        return self.retriever(name).doc

    @property
    def chunks(self) -> dict[str, list[Chunk]]:
        """Each document's chunks, by name."""
        return {n: r.chunks for n, r in self._retrievers.items()}

    def chunks_of(self, name: str) -> list[Chunk]:
        """The chunks of the document ``name``."""
        return self.retriever(name).chunks

    def units(self, name: str) -> Units:
        """The cl100k token units of the whole document ``name`` (what budgets count)."""
        return self.retriever(name).units

    def rendered(self, name: str) -> Rendered | None:
        """What a reader sees of the document ``name`` (see :attr:`Retriever.rendered`)."""
        return self.retriever(name).rendered

    @property
    def size(self) -> int:
        """Chunks over all documents."""
        return self._size

    # ------------------------------------------------------------------ ranking

    def _places(self) -> _Places:
        if self._layout is None:
            self._layout = _Places.of(self)
        return self._layout

    def _lexical(self, question: str) -> Any:
        """Every chunk's BM25 score (float64), one index over all chunks (a corpus of one
        document uses the document's own index: the same statistics)."""
        import numpy as np

        if len(self.names) == 1:
            scores = self._retrievers[self.names[0]].bm25().scores(question)
        else:
            if self._bm25 is None:
                texts = [t for n in self.names for t in self._retrievers[n].bm25_texts]
                self._bm25 = Bm25(texts)
            scores = self._bm25.scores(question)
        return np.asarray(scores, dtype=np.float64)

    def _dense(self, vector: Vectors | None) -> Any:
        """Every chunk's dense score (float64): its cosine with the question's ``vector``.

        Each document's vectors are multiplied by the question's vector in a call of their own
        (into one array), because one product over all documents' vectors stacked differs from
        the document's own in the last bits of a float32 (the BLAS blocks the sums by the
        matrix's shape), which could reorder near ties against the document's own ranking. The
        best passage or pair of every chunk of every document is then one reduction."""
        import numpy as np

        if vector is None:
            raise SettingsError(
                f"{self.config.retriever} ranking needs the question's vector (embed it with "
                "Workspace.question_vector)"
            )
        dense = self._dense_places()
        dtype = np.result_type(*(m.dtype for m, _ in dense.sims), vector.dtype)
        sims = np.empty(dense.n_sims + 1, dtype=dtype)
        sims[-1] = -1.0  # a cosine's floor, what a chunk holding no passage reads
        for m, lo in dense.sims:
            np.matmul(m, vector, out=sims[lo : lo + len(m)])
        if dense.chunks:  # one vector per chunk: its cosine
            return sims[dense.take].astype(np.float64)
        pairs = np.empty(dense.n_pairs + 1, dtype=dtype)
        pairs[-1] = -1.0
        for m, lo in dense.pairs:
            if len(m):
                np.matmul(m, vector, out=pairs[lo : lo + len(m)])
        best = np.maximum(
            np.maximum.reduceat(sims, dense.sim_bounds)[::2],
            np.maximum.reduceat(pairs, dense.pair_bounds)[::2],
        )
        return best.astype(np.float64)

    def _dense_places(self) -> _Dense:
        if self._dense_layout is None:
            self._dense_layout = _Dense.of(self)
        return self._dense_layout

    def rank(self, question: str, vector: Vectors | None = None) -> Ranking:
        """Every chunk of every document ranked for ``question``, best first (see the module):
        BM25 reads its text, dense scores its ``vector`` (the question embedded by the
        configuration's model; needed unless the configuration ranks by BM25 alone)."""
        import numpy as np

        config = self.config
        check_carry(config.carry)
        places = self._places()
        if not self._size:
            empty = np.zeros(0, dtype=np.intp)
            return Ranking(self.names, empty, empty, empty, empty, config.retriever)
        if config.retriever == "bm25":
            own = self._lexical(question)
        elif config.retriever == "dense":
            own = self._dense(vector)
        else:
            own = combined(self._dense(vector), self._lexical(question))
        if places.any_dropped:
            own = np.where(places.dropped, 0.0, own)
        total = own
        if config.carry and len(own) > 1:
            total = own.copy()
            lift = config.carry * np.maximum(0.0, own[:-1])
            total[1:] += np.where(places.first[1:], 0.0, lift)
        order = np.argsort(-total, kind="stable")  # ties: the earlier place
        if places.any_dropped:
            order = order[~places.dropped[order]]
        return Ranking(
            self.names,
            places.doc[order],
            places.index[order],
            total[order],
            total[order] - own[order],
            config.retriever,
        )

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

    def pieces_in(self, name: str, hits: Sequence[Hit]) -> list[ContextPiece]:
        """The context pieces of ``hits``, hits of the document ``name`` (see
        :meth:`Retriever.pieces`)."""
        return self.retriever(name).pieces(hits)

    def cost_in(self, name: str, pieces: Sequence[ContextPiece]) -> int:
        """cl100k tokens of ``pieces`` of the document ``name`` sent as they are."""
        return self.retriever(name).cost(pieces)


# --------------------------------------------------------------------------- the layout


@dataclass(frozen=True)
class _Places:
    """Where each place of the corpus's score arrays is: its document's number and its chunk's
    index, whether it is a document's first chunk (nothing carries into it) and whether a
    what-if edit dropped it (never ranked)."""

    doc: Any
    index: Any
    first: Any
    dropped: Any
    any_dropped: bool

    @classmethod
    def of(cls, corpus: Corpus) -> _Places:
        import numpy as np

        sizes = [len(corpus.retriever(n).chunks) for n in corpus.names]
        doc = np.repeat(np.arange(len(sizes), dtype=np.intp), sizes)
        starts = np.cumsum([0, *sizes[:-1]]).astype(np.intp)
        index = np.arange(len(doc), dtype=np.intp) - np.repeat(starts, sizes)
        first = np.zeros(len(doc), dtype=bool)
        first[starts[np.array(sizes, dtype=np.intp) > 0]] = True
        dropped = np.zeros(len(doc), dtype=bool)
        for n, name in enumerate(corpus.names):
            for i in corpus.retriever(name).dropped:
                dropped[starts[n] + i] = True
        return cls(doc, index, first, dropped, bool(dropped.any()))


@dataclass(frozen=True)
class _Dense:
    """Each document's vectors (and pair vectors) with their offset in the corpus's arrays of
    cosines, and, for every chunk, the bounds of its passages and pairs in them (as
    :func:`np.maximum.reduceat` reads them: an empty range starts at the array's last element,
    the floor), or with one vector per chunk, where its cosine is."""

    sims: tuple[tuple[Any, int], ...]
    pairs: tuple[tuple[Any, int], ...]
    n_sims: int
    n_pairs: int
    chunks: bool
    take: Any = None
    sim_bounds: Any = None
    pair_bounds: Any = None

    @classmethod
    def of(cls, corpus: Corpus) -> _Dense:
        import numpy as np

        sims: list[tuple[Any, int]] = []
        pairs: list[tuple[Any, int]] = []
        sim_bounds: list[Any] = []
        pair_bounds: list[Any] = []
        n_sims = n_pairs = 0
        chunks = corpus.config.dense == "chunks"
        for name in corpus.names:
            r = corpus.retriever(name)
            if not r.chunks:
                continue
            vecs = r.vectors()
            sims.append((vecs, n_sims))
            if not chunks:
                pair = r.pair_vectors()
                pairs.append((pair, n_pairs))
                sim_bounds.append((r.held, len(vecs), n_sims))
                pair_bounds.append((r.held, len(pair), n_pairs))
                n_pairs += len(pair)
            n_sims += len(vecs)
        if chunks:
            take = np.arange(n_sims, dtype=np.intp)
            return cls(tuple(sims), (), n_sims, 0, True, take)

        def bounds(parts: list[Any], floor: int, shorten: int) -> Any:
            out = []
            for held, n, offset in parts:  # inside the document's own values
                b = np.array(held, dtype=np.intp).reshape(-1, 2)
                lo = np.minimum(b[:, 0], n)
                hi = np.clip(b[:, 1] - shorten, 0, n)
                empty = hi <= lo
                out.append(
                    np.stack([np.where(empty, floor, lo + offset), hi + offset], axis=1).ravel()
                )
            both = np.concatenate(out) if out else np.zeros(0, dtype=np.intp)
            return np.minimum(both, floor)

        return cls(
            tuple(sims),
            tuple(pairs),
            n_sims,
            n_pairs,
            False,
            None,
            bounds(sim_bounds, n_sims, 0),
            bounds(pair_bounds, n_pairs, 1),
        )


def combined(dense: Any, lexical: Any, *, weight: float = HYBRID_WEIGHT) -> Any:
    """The hybrid score of each chunk (see :data:`HYBRID_WEIGHT`), over float64 arrays."""
    return weight * normalised(dense) + (1.0 - weight) * normalised(lexical)


def normalised(scores: Any) -> Any:
    """Min–max normalised to [0, 1] (a float64 array); all equal scores become 0 (they tell
    nothing apart)."""
    import numpy as np

    if not len(scores):
        return scores
    lo, hi = scores.min(), scores.max()
    if hi <= lo:
        return np.zeros_like(scores)
    return (scores - lo) / (hi - lo)
