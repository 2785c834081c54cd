"""Which configuration retrieves the evidence? ``python -m benchmarks.bench_eval``.

Evaluates our configurations against common ones, all with the bundled all-MiniLM-L6-v2 where a
model is used, on eight query sets (default: ours and chroma):

* ``queries/boundary-questions.json`` — our 75 boundary questions over the samples and the
  shared corpus (written by this project);
* ``queries/holdout-questions.json`` and ``holdout2`` … ``holdout6-questions.json`` — 76, 72,
  60, 60, 60 and 60 more boundary questions of the same kinds, each written afterwards by
  someone who saw no retrieval results (``--sets holdout,holdout2,…,holdout6``; the last four
  after a default was frozen, half or more on Chroma's documents);
* ``../shared/benchmarks/chroma-chunking-eval/questions.json`` — 472 questions with exact
  evidence spans from Chroma's chunking research (not written by us: the generality check).

Peers: fixed 500-character windows, and LangChain's
``RecursiveCharacterTextSplitter(chunk_size=1000, chunk_overlap=200)`` (its own chunks, located
in the text). Prints coverage@k and coverage at 512 and 1,024 tokens; ``--markdown`` prints the
table for the README. Embedding takes minutes on 2 cores: ``--retrievers bm25`` is quick.
``--scope corpus`` has every question search all of its set's documents at once (``document``,
the default, searches the one it names; ``document,corpus`` runs both).

``--presets`` runs every published baseline instead (``explorer presets``: each preset's own
configuration, hybrid retrieval) on the sets and prints, per preset and set, coverage@k, recall,
precision, IoU and MRR at k = 5 with the preset's published claim, then the A/B of ours against
each (flips, the exact paired test, the interval, and whether the set agrees with the claim).
Rows print as each evaluation ends, so a run cut short keeps what it finished.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from explorer.chunking.records import Chunk, ChunkSettings, chunks_from_texts, register
from explorer.config import Config
from explorer.documents.model import Document
from explorer.evaluation.coverage import SCOPES, EvalReport, QueryResult, evaluate
from explorer.evaluation.queries import load_queries
from explorer.workspace import Workspace

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
QUERY_SETS = {
    "ours": (REPO / "queries" / "boundary-questions.json", REPO / "queries" / "docs"),
    "holdout": (REPO / "queries" / "holdout-questions.json", REPO / "queries" / "docs"),
    "holdout2": (REPO / "queries" / "holdout2-questions.json", REPO / "queries" / "docs"),
    "holdout3": (REPO / "queries" / "holdout3-questions.json", REPO / "queries" / "docs"),
    "holdout4": (REPO / "queries" / "holdout4-questions.json", REPO / "queries" / "docs"),
    "holdout5": (REPO / "queries" / "holdout5-questions.json", REPO / "queries" / "docs"),
    "holdout6": (REPO / "queries" / "holdout6-questions.json", REPO / "queries" / "docs"),
    "chroma": (
        SHARED / "benchmarks" / "chroma-chunking-eval" / "questions.json",
        SHARED / "benchmarks" / "chroma-chunking-eval" / "docs",
    ),
}


def fixed_500(doc: Document, settings: ChunkSettings) -> list[Chunk]:
    """Naive fixed windows of 500 characters, no overlap, nothing trimmed."""
    texts = [doc.text[i : i + 500] for i in range(0, len(doc.text), 500)]
    return chunks_from_texts(doc, [t for t in texts if t.strip()], key="fixed-500")


def langchain_recursive(doc: Document, settings: ChunkSettings) -> list[Chunk]:
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    splitter = RecursiveCharacterTextSplitter(chunk_size=1000, chunk_overlap=200)
    return chunks_from_texts(doc, splitter.split_text(doc.text), key="lc-recursive")


register("bench-fixed-500", fixed_500)
register("bench-langchain-1000-200", langchain_recursive)

COMMON = Config().replace(heading_prefix=True, merge=False, table_headers=False, carry=0.0)
COMMON = COMMON.replace(fill=False)
"""A common pipeline's retrieval: heading prefix on, hits as they are, no carry or fill."""


@dataclass(frozen=True)
class Candidate:
    name: str
    config: Config


def candidates(retriever: str) -> list[Candidate]:
    common = COMMON.replace(retriever=retriever)
    default = Config().replace(retriever=retriever)

    def peer(name: str, **kw: object) -> Candidate:
        return Candidate(name, common.replace(**kw))

    out = [
        peer("fixed 500 chars", splitter="bench-fixed-500"),
        peer("LangChain recursive 1000/200", splitter="bench-langchain-1000-200"),
        peer("recursive tokens 256/32", splitter="recursive", unit="tokens", size=256, overlap=32),
        peer("structure tokens 256/0", splitter="structure", unit="tokens", size=256, overlap=0),
        Candidate("recommended without carry or fill", default.replace(carry=0.0, fill=False)),
        Candidate("recommended without fill", default.replace(fill=False)),
        Candidate("recommended (structure tokens 256/64, merged, carry 0.3, fill)", default),
    ]
    if retriever != "bm25":  # the same with each chunk embedded whole, as is common
        out[2:2] = [
            peer(
                "LangChain recursive 1000/200, chunks embedded",
                splitter="bench-langchain-1000-200",
                dense="chunks",
            )
        ]
        out.append(Candidate("recommended, chunks embedded", default.replace(dense="chunks")))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_eval", description=__doc__)
    parser.add_argument(
        "--sets",
        default="ours,chroma",
        help="query sets: ours, holdout, holdout2 … holdout6, chroma",
    )
    parser.add_argument("--retrievers", default="bm25,hybrid", help="bm25, dense, hybrid")
    parser.add_argument("--only", default="", help="run only candidates whose name has this")
    parser.add_argument(
        "--scope",
        default="document",
        help="document (each question searches its own document), corpus (every question "
        "searches all of the set's documents at once), or both: document,corpus",
    )
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    parser.add_argument(
        "--by-kind",
        action="store_true",
        help="also print coverage at 512 / 1,024 tokens for each kind of question",
    )
    parser.add_argument(
        "--embedding-cache",
        metavar="FILE",
        help="read vectors from this .npz if it exists, and write every vector made back to it",
    )
    parser.add_argument(
        "--presets",
        action="store_true",
        help="run every preset (explorer presets) and the A/B of ours against each",
    )
    args = parser.parse_args(argv)
    if args.presets:
        return run_presets(args.sets.split(","), only=args.only)
    scopes = args.scope.split(",")
    if not set(scopes) <= set(SCOPES):
        print(f"error: --scope takes {' or '.join(SCOPES)}", file=sys.stderr)
        return 2
    rows: list[tuple[str, str, str, EvalReport, float]] = []
    kinds: dict[str, dict[str, str]] = {}
    for set_name in args.sets.split(","):
        qpath, docs = QUERY_SETS[set_name]
        if not qpath.is_file():
            print(f"error: query set {qpath} is missing", file=sys.stderr)
            return 2
        queries = load_queries(qpath)
        kinds[set_name] = kinds_of(qpath)
        ws = Workspace(docs)  # one per set: embeddings are shared across configurations
        cache = Path(args.embedding_cache) if args.embedding_cache else None
        if cache is not None and cache.is_file() and args.retrievers != "bm25":
            ws.embedder(Config().model).load(cache)
        for retriever in args.retrievers.split(","):
            for cand in candidates(retriever):
                if args.only and args.only not in cand.name:
                    continue
                for scope in scopes:
                    t0 = time.perf_counter()
                    report = evaluate(
                        queries, ws, cand.config, ks=(1, 3, 5), budgets=(512, 1024), scope=scope
                    )
                    dt = time.perf_counter() - t0
                    rows.append((set_name, retriever, cand.name, report, dt))
                    if cache is not None and retriever != "bm25":
                        ws.embedder(Config().model).save(cache)
                    if not args.markdown:
                        _print_row(rows[-1])
                        if args.by_kind:
                            for kind, (n, c512, c1024) in by_kind(report, kinds[set_name]).items():
                                print(
                                    f"    {kind:20s} n={n:3d} c@512={c512:.3f} c@1024={c1024:.3f}"
                                )
    if args.markdown:
        print(
            "| query set | scope | retriever | configuration | chunks | coverage@1 | coverage@5 "
            "| coverage@512 tok | coverage@1024 tok |"
        )
        print("|---|---|---|---|---:|---:|---:|---:|---:|")
        for set_name, retriever, name, r, _dt in rows:
            ck, cb = r.coverage_at_k, r.coverage_at_budget
            where = f"{r.scope} ({len(r.documents)} docs)"
            print(
                f"| {set_name} ({r.counts()['queries']}) | {where} | {retriever} | {name} "
                f"| {r.chunks} "
                f"| {ck[1]:.3f} | {ck[5]:.3f} | {cb[512]:.3f} | {cb[1024]:.3f} |"
            )
        if args.by_kind:
            print("\n| query set | retriever | configuration | kind | questions ", end="")
            print("| 512 tok | 1024 tok |")
            print("|---|---|---|---|---:|---:|---:|")
            for set_name, retriever, name, r, _dt in rows:
                for kind, (n, c512, c1024) in by_kind(r, kinds[set_name]).items():
                    print(
                        f"| {set_name} | {retriever} | {name} | {kind} | {n} "
                        f"| {c512:.3f} | {c1024:.3f} |"
                    )
    return 0


def run_presets(sets: list[str], *, only: str = "") -> int:
    """Every preset on every set: the measures at k = 5 as a Markdown table, then the A/B of
    ours against each preset; each row printed when its evaluation ends."""
    from explorer.evaluation.compare import paired
    from explorer.evaluation.presets import PRESETS, agreement

    print(
        "| query set | preset | chunks | coverage@1 | coverage@5 | recall@5 | precision@5 "
        "| IoU@5 | MRR@5 | coverage@1024 tok | published claim |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    abs_: list[str] = []
    for set_name in sets:
        qpath, docs = QUERY_SETS[set_name]
        if not qpath.is_file():
            print(f"error: query set {qpath} is missing", file=sys.stderr)
            return 2
        queries = load_queries(qpath)
        ws = Workspace(docs)
        reports: dict[str, EvalReport] = {}
        for name, preset in PRESETS.items():
            if only and only not in name and name != "ours":
                continue
            t0 = time.perf_counter()
            r = evaluate(queries, ws, preset.config(), ks=(1, 3, 5), budgets=(512, 1024))
            reports[name] = r
            m = {x: r.mean_at_k(f"{x}_at_k")[5] for x in ("recall", "precision", "iou", "mrr")}
            print(
                f"| {set_name} ({r.counts()['scored_queries']}) | {name} | {r.chunks} "
                f"| {r.coverage_at_k[1]:.3f} | {r.coverage_at_k[5]:.3f} | {m['recall']:.3f} "
                f"| {m['precision']:.3f} | {m['iou']:.3f} | {m['mrr']:.3f} "
                f"| {r.coverage_at_budget[1024]:.3f} | {preset.claim} |",
                flush=True,
            )
            print(f"  ({time.perf_counter() - t0:.0f} s)", file=sys.stderr, flush=True)
            if name == "ours":
                continue
            both = paired(reports["ours"], r)
            c, t = both["k=5"], both["1024 tokens"]
            said = agreement(preset, c, measure="coverage@5")
            lo, hi = c.ci95
            abs_.append(
                f"| A/B | {set_name} | {name} | {c.coverage_a:.3f} | {c.coverage_b:.3f} "
                f"| {len(c.a_only)} | {len(c.b_only)} | {c.p_value:.3g} | [{lo:+.3f}, {hi:+.3f}] "
                f"| {c.verdict} | {said.verdict if said else '(no checkable claim)'} "
                f"| {t.coverage_a:.3f} / {t.coverage_b:.3f} ({len(t.a_only)}/{len(t.b_only)}, "
                f"p {t.p_value:.3g}) | {t.verdict} |"
            )
            print(abs_[-1], flush=True)  # as soon as it is known; the table again at the end
    print(
        "\n| | query set | preset (B) | ours coverage@5 | preset coverage@5 | ours only "
        "| preset only | p | 95% interval (B − A) | verdict | the claim "
        "| coverage@1024 tok ours / preset (flips) | verdict at 1024 tok |"
    )
    print("|---|---|---|---:|---:|---:|---:|---:|---|---|---|---|---|")
    for line in abs_:
        print(line)
    return 0


def kinds_of(path: Path) -> dict[str, str]:
    """Each question's ``kind`` (the query-set field the loader ignores), by id."""
    items = json.loads(path.read_text(encoding="utf-8"))
    return {str(i["id"]): str(i.get("kind") or "(none)") for i in items if isinstance(i, dict)}


def by_kind(report: EvalReport, kinds: dict[str, str]) -> dict[str, tuple[int, float, float]]:
    """Per kind, in name order: scored questions, coverage at 512 and at 1,024 tokens."""
    groups: dict[str, list[QueryResult]] = {}
    for r in report.results:
        if r.scored:
            groups.setdefault(kinds.get(r.query.id, "(none)"), []).append(r)
    return {
        kind: (
            len(rs),
            sum(r.covered_at_budget[512] for r in rs) / len(rs),
            sum(r.covered_at_budget[1024] for r in rs) / len(rs),
        )
        for kind, rs in sorted(groups.items())
    }


def _print_row(row: tuple[str, str, str, EvalReport, float]) -> None:
    set_name, retriever, name, r, dt = row
    ck, cb = r.coverage_at_k, r.coverage_at_budget
    print(
        f"{set_name:6s} {r.scope:8s} {retriever:6s} {name:46s} chunks={r.chunks:5d} "
        f"c@1={ck[1]:.3f} c@3={ck[3]:.3f} c@5={ck[5]:.3f} "
        f"c@512={cb[512]:.3f} c@1024={cb[1024]:.3f} ({dt:.0f} s)",
        flush=True,
    )


if __name__ == "__main__":
    sys.exit(main())
