"""What a document's chunks are scored by: the texts BM25 indexes for them (bm25s) and the
dense vectors their cosines come from. Nothing here ranks: the one ranking is
:meth:`explorer.corpus.Corpus.rank` (one document is a corpus of one), which reads these through
each document's :class:`~explorer.retrieval.retriever.Retriever`.

Dense scores come from one of two sources (``dense=``):

* ``"chunks"`` embeds each chunk's text whole. A text longer than the model's window (256 word
  pieces for all-MiniLM-L6-v2) is silently truncated by the model, and one vector has to stand for
  everything the chunk says.
* ``"passages"`` embeds the document's *passages* — its sentences, packed to at most
  :data:`PASSAGE_TOKENS` tokens and never across the start of a block (see
  :func:`~explorer.chunking.splitters.split_passages`), a cut that depends on the document only —
  and scores a chunk by the best passage it holds, or the best two neighbouring passages it holds
  taken together (:func:`pair_vectors`). Every passage fits the window, and the vectors
  are the same whatever the chunk size, overlap or splitter, so changing a setting embeds nothing
  new. A passage of a table's body rows is embedded after the table's header row(s)
  (:func:`passage_texts`); its span stays the rows'.

A *contextual header* (``context_header=``, :data:`~explorer.config.CONTEXT_HEADERS`) puts the
document's title and the heading path before what is embedded (``"embed"``), and also before what
BM25 indexes (``"embed+bm25"``) — Anthropic's contextual embeddings and contextual BM25, with the
title and headings standing for the context an LLM would write. What is displayed never changes.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from explorer.chunking.records import Chunk, ChunkSettings, context_header, embedded_text
from explorer.chunking.splitters import split_passages
from explorer.config import check_context_header, check_dense
from explorer.documents.model import Document
from explorer.errors import SettingsError

if TYPE_CHECKING:
    from explorer.chunking.measures import Units
    from explorer.progress import Progress
    from explorer.retrieval.embeddings import Embedder, Vectors
    from explorer.retrieval.words import Words

PASSAGE_TOKENS = 64
"""Passages are the document's sentences packed to at most this many cl100k tokens (inside one
block): one or two sentences, well inside the embedding window, small enough that a vector stands
for one point."""
PASSAGES = ChunkSettings(splitter="sentence", unit="tokens", size=PASSAGE_TOKENS, overlap=0)


@dataclass(frozen=True, slots=True)
class Hit:
    """One ranked chunk. ``rank`` is 1-based; ``index`` is the chunk's index."""

    rank: int
    index: int
    score: float
    retriever: str
    carried: float = 0.0
    """The part of ``score`` carried from the previous chunk (see
    :meth:`explorer.corpus.Corpus.rank`)."""


def passages(doc: Document, *, units: Units | None = None) -> list[Chunk]:
    """The document's passages (see the module docstring); the workspace keeps them per
    document (:meth:`explorer.workspace.Workspace.passages`) and gives the document's token
    ``units`` it has already made."""
    return split_passages(doc, PASSAGES, units=units)


def passage_texts(
    doc: Document, spans: Sequence[Chunk], *, heading_prefix: bool, context: bool = False
) -> list[str]:
    """What is embedded for each passage: its :func:`~explorer.chunking.records.embedded_text`,
    and for a passage of a table's body rows that does not hold the table's header rows, those
    rows first (a row without the names of its columns is half a row), unless they are longer
    than a passage. With ``context``, the document's title and the passage's heading path come
    first (:func:`~explorer.chunking.records.context_header`; it replaces the heading prefix).
    The passage's span, and what is shown for it, stay its own."""
    from explorer.chunking.measures import get_measure

    count = get_measure("tokens").count
    tables = [  # (table start, table end, header start, header end)
        (b.start, b.end, head[0].start, head[-1].end)
        for b in doc.blocks
        if b.kind == "table" and (head := [r for r in b.rows if r.header])
    ]
    starts = [t[0] for t in tables]
    out = []
    for p in spans:
        text = p.text
        i = bisect.bisect_right(starts, p.start) - 1
        if i >= 0:
            _ts, te, hs, he = tables[i]
            if p.start >= he and p.end <= te:
                header = doc.text[hs:he]
                if count(header) <= PASSAGE_TOKENS:
                    text = header + "\n" + text
        if context:
            text = context_header(doc.title, p.heading_path) + "\n\n" + text
        elif heading_prefix and p.heading_path:
            text = " > ".join(p.heading_path) + "\n\n" + text
        out.append(text)
    return out


def passages_of(chunks: Sequence[Chunk], spans: Sequence[Chunk]) -> list[tuple[int, int]]:
    """For each chunk, the range ``[lo, hi)`` of ``spans`` (sorted, disjoint) that it holds.

    A passage belongs to a chunk when at least half of it lies inside the chunk, so a passage cut
    by a chunk boundary counts for the side holding most of it (for both sides of an overlap).
    A chunk holding no passage that way takes the passages it touches.
    """
    starts = [p.start for p in spans]
    ends = [p.end for p in spans]
    out = []
    for c in chunks:
        lo = bisect.bisect_right(ends, c.start)
        hi = bisect.bisect_left(starts, c.end)
        touching = range(lo, max(hi, lo))
        held = [
            i
            for i in touching
            if 2 * (min(c.end, ends[i]) - max(c.start, starts[i])) >= ends[i] - starts[i]
        ]
        if held:
            out.append((held[0], held[-1] + 1))
        else:
            out.append((lo, max(hi, lo + 1)) if spans else (0, 0))
    return out


class ScoringInputs:
    """What one document's chunks are scored by: the texts BM25 indexes (and the index, made on
    first need) and the dense vectors (embedded on first need, through a cached embedder).

    With ``dense="passages"`` (needs ``doc``), dense scores come from the document's passages
    (``passages``, or a function that makes them, when the workspace has them for it; read on
    first need only, as are the texts embedded: BM25 alone never reads them); with
    ``"chunks"``, from each chunk's own text. BM25
    always indexes the chunks, tokenised from the document's ``words`` (a function giving
    :class:`~explorer.retrieval.words.Words`, when the workspace has them) where it can.
    ``context_header`` (:data:`~explorer.config.CONTEXT_HEADERS`,
    needs ``doc``) puts the document's title and heading path before what is embedded, and with
    ``"embed+bm25"`` before what BM25 indexes too.
    """

    def __init__(
        self,
        chunks: Sequence[Chunk],
        *,
        embedder: Embedder | None = None,
        heading_prefix: bool = False,
        doc: Document | None = None,
        dense: str = "chunks",
        passages: Sequence[Chunk] | Callable[[], Sequence[Chunk]] | None = None,
        context_header: str = "off",
        words: Callable[[], Words | None] | None = None,
    ) -> None:
        check_context_header(context_header)
        if context_header != "off" and doc is None:
            raise SettingsError("a contextual header needs the document (its title)")
        check_dense(dense)
        if dense == "passages" and doc is None:
            raise SettingsError("dense scores from passages need the document")
        self.chunks = list(chunks)
        self.embedder = embedder
        self.dense = dense
        title = doc.title if doc is not None and context_header != "off" else ""
        plain = [embedded_text(c, heading_prefix=heading_prefix) for c in self.chunks]
        headed = (
            [embedded_text(c, heading_prefix=heading_prefix, title=title) for c in self.chunks]
            if title
            else plain
        )
        self.texts = headed if context_header == "embed+bm25" else plain
        """What BM25 indexes for each chunk."""
        self.chunk_texts = headed
        """What is embedded for each chunk with ``dense="chunks"``."""
        self.dropped = frozenset(i for i, c in enumerate(self.chunks) if "dropped" in c.flags)
        """Chunks a what-if edit dropped (:mod:`explorer.chunking.edits`): never ranked."""
        self._doc = doc
        self._words = words
        self._given = passages
        self._heading_prefix = heading_prefix
        self._context = bool(title)
        self._passages: list[Chunk] | None = None
        self._held: list[tuple[int, int]] | None = None
        self._dense_texts: list[str] | None = None
        self._vectors: Vectors | None = None
        self._pairs: Vectors | None = None
        self._bm25: Bm25 | None = None

    # what dense scores read is made on first need: BM25 alone never reads it
    @property
    def passages(self) -> list[Chunk]:
        """The document's passages (none with ``dense="chunks"``)."""
        if self._passages is None:
            doc = self._doc
            if self.dense == "passages" and doc is not None:
                given = self._given() if callable(self._given) else self._given
                self._passages = list(given) if given is not None else split_passages(doc, PASSAGES)
            else:
                self._passages = []
        return self._passages

    @property
    def dense_texts(self) -> list[str]:
        """What is sent to the embedding model: the passages' or the chunks' texts."""
        if self._dense_texts is None:
            doc = self._doc
            if self.dense == "passages" and doc is not None:
                self._dense_texts = passage_texts(
                    doc, self.passages, heading_prefix=self._heading_prefix, context=self._context
                )
            else:
                self._dense_texts = self.chunk_texts
        return self._dense_texts

    def vectors(self, *, progress: Progress | None = None) -> Vectors:
        """The dense vectors: one per passage or one per chunk (see ``dense``)."""
        if self._vectors is None:
            if self.embedder is None:
                raise SettingsError("dense retrieval needs an embedding model")
            self._vectors = self.embedder.embed(self.dense_texts, progress=progress)
        return self._vectors

    def embedded_for(self, index: int) -> list[str]:
        """The texts whose vectors score chunk ``index``."""
        if self.dense == "chunks":
            return [self.chunk_texts[index]]
        lo, hi = self.held[index]
        return self.dense_texts[lo:hi]

    @property
    def held(self) -> list[tuple[int, int]]:
        """For each chunk, the range ``[lo, hi)`` of :attr:`passages` it holds (see
        :func:`passages_of`; empty with ``dense="chunks"``)."""
        if self._held is None:
            by_passage = self.dense == "passages" and self._doc is not None
            self._held = passages_of(self.chunks, self.passages) if by_passage else []
        return self._held

    def pairs(self) -> Vectors:
        """The pair vectors of the passages (:func:`pair_vectors`), made once."""
        if self._pairs is None:
            self._pairs = pair_vectors(self.vectors())
        return self._pairs

    def bm25(self) -> Bm25:
        """BM25 over :attr:`texts`, made once."""
        if self._bm25 is None:
            words = self._words() if self._words is not None else None
            tokens = None
            if words is not None and self._doc is not None:  # the document's words, found once
                spans = [(c.start, c.end) for c in self.chunks]
                tokens = words.tokenized(self._doc.text, spans, self.texts)
            self._bm25 = Bm25(self.texts, tokens=tokens)
        return self._bm25


def pair_vectors(vectors: Vectors) -> Vectors:
    """Row ``i`` stands for passages ``i`` and ``i + 1`` taken together: the normalised sum of
    their (normalised) vectors, so its cosine with a question is the two cosines' sum over the
    pair's norm. A question whose answer runs across a passage edge — a rule in one, its
    exception in the next; a list cut between its items — matches the pair better than either
    half, with nothing more embedded (what it changes is measured in BENCHMARKS.md)."""
    import numpy as np

    if len(vectors) < 2:
        return np.zeros((0, vectors.shape[1]), dtype=vectors.dtype)
    summed = vectors[:-1] + vectors[1:]
    norms = np.linalg.norm(summed, axis=1, keepdims=True)
    pairs: Vectors = summed / np.maximum(norms, 1e-12)
    return pairs


class Bm25:
    """bm25s over the chunk texts: English stop words removed, Snowball-stemmed."""

    def __init__(self, texts: Sequence[str], *, tokens: Any = None) -> None:
        """``tokens``, when given, are ``texts`` tokenised already as bm25s tokenises them
        (:meth:`explorer.retrieval.words.Words.tokenized`)."""
        import bm25s
        import Stemmer

        self._stemmer = Stemmer.Stemmer("english")
        self._n = len(texts)
        corpus = tokens
        if corpus is None:
            corpus = bm25s.tokenize(
                list(texts), stopwords="en", stemmer=self._stemmer, show_progress=False
            )
        self._vocab = corpus.vocab
        self._model: Any = None
        if self._vocab:  # bm25s cannot index a corpus without one word (stop words, numbers)
            self._model = bm25s.BM25()
            self._model.index(corpus, show_progress=False)

    def scores(self, query: str) -> list[float]:
        import bm25s

        q = bm25s.tokenize(
            [query], stopwords="en", stemmer=self._stemmer, show_progress=False, return_ids=False
        )
        terms = [t for t in q[0] if t in self._vocab] if q else []
        if not terms or self._model is None:
            return [0.0] * self._n
        return [float(x) for x in self._model.get_scores(terms)]
