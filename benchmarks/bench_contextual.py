"""Contextual headers against Anthropic's figures: ``python -m benchmarks.bench_contextual``.

Anthropic's "Introducing Contextual Retrieval" (September 2024) prepends to every chunk a short
context an LLM writes from the whole document, before embedding it ("contextual embeddings") and
before indexing it for BM25 ("contextual BM25"). Over their sets, the top-20 retrieval failure
rate fell from 5.7% to 3.7% with contextual embeddings (−35%) and to 2.9% with both (−49%).

Here the context is written by no LLM: it is the document's title and the chunk's heading path
(``context_header=embed`` and ``embed+bm25``, see :mod:`explorer.retrieval.scoring`). Three
configurations, each through :func:`explorer.evaluation.coverage.evaluate` as ``explorer ab``
runs them: ours (the recommended configuration), ours + contextual embeddings, ours +
contextual embeddings + contextual BM25.

A question *fails at k* when it is scored (at least one evidence phrase was located in its
document) and the context of its top k hits does not hold every located evidence phrase whole
(``covered_at_k[k]`` is false). The failure rate is failures over scored questions. Beside it:
the relative change against ours, the flips (questions only one side covers) and the exact
paired sign test of :mod:`explorer.evaluation.stats`.

Prefixed passages are new texts: the first run embeds every document's passages again
(~70 passages/s on this machine); the lasting store keeps them for the next. ``--json FILE``
writes every figure as it comes, so an interrupted run keeps the sets that finished.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks.bench_eval import QUERY_SETS
from explorer.config import Config
from explorer.evaluation.compare import paired
from explorer.evaluation.coverage import SCOPES, EvalReport, evaluate
from explorer.evaluation.queries import load_queries
from explorer.workspace import Workspace

ANTHROPIC = {"baseline": 0.057, "embed": 0.037, "embed+bm25": 0.029}
"""Top-20 retrieval failure rates in Anthropic's post (embeddings only; + contextual
embeddings; + contextual embeddings and contextual BM25), without reranking."""
KS = (5, 20)
VARIANTS = ("off", "embed", "embed+bm25")


def failure_rate(report: EvalReport, k: int) -> tuple[int, int]:
    """(failed, scored) at ``k`` (see the module docstring)."""
    scored = [r for r in report.results if r.scored]
    return sum(not r.covered_at_k[k] for r in scored), len(scored)


def relative(before: float, after: float) -> float | None:
    return None if before == 0 else (after - before) / before


def run_set(name: str, base: Config, scope: str) -> dict[str, Any]:
    qpath, docs = QUERY_SETS[name]
    queries = load_queries(qpath)
    ws = Workspace(docs)
    reports: dict[str, EvalReport] = {}
    seconds: dict[str, float] = {}
    for variant in VARIANTS:
        t0 = time.perf_counter()
        reports[variant] = evaluate(
            queries, ws, base.replace(context_header=variant), ks=KS, budgets=(1024,), scope=scope
        )
        seconds[variant] = time.perf_counter() - t0
        print(f"  {name} {variant}: {seconds[variant]:.0f} s", file=sys.stderr, flush=True)
    out: dict[str, Any] = {"set": name, "scope": scope, "questions": len(queries), "k": {}}
    for k in KS:
        row: dict[str, Any] = {}
        f0, n = failure_rate(reports["off"], k)
        for variant in VARIANTS:
            f, _ = failure_rate(reports[variant], k)
            cell: dict[str, Any] = {"failed": f, "scored": n, "rate": f / n if n else 0.0}
            if variant != "off":
                c = paired(reports["off"], reports[variant])[f"k={k}"]
                cell |= {
                    "relative": relative(f0 / n if n else 0.0, cell["rate"]),
                    "fixed": len(c.b_only),  # failed under ours, covered with the header
                    "broken": len(c.a_only),  # covered under ours, failed with the header
                    "p_value": c.p_value,
                    "verdict": c.verdict,
                }
            row[variant] = cell
        out["k"][str(k)] = row
    out["seconds"] = seconds
    return out


def _pct(x: float | None) -> str:
    return "—" if x is None else f"{100 * x:+.0f}%"


def print_row(r: dict[str, Any], k: int) -> None:
    row = r["k"][str(k)]
    off = row["off"]
    parts = [f"{r['set']:9s} {r['scope']:8s} k={k:<2d} n={off['scored']:3d}"]
    parts.append(f"ours {100 * off['rate']:5.1f}%")
    for v in ("embed", "embed+bm25"):
        c = row[v]
        parts.append(
            f"{v} {100 * c['rate']:5.1f}% ({_pct(c['relative'])}, +{c['fixed']}/−{c['broken']}, "
            f"p {c['p_value']:.2g})"
        )
    print("  ".join(parts), flush=True)


def markdown(results: list[dict[str, Any]]) -> str:
    lines = [
        "| query set | scope | scored | failed@20 ours | + contextual embeddings | "
        "+ contextual embeddings + BM25 | flips (fixed/broken) | p (sign test) |",
        "|---|---|---:|---:|---:|---:|---|---|",
    ]
    for r in results:
        row = r["k"]["20"]
        off, e, b = row["off"], row["embed"], row["embed+bm25"]
        lines.append(
            f"| {r['set']} | {r['scope']} | {off['scored']} | {100 * off['rate']:.1f}% "
            f"({off['failed']}) | {100 * e['rate']:.1f}% ({_pct(e['relative'])}) "
            f"| {100 * b['rate']:.1f}% ({_pct(b['relative'])}) "
            f"| {e['fixed']}/{e['broken']}; {b['fixed']}/{b['broken']} "
            f"| {e['p_value']:.2g}; {b['p_value']:.2g} |"
        )
    a = ANTHROPIC
    lines.append(
        f"| Anthropic (LLM-written context, their sets) | — | — | {100 * a['baseline']:.1f}% "
        f"| {100 * a['embed']:.1f}% (−35%) | {100 * a['embed+bm25']:.1f}% (−49%) | — | — |"
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.bench_contextual", description=__doc__
    )
    parser.add_argument(
        "--sets",
        default="ours,holdout,holdout2,holdout3,holdout4,holdout5,holdout6,chroma",
        help="query sets: ours, holdout, holdout2 … holdout6, chroma",
    )
    parser.add_argument("--scope", default="document", choices=SCOPES)
    parser.add_argument(
        "--base", default="", metavar="SPEC", help="the configuration to add headers to"
    )
    parser.add_argument("--json", metavar="FILE", help="write the figures here as they come")
    parser.add_argument("--markdown", action="store_true", help="print the table at the end")
    args = parser.parse_args(argv)
    base = Config.from_spec(args.base)
    results: list[dict[str, Any]] = []
    for name in args.sets.split(","):
        if name not in QUERY_SETS:
            print(f"error: unknown query set {name!r}", file=sys.stderr)
            return 2
        results.append(run_set(name, base, args.scope))
        for k in KS:
            print_row(results[-1], k)
        if args.json:
            Path(args.json).write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    if args.markdown:
        print(markdown(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
