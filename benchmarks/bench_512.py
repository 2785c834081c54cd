"""Issue 39: can the evidence fit in 512 tokens? ``python -m benchmarks.bench_512``.

Runs the recommended configuration and a set of *levers* on the issue's question sets, split in
``queries/SPLIT.md`` into sets developed on and sets only reported on, and prints per set and
scope coverage at 512 and 1,024 tokens and at k = 5, each lever against the recommended one with
the exact paired test and its interval (``explorer.evaluation.stats.compare_paired``), and the
presets (LangChain 1000/200, OpenAI 800/400, Chroma 200/0 and 400/0) at the same budgets.

Every lever ranks through the workspace's one ranker (``Corpus.rank``, the question embedded by
``Workspace.question_vector``) and answers through :func:`explorer.answer.answer` where it can:

* configuration levers (smaller chunks widened to their neighbours — a sentence window —,
  headings before what is embedded and indexed, the contextual header in BM25) are
  :class:`~explorer.config.Config` changes run by :func:`explorer.evaluation.coverage.evaluate`;
* ranking levers re-order the one ranking, then answer: ``dedup`` moves a chunk that
  near-copies a better-ranked one (word-trigram Jaccard ≥ 0.6) to the end; ``mmr`` is maximal
  marginal relevance (λ = 0.7, the same trigram similarity) over the top 30;
* ``pack`` keeps only the sentences of the top hits that the question needs: every sentence
  passage of the top 10 hits is scored by its cosine with the question (the passage vectors the
  dense ranking already holds) plus half its hit's normalised score, and passages are taken best
  first, each with the passage after it (``pack+next``), while their union fits the budget; what
  is left of the budget widens the stretches as ``fill`` does (``+fill``). The context is the
  union of those spans — what the LLM would receive — and coverage is read on it the way the
  verdict reads it (every located phrase has an occurrence inside one stretch). Without a budget
  packing changes nothing, so its cov@5 is the recommended one.

``--sets`` picks sets (default: all); ``--pooled FILE`` prints the tables pooled over the
develop sets and over the report-only sets of each scope from a ``--json`` file;
``--cache-dir`` keeps the embeddings between runs (one ``.npz`` per document folder's name);
``--json FILE`` writes every figure. Sets run in the order given; each row prints when known.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import re
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from explorer.answer import answer
from explorer.config import Config
from explorer.corpus import Corpus, CorpusHit
from explorer.evaluation.coverage import evaluate
from explorer.evaluation.presets import PRESETS
from explorer.evaluation.queries import Query, load_queries
from explorer.evaluation.stats import compare_paired
from explorer.retrieval.context import Span, union, widen_to_budget
from explorer.workspace import Workspace

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
DOCS = REPO / "queries" / "docs"
CHROMA = SHARED / "benchmarks" / "chroma-chunking-eval"
NPM = REPO / "queries" / "npm-docs"
UNDICI = REPO / "queries" / "undici-docs"

K = 5
BUDGETS = (512, 1024)


@dataclass(frozen=True)
class QuerySet:
    name: str
    path: Path
    docs: Path
    scopes: tuple[str, ...]
    develop: bool
    """Developed on (``queries/SPLIT.md``); else only reported."""


SETS = {
    s.name: s
    for s in (
        QuerySet("ours", REPO / "queries" / "boundary-questions.json", DOCS, ("document",), True),
        QuerySet("holdout", REPO / "queries" / "holdout-questions.json", DOCS, ("document",), True),
        QuerySet(
            "holdout2", REPO / "queries" / "holdout2-questions.json", DOCS, ("document",), True
        ),
        *(
            QuerySet(
                f"holdout{n}",
                REPO / "queries" / f"holdout{n}-questions.json",
                DOCS,
                ("document",),
                False,
            )
            for n in (3, 4, 5, 6)
        ),
        QuerySet("chroma", CHROMA / "questions.json", CHROMA / "docs", ("corpus",), False),
        QuerySet(
            "npm",
            REPO / "queries" / "npm-docs" / "questions.json",
            NPM,
            ("corpus", "document"),
            False,
        ),
        QuerySet(
            "undici",
            UNDICI / "questions.json",
            UNDICI,
            ("corpus", "document"),
            False,
        ),
    )
}

Outcome = tuple[bool, bool, bool]
"""Covered at k = 5, within 512 tokens, within 1,024 tokens."""


# --------------------------------------------------------------------------- ranking levers


def _trigrams(text: str) -> frozenset[tuple[str, ...]]:
    words = re.findall(r"\w+", text.lower())
    return frozenset(zip(words, words[1:], words[2:], strict=False))


def _jaccard(a: frozenset[Any], b: frozenset[Any]) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0


def _renumbered(hits: Sequence[CorpusHit]) -> list[CorpusHit]:
    return [dataclasses.replace(h, rank=i + 1) for i, h in enumerate(hits)]


def dedup(corpus: Corpus, ranking: Sequence[CorpusHit], *, top: int = 30) -> list[CorpusHit]:
    """The ranking with each of the first ``top`` chunks that near-copies a better-ranked kept one
    (trigram Jaccard ≥ 0.6) moved to the end of those ``top``."""
    head, rest = list(ranking[:top]), list(ranking[top:])
    kept: list[CorpusHit] = []
    moved: list[CorpusHit] = []
    seen: list[frozenset[tuple[str, ...]]] = []
    for h in head:
        grams = _trigrams(corpus.chunks_of(h.doc)[h.index].text)
        if any(_jaccard(grams, g) >= 0.6 for g in seen):
            moved.append(h)
        else:
            kept.append(h)
            seen.append(grams)
    return _renumbered(kept + moved + rest)


def mmr(
    corpus: Corpus, ranking: Sequence[CorpusHit], *, top: int = 30, lam: float = 0.7
) -> list[CorpusHit]:
    """Maximal marginal relevance over the first ``top``: relevance is the score min–max
    normalised, redundancy the trigram Jaccard with the chunks already chosen."""
    head, rest = list(ranking[:top]), list(ranking[top:])
    if not head:
        return list(ranking)
    hi, lo = head[0].score, head[-1].score
    rel = [(h.score - lo) / (hi - lo) if hi > lo else 1.0 for h in head]
    grams = [_trigrams(corpus.chunks_of(h.doc)[h.index].text) for h in head]
    chosen: list[int] = []
    left = list(range(len(head)))
    while left:
        best = max(
            left,
            key=lambda i: (
                lam * rel[i]
                - (1 - lam) * max((_jaccard(grams[i], grams[j]) for j in chosen), default=0.0)
            ),
        )
        chosen.append(best)
        left.remove(best)
    return _renumbered([head[i] for i in chosen] + rest)


Reorder = Callable[[Corpus, Sequence[CorpusHit]], Sequence[CorpusHit]]


# --------------------------------------------------------------------------- packing


def _merge_touching(spans: Sequence[Span], text: str) -> list[Span]:
    """Spans merged where they overlap or only white space lies between them (sent as one)."""
    out: list[Span] = []
    for s, e in sorted(spans):
        if out and (s <= out[-1][1] or not text[out[-1][1] : s].strip()):
            out[-1] = (out[-1][0], max(out[-1][1], e))
        else:
            out.append((s, e))
    return out


def pack(
    corpus: Corpus,
    ranking: Sequence[CorpusHit],
    vector: Any,
    budget: int,
    *,
    top: int = 10,
    following: bool = True,
    fill: bool = True,
) -> dict[str, list[Span]]:
    """The packed context within ``budget`` (see the module): by document, its stretches."""
    import numpy as np

    head = list(ranking[:top])
    if not head:
        return {}
    hi, lo = head[0].score, head[-1].score
    cands: list[tuple[float, str, int]] = []  # (score, doc, passage index)
    seen: set[tuple[str, int]] = set()
    sims: dict[str, Any] = {}
    for h in head:
        r = corpus.retriever(h.doc)
        if h.doc not in sims:
            sims[h.doc] = np.asarray(r.vectors()) @ np.asarray(vector).reshape(-1)
        a, b = r.held[h.index]
        hit_score = (h.score - lo) / (hi - lo) if hi > lo else 1.0
        for p in range(a, b):
            if (h.doc, p) not in seen:
                seen.add((h.doc, p))
                cands.append((float(sims[h.doc][p]) + 0.5 * hit_score, h.doc, p))
    cands.sort(key=lambda c: -c[0])
    spans: dict[str, list[Span]] = {}

    def cost(ctx: dict[str, list[Span]]) -> int:
        return sum(corpus.units(d).size(s, e) for d, ss in ctx.items() for s, e in union(ss))

    for _, doc, p in cands:
        ps = corpus.retriever(doc).passages
        add = [(ps[p].start, ps[p].end)]
        if following and p + 1 < len(ps):
            add.append((ps[p + 1].start, ps[p + 1].end))
        trial = {**spans, doc: [*spans.get(doc, []), *add]}
        if cost(trial) <= budget:
            spans = trial
        elif following:  # the passage alone may still fit
            trial = {**spans, doc: [*spans.get(doc, []), add[0]]}
            if cost(trial) <= budget:
                spans = trial
    out = {d: _merge_touching(ss, corpus.document(d).text) for d, ss in spans.items()}
    if fill and out:
        held = {d: sum(corpus.units(d).size(s, e) for s, e in ss) for d, ss in out.items()}
        share = (budget - sum(held.values())) // max(1, sum(len(ss) for ss in out.values()))
        if share > 0:
            out = {
                d: widen_to_budget(ss, corpus.units(d), held[d] + share * len(ss))
                for d, ss in out.items()
            }
    return out


def focus(
    corpus: Corpus,
    ranking: Sequence[CorpusHit],
    vector: Any,
    budget: int,
    *,
    top: int = 10,
    window: int = 160,
    fill: bool = True,
) -> dict[str, list[Span]]:
    """Query-aware trimming of each hit: the hits in rank order, each cut down to ``window``
    tokens of passages around its best passage (by cosine with the question), taken while their
    union fits ``budget``; what is left widens the stretches as ``fill`` does."""
    import numpy as np

    spans: dict[str, list[Span]] = {}
    sims: dict[str, Any] = {}

    def cost(ctx: dict[str, list[Span]]) -> int:
        return sum(corpus.units(d).size(s, e) for d, ss in ctx.items() for s, e in union(ss))

    for h in list(ranking[:top]):
        r = corpus.retriever(h.doc)
        if h.doc not in sims:
            sims[h.doc] = np.asarray(r.vectors()) @ np.asarray(vector).reshape(-1)
        a, b = r.held[h.index]
        if a >= b:
            continue
        ps, units = r.passages, corpus.units(h.doc)
        best = max(range(a, b), key=lambda p: float(sims[h.doc][p]))
        lo = hi = best
        while True:  # grow the window a passage at a time, after first, while it fits
            grown = False
            for nxt in (hi + 1, lo - 1):
                if a <= nxt < b:
                    nlo, nhi = min(lo, nxt), max(hi, nxt)
                    if units.size(ps[nlo].start, ps[nhi].end) <= window:
                        lo, hi, grown = nlo, nhi, True
            if not grown:
                break
        trial = {**spans, h.doc: [*spans.get(h.doc, []), (ps[lo].start, ps[hi].end)]}
        if cost(trial) > budget:
            break  # as the answer's rule: the first that does not fit stops it
        spans = trial
    out = {d: _merge_touching(ss, corpus.document(d).text) for d, ss in spans.items()}
    if fill and out:
        held = {d: sum(corpus.units(d).size(s, e) for s, e in ss) for d, ss in out.items()}
        share = (budget - sum(held.values())) // max(1, sum(len(ss) for ss in out.values()))
        if share > 0:
            out = {
                d: widen_to_budget(ss, corpus.units(d), held[d] + share * len(ss))
                for d, ss in out.items()
            }
    return out


def covered_in(located: Sequence[Sequence[Span]], stretches: Sequence[Span]) -> bool:
    """Every located phrase has an occurrence inside one stretch (phrases not found do not
    count, as :attr:`Verdict.covered` reads them)."""
    return all(
        any(any(s <= a and b <= e for s, e in stretches) for a, b in occ) for occ in located if occ
    )


# --------------------------------------------------------------------------- levers


@dataclass(frozen=True)
class Lever:
    name: str
    config: Config = dataclasses.field(default_factory=Config)
    reorder: Reorder | None = None
    packed: dict[str, Any] | None = None
    """``pack``'s options (``following``, ``fill``), or ``focus``'s (``window``, ``fill``, with
    ``"focus": True``); ``None``: neither."""
    corpus_only: bool = False


def levers() -> list[Lever]:
    base = Config()
    return [
        Lever("recommended (structure 256/64, hybrid, carry, fill)", base),
        Lever(
            "window: 128/32 chunks ±1 neighbour", base.replace(size=128, overlap=32, neighbours=1)
        ),
        Lever("window: 64/0 chunks ±2 neighbours", base.replace(size=64, overlap=0, neighbours=2)),
        Lever("smaller units: 128/32, no window", base.replace(size=128, overlap=32)),
        Lever("title > path header in embed + BM25", base.replace(context_header="embed+bm25")),
        Lever("dedup near-identical siblings", base, reorder=dedup),
        Lever("MMR λ=0.7 over top 30", base, reorder=mmr),
        Lever("pack sentences", base, packed={"following": False, "fill": False}),
        Lever("pack sentences + next", base, packed={"following": True, "fill": False}),
        Lever("pack sentences + next + fill", base, packed={"following": True, "fill": True}),
        *(
            Lever(
                f"focus: each hit cut to {w} tokens around its best sentence + fill",
                base,
                packed={"focus": True, "window": w, "fill": True},
            )
            for w in (96, 160)
        ),
        Lever(
            "dedup + pack + next + fill",
            base,
            reorder=dedup,
            packed={"following": True, "fill": True},
        ),
        *(
            Lever(f"preset {name}", PRESETS[name].config())
            for name in (
                "langchain-1000-200",
                "openai-800-400",
                "chroma-recursive-200",
                "chroma-recursive-400",
            )
        ),
    ]


def run_lever(
    lever: Lever, queries: Sequence[Query], ws: Workspace, scope: str
) -> dict[str, Outcome]:
    """Each scored question's outcome under ``lever``, by id."""
    if lever.reorder is None and lever.packed is None:
        report = evaluate(queries, ws, lever.config, ks=(K,), budgets=BUDGETS, scope=scope)
        return {
            r.query.id: (
                r.covered_at_k[K],
                r.covered_at_budget[BUDGETS[0]],
                r.covered_at_budget[BUDGETS[1]],
            )
            for r in report.results
            if r.scored
        }
    config = lever.config
    names = None
    if scope == "corpus":  # as evaluate() orders them
        names = list(ws.names())
        names += [d for d in dict.fromkeys(q.doc for q in queries) if d not in names]
    if names is not None:
        ws.prepare(names, config)
    out: dict[str, Outcome] = {}
    for q in queries:
        corpus = ws.corpus(config, names if names is not None else [q.doc])
        vector = ws.question_vector(q.query, config)
        ranking: Sequence[CorpusHit] = corpus.rank(q.query, vector)
        if lever.reorder is not None:
            ranking = lever.reorder(corpus, ranking)

        def ask(
            k: int | None,
            budget: int | None,
            corpus: Corpus = corpus,
            q: Query = q,
            ranking: Sequence[CorpusHit] = ranking,
        ) -> Any:
            return answer(
                corpus,
                q.query,
                q.evidence,
                ranking=ranking,
                k=k,
                budget=budget,
                known=q.spans,
                doc=q.doc,
            )

        at_k = ask(K, None)
        if not at_k.scored:
            continue
        if lever.packed is None:
            out[q.id] = (at_k.covered, ask(None, BUDGETS[0]).covered, ask(None, BUDGETS[1]).covered)
            continue
        located = [e.spans for e in at_k.evidence]
        within = []
        for b in BUDGETS:
            opts = dict(lever.packed)
            if opts.pop("focus", False):
                ctx = focus(corpus, ranking, vector, b, **opts)
            else:
                ctx = pack(corpus, ranking, vector, b, **opts)
            within.append(covered_in(located, ctx.get(q.doc, [])))
        out[q.id] = (at_k.covered, within[0], within[1])
    return out


# --------------------------------------------------------------------------- report


def _cell(base: dict[str, Outcome], other: dict[str, Outcome], i: int) -> dict[str, Any]:
    ids = sorted(base)
    c = compare_paired([base[q][i] for q in ids], [other[q][i] for q in ids], ids=ids)
    return {
        "coverage": round(c.coverage_b, 3),
        "base": round(c.coverage_a, 3),
        "gained": len(c.b_only),
        "lost": len(c.a_only),
        "p": c.p_value,
        "ci95": [round(x, 3) for x in c.ci95],
        "verdict": c.verdict,
    }


def _fmt(cell: dict[str, Any], first: bool) -> str:
    if first:
        return f"{cell['coverage']:.3f}"
    lo, hi = cell["ci95"]
    return (
        f"{cell['coverage']:.3f} (+{cell['gained']}/−{cell['lost']}, p {cell['p']:.2g}, "
        f"[{lo:+.3f}, {hi:+.3f}])"
    )


def pooled(figures: Sequence[dict[str, Any]]) -> list[str]:
    """Markdown tables of every lever pooled over the develop sets, the report-only sets in
    document scope and the report-only sets in corpus scope (questions paired set by set)."""
    base = {
        (f["set"], f["scope"]): f["covered"]
        for f in figures
        if f["lever"].startswith("recommended")
    }
    groups: dict[str, Callable[[dict[str, Any]], bool]] = {
        "develop (document scope)": lambda f: f["role"] == "develop",
        "report only, document scope": lambda f: (
            f["role"] != "develop" and f["scope"] == "document"
        ),
        "report only, corpus scope": lambda f: f["role"] != "develop" and f["scope"] == "corpus",
    }
    out: list[str] = []
    for title, keep in groups.items():
        sets = sorted({(f["set"], f["scope"]) for f in figures if keep(f)})
        if not sets:
            continue
        out += [f"\n**{title}**: {', '.join(s for s, _ in sets)}\n"]
        out += [
            "| lever | questions | cov@5 | within 512 | within 1,024 |",
            "|---|---:|---|---|---|",
        ]
        for lever in dict.fromkeys(f["lever"] for f in figures):
            rows = [f for f in figures if keep(f) and f["lever"] == lever]
            if {(f["set"], f["scope"]) for f in rows} != set(sets):
                continue
            ids: list[str] = []
            a: list[list[bool]] = [[], [], []]
            b: list[list[bool]] = [[], [], []]
            for f in rows:
                first = base[(f["set"], f["scope"])]
                for q, o in f["covered"].items():
                    if q in first:
                        ids.append(f"{f['set']}/{f['scope']}/{q}")
                        for i in range(3):
                            a[i].append(first[q][i])
                            b[i].append(o[i])
            cells = []
            for i in range(3):
                c = compare_paired(a[i], b[i], ids=ids)
                lo, hi = c.ci95
                cells.append(
                    f"{c.coverage_a:.3f}"
                    if lever.startswith("recommended")
                    else f"{c.coverage_b:.3f} (+{len(c.b_only)}/−{len(c.a_only)}, "
                    f"p {c.p_value:.2g}, [{lo:+.3f}, {hi:+.3f}])"
                )
            out.append(f"| {lever} | {len(ids)} | " + " | ".join(cells) + " |")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_512", description=__doc__)
    parser.add_argument("--sets", default=",".join(SETS), help=f"from {', '.join(SETS)}")
    parser.add_argument("--only", default="", help="run only levers whose name has this")
    parser.add_argument("--cache-dir", metavar="DIR", help="keep embeddings here between runs")
    parser.add_argument("--json", metavar="FILE", help="write every figure here")
    parser.add_argument(
        "--pooled", metavar="FILE", help="only print the pooled tables of a --json file"
    )
    args = parser.parse_args(argv)
    if args.pooled:
        print("\n".join(pooled(json.loads(Path(args.pooled).read_text(encoding="utf-8")))))
        return 0
    unknown = [s for s in args.sets.split(",") if s not in SETS]
    if unknown:
        print(f"error: unknown set {unknown[0]!r}; choose from {', '.join(SETS)}", file=sys.stderr)
        return 2
    cache = Path(args.cache_dir) if args.cache_dir else None
    if cache is not None:
        cache.mkdir(parents=True, exist_ok=True)
    spaces: dict[Path, Workspace] = {}
    figures: list[dict[str, Any]] = []
    print("| set | role | scope | lever | cov@5 | within 512 tokens | within 1,024 tokens |")
    print("|---|---|---|---|---|---|---|", flush=True)
    for set_name in args.sets.split(","):
        qs = SETS[set_name]
        queries = load_queries(qs.path)
        if qs.docs not in spaces:
            spaces[qs.docs] = Workspace(qs.docs)
            if cache is not None:
                npz = cache / f"{qs.docs.name}.npz"
                if npz.is_file():
                    spaces[qs.docs].embedder(Config().model).load(npz)
        ws = spaces[qs.docs]
        for scope in qs.scopes:
            base: dict[str, Outcome] | None = None
            for lever in levers():
                if args.only and args.only not in lever.name and base is not None:
                    continue
                if lever.corpus_only and scope != "corpus":
                    continue
                t0 = time.perf_counter()
                got = run_lever(lever, queries, ws, scope)
                dt = time.perf_counter() - t0
                first = base is None
                base = got if base is None else base
                cells = [_cell(base, got, i) for i in range(3)]
                role = "develop" if qs.develop else "report only"
                print(
                    f"| {set_name} ({len(got)}) | {role} | {scope} | {lever.name} | "
                    + " | ".join(_fmt(c, first) for c in cells)
                    + f" |  <!-- {dt:.0f} s -->",
                    flush=True,
                )
                figures.append(
                    {
                        "set": set_name,
                        "role": role,
                        "scope": scope,
                        "lever": lever.name,
                        "questions": len(got),
                        "cov@5": cells[0],
                        "512": cells[1],
                        "1024": cells[2],
                        "seconds": round(dt, 1),
                        "covered": {q: list(o) for q, o in sorted(got.items())},
                    }
                )
                if cache is not None:
                    ws.embedder(Config().model).save(cache / f"{qs.docs.name}.npz")
                if args.json:
                    Path(args.json).write_text(json.dumps(figures, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
