"""The one answer path: a question and its ranking in; the hits, the context an LLM would
receive, each evidence phrase's place in it, and a verdict out.

The app's pages, ``explorer query``, ``explorer eval``, the A/B, the sweep, lessons and version
comparison all answer through :func:`answer` (by way of :class:`explorer.workspace.Workspace`;
:func:`explorer.ask` for one document), so they cannot disagree::

    from explorer import ask, load_path

    doc = load_path("sample_docs/refund-policy.md")
    answer = ask(doc, "How long do I have to ask for a refund?",
                 evidence=["within seven days", "does not apply to downloaded materials"])
    print(answer.verdict)

The rule, for a :class:`~explorer.corpus.Corpus` (one document is a corpus of one), ``k`` and an
optional token ``budget``:

1. Every chunk of every document is ranked (:meth:`explorer.corpus.Corpus.rank`, with the carry;
   the workspace embeds the question and ranks, :meth:`explorer.workspace.Workspace.answer`).
2. The candidates are the top ``k`` (all chunks when ``k`` is ``None``). Without a budget they are
   all hits. With one, hits are taken in rank order while the context they make, summed over the
   documents, costs at most ``budget`` cl100k tokens; the first hit whose context would overflow
   stops it.
3. Each document's hits become that document's pieces: widened (neighbours or section), with
   their table's header rows, pieces that overlap or touch merged
   (:func:`explorer.retrieval.context_pieces`). Nothing reaches into another document.
4. With ``fill`` and a budget, the tokens the hits leave are shared equally among all the
   stretches of context, of every document; each widens inside its own document
   (:func:`explorer.retrieval.widen_to_budget`).
5. Each evidence phrase is located (in the document the question names, or in every document),
   and the :class:`~explorer.retrieval.evidence.Verdict` says whether the context holds them all,
   and for each phrase it does not hold, its chunk's rank and whether ``k`` or the budget cut it.

Tokens are counted on each whole document's cl100k tokens: a piece costs the tokens overlapping
it, unmerged pieces each count in full.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypedDict

from explorer.chunking.measures import get_measure
from explorer.chunking.records import Chunk
from explorer.config import Config
from explorer.corpus import Corpus, CorpusHit, CorpusPiece, DocSpan, Ranking
from explorer.errors import SettingsError
from explorer.retrieval.context import ContextPiece, Span, union, widen_to_budget
from explorer.retrieval.evidence import Evidence, Limits, Verdict, check, covered_by
from explorer.retrieval.scoring import Hit

DEFAULT_K = 5
"""How many chunks an answer retrieves unless told otherwise."""


class How(TypedDict, total=False):
    """How :func:`answer` takes its question: ``k``, ``budget``, the ``known`` evidence spans and
    the ``doc`` they are in (see :func:`answer` for each)."""

    k: int | None
    budget: int | None
    known: Sequence[Span | None]
    doc: str | None


class _Judged:
    """What an answer says of its evidence, read off its :class:`Verdict` (one rule for both
    kinds of answer), and the part of its JSON they share."""

    evidence: tuple[Evidence, ...]
    question: str
    config: Config
    k: int | None
    budget: int | None
    tokens: int
    widened: bool
    limits: Limits | None

    @property
    def verdict(self) -> Verdict | None:  # pragma: no cover - each answer says its own
        raise NotImplementedError

    @property
    def complete(self) -> bool:
        """Every evidence phrase was found and lies inside the context."""
        return self.verdict is not None and self.verdict.complete

    @property
    def covered(self) -> bool:
        """Every evidence phrase found lies inside the context (see :attr:`Verdict.covered`)."""
        return self.verdict is not None and self.verdict.covered

    @property
    def scored(self) -> bool:
        """At least one evidence phrase was found."""
        return any(e.found for e in self.evidence)

    def _json(self, **parts: Any) -> dict[str, Any]:
        """The JSON form: the question, k, budget and configuration, then ``parts`` (hits,
        context, evidence …), then the tokens, the limits and the verdict."""
        verdict = self.verdict
        head = {"question": self.question, "k": self.k, "budget": self.budget}
        evidence = parts.pop("evidence")
        return {
            **head,
            "config": self.config.to_json(),
            **parts,
            "tokens": self.tokens,
            "widened": self.widened,
            **limits_json(self.limits),
            "evidence": evidence,
            "verdict": None if verdict is None else verdict.sentence(),
            "verdict_kind": None if verdict is None else verdict.kind,
        }


@dataclass(frozen=True)
class Answer(_Judged):
    """What one question gets from one document under one configuration, ``k`` and budget: the
    whole answer of a single document, or one document's part of a corpus's answer."""

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
    limits: Limits | None = None
    """What bounded the hits (the whole answer's, in a corpus)."""

    @property
    def verdict(self) -> Verdict | None:
        """Complete, or what is missing, where and why (``None`` without evidence)."""
        return Verdict(self.evidence, self.limits) if self.evidence else None

    @property
    def headers(self) -> tuple[Span, ...]:
        """Table header rows the context brought along (once each)."""
        return tuple(sorted({h for p in self.pieces for h in p.headers}))

    def to_json(self, chunks: Sequence[Chunk], *, count: Any = None) -> dict[str, Any]:
        """The answer as JSON: ``hits``, ``context``, ``evidence``, ``verdict`` (and ``config``).

        ``count`` counts a hit's own tokens (default: cl100k over its text).
        """
        count = count or get_measure("tokens").count
        return self._json(
            hits=[hit_json(h, chunks[h.index], count) for h in self.hits],
            context=[{"start": s, "end": e} for s, e in self.context],
            evidence=[evidence_json(r) for r in self.evidence],
        )


@dataclass(frozen=True)
class CorpusAnswer(_Judged):
    """What one question gets from a corpus under one configuration, ``k`` and budget."""

    question: str
    config: Config
    k: int | None
    budget: int | None
    documents: tuple[str, ...]
    """Every document of the corpus, in its order."""
    ranking: Sequence[CorpusHit]
    """Every chunk of every document, best first (a :class:`~explorer.corpus.Ranking`, whose
    hits are made when read, or the sequence given)."""
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
    evidence: tuple[Evidence, ...]
    """Each phrase where it counts (its ``doc``: see :func:`answer`)."""
    limits: Limits
    doc: str | None = None
    """The document the question names, where its evidence was looked for (``None``: any)."""
    answers: Mapping[str, Answer] = field(default_factory=dict)
    """Each document with a hit (and the one the question names) answered on its own part: its
    hits, pieces, context and tokens, its chunks ranked in corpus order with corpus ranks, and the
    evidence located in it — what a view of one document shows."""

    @property
    def verdict(self) -> Verdict | None:
        """Complete, or what is missing, where and why (``None`` without evidence); a corpus of
        several documents names each phrase's document."""
        if not self.evidence:
            return None
        several = len(self.documents) > 1
        return Verdict(
            self.evidence,
            self.limits,
            name_documents=several,
            absent_from=(self.doc or "any document") if several else "the document",
        )

    @property
    def headers(self) -> tuple[DocSpan, ...]:
        return tuple(sorted({(p.doc, *h) for p in self.pieces for h in p.headers}))

    def context_in(self, doc: str) -> tuple[Span, ...]:
        """The context's spans in document ``doc`` (in the order of :attr:`context`)."""
        return tuple((s, e) for d, s, e in self.context if d == doc)

    def to_json(
        self, chunks: Mapping[str, Sequence[Chunk]], *, count: Any = None
    ) -> dict[str, Any]:
        """As :meth:`Answer.to_json`, every hit, context span and evidence phrase naming its
        ``doc``; ``chunks`` are each document's (:attr:`Corpus.chunks`)."""
        count = count or get_measure("tokens").count
        return self._json(
            documents=len(self.documents),
            hits=[
                {"doc": h.doc, **hit_json(h.hit, chunks[h.doc][h.index], count)} for h in self.hits
            ],
            context=[{"doc": d, "start": s, "end": e} for d, s, e in self.context],
            evidence=[{"doc": r.doc, **evidence_json(r)} for r in self.evidence],
        )


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
        "rank": r.best_rank,
        "cut_by_boundary": r.cut_by_boundary,
        "cut_by": r.cut_by,
        "reached_at": r.reached_at,
        "match": r.match,
    }


def limits_json(limits: Limits | None) -> dict[str, Any]:
    """What bounded the hits, for JSON: ``taken``, and with a budget ``budget_left`` (the
    tokens left after the hits, before any filling) and ``next_cost``."""
    if limits is None:
        return {}
    out: dict[str, Any] = {"taken": limits.taken}
    if limits.budget is not None:
        out["budget_left"] = limits.left
        out["next_cost"] = limits.next_cost
        if limits.reach is not None:
            out["budget_reach"] = limits.reach
    return out


# --------------------------------------------------------------------------- the rule


def answer(
    corpus: Corpus,
    question: str,
    evidence: Sequence[str] = (),
    *,
    ranking: Sequence[CorpusHit],
    k: int | None = DEFAULT_K,
    budget: int | None = None,
    known: Sequence[Span | None] = (),
    doc: str | None = None,
) -> CorpusAnswer:
    """The answer to ``question`` from every document of ``corpus`` (see the module for the rule),
    given its ``ranking`` (:meth:`Corpus.rank`; several ``k`` and budgets of one question share
    it).

    ``doc`` names the document the evidence is in (default: any; the only one of a corpus of
    one); ``known`` are the evidence spans known in that document (a query set's ``spans``).

    Evidence is located in the document named, or, when none is, in every document: a phrase then
    counts where it is covered, else where its chunk ranks best, else where it is first found.
    """
    if k is not None and k < 1:
        raise SettingsError(f"k must be at least 1, got {k}")
    if budget is not None and budget < 1:
        raise SettingsError(f"a token budget must be at least 1, got {budget}")
    names = corpus.names
    if doc is None and len(names) == 1:
        doc = names[0]
    if doc is not None:
        corpus.document(doc)  # a name not in the corpus fails here
    ranked: Sequence[CorpusHit] = ranking if isinstance(ranking, Ranking) else tuple(ranking)
    candidates = ranked[:k] if k is not None else ranked
    per: dict[str, list[Hit]] = {}
    pieces: dict[str, list[ContextPiece]] = {}
    costs: dict[str, int] = {}
    hits: tuple[CorpusHit, ...] = ()
    next_cost: int | None = None
    if budget is None:
        hits = tuple(candidates)
        for h in hits:
            per.setdefault(h.doc, []).append(h.hit)
        for name, hs in per.items():
            pieces[name] = corpus.pieces_in(name, hs)
            costs[name] = corpus.cost_in(name, pieces[name])
    else:
        spent = 0
        taken: list[CorpusHit] = []
        for h in candidates:
            trial = [*per.get(h.doc, []), h.hit]
            more = corpus.pieces_in(h.doc, trial)
            cost = corpus.cost_in(h.doc, more)
            added = cost - costs.get(h.doc, 0)
            if spent + added > budget:
                next_cost = added
                break
            spent += added
            per[h.doc], pieces[h.doc], costs[h.doc] = trial, more, cost
            taken.append(h)
        hits = tuple(taken)
    spent = sum(costs.values())
    limits = Limits(
        k=k,
        budget=budget,
        taken=len(hits),
        left=None if budget is None else budget - spent,
        next_cost=next_cost,
    )
    contexts: dict[str, list[Span]] = {
        name: [(p.start, p.end) for p in ps] for name, ps in pieces.items()
    }
    packed = dict(costs)  # what the hits cost before any filling
    widened: set[str] = set()
    if corpus.config.fill and budget is not None and pieces:
        widened = _fill(corpus, contexts, costs, budget)
    order = sorted(pieces, key=lambda name: per[name][0].rank)
    flat = sorted(
        (CorpusPiece.of(name, p) for name in order for p in pieces[name]),
        key=lambda p: p.ranks[0],
    )
    if widened:
        context = [(name, s, e) for name in order for s, e in contexts[name]]
    else:
        context = [(p.doc, p.start, p.end) for p in flat]
    checked = _check(corpus, evidence, ranked, contexts, known, doc, limits)
    far = max(
        (e.reached_at for _, results in checked.values() for e in results if e.reached_at),
        default=0,
    )
    if budget is not None and next_cost is None and k is not None and far > len(hits):
        # the budget did not run out within k: how far would it go were k lifted?
        limits = dataclasses.replace(
            limits, reach=_reach(corpus, ranked[len(hits) : far], per, packed, budget)
        )
        checked = {
            name: (doc_ranking, [_recut(e, limits) for e in results])
            for name, (doc_ranking, results) in checked.items()
        }
    answers: dict[str, Answer] = {}
    for name, (doc_ranking, results) in checked.items():
        if name in per or name == doc:
            answers[name] = Answer(
                question=question,
                config=corpus.config,
                k=k,
                budget=budget,
                ranking=doc_ranking,
                hits=tuple(per.get(name, ())),
                pieces=tuple(pieces.get(name, ())),
                context=tuple(contexts.get(name, ())),
                tokens=costs.get(name, 0),
                widened=name in widened,
                evidence=tuple(results),
                limits=limits,
            )
    return CorpusAnswer(
        question=question,
        config=corpus.config,
        k=k,
        budget=budget,
        documents=names,
        ranking=ranked,
        hits=tuple(hits),
        pieces=tuple(flat),
        context=tuple(context),
        tokens=sum(costs.values()),
        widened=bool(widened),
        evidence=tuple(_pick(names, checked, doc)),
        limits=limits,
        doc=doc,
        answers=answers,
    )


def _reach(
    corpus: Corpus,
    more: Sequence[CorpusHit],
    per: Mapping[str, list[Hit]],
    costs: Mapping[str, int],
    budget: int,
) -> int:
    """How many hits the budget takes when the packing of the hits (``per``, costing ``costs``)
    goes on over ``more`` (the ranking past them), up to the first that would overflow."""
    per = {name: list(hs) for name, hs in per.items()}
    costs = dict(costs)
    spent = sum(costs.values())
    taken = sum(len(hs) for hs in per.values())
    for h in more:
        trial = [*per.get(h.doc, []), h.hit]
        cost = corpus.cost_in(h.doc, corpus.pieces_in(h.doc, trial))
        added = cost - costs.get(h.doc, 0)
        if spent + added > budget:
            break
        spent += added
        per[h.doc], costs[h.doc] = trial, cost
        taken += 1
    return taken


def _recut(e: Evidence, limits: Limits) -> Evidence:
    return dataclasses.replace(e, cut_by=limits.cut(e.reached_at)) if e.cut_by else e


def _fill(
    corpus: Corpus, contexts: dict[str, list[Span]], costs: dict[str, int], budget: int
) -> set[str]:
    """Widen each document's context with its share of the tokens left (in place); the
    documents whose context grew."""
    unions = {name: union(ctx) for name, ctx in contexts.items()}
    units = {name: corpus.units(name) for name in contexts}
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
    corpus: Corpus,
    evidence: Sequence[str],
    ranked: Sequence[CorpusHit],
    contexts: Mapping[str, Sequence[Span]],
    known: Sequence[Span | None],
    doc: str | None,
    limits: Limits,
) -> dict[str, tuple[tuple[Hit, ...], list[Evidence]]]:
    """Each document's chunks in corpus order, and the evidence checked in it: in ``doc``
    only when one is named, else in every document; each phrase found but not covered says what
    kept it out."""
    wanted = {  # the documents whose part is answered or whose evidence is checked
        name
        for name in corpus.names
        if name in contexts or name == doc or (doc is None and any(p.strip() for p in evidence))
    }
    by_doc: dict[str, list[CorpusHit]]
    if isinstance(ranked, Ranking):
        by_doc = ranked.by_doc([name for name in corpus.names if name in wanted])
    else:
        by_doc = {name: [] for name in corpus.names if name in wanted}
        for h in ranked:
            if h.doc in by_doc:
                by_doc[h.doc].append(h)
    out: dict[str, tuple[tuple[Hit, ...], list[Evidence]]] = {}
    phrased = any(p.strip() for p in evidence)  # the rendered page is read for a phrase only
    for name in corpus.names:
        if name not in wanted:  # neither answered nor searched: nothing it says is read
            continue
        results: list[Evidence] = []
        if doc is None or name == doc:
            results = [
                _cut(e, name, by_doc[name], corpus, limits)
                for e in check(
                    evidence,
                    corpus.document(name).text,
                    corpus.chunks_of(name),
                    by_doc[name],
                    context=contexts.get(name, ()),
                    known=known if name == doc else (),
                    rendered=corpus.rendered(name) if phrased else None,
                )
            ]
        hits = tuple(h.hit for h in by_doc[name]) if name in contexts or name == doc else ()
        out[name] = (hits, results)
    return out


def _cut(
    e: Evidence, name: str, ranked: Sequence[CorpusHit], corpus: Corpus, limits: Limits
) -> Evidence:
    """``e``, found in document ``name`` (whose chunks ``ranked`` are in corpus order), with
    what keeps it out: the rank from which the top hits' context holds it, and the constraint
    whose relaxing alone would take the hits to that rank."""
    if not e.found:
        return e
    if e.covered:
        return dataclasses.replace(e, doc=name)
    at = _reached_at(e, name, ranked, corpus)
    return dataclasses.replace(e, doc=name, reached_at=at, cut_by=limits.cut(at))


def _reached_at(e: Evidence, name: str, ranked: Sequence[CorpusHit], corpus: Corpus) -> int | None:
    """The corpus rank of the fewest of the document's best-ranked chunks whose context (without
    filling) holds an occurrence of ``e``: its best chunk's rank, or sooner where neighbours, a
    section, a table's header rows or two retrieved neighbours hold it (``None``: none do).
    Coverage never falls as hits are added, so the fewest is found by halving."""

    def holds(n: int) -> bool:
        pieces = corpus.pieces_in(name, [h.hit for h in ranked[:n]])
        merged = union([(p.start, p.end) for p in pieces])
        return any(covered_by(sp, merged) for sp in e.spans)

    hi = len(ranked)
    if e.best_rank is not None:
        hi = next(i + 1 for i, h in enumerate(ranked) if h.rank == e.best_rank)
    elif not holds(hi):
        return None
    lo = 0  # holds(lo) is false (no hit holds it), holds(hi) is true
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if holds(mid):
            hi = mid
        else:
            lo = mid
    return ranked[hi - 1].rank


def _pick(
    names: Sequence[str],
    checked: Mapping[str, tuple[tuple[Hit, ...], list[Evidence]]],
    doc: str | None,
) -> list[Evidence]:
    """Each phrase where it counts: in ``doc`` when named; else where it is covered, else where
    its chunk ranks best, else where it is first found (in corpus order)."""
    places = [name for name in names if name in checked and (doc is None or name == doc)]
    lists = [checked[name][1] for name in places]
    out = []
    for i in range(len(lists[0]) if lists else 0):
        here = [lst[i] for lst in lists]
        j = min(range(len(here)), key=lambda j: _standing(here[j], j))
        e = here[j]
        out.append(dataclasses.replace(e, doc=places[j] if e.found else None))
    return out


def _standing(e: Evidence, order: int) -> tuple[bool, bool, bool, int, int]:
    """Sorts where a phrase counts first: covered, found, ranked, best ranked, earliest."""
    return (not e.covered, not e.found, e.best_rank is None, e.best_rank or 0, order)
