"""Evaluation: does retrieval return the evidence each question needs?

A *query set* is a JSON list of ``{"id", "doc", "query", "evidence": [...]}`` objects (other
fields are ignored, except an optional ``spans`` list of ``[start, end]`` per evidence phrase);
``doc`` names a file in the documents folder.

Metrics, per query and averaged over the queries that have evidence we can locate:

* ``coverage@k`` — 1 when every located evidence phrase has an occurrence lying wholly inside
  the union of the top-k chunks' spans (a phrase straddling two retrieved neighbours counts).
* ``coverage@B`` — the same with a token budget: hits are taken in rank order while the running
  sum of their cl100k token counts stays ≤ B (the first hit that would overflow stops it).
* ``recall@k`` — evidence characters inside the retrieved union / all evidence characters.
* ``precision@k`` and ``iou@k`` — as in Chroma's chunking evaluation (Smith & Troynikov, 2024):
  retrieved characters are counted *with multiplicity* (overlapping chunks count twice), so
  ``precision = evidence ∩ retrieved / Σ len(retrieved chunks)`` and
  ``iou = evidence ∩ retrieved / (Σ len(retrieved chunks) + evidence not retrieved)``.

Evidence that cannot be located in the document is counted apart: never a hit, never a miss. A
phrase that occurs more than once is scored on its best-covered occurrence, unless the query set
gives its span.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from statistics import fmean
from typing import Any

from explorer.documents import Document, load_path
from explorer.errors import ExplorerError, SettingsError
from explorer.evidence import Span, locate, union
from explorer.measures import Units, get_measure
from explorer.retrieval import (
    CARRY,
    DENSE_SOURCES,
    RETRIEVERS,
    ChunkIndex,
    Hit,
    TableHeaders,
    check_carry,
    widen_to_budget,
)
from explorer.splitters import Chunk, ChunkSettings, chunk_ids, split

DEFAULT_KS = (1, 3, 5)
DEFAULT_BUDGETS = (512, 1024)


class QuerySetError(ExplorerError):
    """A query set file that cannot be used as it is."""


@dataclass(frozen=True)
class Query:
    id: str
    doc: str
    query: str
    evidence: tuple[str, ...]
    spans: tuple[Span | None, ...] = ()
    """Optional known location of each evidence phrase (``None`` where unknown)."""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id,
            "doc": self.doc,
            "query": self.query,
            "evidence": list(self.evidence),
        }
        if any(s is not None for s in self.spans):
            out["spans"] = [list(s) if s else None for s in self.spans]
        return out


def parse_queries(data: Any, *, source: str = "query set") -> list[Query]:
    """Validate decoded JSON into queries; every problem names the entry and the field."""
    if not isinstance(data, list):
        raise QuerySetError(f"{source}: expected a JSON list of queries, got {type(data).__name__}")
    queries: list[Query] = []
    seen: set[str] = set()
    for n, item in enumerate(data, 1):
        where = f"{source}: entry {n}"
        if not isinstance(item, dict):
            raise QuerySetError(f"{where} is not an object")
        for key in ("id", "doc", "query"):
            if not isinstance(item.get(key), str) or not item[key].strip():
                raise QuerySetError(f"{where}: {key!r} must be a non-empty string")
        qid = item["id"]
        if qid in seen:
            raise QuerySetError(f"{where}: duplicate id {qid!r}")
        seen.add(qid)
        evidence = item.get("evidence")
        if not isinstance(evidence, list) or not all(isinstance(e, str) for e in evidence):
            raise QuerySetError(f"{where} ({qid}): 'evidence' must be a list of strings")
        spans: list[Span | None] = []
        raw_spans = item.get("spans")
        if isinstance(raw_spans, list) and len(raw_spans) == len(evidence):
            for sp in raw_spans:
                ok = isinstance(sp, list) and len(sp) == 2 and all(isinstance(x, int) for x in sp)
                spans.append((sp[0], sp[1]) if ok else None)
        queries.append(
            Query(
                id=qid,
                doc=item["doc"],
                query=item["query"],
                evidence=tuple(e for e in evidence if e.strip()),
                spans=tuple(spans) if len(spans) == len(evidence) else (),
            )
        )
    return queries


def load_queries(path: str | Path) -> list[Query]:
    p = Path(path)
    try:
        raw = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise QuerySetError(f"{p}: no such query set file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise QuerySetError(f"{p}: cannot be read as UTF-8 text ({exc})") from None
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise QuerySetError(f"{p}: not valid JSON (line {exc.lineno}: {exc.msg})") from None
    return parse_queries(data, source=str(p))


def dump_queries(queries: Iterable[Query]) -> str:
    return json.dumps([q.to_json() for q in queries], ensure_ascii=False, indent=1) + "\n"


# --------------------------------------------------------------------------- configuration


@dataclass(frozen=True)
class EvalConfig:
    """A chunking configuration plus how it is retrieved."""

    settings: ChunkSettings = field(default_factory=ChunkSettings)
    retriever: str = "hybrid"
    heading_prefix: bool = True
    model: str = ""
    dense: str = "passages"
    """Where dense scores come from: the document's passages or each chunk whole (see
    :mod:`explorer.retrieval`)."""
    neighbours: int = 0
    """Small-to-big: each hit brings this many chunks on each side into the context."""
    merge: bool = False
    """Merge overlapping and adjacent hits, so the budget counts shared text once (always so
    with ``neighbours`` or ``table_headers``): the tokens an LLM would receive, not the sum of
    the hits' sizes."""
    table_headers: bool = False
    """A hit on a table's rows brings the table's header rows into the context too (their
    tokens are spent from the budget, once per table)."""
    carry: float = 0.0
    """Each chunk's score gains this share of the previous chunk's (see
    :func:`explorer.retrieval.carried`); 0 ranks by the chunks' own scores."""
    fill: bool = False
    """At a token budget, the tokens the whole hits leave unspent widen the context around them
    (see :func:`explorer.retrieval.widen_to_budget`), so text just past a boundary comes along;
    the context still costs at most the budget."""
    chunker: Callable[[Document], list[Chunk]] | None = field(default=None, compare=False)
    """Another library's splitter, for comparisons (``settings`` is then ignored)."""
    label: str = ""
    """A name for the configuration in reports (required with ``chunker``)."""

    def __post_init__(self) -> None:
        check_carry(self.carry)
        if self.neighbours < 0:
            raise SettingsError(f"neighbours must be 0 or more, got {self.neighbours}")
        if self.retriever not in RETRIEVERS:
            raise SettingsError(
                f"unknown retriever {self.retriever!r}; choose one of {', '.join(RETRIEVERS)}"
            )
        if self.dense not in DENSE_SOURCES:
            raise SettingsError(
                f"unknown dense source {self.dense!r}; choose one of {', '.join(DENSE_SOURCES)}"
            )

    @property
    def merges(self) -> bool:
        """The budget is spent on the merged context (see ``merge``)."""
        return self.merge or self.neighbours > 0 or self.table_headers or self.fill

    def key(self) -> str:
        return f"external:{self.label}" if self.chunker is not None else self.settings.key()

    def describe(self) -> dict[str, Any]:
        s = self.settings
        if self.chunker is not None:
            return {
                "splitter": self.label,
                "retriever": self.retriever,
                "dense": self.dense if self.retriever != "bm25" else None,
                "heading_prefix": self.heading_prefix,
                "neighbours": self.neighbours,
                "merge": self.merges,
                "table_headers": self.table_headers,
                "carry": self.carry,
                "fill": self.fill,
            }
        return {
            "splitter": s.splitter,
            "splitter_version": s.version,
            "unit": s.unit,
            "encoding": s.encoding if s.unit == "tokens" else None,
            "size": s.size,
            "overlap": s.overlap,
            "retriever": self.retriever,
            "dense": self.dense if self.retriever != "bm25" else None,
            "heading_prefix": self.heading_prefix,
            "neighbours": self.neighbours,
            "merge": self.merges,
            "table_headers": self.table_headers,
            "carry": self.carry,
            "fill": self.fill,
            "model": (self.model or "all-MiniLM-L6-v2") if self.retriever != "bm25" else None,
        }


RECOMMENDED = EvalConfig(
    settings=ChunkSettings(splitter="structure", unit="tokens", size=256, overlap=64),
    retriever="hybrid",
    dense="passages",
    heading_prefix=False,
    merge=True,
    table_headers=True,
    carry=CARRY,
    fill=True,
)
"""The configuration the README recommends: the best coverage at 512 and 1,024 tokens on our
query set, and the best at 512 on Chroma's benchmark, among those measured
(``python -m explorer.bench_eval``); it was then checked on six held-out sets. A heading prefix
raised coverage@1 but lowered coverage@512 on our questions with dense scores from passages (a
short passage's vector is much changed by a prefix), so it is off. Table headers cost a few
tokens per table hit and never lowered coverage on any set. The carry raised coverage@1024 over
the held-out sets and Chroma's (25 questions more, 8 fewer of 800) and left coverage@512 as it
was; filling the budget then added 13 at 512 tokens and 5 at 1,024, and cannot remove any."""


# --------------------------------------------------------------------------- metrics


def _overlap_len(a: Span, merged: Sequence[Span]) -> int:
    return sum(max(0, min(a[1], e) - max(a[0], s)) for s, e in merged)


@dataclass(frozen=True)
class QueryResult:
    query: Query
    located: tuple[tuple[Span, ...], ...]
    """Occurrences of each evidence phrase (empty where it could not be located)."""
    hits: tuple[Hit, ...]
    chunk_spans: tuple[Span, ...]
    """Span of each ranked hit, in rank order."""
    chunk_tokens: tuple[int, ...]
    covered_at_k: dict[int, bool]
    covered_at_budget: dict[int, bool]
    recall_at_k: dict[int, float]
    precision_at_k: dict[int, float]
    iou_at_k: dict[int, float]
    extra_spans: tuple[tuple[Span, ...], ...] | None = None
    """What each hit brings into the context besides its span (a table's header rows)."""
    budget_context: dict[int, tuple[Span, ...]] | None = None
    """With ``fill``: the context at each budget, the hits that fit widened to the budget."""

    @property
    def scored(self) -> bool:
        """At least one evidence phrase was located, so the query counts in the averages."""
        return any(self.located)


def budget_cut(tokens: Sequence[int], budget: int) -> int:
    """How many hits, taken in rank order, fit in ``budget`` tokens."""
    total = 0
    for n, t in enumerate(tokens):
        if total + t > budget:
            return n
        total += t
    return len(tokens)


def score_query(
    query: Query,
    located: Sequence[Sequence[Span]],
    chunk_spans: Sequence[Span],
    chunk_tokens: Sequence[int],
    *,
    ks: Sequence[int],
    budgets: Sequence[int],
    costs: Sequence[int] | None = None,
    extra_spans: Sequence[Sequence[Span]] | None = None,
    widen: Callable[[Sequence[Span], int], list[Span]] | None = None,
) -> dict[str, dict[int, Any]]:
    """The metrics of one query from its evidence occurrences and its ranked context spans.

    ``chunk_spans[i]`` is what hit ``i`` brings into the context, with ``extra_spans[i]`` when
    given (a table's header rows). The budget is spent on the hits' own token counts, or on
    ``costs[n - 1]``, the tokens of the first ``n`` hits' context when given (expanded contexts
    count shared text once). With ``widen``, the context of the hits that fit a budget is
    ``widen(spans, budget)`` (the tokens they leave spent around them); the result then has
    ``context_at_budget``.
    """
    phrases = [occ for occ in located if occ]

    def context(n: int) -> list[Span]:
        spans = list(chunk_spans[:n])
        if extra_spans is not None:
            spans += [sp for extra in extra_spans[:n] for sp in extra]
        return spans

    def holds(merged: Sequence[Span]) -> bool:
        return bool(phrases) and all(
            any(_overlap_len(o, merged) == o[1] - o[0] for o in occ) for occ in phrases
        )

    def covered(n: int) -> bool:
        return holds(union(context(n)))

    def fits(b: int) -> int:
        """How many hits fit budget ``b``."""
        if costs is None:
            return budget_cut(chunk_tokens, b)
        # the first hit whose context would overflow stops it (a cost can fall when a hit
        # joins two pieces that each counted a token cut between them)
        return next((n for n, cost in enumerate(costs) if cost > b), len(costs))

    def chars(n: int) -> tuple[float, float, float]:
        retrieved_spans = context(n)
        merged = union(retrieved_spans)
        # each phrase on its best-covered occurrence: the largest share of it retrieved, so a
        # phrase with a wholly retrieved occurrence (covered) has all its characters retrieved
        best = [
            max(occ, key=lambda o: (_overlap_len(o, merged) / max(1, o[1] - o[0]), -o[0]))
            for occ in phrases
        ]
        evidence = union(best)
        total = sum(e - s for s, e in evidence)
        inter = sum(_overlap_len(sp, merged) for sp in evidence)
        retrieved = sum(e - s for s, e in retrieved_spans)  # with multiplicity
        recall = inter / total if total else 0.0
        precision = inter / retrieved if retrieved else 0.0
        iou = inter / (retrieved + total - inter) if retrieved + total else 0.0
        return recall, precision, iou

    out: dict[str, dict[int, Any]] = {
        "covered_at_k": {k: covered(k) for k in ks},
        "covered_at_budget": {b: covered(fits(b)) for b in budgets},
        "recall_at_k": {},
        "precision_at_k": {},
        "iou_at_k": {},
    }
    if widen is not None:
        out["context_at_budget"] = {b: tuple(widen(context(fits(b)), b)) for b in budgets}
        out["covered_at_budget"] = {b: holds(out["context_at_budget"][b]) for b in budgets}
    for k in ks:
        r, p, i = chars(k)
        out["recall_at_k"][k], out["precision_at_k"][k], out["iou_at_k"][k] = r, p, i
    return out


def locate_evidence(query: Query, text: str) -> tuple[tuple[Span, ...], ...]:
    """Occurrences of each phrase; a span given by the query set wins when it matches the text."""
    out: list[tuple[Span, ...]] = []
    for i, phrase in enumerate(query.evidence):
        given = query.spans[i] if i < len(query.spans) else None
        occurrences = locate(phrase, text)
        if given is not None and given in occurrences:
            out.append((given,))
        else:
            out.append(tuple(occurrences))
    return tuple(out)


# --------------------------------------------------------------------------- running


Progress = Callable[[int, int, str], None]


@dataclass
class Workspace:
    """Loaded documents, chunks and token counts shared across queries and configurations."""

    docs_dir: Path | None
    """Where the queries' documents are read from (None: only ``documents``)."""
    embed_model: str = ""
    documents: Mapping[str, Document] = field(default_factory=dict)
    """Documents already loaded (such as uploads), by the name queries use; they win over files
    of the same name in ``docs_dir``."""
    _docs: dict[str, Document] = field(default_factory=dict)
    _chunks: dict[tuple[str, str], list[Chunk]] = field(default_factory=dict)
    _tokens: dict[str, int] = field(default_factory=dict)
    _units: dict[str, Units] = field(default_factory=dict)
    _headers: dict[str, TableHeaders] = field(default_factory=dict)
    _indexes: dict[tuple[str, str, bool, str], ChunkIndex] = field(default_factory=dict)

    def document(self, name: str) -> Document:
        if name in self.documents:
            return self.documents[name]
        if name not in self._docs:
            path = self.docs_dir / name if self.docs_dir is not None else None
            if path is None or not path.is_file():
                where = self.docs_dir if self.docs_dir is not None else "the loaded documents"
                raise QuerySetError(f"document {name!r} is not in {where}")
            self._docs[name] = load_path(path)
        return self._docs[name]

    def embedder(self) -> Any:
        from explorer.embeddings import embedder

        return embedder(self.embed_model or "all-MiniLM-L6-v2")

    def chunks(self, name: str, config: EvalConfig | ChunkSettings) -> list[Chunk]:
        if isinstance(config, ChunkSettings):
            config = EvalConfig(settings=config)
        key = (name, config.key())
        if key not in self._chunks:
            doc = self.document(name)
            if config.chunker is not None:
                self._chunks[key] = config.chunker(doc)
            else:
                settings = config.settings
                embed = self.embedder().embed if settings.splitter == "semantic" else None
                self._chunks[key] = split(doc, settings, embed=embed)
        return self._chunks[key]

    def index(self, name: str, config: EvalConfig) -> ChunkIndex:
        key = (name, config.key(), config.heading_prefix, config.dense)
        if key not in self._indexes:
            chunks = self.chunks(name, config)
            self._indexes[key] = ChunkIndex(
                chunks,
                embedder=self.embedder(),  # the model itself loads on the first dense query
                heading_prefix=config.heading_prefix,
                doc=self.document(name),
                dense=config.dense,
            )
        return self._indexes[key]

    def table_headers(self, name: str) -> TableHeaders:
        if name not in self._headers:
            self._headers[name] = TableHeaders.of(self.document(name))
        return self._headers[name]

    def doc_units(self, name: str) -> Units:
        """cl100k token units of a whole document (to count merged context text)."""
        if name not in self._units:
            self._units[name] = get_measure("tokens").units(self.document(name).text)
        return self._units[name]

    def tokens(self, chunk: Chunk) -> int:
        if chunk.id not in self._tokens:
            self._tokens[chunk.id] = get_measure("tokens").count(chunk.text)
        return self._tokens[chunk.id]


@dataclass(frozen=True)
class EvalReport:
    config: EvalConfig
    ks: tuple[int, ...]
    budgets: tuple[int, ...]
    results: tuple[QueryResult, ...]
    chunks: int
    """Chunks made over all documents the queries name."""
    index_tokens: int
    """cl100k tokens over all those chunks (what an index would hold)."""

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

    def to_json(self) -> dict[str, Any]:
        max_hits = max(self.ks)
        return {
            "config": self.config.describe(),
            "counts": self.counts(),
            "coverage_at_k": {str(k): v for k, v in self.coverage_at_k.items()},
            "coverage_at_budget": {str(b): v for b, v in self.coverage_at_budget.items()},
            "recall_at_k": {str(k): v for k, v in self.mean_at_k("recall_at_k").items()},
            "precision_at_k": {str(k): v for k, v in self.mean_at_k("precision_at_k").items()},
            "iou_at_k": {str(k): v for k, v in self.mean_at_k("iou_at_k").items()},
            "per_query": [
                {
                    "id": r.query.id,
                    "doc": r.query.doc,
                    "covered_at_k": {str(k): v for k, v in r.covered_at_k.items()},
                    "covered_at_budget": {str(b): v for b, v in r.covered_at_budget.items()},
                    **(
                        {
                            "context_at_budget": {
                                str(b): [list(sp) for sp in spans]
                                for b, spans in r.budget_context.items()
                            }
                        }
                        if r.budget_context is not None
                        else {}
                    ),
                    "evidence": [
                        {
                            "phrase": phrase,
                            "located": bool(occ),
                            "spans": [list(o) for o in occ],
                        }
                        for phrase, occ in zip(r.query.evidence, r.located, strict=True)
                    ],
                    "hits": [
                        {
                            "rank": h.rank,
                            "start": sp[0],
                            "end": sp[1],
                            "score": round(h.score, 6),
                            "carried": round(h.carried, 6),
                            "tokens": t,
                            **(
                                {"table_headers": [list(x) for x in r.extra_spans[i]]}
                                if r.extra_spans and r.extra_spans[i]
                                else {}
                            ),
                        }
                        for i, (h, sp, t) in enumerate(
                            zip(r.hits, r.chunk_spans, r.chunk_tokens, strict=True)
                        )
                    ][: max(max_hits, _hits_for_budget(r.chunk_tokens, self.budgets))],
                }
                for r in self.results
            ],
        }


def _widener(units: Units) -> Callable[[Sequence[Span], int], list[Span]]:
    def widen(spans: Sequence[Span], budget: int) -> list[Span]:
        return widen_to_budget(spans, units, budget)

    return widen


def _hits_for_budget(tokens: Sequence[int], budgets: Sequence[int]) -> int:
    """Enough hits to fill the largest budget, plus the one that would overflow it."""
    return min(len(tokens), budget_cut(tokens, max(budgets, default=0)) + 1)


def evaluate(
    queries: Sequence[Query],
    workspace: Workspace,
    config: EvalConfig,
    *,
    ks: Sequence[int] = DEFAULT_KS,
    budgets: Sequence[int] = DEFAULT_BUDGETS,
    progress: Progress | None = None,
) -> EvalReport:
    """Chunk every document the queries name, retrieve for each query, and score it."""
    ks = tuple(sorted(set(ks)))
    budgets = tuple(sorted(set(budgets)))
    if not ks or ks[0] < 1:
        raise SettingsError("every k must be at least 1")
    if budgets and budgets[0] < 1:
        raise SettingsError("every token budget must be at least 1")
    results = []
    for n, q in enumerate(queries):
        if progress is not None:
            progress(n, len(queries), q.id)
        doc = workspace.document(q.doc)
        index = workspace.index(q.doc, config)
        ranking = index.rank(q.query, config.retriever, carry=config.carry)
        chunks = index.chunks
        tokens = tuple(workspace.tokens(chunks[h.index]) for h in ranking)
        costs: list[int] | None = None
        extra: tuple[tuple[Span, ...], ...] | None = None
        if config.merges:
            n = config.neighbours
            spans = tuple(
                (chunks[max(0, h.index - n)].start, chunks[min(len(chunks) - 1, h.index + n)].end)
                for h in ranking
            )
            if config.table_headers:
                headers = workspace.table_headers(q.doc)
                extra = tuple(headers.for_span(s, e) for s, e in spans)
            units = workspace.doc_units(q.doc)
            costs = []
            top_budget = max(budgets, default=0)
            for i in range(len(spans)):
                merged = union([*spans[: i + 1], *(sp for x in (extra or ())[: i + 1] for sp in x)])
                costs.append(sum(units.size(s, e) for s, e in merged))
                if costs[-1] > top_budget and i + 1 >= max(ks):
                    break  # later prefixes cannot fit any budget
        else:
            spans = tuple((chunks[h.index].start, chunks[h.index].end) for h in ranking)
        located = locate_evidence(q, doc.text)
        widen = _widener(workspace.doc_units(q.doc)) if config.fill else None
        m = score_query(
            q,
            located,
            spans,
            tokens,
            ks=ks,
            budgets=budgets,
            costs=costs,
            extra_spans=extra,
            widen=widen,
        )
        results.append(
            QueryResult(
                query=q,
                located=located,
                hits=tuple(ranking),
                chunk_spans=spans,
                extra_spans=extra,
                chunk_tokens=tokens,
                covered_at_k=m["covered_at_k"],
                covered_at_budget=m["covered_at_budget"],
                recall_at_k=m["recall_at_k"],
                precision_at_k=m["precision_at_k"],
                iou_at_k=m["iou_at_k"],
                budget_context=m.get("context_at_budget"),
            )
        )
    if progress is not None:
        progress(len(queries), len(queries), "")
    names = sorted({q.doc for q in queries})
    all_chunks = [c for name in names for c in workspace.chunks(name, config)]
    return EvalReport(
        config=config,
        ks=ks,
        budgets=budgets,
        results=tuple(results),
        chunks=len(all_chunks),
        index_tokens=sum(workspace.tokens(c) for c in all_chunks),
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
    base: EvalConfig,
    *,
    sizes: Sequence[int],
    overlaps: Sequence[int],
    ks: Sequence[int] = DEFAULT_KS,
    budgets: Sequence[int] = DEFAULT_BUDGETS,
    progress: Progress | None = None,
) -> list[EvalReport]:
    """Evaluate every (size, overlap) cell with ``overlap < size``; embeddings are shared."""
    cells = sweep_cells(sizes, overlaps)
    if not cells:
        raise SettingsError("the sweep has no cell with overlap smaller than size")
    reports = []
    for n, (size, overlap) in enumerate(cells):
        if progress is not None:
            progress(n, len(cells), f"size {size}, overlap {overlap}")
        config = replace(base, settings=replace(base.settings, size=size, overlap=overlap))
        reports.append(evaluate(queries, workspace, config, ks=ks, budgets=budgets))
    if progress is not None:
        progress(len(cells), len(cells), "")
    return reports


def chunks_from_texts(doc: Document, texts: Sequence[str]) -> list[Chunk]:
    """Chunks of another library, located in ``doc.text`` in order (for comparisons).

    Each text is searched from just after the previous chunk's start, so repeated text maps to
    the right occurrence; a text that cannot be found raises ``ValueError``.
    """
    spans: list[tuple[int, int]] = []
    pos = 0
    for i, t in enumerate(texts):
        start = doc.text.find(t, pos)
        if start < 0:
            start = doc.text.find(t)
        if start < 0 or not t:
            raise ValueError(f"chunk {i} of another splitter is not in the document text")
        spans.append((start, start + len(t)))
        pos = start + 1
    out: list[Chunk] = []
    for i, ((start, end), cid) in enumerate(zip(spans, chunk_ids(doc, spans, "ext"), strict=True)):
        t = doc.text[start:end]
        page_start, page_end = doc.page_span(start, end)
        out.append(
            Chunk(
                id=cid,
                index=i,
                start=start,
                end=end,
                text=t,
                size=len(t),
                overlap=0,
                heading_path=doc.heading_path_at(start),
                page_start=page_start,
                page_end=page_end,
            )
        )
    return out


def summary_row(report: EvalReport) -> Mapping[str, Any]:
    """One flat row for tables and charts."""
    row: dict[str, Any] = {
        "splitter": report.config.label or report.config.settings.splitter,
        "unit": report.config.settings.unit,
        "size": report.config.settings.size,
        "overlap": report.config.settings.overlap,
        "retriever": report.config.retriever,
        "chunks": report.chunks,
        "index_tokens": report.index_tokens,
    }
    for k, v in report.coverage_at_k.items():
        row[f"coverage@{k}"] = round(v, 4)
    for b, v in report.coverage_at_budget.items():
        row[f"coverage@{b}tok"] = round(v, 4)
    return row
