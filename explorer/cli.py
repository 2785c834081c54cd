"""Command line: ``python -m explorer text|chunk|query ...``.

Bad input never shows a traceback: it exits with status 2 and one line on stderr that says what
is wrong and what to do.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import NoReturn

from explorer.documents import load_path
from explorer.embeddings import BUNDLED
from explorer.errors import ExplorerError, SettingsError
from explorer.export import chunk_record, manifest
from explorer.measures import DEFAULT_ENCODING, UNITS
from explorer.retrieval import RETRIEVERS, ChunkIndex
from explorer.splitters import SPLITTERS, ChunkSettings, split


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
    return parser


def run_query(args: argparse.Namespace, settings: ChunkSettings) -> dict[str, object]:
    from explorer import evidence
    from explorer.embeddings import embedder
    from explorer.measures import get_measure

    if args.k < 1:
        raise SettingsError(f"--k must be at least 1, got {args.k}")
    doc = load_path(args.path)
    needs_model = args.retriever != "bm25" or settings.splitter == "semantic"
    emb = embedder(args.model) if needs_model else None
    chunks = split(doc, settings, embed=emb.embed if emb else None)
    index = ChunkIndex(chunks, embedder=emb, heading_prefix=args.heading_prefix)
    ranking = index.rank(args.question, args.retriever)
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
            "heading_prefix": args.heading_prefix,
        },
        "hits": [
            {
                "rank": h.rank,
                "id": chunks[h.index].id,
                "index": h.index,
                "start": chunks[h.index].start,
                "end": chunks[h.index].end,
                "score": round(h.score, 6),
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
    if args.command == "text":
        out.write(load_path(args.path).text)
        return 0
    settings = settings_from(args)  # bad settings fail before the document is read
    if args.command == "query":
        out.write(json.dumps(run_query(args, settings), ensure_ascii=False, indent=1) + "\n")
        return 0
    doc = load_path(args.path)
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
