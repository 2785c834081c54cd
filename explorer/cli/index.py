"""``python -m explorer index DIR``: fill the lasting embedding index ahead of time.

The work is :meth:`explorer.workspace.Workspace.index`; this module reads the options, shows the
progress on stderr (counts, the rate and the time left) and prints the summary. A folder indexed
under a configuration is then answered from (``eval --scope corpus``, ``query --docs``, the app)
without embedding anything; a run stopped with Ctrl-C keeps what it wrote, and the next run
embeds only the rest.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import TextIO

from explorer.cli.options import Subparsers, config_options
from explorer.cli.stderr import print_skipped
from explorer.config import Config
from explorer.errors import DocumentError
from explorer.preparing import Indexed
from explorer.progress import Progress, timed
from explorer.workspace import Workspace

EVERY = 5.0
"""Seconds between progress lines when stderr is not a terminal (a log file, CI)."""


def add_index(sub: Subparsers) -> None:
    p = sub.add_parser(
        "index",
        help="embed every document of a folder into the lasting index ahead of time, so a "
        "later eval, query --docs or app session under the same configuration embeds nothing "
        "(resumable: a second run embeds only what is missing)",
    )
    p.add_argument("dir", metavar="DIR", help="the folder of documents (its files, as eval --docs)")
    p.add_argument(
        "--queries",
        default=None,
        help="a query set whose questions are embedded too (so eval on it embeds nothing)",
    )
    p.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    config_options(p)


def stderr_progress(stream: TextIO | None = None, every: float = EVERY) -> Progress:
    """Progress on stderr: a line redrawn in place on a terminal, else a line every ``every``
    seconds (and the first)."""
    out = stream if stream is not None else sys.stderr
    tty = out.isatty()
    last = [-every]

    def show(fraction: float, message: str) -> None:
        if tty:
            print(f"\r{fraction:4.0%} {message[:100]:100s}", end="", file=out, flush=True)
            if fraction >= 1:
                print(file=out)
            return
        now = time.monotonic()
        if now - last[0] >= every and fraction < 1:
            last[0] = now
            print(f"{fraction:4.0%} {message}", file=out, flush=True)

    return show


def run_index(args: argparse.Namespace, config: Config, out: TextIO) -> int:
    folder = Path(args.dir)
    if not folder.is_dir():
        raise DocumentError(f"{args.dir} is not a folder; give the folder of documents to index")
    questions: list[str] = []
    if args.queries is not None:
        from explorer.evaluation.queries import load_queries

        questions = [q.query for q in load_queries(args.queries)]
    ws = Workspace(folder)
    names = ws.names()
    print_skipped(ws.skipped)
    if not names:
        raise DocumentError(f"no file in {args.dir} could be used as a document (see above)")
    done = ws.index(names, config, timed(stderr_progress()), questions=questions)
    if args.json:
        result = {**done.to_json(), "config": config.to_json()}
        result["skipped"] = len(ws.skipped)
        out.write(json.dumps(result, ensure_ascii=False) + "\n")
    else:
        out.write(summary(done) + "\n")
    return 0


def summary(done: Indexed) -> str:
    """``indexed 12 documents (340 chunks): 1,200 passages embedded, 0 stored already, in 17 s
    (70 a second)``."""
    from explorer.progress import duration

    text = (
        f"indexed {done.documents:,} documents ({done.chunks:,} chunks): {done.embedded:,} "
        f"{done.what} embedded, {done.already:,} stored already, in {duration(done.seconds)}"
    )
    if done.embedded:
        text += f" ({done.rate:,.1f} a second on {done.threads} threads)"
    return text
