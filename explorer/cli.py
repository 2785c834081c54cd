"""Command line: ``python -m explorer text|chunk ...``.

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
from explorer.errors import ExplorerError
from explorer.export import chunk_record
from explorer.measures import DEFAULT_ENCODING, UNITS
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
    return parser


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
