"""``python -m explorer index DIR``: fill the lasting embedding index ahead of time.

The work is :meth:`explorer.workspace.Workspace.index`; this module reads the options, shows the
progress on stderr (counts, the rate and the time left) and prints the summary. With
``--engine ray`` the same index is filled on Ray Data (:mod:`explorer.distributed`), on this
machine or, with ``--address``, on a cluster. A folder indexed
under a configuration is then answered from (``eval --scope corpus``, ``query --docs``, the app)
without embedding anything; a run stopped with Ctrl-C keeps what it wrote, and the next run
embeds only the rest.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import TextIO

from explorer.cli.options import Subparsers, config_options
from explorer.cli.site import site
from explorer.cli.stderr import print_skipped
from explorer.config import Config
from explorer.distributed import ENGINES, INSTALL_HINT
from explorer.errors import DocumentError, SettingsError
from explorer.preparing import Indexed
from explorer.progress import Progress, timed

EVERY = 5.0
"""Seconds between progress lines when stderr is not a terminal (a log file, CI)."""


def add_index(sub: Subparsers) -> None:
    p = sub.add_parser(
        "index",
        help="embed every document of a folder into the lasting index ahead of time, so a "
        "later eval, query --docs or app session under the same configuration embeds nothing "
        "(resumable: a second run embeds only what is missing)",
    )
    p.add_argument(
        "dir",
        metavar="DIR",
        help="the site's folder: every file below it, each named by its path in it (as eval "
        "--docs and the app's --docs read it)",
    )
    p.add_argument(
        "--queries",
        default=None,
        help="a query set whose questions are embedded too (so eval on it embeds nothing)",
    )
    p.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    g = p.add_argument_group("the engine (the same index either way, row for row)")
    g.add_argument(
        "--engine",
        choices=ENGINES,
        default="local",
        help="local: this process, on every core; ray: Ray Data, documents chunked as tasks "
        "and passages embedded by a pool of workers that load the model once each "
        f"(needs {INSTALL_HINT}) (default local)",
    )
    g.add_argument(
        "--address",
        metavar="ADDRESS",
        default=None,
        help="with --engine ray: join the Ray cluster at ADDRESS (host:port of its head, or "
        "ray://host:10001); without it, Ray is started on this machine",
    )
    g.add_argument(
        "--workers",
        metavar="N",
        type=_workers,
        default=None,
        help="with --engine ray: embedding workers, each loading the model once (default 1; "
        "on this machine they share its cores)",
    )
    config_options(p)


def _workers(value: str) -> int:
    try:
        n = int(value)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(
            f"--workers takes a whole number of 1 or more, not {value!r}"
        )
    return n


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
    if args.engine != "ray" and (args.address is not None or args.workers is not None):
        raise SettingsError("--address and --workers go with --engine ray; add --engine ray")
    ws = site(args.dir)  # a path that is not a folder fails before any work
    questions: list[str] = []
    if args.queries is not None:
        from explorer.evaluation.queries import load_queries

        questions = [q.query for q in load_queries(args.queries)]
    names = ws.names()
    print_skipped(ws.skipped)
    if not names:
        raise DocumentError(f"no file in {args.dir} could be used as a document (see above)")
    shown = timed(stderr_progress())
    ray_run = None
    if args.engine == "ray":
        from explorer.distributed import ray_index

        ray_run = ray_index(
            ws,
            names,
            config,
            shown,
            address=args.address,
            workers=args.workers,
            questions=questions,
        )
        done = ray_run.indexed
    else:
        done = ws.index(names, config, shown, questions=questions)
    if args.json:
        head = ray_run.to_json() if ray_run is not None else {**done.to_json(), "engine": "local"}
        result = {**head, "config": config.to_json()}
        result["skipped"] = len(ws.skipped)
        out.write(json.dumps(result, ensure_ascii=False) + "\n")
    else:
        text = summary(done)
        if ray_run is not None:
            workers = f"{ray_run.workers} worker{'s' if ray_run.workers > 1 else ''}"
            text += (
                f"; on Ray ({ray_run.address}, {workers}): start "
                f"{ray_run.start_seconds:.1f} s, chunking {ray_run.chunk_seconds:.1f} s, "
                f"writing {ray_run.write_seconds:.1f} s"
            )
        out.write(text + "\n")
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
