"""Command line: ``python -m explorer text|chunk|query|eval|sweep ...``.

Bad input never shows a traceback: it exits with status 2 and one line on stderr that says what
is wrong and what to do. A document that loads with an assumption (an encoding guessed, a damaged
PDF repaired) gets one ``warning:`` line on stderr per assumption, and the command goes on.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import NoReturn, TextIO

from explorer.documents import Document, load_path
from explorer.embeddings import BUNDLED
from explorer.errors import ExplorerError, SettingsError
from explorer.evaluation import (
    RECOMMENDED,
    EvalConfig,
    EvalReport,
    Workspace,
    evaluate,
    load_queries,
    summary_row,
    sweep,
)
from explorer.export import chunk_record, manifest
from explorer.measures import DEFAULT_ENCODING, UNITS
from explorer.retrieval import CARRY, DENSE_SOURCES, RETRIEVERS, ChunkIndex
from explorer.splitters import SPLITTERS, ChunkSettings, split

CARRY_HELP = "each chunk's score gains this share of the previous chunk's score"


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see --help)\n")


def _add_chunk_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--splitter", choices=SPLITTERS, default="recursive")
    p.add_argument("--unit", choices=UNITS, default="tokens")
    p.add_argument("--size", type=int, default=256, help="the size limit in --unit (default 256)")
    p.add_argument("--overlap", type=int, default=0, help="units shared by neighbours (default 0)")
    p.add_argument(
        "--encoding",
        default=DEFAULT_ENCODING,
        help=f"tiktoken encoding (default {DEFAULT_ENCODING})",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m explorer", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    text = sub.add_parser("text", help="print the document text exactly as offsets see it")
    text.add_argument("path")
    chunk = sub.add_parser("chunk", help="print chunks as JSON Lines")
    chunk.add_argument("path")
    _add_chunk_options(chunk)
    query = sub.add_parser(
        "query", help="rank chunks for a question and check the evidence phrases (one JSON object)"
    )
    query.add_argument("path")
    query.add_argument("question")
    _add_chunk_options(query)
    query.add_argument("--retriever", choices=RETRIEVERS, default="hybrid")
    query.add_argument("--k", type=int, default=5, help="how many chunks to retrieve (default 5)")
    query.add_argument(
        "--carry", type=float, default=CARRY, help=f"{CARRY_HELP} (default {CARRY:g}; 0 for none)"
    )
    query.add_argument(
        "--evidence",
        action="append",
        default=[],
        metavar="PHRASE",
        help="a phrase the answer needs (repeat for several)",
    )
    query.add_argument(
        "--heading-prefix",
        action="store_true",
        help="embed each chunk after its heading path (what is displayed does not change)",
    )
    query.add_argument("--model", default=BUNDLED, help=f"embedding model (default {BUNDLED})")
    query.add_argument(
        "--dense",
        choices=DENSE_SOURCES,
        default="passages",
        help=(
            "where dense scores come from: the document's passages (sentences, each inside the "
            "model's window; default) or each chunk embedded whole"
        ),
    )

    ev = sub.add_parser(
        "eval",
        help="coverage of a query set's evidence (for documentation CI)",
        description=(
            "Without chunk or retriever options, the recommended configuration is used; options "
            "given replace its values (the overlap is 0 when --splitter, --unit or --size is "
            "given without --overlap)."
        ),
    )
    _add_eval_options(ev)
    ev.add_argument(
        "--min-coverage",
        type=float,
        default=None,
        help="exit with status 1 when coverage@max(k) is below this (0-1)",
    )
    sw = sub.add_parser("sweep", help="evaluate a grid of sizes and overlaps for one splitter")
    _add_eval_options(sw)
    sw.add_argument("--sizes", type=_int_list, required=True, help="e.g. 128,256,512")
    sw.add_argument("--overlaps", type=_int_list, default=[0], help="e.g. 0,32 (default 0)")
    return parser


def _int_list(value: str) -> list[int]:
    try:
        items = [int(x) for x in value.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected whole numbers separated by commas, got {value!r}"
        ) from None
    if not items:
        raise argparse.ArgumentTypeError("expected at least one number")
    return items


def _add_eval_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--queries", required=True, help="query set (JSON list of id/doc/query/evidence)"
    )
    p.add_argument("--docs", required=True, help="the folder the queries' doc names refer to")
    p.add_argument("--splitter", choices=SPLITTERS, default=None)
    p.add_argument("--unit", choices=UNITS, default=None)
    p.add_argument("--size", type=int, default=None)
    p.add_argument("--overlap", type=int, default=None)
    p.add_argument("--encoding", default=None)
    p.add_argument("--retriever", choices=RETRIEVERS, default=None)
    p.add_argument(
        "--dense",
        choices=DENSE_SOURCES,
        default=None,
        help=(
            "where dense scores come from: the document's passages (sentences, each inside the "
            "model's window; default) or each chunk embedded whole"
        ),
    )
    p.add_argument("--heading-prefix", choices=("on", "off"), default=None)
    p.add_argument(
        "--neighbours",
        type=int,
        default=None,
        help="small-to-big: each hit brings this many neighbouring chunks on each side",
    )
    p.add_argument(
        "--merge",
        choices=("on", "off"),
        default=None,
        help="merge overlapping/adjacent hits so the budget counts shared text once",
    )
    p.add_argument(
        "--table-headers",
        choices=("on", "off"),
        default=None,
        help="a hit on a table's rows also brings the table's header rows (charged to the budget)",
    )
    p.add_argument("--carry", type=float, default=None, help=f"{CARRY_HELP} (0 for none)")
    p.add_argument(
        "--fill",
        choices=("on", "off"),
        default=None,
        help="at each budget, spend the tokens the whole hits leave on the text around them",
    )
    p.add_argument("--k", type=_int_list, default=[1, 3, 5], help="e.g. 1,3,5 (default)")
    p.add_argument("--budget", type=_int_list, default=[512, 1024], help="token budgets")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def _load(path: str) -> Document:
    """Load the document at ``path``, printing each of its warnings as one line on stderr."""
    doc = load_path(path)
    for warning in doc.warnings:
        print(f"warning: {doc.name}: {warning}", file=sys.stderr)
    return doc


def run_query(args: argparse.Namespace, settings: ChunkSettings) -> dict[str, object]:
    from explorer import evidence
    from explorer.embeddings import embedder
    from explorer.measures import get_measure

    if args.k < 1:
        raise SettingsError(f"--k must be at least 1, got {args.k}")
    doc = _load(args.path)
    needs_model = args.retriever != "bm25" or settings.splitter == "semantic"
    emb = embedder(args.model) if needs_model else None
    chunks = split(doc, settings, embed=emb.embed if emb else None)
    index = ChunkIndex(
        chunks, embedder=emb, heading_prefix=args.heading_prefix, doc=doc, dense=args.dense
    )
    ranking = index.rank(args.question, args.retriever, carry=args.carry)
    hits = ranking[: args.k]
    tokens = get_measure("tokens")
    context = [(chunks[h.index].start, chunks[h.index].end) for h in hits]
    results = evidence.check(args.evidence, doc.text, chunks, ranking, context=context)
    return {
        "question": args.question,
        "config": {
            **manifest(doc, settings, chunks),
            "retriever": args.retriever,
            "k": args.k,
            "model": args.model if emb else None,
            "dense": args.dense if args.retriever != "bm25" else None,
            "heading_prefix": args.heading_prefix,
            "carry": args.carry,
        },
        "hits": [
            {
                "rank": h.rank,
                "id": chunks[h.index].id,
                "index": h.index,
                "start": chunks[h.index].start,
                "end": chunks[h.index].end,
                "score": round(h.score, 6),
                "carried": round(h.carried, 6),
                "tokens": tokens.count(chunks[h.index].text),
            }
            for h in hits
        ],
        "evidence": [
            {
                "phrase": r.phrase,
                "found": r.found,
                "spans": [list(sp) for sp in r.spans],
                "covered": r.covered,
                "chunk_ids": list(r.chunk_ids),
                "best_rank": r.best_rank,
                "cut_by_boundary": r.cut_by_boundary,
            }
            for r in results
        ],
        "verdict": evidence.verdict(results) if results else None,
    }


def eval_config_from(args: argparse.Namespace) -> EvalConfig:
    """The recommended configuration, with whatever the options change.

    An overlap belongs to its size: when the splitter, unit or size is changed and no overlap is
    given, the overlap is 0 rather than the recommended one.
    """
    base = RECOMMENDED
    s = base.settings
    custom = any(x is not None for x in (args.splitter, args.unit, args.size))
    settings = ChunkSettings(
        splitter=args.splitter or s.splitter,
        unit=args.unit or s.unit,
        size=args.size if args.size is not None else s.size,
        overlap=args.overlap if args.overlap is not None else (0 if custom else s.overlap),
        encoding=args.encoding or s.encoding,
    )
    return replace(
        base,
        settings=settings,
        retriever=args.retriever or base.retriever,
        dense=args.dense or base.dense,
        heading_prefix=(
            base.heading_prefix if args.heading_prefix is None else args.heading_prefix == "on"
        ),
        neighbours=base.neighbours if args.neighbours is None else args.neighbours,
        merge=base.merge if args.merge is None else args.merge == "on",
        table_headers=(
            base.table_headers if args.table_headers is None else args.table_headers == "on"
        ),
        carry=base.carry if args.carry is None else args.carry,
        fill=base.fill if args.fill is None else args.fill == "on",
    )


def _progress(n: int, total: int, label: str) -> None:
    if sys.stderr.isatty():
        print(f"\r{n}/{total} {label[:40]:40s}", end="", file=sys.stderr, flush=True)
        if n == total:
            print(file=sys.stderr)


def _print_report(report: EvalReport, out: TextIO) -> None:
    c = report.counts()
    cfg = report.config.describe()
    out.write(
        f"{cfg['splitter']} {cfg['unit']} size={cfg['size']} overlap={cfg['overlap']} "
        f"retriever={cfg['retriever']} heading_prefix={cfg['heading_prefix']} "
        f"carry={cfg['carry']:g}\n"
        f"{c['queries']} queries ({c['scored_queries']} scored), {c['evidence_phrases']} evidence "
        f"phrases ({c['not_located']} not located), {c['chunks']} chunks\n"
    )
    for k, v in report.coverage_at_k.items():
        rec = report.mean_at_k("recall_at_k")[k]
        iou = report.mean_at_k("iou_at_k")[k]
        out.write(f"  coverage@{k:<5d} {v:6.3f}   recall {rec:6.3f}   iou {iou:6.3f}\n")
    for b, v in report.coverage_at_budget.items():
        out.write(f"  coverage@{b} tokens {v:6.3f}\n")


def run_eval(args: argparse.Namespace, out: TextIO) -> int:
    config = eval_config_from(args)
    queries = load_queries(args.queries)
    workspace = Workspace(Path(args.docs))
    report = evaluate(
        queries, workspace, config, ks=args.k, budgets=args.budget, progress=_progress
    )
    if args.json:
        out.write(json.dumps(report.to_json(), ensure_ascii=False) + "\n")
    else:
        _print_report(report, out)
    if args.min_coverage is not None:
        got = report.coverage_at_k[max(report.ks)]
        if got < args.min_coverage:
            print(
                f"coverage@{max(report.ks)} is {got:.3f}, below --min-coverage {args.min_coverage}",
                file=sys.stderr,
            )
            return 1
    return 0


def run_sweep(args: argparse.Namespace, out: TextIO) -> int:
    base = eval_config_from(args)
    queries = load_queries(args.queries)
    workspace = Workspace(Path(args.docs))
    reports = sweep(
        queries, workspace, base, sizes=args.sizes, overlaps=args.overlaps, ks=args.k,
        budgets=args.budget, progress=_progress,
    )  # fmt: skip
    rows = [summary_row(r) for r in reports]
    if args.json:
        out.write(json.dumps({"config": base.describe(), "grid": rows}, ensure_ascii=False) + "\n")
        return 0
    cols = list(rows[0])
    out.write("  ".join(f"{c:>14s}" for c in cols) + "\n")
    for row in rows:
        out.write("  ".join(f"{row[c]!s:>14s}" for c in cols) + "\n")
    return 0


def settings_from(args: argparse.Namespace) -> ChunkSettings:
    return ChunkSettings(
        splitter=args.splitter,
        unit=args.unit,
        size=args.size,
        overlap=args.overlap,
        encoding=args.encoding,
    )


def run(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    out = sys.stdout
    if args.command == "eval":
        return run_eval(args, out)
    if args.command == "sweep":
        return run_sweep(args, out)
    if args.command == "text":
        out.write(_load(args.path).text)
        return 0
    settings = settings_from(args)  # bad settings fail before the document is read
    if args.command == "query":
        out.write(json.dumps(run_query(args, settings), ensure_ascii=False, indent=1) + "\n")
        return 0
    doc = _load(args.path)
    for c in split(doc, settings):
        out.write(json.dumps(chunk_record(doc, settings, c), ensure_ascii=False) + "\n")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(encoding="utf-8")
    try:
        return run(argv)
    except ExplorerError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. piped into `head`
        return 0
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
