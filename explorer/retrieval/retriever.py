"""One document's chunks made ready for retrieval under one configuration: what they are scored
by (:class:`~explorer.retrieval.scoring.ScoringInputs`), and how hits become context pieces that
cost tokens.

A :class:`Retriever` holds no ranking and no answer rule of its own: the ranking is
:meth:`explorer.corpus.Corpus.rank` and the rule (the top ``k``, a token budget, filling it)
:func:`explorer.answer.answer`, both over a :class:`~explorer.corpus.Corpus` — one document is a
corpus of one. Retrievers are made by :class:`explorer.workspace.Workspace`, which
gives each its chunks, its embedder and the document's passages and token units, so nothing is
chunked, embedded or counted twice.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from explorer.chunking.records import Chunk
from explorer.config import Config
from explorer.documents.model import Document
from explorer.errors import SettingsError
from explorer.retrieval.context import ContextPiece, TableHeaders, context_pieces
from explorer.retrieval.scoring import Bm25, Hit, ScoringInputs

if TYPE_CHECKING:
    from explorer.chunking.measures import Units
    from explorer.documents.markdown_view import Rendered
    from explorer.progress import Progress
    from explorer.retrieval.embeddings import Embedder, Vectors
    from explorer.retrieval.words import Words


class Retriever:
    """``doc``'s ``chunks`` (made under ``config.chunking``) indexed under ``config``.

    ``embedder`` ranks dense and hybrid (``None`` for BM25); ``passages`` are the document's
    sentence passages (or a function that makes them on first need), for dense scores from
    passages; ``units`` gives the cl100k token units of the whole document (what budgets count)
    and ``rendered`` its rendered page text (where evidence copied from the page is found), each
    computed on first need; ``words``, the document's words as BM25 reads them.
    """

    def __init__(
        self,
        doc: Document,
        config: Config,
        *,
        chunks: Sequence[Chunk],
        embedder: Embedder | None = None,
        passages: Sequence[Chunk] | Callable[[], Sequence[Chunk]] | None = None,
        units: Callable[[], Units] | None = None,
        rendered: Callable[[], Rendered | None] | None = None,
        words: Callable[[], Words | None] | None = None,
    ) -> None:
        self.doc = doc
        self.config = config
        self.embedder = embedder
        self.chunks = list(chunks)
        self._inputs = ScoringInputs(
            self.chunks,
            embedder=embedder if config.retriever != "bm25" else None,
            heading_prefix=config.heading_prefix,
            doc=doc,
            dense=config.dense,
            passages=passages,
            context_header=config.context_header,
            words=words,
        )
        self._units_of = units
        self._units: Units | None = None
        self._rendered_of = rendered
        self._rendered: tuple[Rendered | None] | None = None
        self._headers: TableHeaders | None = None

    def using(self, config: Config) -> Retriever:
        """This retriever under ``config``, which may differ in how the context is made (the
        neighbours, section, merge, table headers, fill) but not in the ranking."""
        if config == self.config:
            return self
        if config.index_key() != self.config.index_key():
            raise SettingsError("a retriever can change how it builds context, not how it ranks")
        other = copy.copy(self)
        other.config = config
        return other

    @property
    def units(self) -> Units:
        """cl100k token units of the whole document (what budgets count)."""
        if self._units is None:
            if self._units_of is not None:
                self._units = self._units_of()
            else:
                from explorer.chunking.measures import get_measure

                self._units = get_measure("tokens").units(self.doc.text)
        return self._units

    @property
    def rendered(self) -> Rendered | None:
        """What a reader sees of a Markdown document, with source offsets (``None`` for other
        kinds); where evidence copied from the page is found."""
        if self._rendered is None:
            if self._rendered_of is not None:
                self._rendered = (self._rendered_of(),)
            else:
                from explorer.documents.markdown_view import rendered_text

                self._rendered = (rendered_text(self.doc),)
        return self._rendered[0]

    # ------------------------------------------------------------------ what the ranking reads

    @property
    def bm25_texts(self) -> list[str]:
        """What BM25 indexes for each chunk (with ``context_header="embed+bm25"``, after the
        title and heading path)."""
        return self._inputs.texts

    def bm25(self) -> Bm25:
        """BM25 over :attr:`bm25_texts` alone (the index of a corpus of this one document)."""
        return self._inputs.bm25()

    @property
    def dense_texts(self) -> list[str]:
        """What is sent to the embedding model: the passages' or the chunks' texts."""
        return self._inputs.dense_texts

    def vectors(self, *, progress: Progress | None = None) -> Vectors:
        """The vectors of :attr:`dense_texts` (one per passage or per chunk), embedded on first
        need with ``progress``."""
        return self._inputs.vectors(progress=progress)

    def pair_vectors(self) -> Vectors:
        """The vectors of each two neighbouring passages taken together
        (:func:`~explorer.retrieval.scoring.pair_vectors`)."""
        return self._inputs.pairs()

    @property
    def passages(self) -> list[Chunk]:
        """The document's passages dense scores come from (none with ``dense="chunks"``)."""
        return self._inputs.passages

    @property
    def held(self) -> list[tuple[int, int]]:
        """For each chunk, the range ``[lo, hi)`` of :attr:`passages` it holds (empty with
        ``dense="chunks"``)."""
        return self._inputs.held

    def embedded_for(self, index: int) -> list[str]:
        """The texts whose vectors score chunk ``index``."""
        return self._inputs.embedded_for(index)

    @property
    def dropped(self) -> frozenset[int]:
        """The chunks a what-if edit dropped: never ranked."""
        return self._inputs.dropped

    # ------------------------------------------------------------------ context

    def pieces(self, hits: Sequence[Hit], *, merge: bool | None = None) -> list[ContextPiece]:
        """The context pieces of ``hits`` under this configuration (``merge`` overrides it)."""
        config = self.config
        if config.table_headers and self._headers is None:
            self._headers = TableHeaders.of(self.doc)
        return context_pieces(
            hits,
            self.chunks,
            neighbours=config.neighbours,
            doc=self.doc,
            section=config.section,
            merge=config.merge if merge is None else merge,
            table_headers=config.table_headers,
            headers=self._headers,
        )

    def cost(self, pieces: Sequence[ContextPiece]) -> int:
        """cl100k tokens of ``pieces`` sent as they are (a piece repeated counts again)."""
        return sum(self.units.size(p.start, p.end) for p in pieces)
