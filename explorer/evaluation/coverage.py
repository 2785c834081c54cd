"""Evaluation: does retrieval return the evidence each question needs?

A *query set* is a JSON list of ``{"id", "doc", "query", "evidence": [...]}`` objects (other
fields are ignored, except an optional ``spans`` list of ``[start, end]`` per evidence phrase);
``doc`` names a file in the documents folder.

Metrics, per query and averaged over the queries that have evidence we can locate:

* ``coverage@k`` — 1 when every located evidence phrase has an occurrence lying wholly inside
  the context of the top-k hits (a phrase straddling two retrieved neighbours counts).
* ``coverage@B`` — the same with a token budget: hits are taken in rank order while the context
  they make costs at most B cl100k tokens (the first hit that would overflow stops it).

Both are read from the answers :func:`explorer.answer.answer` gives — the app's and
``explorer query``'s — at each k (no budget) and at each budget (no k), so an evaluation measures
exactly what the app shows; "covered" is :attr:`explorer.retrieval.evidence.Verdict.covered`.
* ``recall@k``, ``precision@k`` and ``iou@k`` — Chroma's token-level measures (Smith &
  Troynikov, 2024, "Evaluating Chunking Strategies for Retrieval"), counted in characters of the
  document text as Chroma's own evaluation code counts them (``chunking_evaluation``'s
  ``_scores_from_dataset_and_retrievals`` works on character offsets, though the report writes
  "tokens"). With *E* the evidence characters (the union of the phrases' best occurrences), *R*
  the retrieved characters (the union of what the top k hits bring) and Σ|r| the length of the
  retrieved spans summed *with multiplicity* (two overlapping chunks count their shared part
  twice, as Chroma's denominator does):

  - ``recall = |E ∩ R| / |E|``;
  - ``precision = |E ∩ R| / Σ|r|``;
  - ``iou = |E ∩ R| / (Σ|r| + |E − R|)`` — ``|E ∪ R|`` when no two hits overlap, and larger when
    they do, so redundant hits are penalised.

  In corpus scope, characters retrieved from other documents count in Σ|r|.
* ``mrr@k`` — the reciprocal rank of the first of the top k hits that *holds an evidence phrase
  whole* (some occurrence of some located phrase lies inside what that hit brings), 0 when none
  does. This follows chonkie's mtcb (a hit is relevant when the passage is in the retrieved
  chunk) and sentence-transformers' ``InformationRetrievalEvaluator`` (several relevant items: the
  first one found counts): a question with several phrases is answered "first" by the first hit
  holding any one of them. A phrase longer than every chunk is never held whole; such a question
  has an MRR of 0 even when its coverage is 1 (its phrase straddles retrieved neighbours).

Evidence that cannot be located in the document is counted apart: never a hit, never a miss. A
phrase that occurs more than once is scored on its best-covered occurrence, unless the query set
gives its span.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from statistics import fmean
from typing import TYPE_CHECKING, Any

from explorer.answer import Answer, CorpusAnswer, answer, hit_json
from explorer.chunking.edits import Edit, Edits, edits_json, retrievable
from explorer.chunking.measures import get_measure
from explorer.chunking.records import Chunk
from explorer.config import Config
from explorer.corpus import Corpus
from explorer.errors import EditError, SettingsError
from explorer.evaluation.queries import Query
from explorer.progress import Progress, quiet, scaled
from explorer.retrieval.context import Span, union
from explorer.workspace import Workspace

if TYPE_CHECKING:
    from explorer.retrieval.embeddings import Vectors

SCOPES = ("document", "corpus")
"""Where a question's answer is retrieved from: the document it names, or every document."""
DEFAULT_KS = (1, 3, 5)
DEFAULT_BUDGETS = (512, 1024)


# --------------------------------------------------------------------------- metrics


def _overlap_len(a: Span, merged: Sequence[Span]) -> int:
    return sum(max(0, min(a[1], e) - max(a[0], s)) for s, e in merged)


def reciprocal_rank(
    located: Sequence[Sequence[Span]], brought: Sequence[Sequence[Span]], *, k: int
) -> float:
    """``1 / rank`` of the first of the top ``k`` hits whose spans (``brought[rank - 1]``: what
    that hit brings into the context, in the query's document) hold some occurrence of some
    located phrase whole; 0.0 when none of them does (see the module's ``mrr@k``)."""
    occurrences = [o for occ in located for o in occ]
    for rank, spans in enumerate(brought[:k], 1):
        if any(s <= o[0] and o[1] <= e for s, e in spans for o in occurrences):
            return 1.0 / rank
    return 0.0


def char_metrics(
    located: Sequence[Sequence[Span]], retrieved: Sequence[Span], *, elsewhere: int = 0
) -> tuple[float, float, float]:
    """Recall, precision and IoU of the evidence characters in ``retrieved`` (the module's
    definitions: ``|E∩R|/|E|``, ``|E∩R|/Σ|r|``, ``|E∩R|/(Σ|r| + |E−R|)``).

    ``retrieved`` are the spans each hit brings, counted *with multiplicity* for precision and
    IoU (as Chroma's evaluation counts overlapping chunks); each phrase is scored on its
    best-covered occurrence. ``elsewhere`` are characters retrieved from other documents (in a
    corpus): they hold none of the evidence but count as retrieved.
    """
    phrases = [occ for occ in located if occ]
    merged = union(retrieved)
    best = [
        max(occ, key=lambda o: (_overlap_len(o, merged) / max(1, o[1] - o[0]), -o[0]))
        for occ in phrases
    ]
    evidence = union(best)
    total = sum(e - s for s, e in evidence)
    inter = sum(_overlap_len(sp, merged) for sp in evidence)
    size = sum(e - s for s, e in retrieved) + elsewhere
    recall = inter / total if total else 0.0
    precision = inter / size if size else 0.0
    iou = inter / (size + total - inter) if size + total else 0.0
    return recall, precision, iou


@dataclass(frozen=True)
class QueryResult:
    """One query's answers at every k and budget of a report.

    In corpus scope, ``at_k`` and ``at_budget`` hold the part of each corpus answer that lies in
    the query's document (:attr:`explorer.corpus.CorpusAnswer.answers`: its hits with their
    corpus ranks, its context, the evidence located in it), so coverage reads the same in both
    scopes; the whole answers are in ``corpus_at_k`` and ``corpus_at_budget``.
    """

    query: Query
    located: tuple[tuple[Span, ...], ...]
    """Occurrences of each evidence phrase (empty where it could not be located)."""
    at_k: Mapping[int, Answer]
    """The answer with the top k hits, no budget."""
    at_budget: Mapping[int, Answer]
    """The answer within each token budget, no k."""
    chunk_spans: tuple[Span, ...]
    """What each of the first hits brings into the context (widened), in rank order; in corpus
    scope, a hit in another document brings ``(0, 0)`` (nothing of this document)."""
    recall_at_k: Mapping[int, float]
    precision_at_k: Mapping[int, float]
    iou_at_k: Mapping[int, float]
    mrr_at_k: Mapping[int, float] = field(default_factory=dict)
    """The reciprocal rank of the first hit holding an evidence phrase whole, within k."""
    corpus_at_k: Mapping[int, CorpusAnswer] = field(default_factory=dict)
    """In corpus scope, the answer from every document with the top k hits (else empty)."""
    corpus_at_budget: Mapping[int, CorpusAnswer] = field(default_factory=dict)

    @property
    def scored(self) -> bool:
        """At least one evidence phrase was located, so the query counts in the averages."""
        return any(self.located)

    @property
    def hits(self) -> tuple[Any, ...]:
        """The ranking, as far as any answer of this result reaches."""
        answers = [*self.at_k.values(), *self.at_budget.values()]
        ranking = answers[0].ranking if answers else ()
        return tuple(ranking[: max((len(a.hits) for a in answers), default=0)])

    @property
    def covered_at_k(self) -> dict[int, bool]:
        return {k: a.covered for k, a in self.at_k.items()}

    @property
    def covered_at_budget(self) -> dict[int, bool]:
        return {b: a.covered for b, a in self.at_budget.items()}


# --------------------------------------------------------------------------- running


@dataclass(frozen=True)
class Timing:
    """How long an evaluation's questions took and what it embedded."""

    query_ms: tuple[float, ...] = ()
    """Each question's answers at every k and budget (one ranking, every answer, the metrics),
    in milliseconds, in the order of the questions; the question's embedding is not counted."""
    embedded: int = 0
    """Texts the embedding model embedded during the evaluation (passages or chunks, sentence
    groups of the semantic splitter, questions): 0 when all were in memory or the lasting
    index."""

    def percentile(self, share: float) -> float:
        """The query time below which ``share`` of the questions fall (nearest rank below; 0.0
        without a question)."""
        if not self.query_ms:
            return 0.0
        ordered = sorted(self.query_ms)
        return ordered[int(share * (len(ordered) - 1))]

    def to_json(self) -> dict[str, Any]:
        return {
            "query_ms_p50": round(self.percentile(0.5), 3),
            "query_ms_p95": round(self.percentile(0.95), 3),
            "queries": len(self.query_ms),
            "embedded": self.embedded,
        }


@dataclass(frozen=True)
class EvalReport:
    config: Config
    ks: tuple[int, ...]
    budgets: tuple[int, ...]
    results: tuple[QueryResult, ...]
    chunks: int
    """Chunks made over all documents searched (those the queries name, or the corpus)."""
    index_tokens: int
    """cl100k tokens over all those chunks (what an index would hold)."""
    scope: str = "document"
    """``document``: each question retrieves from the document it names; ``corpus``: from all
    of :attr:`documents`."""
    documents: tuple[str, ...] = ()
    """The documents searched: those the queries name, or the whole corpus."""
    edits: tuple[tuple[str, Edits], ...] = ()
    """What-if edits to the documents' chunkings, by document (:mod:`explorer.chunking.edits`)."""
    timing: Timing = field(default_factory=Timing)
    """How long the questions took and what was embedded (not part of what is measured)."""

    def _mean_of(self, metric: str, key: int) -> float:
        scored = [r for r in self.results if r.scored]
        return fmean(float(getattr(r, metric)[key]) for r in scored) if scored else 0.0

    @property
    def coverage_at_k(self) -> dict[int, float]:
        return {k: self._mean_of("covered_at_k", k) for k in self.ks}

    @property
    def coverage_at_budget(self) -> dict[int, float]:
        return {b: self._mean_of("covered_at_budget", b) for b in self.budgets}

    def mean_at_k(self, metric: str) -> dict[int, float]:
        return {k: self._mean_of(metric, k) for k in self.ks}

    def counts(self) -> dict[str, int]:
        phrases = sum(len(r.located) for r in self.results)
        missing = sum(1 for r in self.results for occ in r.located if not occ)
        return {
            "queries": len(self.results),
            "scored_queries": sum(1 for r in self.results if r.scored),
            "evidence_phrases": phrases,
            "not_located": missing,
            "chunks": self.chunks,
            "index_tokens": self.index_tokens,
        }

    def to_json(self, workspace: Workspace | None = None) -> dict[str, Any]:
        """The report as JSON; with ``workspace``, each answer lists its hits in full."""
        count = get_measure("tokens").count

        def cuts(a: Answer) -> list[dict[str, Any]]:
            """Each phrase: covered, its best chunk's rank, and what cut it when it is not."""
            return [
                {"phrase": e.phrase, "covered": e.covered, "rank": e.best_rank, "cut_by": e.cut_by}
                for e in a.evidence
            ]

        def answer(r: QueryResult, a: Answer, whole: CorpusAnswer | None) -> dict[str, Any]:
            if whole is not None:  # corpus scope: the context and hits of every document
                return {
                    "context": [list(sp) for sp in whole.context],
                    "tokens": whole.tokens,
                    "covered": a.covered,
                    "verdict": None if whole.verdict is None else whole.verdict.sentence(),
                    "evidence": cuts(a),
                    "hits": [
                        {"doc": h.doc, **hit_json(h.hit, chunks(h.doc)[h.index], count)}
                        if workspace is not None
                        else [h.doc, h.rank]
                        for h in whole.hits
                    ],
                }
            out: dict[str, Any] = {
                "context": [list(sp) for sp in a.context],
                "tokens": a.tokens,
                "covered": a.covered,
                "verdict": None if a.verdict is None else a.verdict.sentence(),
                "evidence": cuts(a),
            }
            if workspace is not None:
                out["hits"] = [hit_json(h, chunks(r.query.doc)[h.index], count) for h in a.hits]
            else:
                out["hits"] = [h.rank for h in a.hits]
            return out

        def chunks(name: str) -> list[Chunk]:
            assert workspace is not None
            return workspace.chunks(name, self.config, edits=dict(self.edits).get(name, ()))

        return {
            "scope": self.scope,
            "documents": list(self.documents),
            "config": self.config.to_json(),
            "edits": {name: edits_json(e) for name, e in self.edits},
            "ks": list(self.ks),
            "budgets": list(self.budgets),
            "counts": self.counts(),
            "timing": self.timing.to_json(),
            "coverage_at_k": {str(k): v for k, v in self.coverage_at_k.items()},
            "coverage_at_budget": {str(b): v for b, v in self.coverage_at_budget.items()},
            "recall_at_k": {str(k): v for k, v in self.mean_at_k("recall_at_k").items()},
            "precision_at_k": {str(k): v for k, v in self.mean_at_k("precision_at_k").items()},
            "iou_at_k": {str(k): v for k, v in self.mean_at_k("iou_at_k").items()},
            "mrr_at_k": {str(k): v for k, v in self.mean_at_k("mrr_at_k").items()},
            "per_query": [
                {
                    "id": r.query.id,
                    "doc": r.query.doc,
                    "question": r.query.query,
                    "covered_at_k": {str(k): v for k, v in r.covered_at_k.items()},
                    "covered_at_budget": {str(b): v for b, v in r.covered_at_budget.items()},
                    "evidence": [
                        {
                            "phrase": e.phrase,
                            "located": e.found,
                            "spans": [list(o) for o in e.spans],
                        }
                        for e in next(iter(r.at_k.values())).evidence
                    ],
                    "at_k": {str(k): answer(r, a, r.corpus_at_k.get(k)) for k, a in r.at_k.items()},
                    "at_budget": {
                        str(b): answer(r, a, r.corpus_at_budget.get(b))
                        for b, a in r.at_budget.items()
                    },
                }
                for r in self.results
            ],
        }


def check_points(
    ks: Iterable[int], budgets: Iterable[int]
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The sorted distinct ks and budgets; each must be at least 1."""
    ks_, budgets_ = tuple(sorted(set(ks))), tuple(sorted(set(budgets)))
    if not ks_ or ks_[0] < 1:
        raise SettingsError("every k must be at least 1")
    if budgets_ and budgets_[0] < 1:
        raise SettingsError("every token budget must be at least 1")
    return ks_, budgets_


def score(
    query: Query,
    corpus: Corpus,
    ks: Sequence[int],
    budgets: Sequence[int],
    *,
    vector: Vectors | None = None,
    whole: bool = False,
) -> QueryResult:
    """One query's answers at every k and budget, from one ranking of ``corpus``'s chunks (its
    one document's in document scope) for the query and its ``vector`` (the query embedded by
    the configuration's model; ``None`` for BM25), the evidence located in the document the
    query names. Coverage, recall and the ranks needed are read in that document; characters
    retrieved from others count as retrieved. ``whole`` keeps the corpus's whole answers (corpus
    scope)."""
    name = query.doc
    ranking = corpus.rank(query.query, vector)

    def ask(k: int | None, budget: int | None) -> CorpusAnswer:
        return answer(
            corpus,
            query.query,
            query.evidence,
            k=k,
            budget=budget,
            ranking=ranking,
            known=query.spans,
            doc=name,
        )

    whole_k = {k: ask(k, None) for k in ks}
    whole_b = {b: ask(None, b) for b in budgets}
    at_k = {k: a.answers[name] for k, a in whole_k.items()}
    at_budget = {b: a.answers[name] for b, a in whole_b.items()}
    located = tuple(e.spans for e in at_k[ks[0]].evidence)
    deepest = max((len(a.hits) for a in [*whole_k.values(), *whole_b.values()]), default=0)
    # what each hit brings on its own (widened, with its headers), to rank phrases and to count
    # retrieved characters with multiplicity
    own = [corpus.pieces([h], merge=False) for h in ranking[: max(deepest, max(ks))]]
    metrics = {}
    for k in ks:
        here = [(p.start, p.end) for ps in own[:k] for p in ps if p.doc == name]
        other = sum(p.end - p.start for ps in own[:k] for p in ps if p.doc != name)
        metrics[k] = char_metrics(located, here, elsewhere=other)
    brought = [[(p.start, p.end) for p in ps if p.doc == name] for ps in own]
    return QueryResult(
        query=query,
        located=located,
        at_k=at_k,
        at_budget=at_budget,
        chunk_spans=tuple((ps[0].start, ps[0].end) if ps[0].doc == name else (0, 0) for ps in own),
        recall_at_k={k: m[0] for k, m in metrics.items()},
        precision_at_k={k: m[1] for k, m in metrics.items()},
        iou_at_k={k: m[2] for k, m in metrics.items()},
        mrr_at_k={k: reciprocal_rank(located, brought, k=k) for k in ks},
        corpus_at_k=whole_k if whole else {},
        corpus_at_budget=whole_b if whole else {},
    )


def evaluate(
    queries: Sequence[Query],
    workspace: Workspace,
    config: Config,
    *,
    ks: Sequence[int] = DEFAULT_KS,
    budgets: Sequence[int] = DEFAULT_BUDGETS,
    progress: Progress = quiet,
    scope: str = "document",
    edits: Mapping[str, Sequence[Edit]] | None = None,
) -> EvalReport:
    """Chunk every document searched, answer each query at every k and budget, and score it.
    ``progress`` moves through chunking, embedding and the queries; ``edits`` are what-if edits
    to the chunkings, by document name.

    ``scope="document"``: each query retrieves from the document it names (only those are
    chunked); ``"corpus"``: from every document of the workspace (:meth:`Workspace.names`) at
    once, as one :class:`~explorer.corpus.Corpus`.
    """
    if scope not in SCOPES:
        raise SettingsError(f"unknown scope {scope!r}; choose one of {', '.join(SCOPES)}")
    ks, budgets = check_points(ks, budgets)
    if scope == "corpus":
        names = list(workspace.names())
        for q in queries:
            if q.doc not in names:
                workspace.document(q.doc)  # says where it was looked for
                names.append(q.doc)  # loaded by name, as in document scope
    else:
        names = sorted({q.doc for q in queries})
    edited = {n: tuple(e) for n, e in (edits or {}).items() if e}
    unknown = sorted(set(edited) - set(names))
    if unknown:
        raise EditError(f"edits given for {unknown[0]!r}, which no question searches")
    emb = workspace.embedder(config.model) if config.needs_model else None
    encoded = emb.encoded if emb is not None else 0
    workspace.prepare(names, config, scaled(progress, 0.0, 0.8), edits=edited)
    corpus = workspace.corpus(config, names, edits=edited) if scope == "corpus" else None
    results = []
    times: list[float] = []
    for n, q in enumerate(queries):
        progress(0.8 + 0.2 * n / max(len(queries), 1), f"query {q.id}")
        searched = (
            corpus
            if corpus is not None
            else workspace.corpus(config, [q.doc], edits={q.doc: edited.get(q.doc, ())})
        )
        vector = workspace.question_vector(q.query, config)  # first: the time is the answering
        started = time.perf_counter()
        results.append(score(q, searched, ks, budgets, vector=vector, whole=corpus is not None))
        times.append(1000 * (time.perf_counter() - started))
    progress(1.0, "done")
    timing = Timing(tuple(times), emb.encoded - encoded if emb is not None else 0)
    all_chunks = [
        c
        for name in names
        for c in retrievable(workspace.chunks(name, config, edits=edited.get(name, ())))
    ]
    count = get_measure("tokens").count
    return EvalReport(
        config=config,
        ks=ks,
        budgets=budgets,
        results=tuple(results),
        chunks=len(all_chunks),
        index_tokens=sum(count(c.text) for c in all_chunks),
        scope=scope,
        documents=tuple(names),
        edits=tuple(sorted(edited.items())),
        timing=timing,
    )


def flipped(a: EvalReport, b: EvalReport, *, k: int) -> list[tuple[str, bool, bool]]:
    """Queries whose coverage@k differs between two reports: ``(id, in_a, in_b)``."""
    by_id = {r.query.id: r for r in b.results}
    out = []
    for r in a.results:
        other = by_id.get(r.query.id)
        if other is not None and r.covered_at_k.get(k) != other.covered_at_k.get(k):
            out.append((r.query.id, bool(r.covered_at_k.get(k)), bool(other.covered_at_k.get(k))))
    return out


def sweep_cells(sizes: Iterable[int], overlaps: Iterable[int]) -> list[tuple[int, int]]:
    """Every ``(size, overlap)`` pair with ``overlap < size``, sizes first, in the given order."""
    ss, os_ = list(dict.fromkeys(sizes)), list(dict.fromkeys(overlaps))
    return [(s, o) for s in ss for o in os_ if o < s]


def sweep(
    queries: Sequence[Query],
    workspace: Workspace,
    base: Config,
    *,
    sizes: Sequence[int],
    overlaps: Sequence[int],
    ks: Sequence[int] = DEFAULT_KS,
    budgets: Sequence[int] = DEFAULT_BUDGETS,
    progress: Progress = quiet,
    scope: str = "document",
) -> list[EvalReport]:
    """Evaluate every (size, overlap) cell with ``overlap < size`` (in ``scope``, as
    :func:`evaluate`); embeddings are shared."""
    cells = sweep_cells(sizes, overlaps)
    if not cells:
        raise SettingsError("the sweep has no cell with overlap smaller than size")
    reports = []
    for n, (size, overlap) in enumerate(cells):
        config = base.replace(size=size, overlap=overlap)
        where = f"cell {n + 1} of {len(cells)} (size {size}, overlap {overlap}): "
        inner = scaled(progress, n / len(cells), (n + 1) / len(cells), where)
        reports.append(
            evaluate(
                queries, workspace, config, ks=ks, budgets=budgets, progress=inner, scope=scope
            )
        )
    return reports


def summary_row(report: EvalReport) -> dict[str, Any]:
    """One flat row per report, for tables, charts and the sweep: its configuration's chunking
    and retriever, coverage at every k and budget, chunks and index tokens."""
    s = report.config.chunking
    row: dict[str, Any] = {
        "splitter": s.splitter,
        "unit": s.unit,
        "size": s.size,
        "overlap": s.overlap,
        "retriever": report.config.retriever,
    }
    for k, v in report.coverage_at_k.items():
        row[f"coverage@{k}"] = round(v, 4)
    for b, v in report.coverage_at_budget.items():
        row[f"coverage@{b} tokens"] = round(v, 4)
    k = max(report.ks)
    for metric in ("recall", "precision", "iou", "mrr"):
        row[f"{metric}@{k}"] = round(report.mean_at_k(f"{metric}_at_k")[k], 4)
    row["chunks"] = report.chunks
    row["index tokens"] = report.index_tokens
    return row
