"""``eval``, ``sweep`` and ``ab``: a query set's evidence coverage under one configuration, over a
grid of sizes and overlaps, and under two configurations side by side (flips, an exact paired
test, an interval). The work is :mod:`explorer.evaluation`; this module reads the options and
prints."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from explorer.chunking.edits import Edits, describe, edits_for, edits_json
from explorer.cli.cache import embedding_count, lasting_index
from explorer.cli.options import (
    Subparsers,
    cache_options,
    config_options,
    edits_option,
    ints,
    ks_and_budgets,
)
from explorer.cli.site import HELP as SITE_HELP
from explorer.cli.site import left_out_json, matched_queries, site
from explorer.cli.stderr import progress
from explorer.config import Config
from explorer.documents.model import display_name
from explorer.errors import SettingsError
from explorer.evaluation.claims import judge_claim
from explorer.evaluation.coverage import SCOPES, EvalReport, evaluate, summary_row, sweep
from explorer.evaluation.queries import load_queries
from explorer.evaluation.reach import DocumentReach, retrieval_map, retrieval_map_json
from explorer.progress import timed
from explorer.workspace import Workspace


def _query_set_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--queries", required=True, help="query set (JSON list of id/doc/query/evidence)"
    )
    p.add_argument("--docs", required=True, metavar="FOLDER", help=SITE_HELP)


def _scope_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--scope",
        choices=SCOPES,
        default="document",
        help="document: each question retrieves from the document it names (default); corpus: "
        "from every document of the site in --docs at once (its folders' files too)",
    )


def _eval_options(p: argparse.ArgumentParser) -> None:
    """What ``eval`` and ``sweep`` share: the query set, its scope, k and budgets."""
    _query_set_options(p)
    _scope_option(p)
    ks_and_budgets(p, k_help='hits at most, e.g. "1,3,5" (default)')
    p.add_argument("--json", action="store_true", help="print one JSON object")
    config_options(p)


def _query_edits(args: argparse.Namespace, queries: Sequence[Any]) -> dict[str, Edits]:
    """``--edits`` of ``eval`` and ``ab``, by document (a list edits the one document asked
    about)."""
    if not args.edits:
        return {}
    return edits_for(args.edits, sorted({q.doc for q in queries}))


def add_eval(sub: Subparsers) -> None:
    ev = sub.add_parser("eval", help="coverage of a query set's evidence (for documentation CI)")
    _eval_options(ev)
    ev.add_argument(
        "--min-coverage",
        type=float,
        default=None,
        help="exit with status 1 when coverage@max(k) is below this (0-1)",
    )
    edits_option(ev, by_document=True)


def run_eval(args: argparse.Namespace, config: Config, out: TextIO) -> int:
    workspace = site(args.docs)
    queries, left = _site_queries(args, workspace)
    edits = _query_edits(args, queries)
    with embedding_count(config):
        report = evaluate(
            queries,
            workspace,
            config,
            ks=args.k,
            budgets=args.budget,
            progress=timed(progress),
            scope=args.scope,
            edits=edits,
        )
    k = max(report.ks)
    reach = retrieval_map(report, workspace, k=k)
    if args.json:
        result = report.to_json(workspace)
        if args.scope == "corpus":
            result["skipped"] = [
                {"path": display_name(s.path), "reason": s.reason} for s in workspace.skipped
            ]
        result["left_out"] = left_out_json(left)
        result["retrieval_map"] = retrieval_map_json(reach, k=k, budget=None)
        result["tables"] = _tables_json(report, workspace)
        out.write(json.dumps(result, ensure_ascii=False) + "\n")
    else:
        _print_report(report, out)
        _print_reach(reach, k, out)
    if args.min_coverage is not None:
        got = report.coverage_at_k[max(report.ks)]
        if got < args.min_coverage:
            print(
                f"coverage@{max(report.ks)} is {got:.3f}, below --min-coverage {args.min_coverage}",
                file=sys.stderr,
            )
            return 1
    return 0


def _site_queries(args: argparse.Namespace, workspace: Workspace) -> tuple[list[Any], list[Any]]:
    """The query set's questions that can run over the site, and the documents left out (in
    corpus scope the site is read first, and what it skipped listed, before any work)."""
    return matched_queries(load_queries(args.queries), workspace, scope=args.scope)


def _tables_json(report: Any, workspace: Workspace) -> dict[str, int | float]:
    """The table audit of every document the evaluation searched, as one."""
    from explorer.evaluation.side_by_side import table_summary

    return table_summary(report, workspace)


def _print_report(report: EvalReport, out: TextIO) -> None:
    c = report.counts()
    cfg = report.config.to_json()
    where = (
        f"scope: corpus ({len(report.documents)} documents, every question searches all)\n"
        if report.scope == "corpus"
        else ""
    )
    out.write(
        where + f"{cfg['splitter']} {cfg['unit']} size={cfg['size']} overlap={cfg['overlap']} "
        f"retriever={cfg['retriever']} carry={cfg['carry']:g} merge={cfg['merge']} "
        f"table_headers={cfg['table_headers']} fill={cfg['fill']}\n"
        f"{c['queries']} queries ({c['scored_queries']} scored), {c['evidence_phrases']} evidence "
        f"phrases ({c['not_located']} not located), {c['chunks']} chunks\n"
    )
    for name, edits in report.edits:
        out.write(f"what-if edits to {name}: {'; '.join(e.describe() for e in edits)}\n")
    means = {m: report.mean_at_k(f"{m}_at_k") for m in ("recall", "precision", "iou", "mrr")}
    for k, v in report.coverage_at_k.items():
        out.write(
            f"  coverage@{k:<5d} {v:6.3f}   recall {means['recall'][k]:6.3f}   "
            f"precision {means['precision'][k]:6.3f}   iou {means['iou'][k]:6.3f}   "
            f"mrr {means['mrr'][k]:6.3f}\n"
        )
    for b, v in report.coverage_at_budget.items():
        out.write(f"  coverage@{b} tokens {v:6.3f}\n")


def _print_reach(reach: dict[str, DocumentReach], k: int, out: TextIO) -> None:
    """Per document, the share of its text no question's context reaches, and the chunks
    retrieved for many unrelated questions."""
    out.write(f"retrieval map at k={k} (never reached; retrieved for unrelated questions)\n")
    for name, d in reach.items():
        often = ", ".join(f"chunk {c.index} ({c.unrelated}/{c.questions})" for c in d.always)
        out.write(
            f"  {name}: {d.never_fraction:6.1%} never reached"
            + (f"; {often}" if often else "")
            + "\n"
        )


def add_sweep(sub: Subparsers) -> None:
    sw = sub.add_parser("sweep", help="evaluate a grid of sizes and overlaps for one splitter")
    _eval_options(sw)
    sw.add_argument("--sizes", type=ints(1), required=True, help='e.g. "128,256,512"')
    sw.add_argument("--overlaps", type=ints(0), default=(0,), help='e.g. "0,32" (default 0)')


def run_sweep(args: argparse.Namespace, config: Config, out: TextIO) -> int:
    workspace = site(args.docs)
    queries, _ = _site_queries(args, workspace)
    with embedding_count(config):
        reports = sweep(
            queries, workspace, config, sizes=args.sizes, overlaps=args.overlaps, ks=args.k,
            budgets=args.budget, progress=timed(progress), scope=args.scope,
        )  # fmt: skip
    from explorer.evaluation.side_by_side import table_columns

    rows = [summary_row(r) | table_columns(r, workspace) for r in reports]
    if args.json:
        out.write(json.dumps({"config": config.to_json(), "grid": rows}, ensure_ascii=False) + "\n")
        return 0
    cols = list(rows[0])
    out.write("  ".join(f"{c:>14s}" for c in cols) + "\n")
    for row in rows:
        out.write("  ".join(f"{row[c]!s:>14s}" for c in cols) + "\n")
    return 0


def add_ab(sub: Subparsers) -> None:
    ab = sub.add_parser(
        "ab",
        help="two configurations on one query set: flips, an exact paired test, a 95%% interval",
        description="Each SPEC is comma-separated key=value settings applied to the recommended "
        "configuration (left out: the recommended configuration itself), e.g. "
        '"splitter=fixed,unit=chars,size=500,overlap=0".',
    )
    _query_set_options(ab)
    _scope_option(ab)
    ab.add_argument(
        "--a", default="", metavar="SPEC", help="configuration A (default: recommended)"
    )
    ab.add_argument(
        "--b", default="", metavar="SPEC", help="configuration B (default: recommended)"
    )
    ab.add_argument(
        "--preset",
        metavar="NAME",
        help="B starts from this published baseline (see `presets`; --b's settings override "
        "it); a SPEC may also say preset=NAME",
    )
    ks_and_budgets(ab, k_help='e.g. "1,3,5" (default)')
    ab.add_argument("--json", action="store_true", help="print one JSON object")
    edits_option(ab, by_document=True, ab=True)
    cache_options(ab)


def run_ab(args: argparse.Namespace, out: TextIO) -> int:
    from explorer.evaluation import presets
    from explorer.evaluation.compare import paired
    from explorer.evaluation.side_by_side import TABLE_COLUMNS, ab_measures

    if args.edits and args.b:
        raise SettingsError("give --b or --edits, not both: --edits compares A with A + edits")
    spec_b = args.b if not args.edits else args.a
    if args.preset is not None:
        if args.edits:
            raise SettingsError("give --preset or --edits, not both: --edits compares A with A")
        presets.preset(args.preset)  # an unknown name fails before any work
        spec_b = ",".join(x for x in (f"preset={args.preset}", args.b) if x)
    a, b = presets.spec_config(args.a), presets.spec_config(spec_b)
    workspace = site(args.docs)
    queries, left = _site_queries(args, workspace)
    edits = _query_edits(args, queries)
    with lasting_index(args, b if b.needs_model else a):
        with embedding_count(a):
            ra = evaluate(
                queries, workspace, a, ks=args.k, budgets=args.budget,
                progress=timed(progress), scope=args.scope,
            )  # fmt: skip
        with embedding_count(b):
            rb = evaluate(
                queries, workspace, b, ks=args.k, budgets=args.budget,
                progress=timed(progress), edits=edits, scope=args.scope,
            )  # fmt: skip
    comparisons = paired(ra, rb)
    side = ab_measures(ra, rb, workspace)
    claim = judge_claim(ra, rb)
    result = {
        "a": a.to_json(),
        "b": b.to_json(),
        "b_edits": {name: edits_json(e) for name, e in edits.items()},
        "scope": args.scope,
        "documents": len(ra.documents),
        "questions": len(queries),
        "left_out": left_out_json(left),
        "scored": next(iter(comparisons.values())).n if comparisons else 0,
        "comparisons": {name: c.to_json() for name, c in comparisons.items()},
        **side,
        "claim": None if claim is None else claim.to_json(),
    }
    if args.json:
        out.write(json.dumps(result, ensure_ascii=False) + "\n")
        return 0
    label_b = (
        describe(args.a or "recommended", [e for es in edits.values() for e in es])
        if args.edits
        else spec_b or "recommended"
    )
    where = (
        f"scope: corpus ({len(ra.documents)} documents, every question searches all)\n"
        if args.scope == "corpus"
        else ""
    )
    out.write(f"{where}A: {args.a or 'recommended'}\nB: {label_b}\n")
    for name, c in comparisons.items():
        lo, hi = c.ci95
        out.write(
            f"  {name:<12} A {c.coverage_a:6.3f}  B {c.coverage_b:6.3f}  "
            f"A only {len(c.a_only):3d}  B only {len(c.b_only):3d}  p {c.p_value:.3g}  "
            f"95% [{lo:+.3f}, {hi:+.3f}]  {c.verdict}\n"
        )
    out.write(f"  {'measure':<20} {'A':>8} {'B':>8} {'B - A':>8}\n")
    for name, m in side["measures"].items():
        out.write(f"  {name:<20} {m['a']:8.3f} {m['b']:8.3f} {m['difference']:+8.3f}\n")
    ta, tb = side["tables"]["a"], side["tables"]["b"]
    for column, key in TABLE_COLUMNS.items():
        out.write(f"  {column:<20} {ta[key]!s:>8} {tb[key]!s:>8}\n")
    if claim is not None:
        out.write(claim.sentence() + "\n")
    return 0
