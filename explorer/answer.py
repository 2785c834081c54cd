"""The one answer path: a question in; the ranked hits, the context an LLM would receive, each
evidence phrase's place in it, and a verdict out.

The app's query panel, ``explorer query``, ``explorer eval``, the A/B and the sweep all answer
through :meth:`Retriever.answer`, so they cannot disagree::

    from explorer import ask, load_path

    doc = load_path("sample_docs/refund-policy.md")
    answer = ask(doc, "How long do I have to ask for a refund?",
                 evidence=["within seven days", "does not apply to downloaded materials"])
    print(answer.verdict)

How the context is made, for ``k`` and an optional token ``budget``:

1. Every chunk is ranked (:meth:`explorer.retrieval.ChunkIndex.rank`, with the carry).
2. The candidates are the top ``k`` (all chunks when ``k`` is ``None``). Without a budget they are
   all hits. With one, hits are taken in rank order while the context they make costs at most
   ``budget`` cl100k tokens; the first hit whose context would overflow stops it.
3. Each hit is widened (neighbours or section), brings its table's header rows, and pieces that
   overlap or touch are merged (:func:`explorer.retrieval.context_pieces`).
4. With ``fill`` and a budget, the tokens the hits leave widen the context around them
   (:func:`explorer.retrieval.widen_to_budget`).

Tokens are counted on the whole document's cl100k tokens: a piece costs the tokens overlapping it,
unmerged pieces each count in full.
"""

from __future__ import annotations

import copy
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from explorer.chunking.measures import Units, get_measure
from explorer.chunking.splitters import Chunk, split
from explorer.config import Config
from explorer.documents.model import Document
from explorer.errors import SettingsError
from explorer.retrieval import evidence as _evidence
from explorer.retrieval.context import (
    ContextPiece,
    Span,
    TableHeaders,
    context_pieces,
    union,
    widen_to_budget,
)
from explorer.retrieval.evidence import Evidence
from explorer.retrieval.index import ChunkIndex, Hit

if TYPE_CHECKING:
    from explorer.retrieval.embeddings import Embedder

DEFAULT_K = 5
"""How many chunks an answer retrieves unless told otherwise."""


@dataclass(frozen=True)
class Answer:
    """What one question gets under one configuration, ``k`` and budget."""

    question: str
    config: Config
    k: int | None
    """The most hits taken (``None``: as many as the budget allows)."""
    budget: int | None
    """The token budget of the context (``None``: no budget)."""
    ranking: tuple[Hit, ...]
    """Every chunk, best first."""
    hits: tuple[Hit, ...]
    """The hits the context is made of, best first."""
    pieces: tuple[ContextPiece, ...]
    """The hits as context: widened, with table headers, merged when ``config.merge``; in rank
    order of each piece's best hit."""
    context: tuple[Span, ...]
    """What an LLM receives: the pieces' spans in the same order, or, when the budget's tokens
    widened them (``widened``), the widened stretches in document order."""
    tokens: int
    """cl100k tokens of ``context`` (unmerged pieces each counted in full)."""
    widened: bool
    """``fill`` added text around the hits."""
    evidence: tuple[Evidence, ...]
    """Each evidence phrase: where it is, whether the context holds it, its chunk's rank."""

    @property
    def verdict(self) -> str | None:
        """One sentence: complete, or what is missing and where (``None`` without evidence)."""
        return _evidence.verdict(self.evidence) if self.evidence else None

    @property
    def complete(self) -> bool:
        """Every evidence phrase was found and lies inside the context."""
        return bool(self.evidence) and all(e.covered for e in self.evidence)

    @property
    def scored(self) -> bool:
        """At least one evidence phrase was found in the document."""
        return any(e.found for e in self.evidence)

    @property
    def headers(self) -> tuple[Span, ...]:
        """Table header rows the context brought along (once each)."""
        return tuple(sorted({h for p in self.pieces for h in p.headers}))

    def to_json(self, chunks: Sequence[Chunk], *, count: Any = None) -> dict[str, Any]:
        """The answer as JSON: ``hits``, ``context``, ``evidence``, ``verdict`` (and ``config``).

        ``count`` counts a hit's own tokens (default: cl100k over its text).
        """
        count = count or get_measure("tokens").count
        return {
            "question": self.question,
            "k": self.k,
            "budget": self.budget,
            "config": self.config.to_json(),
            "hits": [hit_json(h, chunks[h.index], count) for h in self.hits],
            "context": [{"start": s, "end": e} for s, e in self.context],
            "tokens": self.tokens,
            "widened": self.widened,
            "evidence": [evidence_json(r) for r in self.evidence],
            "verdict": self.verdict,
        }


def hit_json(h: Hit, chunk: Chunk, count: Any) -> dict[str, Any]:
    return {
        "rank": h.rank,
        "id": chunk.id,
        "index": h.index,
        "start": chunk.start,
        "end": chunk.end,
        "score": round(h.score, 6),
        "carried": round(h.carried, 6),
        "tokens": count(chunk.text),
    }


def evidence_json(r: Evidence) -> dict[str, Any]:
    return {
        "phrase": r.phrase,
        "found": r.found,
        "spans": [list(sp) for sp in r.spans],
        "covered": r.covered,
        "chunk_ids": list(r.chunk_ids),
        "best_rank": r.best_rank,
        "cut_by_boundary": r.cut_by_boundary,
    }


class Retriever:
    """A document chunked and indexed under one configuration, ready to answer questions.

    ``chunks`` may be given when already made (under ``config.chunking``); ``embedder`` is used
    for dense and hybrid ranking and the semantic splitter (default: the model ``config`` names).
    The document's tokens and table headers are computed on first need.
    """

    def __init__(
        self,
        doc: Document,
        config: Config | None = None,
        *,
        chunks: Sequence[Chunk] | None = None,
        embedder: Embedder | None = None,
        units: Units | None = None,
    ) -> None:
        self.doc = doc
        self.config = config = config or Config()
        if embedder is None and config.needs_model:
            from explorer.retrieval.embeddings import embedder as shared_embedder

            embedder = shared_embedder(config.model)
        self.embedder = embedder
        if chunks is None:
            embed = embedder.embed if embedder is not None else None
            chunks = split(doc, config.chunking, embed=embed)
        self.chunks = list(chunks)
        self.index = ChunkIndex(
            self.chunks,
            embedder=embedder if config.retriever != "bm25" else None,
            heading_prefix=config.heading_prefix,
            doc=doc,
            dense=config.dense,
        )
        self._units = units
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
            self._units = document_units(self.doc)
        return self._units

    def rank(self, question: str) -> list[Hit]:
        """Every chunk ranked for ``question``, best first."""
        return self.index.rank(question, self.config.retriever, carry=self.config.carry)

    def answer(
        self,
        question: str,
        evidence: Sequence[str] = (),
        *,
        k: int | None = DEFAULT_K,
        budget: int | None = None,
        ranking: Sequence[Hit] | None = None,
        known: Sequence[Span | None] = (),
    ) -> Answer:
        """The answer to ``question`` with ``k`` hits at most and an optional token ``budget``.

        ``ranking`` may be passed in when already made for ``question`` (several ``k`` and budgets
        of one question share it); ``known`` are evidence spans known in advance (see
        :func:`explorer.retrieval.evidence.check`).
        """
        if k is not None and k < 1:
            raise SettingsError(f"k must be at least 1, got {k}")
        if budget is not None and budget < 1:
            raise SettingsError(f"a token budget must be at least 1, got {budget}")
        config = self.config
        ranked = tuple(ranking if ranking is not None else self.rank(question))
        candidates = ranked[:k] if k is not None else ranked
        if budget is None:
            hits = candidates
            pieces = self.pieces(hits)
            tokens = self.cost(pieces)
        else:
            hits, pieces, tokens = (), [], 0
            for n in range(1, len(candidates) + 1):
                more = self.pieces(candidates[:n])
                cost = self.cost(more)
                if cost > budget:
                    break
                hits, pieces, tokens = candidates[:n], more, cost
        context: list[Span] = [(p.start, p.end) for p in pieces]
        widened = False
        if config.fill and budget is not None and pieces:
            wide = widen_to_budget(context, self.units, budget)
            if wide != union(context):
                context, widened = wide, True
                tokens = sum(self.units.size(s, e) for s, e in context)
        results = _evidence.check(
            evidence, self.doc.text, self.chunks, ranked, context=context, known=known
        )
        return Answer(
            question=question,
            config=config,
            k=k,
            budget=budget,
            ranking=ranked,
            hits=tuple(hits),
            pieces=tuple(pieces),
            context=tuple(context),
            tokens=tokens,
            widened=widened,
            evidence=tuple(results),
        )

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


_UNITS: OrderedDict[tuple[str, str, int], Units] = OrderedDict()


def document_units(doc: Document) -> Units:
    """cl100k token units of ``doc.text`` (the last 16 documents' are kept)."""
    key = (doc.sha256, doc.kind, len(doc.text))
    if key in _UNITS:
        _UNITS.move_to_end(key)
    else:
        _UNITS[key] = get_measure("tokens").units(doc.text)
        if len(_UNITS) > 16:
            _UNITS.popitem(last=False)
    return _UNITS[key]


_RETRIEVERS: OrderedDict[tuple[str, str, int, str], Retriever] = OrderedDict()


def retriever(doc: Document, config: Config | None = None) -> Retriever:
    """A :class:`Retriever` for ``doc`` under ``config``; the last four are kept, so asking
    again about the same document with the same configuration chunks and embeds nothing."""
    config = config or Config()
    key = (doc.sha256, doc.kind, len(doc.text), config.index_key())
    if key in _RETRIEVERS:
        _RETRIEVERS.move_to_end(key)
    else:
        _RETRIEVERS[key] = Retriever(doc, config)
        if len(_RETRIEVERS) > 4:
            _RETRIEVERS.popitem(last=False)
    return _RETRIEVERS[key].using(config)


def ask(
    doc: Document,
    question: str,
    evidence: Sequence[str] = (),
    *,
    config: Config | None = None,
    k: int | None = DEFAULT_K,
    budget: int | None = None,
) -> Answer:
    """Answer ``question`` from ``doc``: hits, context, evidence and verdict (see the module)."""
    return retriever(doc, config).answer(question, evidence, k=k, budget=budget)
