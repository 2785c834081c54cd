"""``explorer convert``: public question sets into the query-set format (the logic is
:mod:`explorer.evaluation.convert`; this is its argument parsing and printing)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TextIO

from explorer.cli.options import Subparsers
from explorer.errors import QuerySetError


def add_convert(sub: Subparsers) -> None:
    convert = sub.add_parser(
        "convert",
        help="convert a public question set (Chroma's chunking_evaluation, or JSON Lines) into "
        "a query set, checking every reference against its document",
        description="chroma QUESTIONS_CSV CORPORA_DIR: Chroma's questions_df.csv (question, "
        "references, corpus_id) over its corpus files. jsonl FILE DOCS_DIR: one JSON object a "
        'line with "question", "doc" and the evidence as "references", "spans" or "evidence" '
        "(exact strings). Every reference must be the document's text at its offsets.",
    )
    convert.add_argument("format", choices=("chroma", "jsonl"))
    convert.add_argument("source", help="Chroma's questions_df.csv, or the JSON Lines file")
    convert.add_argument("docs", help="the folder of the corpus files / documents")
    convert.add_argument("--out", required=True, metavar="FILE", help="the query set to write")
    convert.add_argument(
        "--skip-bad",
        action="store_true",
        help="leave out a question whose references do not check, and list it on stderr",
    )


def run_convert(args: argparse.Namespace, out: TextIO) -> int:
    from explorer.evaluation.convert import FORMATS

    result = FORMATS[args.format](args.source, args.docs, skip_bad=args.skip_bad)
    target = Path(args.out)
    try:
        target.write_text(result.to_json(), encoding="utf-8")
    except OSError as exc:
        raise QuerySetError(f"{target}: cannot be written ({exc.strerror})") from None
    for message in result.skipped:
        print(f"skipped: {message}", file=sys.stderr)
    docs = len({i["doc"] for i in result.items})
    spans = sum(len(i["evidence"]) for i in result.items)
    out.write(
        f"{len(result.items)} questions over {docs} documents, {spans} references checked, "
        f"{len(result.skipped)} skipped: {target}\n"
    )
    return 0
