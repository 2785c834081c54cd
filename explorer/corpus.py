"""Many documents, one ranking: a question asked of a whole corpus, answered as
:meth:`explorer.answer.Retriever.answer` answers it for one document.

::

    from explorer import Corpus, load_folder

    corpus = Corpus(load_folder("queries/docs").documents)
    answer = corpus.answer("How long do I have to ask for a refund?",
                           evidence=["within seven days"])
    for hit in answer.hits:
        print(hit.rank, hit.doc, hit.index)

Every document is chunked and indexed by its own :class:`~explorer.answer.Retriever` under the
corpus's one configuration (its chunks, passages, vectors, table headers and token units are
the document's own, shared with any other use of that retriever: nothing is chunked or embedded
twice). What changes is the ranking, made over *all* the documents' chunks at once:

* BM25 is one index over every chunk, so a word's IDF and the average chunk length are the
  corpus's: a word every document uses weighs little, one only the refund policy uses weighs much.
* Dense scores are cosines, comparable across documents as they are.
* Hybrid normalises the dense and the BM25 scores over all chunks, then mixes them.
* The carry (a chunk's score gains a share of the previous chunk's) stays inside a document: a
  document's first chunk has nothing before it.

Ties go to the earlier document (in the corpus's order), then the earlier chunk.

The answer follows the rule of :mod:`explorer.answer`, across documents:

1. The candidates are the top ``k`` of the corpus ranking (all chunks when ``k`` is ``None``).
   With a ``budget``, hits are taken in rank order while the context they make, summed over the
   documents, costs at most ``budget`` cl100k tokens; the first that would overflow stops it.
2. Each document's hits become that document's pieces, as its retriever makes them: neighbours,
   sections, table headers and merges never reach into another document.
3. With ``fill``, the tokens the hits leave (``budget`` minus the context's cost) are shared
   equally among all the stretches of context, of every document; each stretch widens inside
   its own document (:func:`explorer.retrieval.widen_to_budget`). A document with no text left
   to add leaves its share unspent.

Evidence is located in the document the question names (``doc=``; its ``known`` spans apply
there), or, when none is named, in every document: a phrase then counts where it is covered,
else where its chunk ranks best, else where it is first found. A corpus of one document names it
without being told, so it answers exactly as that document's retriever does.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from explorer.answer import DEFAULT_K, Answer, Retriever, evidence_json, hit_json
from explorer.chunking.measures import get_measure
from explorer.chunking.splitters import Chunk
from explorer.config import Config
from explorer.documents.model import Document
from explorer.errors import SettingsError
from explorer.retrieval import evidence as _evidence
from explorer.retrieval.context import ContextPiece, Span, union, widen_to_budget
from explorer.retrieval.evidence import Evidence
from explorer.retrieval.index import Bm25, Hit, carried, check_carry, combine

if TYPE_CHECKING:
    from explorer.retrieval.embeddings import Embedder

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


@dataclass(frozen=True)
class CorpusEvidence(Evidence):
    """One evidence phrase in a corpus: the document it counts in (``None``: found in none), and,
    as :class:`~explorer.retrieval.Evidence` says, its spans, chunks and best corpus rank there."""

    doc: str | None = None


@dataclass(frozen=True)
class CorpusAnswer:
    """What one question gets from a corpus under one configuration, ``k`` and budget."""

    question: str
    config: Config
    k: int | None
    budget: int | None
    documents: tuple[str, ...]
    """Every document of the corpus, in its order."""
    ranking: tuple[CorpusHit, ...]
    """Every chunk of every document, best first."""
    hits: tuple[CorpusHit, ...]
    """The hits the context is made of, best first."""
    pieces: tuple[CorpusPiece, ...]
    """Each document's pieces, in rank order of each piece's best hit."""
    context: tuple[DocSpan, ...]
    """What an LLM receives: the pieces' spans, or, where ``fill`` widened a document's, that
    document's widened stretches in text order, documents by their best hit."""
    tokens: int
    """cl100k tokens of ``context`` over all documents."""
    widened: bool
    evidence: tuple[CorpusEvidence, ...]
    doc: str | None = None
    """The document the question names, where its evidence was looked for (``None``: any)."""
    answers: Mapping[str, Answer] = field(default_factory=dict)
    """Each document with a hit (and the one the question names) answered on its own part: its
    hits, pieces, context and tokens, its chunks ranked in corpus order with corpus ranks, and the
    evidence located in it — what a view of one document shows."""

    @property
    def verdict(self) -> str | None:
        """One sentence: complete, or what is missing and where (``None`` without evidence)."""
        if not self.evidence:
            return None
        return verdict(self.evidence, name_documents=len(self.documents) > 1, searched=self.doc)

    @property
    def complete(self) -> bool:
        return bool(self.evidence) and all(e.covered for e in self.evidence)

    @property
    def scored(self) -> bool:
        return any(e.found for e in self.evidence)

    @property
    def headers(self) -> tuple[DocSpan, ...]:
        return tuple(sorted({(p.doc, *h) for p in self.pieces for h in p.headers}))

    def context_in(self, doc: str) -> tuple[Span, ...]:
        """The context's spans in document ``doc`` (in the order of :attr:`context`)."""
        return tuple((s, e) for d, s, e in self.context if d == doc)

    def to_json(
        self, chunks: Mapping[str, Sequence[Chunk]], *, count: Any = None
    ) -> dict[str, Any]:
        """As :meth:`explorer.answer.Answer.to_json`, every hit, context span and evidence phrase
        naming its ``doc``; ``chunks`` are each document's (:attr:`Corpus.chunks`)."""
        count = count or get_measure("tokens").count
        return {
            "question": self.question,
            "k": self.k,
            "budget": self.budget,
            "config": self.config.to_json(),
            "documents": len(self.documents),
            "hits": [
                {"doc": h.doc, **hit_json(h.hit, chunks[h.doc][h.index], count)} for h in self.hits
            ],
            "context": [{"doc": d, "start": s, "end": e} for d, s, e in self.context],
            "tokens": self.tokens,
            "widened": self.widened,
            "evidence": [{"doc": r.doc, **evidence_json(r)} for r in self.evidence],
            "verdict": self.verdict,
        }


class Corpus:
    """Named documents under one configuration, ranked and answered as one collection.

    ``documents`` are named by their ``name`` (a sequence) or by the keys of a mapping; names
    must be distinct. ``retrievers`` may give a document's retriever already made (under a
    configuration that ranks as ``config`` does); the others are made here with ``embedder``
    (default: the shared one ``config`` names), so they share its vectors and lasting index.
    """

    def __init__(
        self,
        documents: Mapping[str, Document] | Iterable[Document],
        config: Config | None = None,
        *,
        embedder: Embedder | None = None,
        retrievers: Mapping[str, Retriever] | None = None,
    ) -> None:
        self.config = config = config or Config()
        if isinstance(documents, Mapping):
            named = list(documents.items())
        else:
            named = [(d.name, d) for d in documents]
        names = [n for n, _ in named]
        if len(set(names)) != len(names):
            twice = sorted({n for n in names if names.count(n) > 1})
            raise SettingsError(
                f"two documents of a corpus share the name {twice[0]!r}; rename one of them"
            )
        given = dict(retrievers or {})
        if embedder is None and config.needs_model and len(given) < len(named):
            from explorer.retrieval.embeddings import embedder as shared_embedder

            embedder = shared_embedder(config.model)
        self._retrievers: dict[str, Retriever] = {}
        for name, doc in named:
            r = given.get(name)
            if r is None:
                r = Retriever(doc, config, embedder=embedder)
            elif r.config.index_key() != config.index_key():
                raise SettingsError(
                    f"the retriever given for {name!r} ranks under another configuration"
                )
            self._retrievers[name] = r.using(config)
        self.names: tuple[str, ...] = tuple(names)
        self._offsets: list[int] = []
        total = 0
        for name in self.names:
            self._offsets.append(total)
            total += len(self._retrievers[name].chunks)
        self._size = total
        self._where = [(n, i) for n in self.names for i in range(len(self._retrievers[n].chunks))]
        """The document and chunk index of each place of the corpus's score list."""
        self._bm25: Bm25 | None = None

    def __len__(self) -> int:
        return len(self.names)

    def using(self, config: Config) -> Corpus:
        """This corpus under ``config``, which may differ in how the context is made but not in
        the ranking (as :meth:`explorer.answer.Retriever.using`)."""
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
        total: list[float] = []
        for n, name in enumerate(self.names):
            lo = self._offsets[n]
            hi = lo + len(self._retrievers[name].chunks)
            total += carried(scores[lo:hi], config.carry)
        where = self._where
        order = sorted(range(self._size), key=lambda j: (-total[j], j))
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

    # ------------------------------------------------------------------ answering

    def answer(
        self,
        question: str,
        evidence: Sequence[str] = (),
        *,
        k: int | None = DEFAULT_K,
        budget: int | None = None,
        ranking: Sequence[CorpusHit] | None = None,
        known: Sequence[Span | None] = (),
        doc: str | None = None,
    ) -> CorpusAnswer:
        """The answer to ``question`` from every document (see the module for the rule).

        ``doc`` names the document the evidence is in (default: any; the only one of a corpus of
        one); ``known`` are the evidence spans known in that document. ``ranking`` may be passed
        in when already made for ``question``.
        """
        if k is not None and k < 1:
            raise SettingsError(f"k must be at least 1, got {k}")
        if budget is not None and budget < 1:
            raise SettingsError(f"a token budget must be at least 1, got {budget}")
        if doc is None and len(self.names) == 1:
            doc = self.names[0]
        if doc is not None:
            self.retriever(doc)  # a name not in the corpus fails here
        ranked = tuple(ranking if ranking is not None else self.rank(question))
        candidates = ranked[:k] if k is not None else ranked
        per: dict[str, list[Hit]] = {}
        pieces: dict[str, list[ContextPiece]] = {}
        costs: dict[str, int] = {}
        hits: tuple[CorpusHit, ...] = ()
        if budget is None:
            hits = candidates
            for h in hits:
                per.setdefault(h.doc, []).append(h.hit)
            for name, hs in per.items():
                pieces[name] = self._retrievers[name].pieces(hs)
                costs[name] = self._retrievers[name].cost(pieces[name])
        else:
            spent = 0
            for n, h in enumerate(candidates, 1):
                r = self._retrievers[h.doc]
                trial = [*per.get(h.doc, []), h.hit]
                more = r.pieces(trial)
                cost = r.cost(more)
                if spent - costs.get(h.doc, 0) + cost > budget:
                    break
                spent += cost - costs.get(h.doc, 0)
                per[h.doc], pieces[h.doc], costs[h.doc] = trial, more, cost
                hits = candidates[:n]
        contexts: dict[str, list[Span]] = {
            name: [(p.start, p.end) for p in ps] for name, ps in pieces.items()
        }
        widened: set[str] = set()
        if self.config.fill and budget is not None and pieces:
            widened = self._fill(contexts, costs, budget)
        order = sorted(pieces, key=lambda name: per[name][0].rank)
        flat = sorted(
            (CorpusPiece.of(name, p) for name in order for p in pieces[name]),
            key=lambda p: p.ranks[0],
        )
        if widened:
            context = [(name, s, e) for name in order for s, e in contexts[name]]
        else:
            context = [(p.doc, p.start, p.end) for p in flat]
        checked = self._check(question, evidence, ranked, contexts, known, doc)
        answers: dict[str, Answer] = {}
        for name, (doc_ranking, results) in checked.items():
            if name in per or name == doc:
                answers[name] = Answer(
                    question=question,
                    config=self.config,
                    k=k,
                    budget=budget,
                    ranking=doc_ranking,
                    hits=tuple(per.get(name, ())),
                    pieces=tuple(pieces.get(name, ())),
                    context=tuple(contexts.get(name, ())),
                    tokens=costs.get(name, 0),
                    widened=name in widened,
                    evidence=tuple(results),
                )
        return CorpusAnswer(
            question=question,
            config=self.config,
            k=k,
            budget=budget,
            documents=self.names,
            ranking=ranked,
            hits=tuple(hits),
            pieces=tuple(flat),
            context=tuple(context),
            tokens=sum(costs.values()),
            widened=bool(widened),
            evidence=tuple(_pick(self.names, checked, doc)),
            doc=doc,
            answers=answers,
        )

    def _fill(
        self, contexts: dict[str, list[Span]], costs: dict[str, int], budget: int
    ) -> set[str]:
        """Widen each document's context with its share of the tokens left (in place); the
        documents whose context grew."""
        unions = {name: union(ctx) for name, ctx in contexts.items()}
        units = {name: self._retrievers[name].units for name in contexts}
        held = {name: sum(units[name].size(s, e) for s, e in u) for name, u in unions.items()}
        stretches = sum(len(u) for u in unions.values())
        share = (budget - sum(held.values())) // max(stretches, 1)
        grown: set[str] = set()
        if share <= 0:
            return grown
        for name, ctx in contexts.items():
            wide = widen_to_budget(ctx, units[name], held[name] + share * len(unions[name]))
            if wide != unions[name]:
                contexts[name] = wide
                costs[name] = sum(units[name].size(s, e) for s, e in wide)
                grown.add(name)
        return grown

    def _check(
        self,
        question: str,
        evidence: Sequence[str],
        ranked: Sequence[CorpusHit],
        contexts: Mapping[str, Sequence[Span]],
        known: Sequence[Span | None],
        doc: str | None,
    ) -> dict[str, tuple[tuple[Hit, ...], list[Evidence]]]:
        """Each document's chunks in corpus order, and the evidence checked in it: in ``doc``
        only when one is named, else in every document."""
        by_doc: dict[str, list[Hit]] = {name: [] for name in self.names}
        for h in ranked:
            by_doc[h.doc].append(h.hit)
        out: dict[str, tuple[tuple[Hit, ...], list[Evidence]]] = {}
        for name in self.names:
            if doc is not None and name != doc and name not in contexts:
                continue
            r = self._retrievers[name]
            results: list[Evidence] = []
            if doc is None or name == doc:
                results = _evidence.check(
                    evidence,
                    r.doc.text,
                    r.chunks,
                    by_doc[name],
                    context=contexts.get(name, ()),
                    known=known if name == doc else (),
                )
            out[name] = (tuple(by_doc[name]), results)
        return out

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


def _pick(
    names: Sequence[str],
    checked: Mapping[str, tuple[tuple[Hit, ...], list[Evidence]]],
    doc: str | None,
) -> list[CorpusEvidence]:
    """Each phrase where it counts: in ``doc`` when named; else where it is covered, else where
    its chunk ranks best, else where it is first found (in corpus order)."""
    places = [name for name in names if name in checked and (doc is None or name == doc)]
    lists = [checked[name][1] for name in places]
    out = []
    for i in range(len(lists[0]) if lists else 0):
        here = [lst[i] for lst in lists]
        j = min(range(len(here)), key=lambda j: _standing(here[j], j))
        e = here[j]
        out.append(
            CorpusEvidence(
                phrase=e.phrase,
                spans=e.spans,
                covered=e.covered,
                chunk_ids=e.chunk_ids,
                chunk_indices=e.chunk_indices,
                best_rank=e.best_rank,
                cut_by_boundary=e.cut_by_boundary,
                doc=places[j] if e.found else None,
            )
        )
    return out


def _standing(e: Evidence, order: int) -> tuple[bool, bool, bool, int, int]:
    """Sorts where a phrase counts first: covered, found, ranked, best ranked, earliest."""
    return (not e.covered, not e.found, e.best_rank is None, e.best_rank or 0, order)


def verdict(
    results: Sequence[CorpusEvidence], *, name_documents: bool = True, searched: str | None = None
) -> str:
    """One sentence, as :func:`explorer.retrieval.evidence.verdict`, each phrase that is missing
    naming the document it is in, and a phrase not found the document ``searched`` (default:
    any). Without ``name_documents`` (a corpus of one), that function's sentence itself."""
    if not name_documents:
        return _evidence.verdict(results)
    return _evidence.verdict(
        results,
        doc_of=lambda r: r.doc if isinstance(r, CorpusEvidence) else None,
        absent_from=searched or "any document",
    )
