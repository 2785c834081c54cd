"""Command line: ``python -m explorer COMMAND`` (text, chunk, audit, query, eval, sweep, ab, diff,
map, cache, lessons, index, convert, presets).

Every command that chunks or answers takes the same configuration options, each defaulting to
the recommended configuration (:class:`explorer.config.Config`), or to a published baseline's
with ``--preset NAME`` (``presets`` lists them, :mod:`explorer.evaluation.presets`); ``query``
and ``eval`` print the configuration they used, flat, under ``"config"``. Embeddings are kept
between runs in the lasting index (``--cache-dir``, else ``$CHUNK_EXPLORER_CACHE``, else the
user's cache folder; ``--no-cache`` for none); ``eval`` and ``sweep`` say on stderr how many
texts they embedded.

Bad input never shows a traceback: it exits with status 2 and one line on stderr that says what
is wrong and what to do. A document that loads with an assumption (an encoding guessed, a damaged
PDF repaired) gets one ``warning:`` line on stderr per assumption, and the command goes on.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

from explorer.cli import cache, chunk, convert, evaluate, index, lessons, presets, query, versions
from explorer.cli.options import Parser, Subparsers, config_from
from explorer.config import Config
from explorer.errors import ExplorerError

Run = Callable[[argparse.Namespace, TextIO], int]
RunConfigured = Callable[[argparse.Namespace, Config, TextIO], int]


@dataclass(frozen=True)
class Command:
    """One command: ``add`` registers its parser and options, ``run`` runs it and returns the
    exit status."""

    add: Callable[[Subparsers], None]
    run: Run


def configured(run: RunConfigured) -> Run:
    """``run`` under the configuration the options give, built before any document is read,
    with the embedders on the store the cache options choose."""

    def inner(args: argparse.Namespace, out: TextIO) -> int:
        config = config_from(args)  # bad settings fail before any document is read
        with cache.lasting_index(args, config):
            return run(args, config, out)

    return inner


COMMANDS: dict[str, Command] = {
    "text": Command(chunk.add_text, chunk.run_text),
    "chunk": Command(chunk.add_chunk, configured(chunk.run_chunk)),
    "audit": Command(chunk.add_audit, configured(chunk.run_audit)),
    "query": Command(query.add_query, configured(query.run_query)),
    "eval": Command(evaluate.add_eval, configured(evaluate.run_eval)),
    "sweep": Command(evaluate.add_sweep, configured(evaluate.run_sweep)),
    "ab": Command(evaluate.add_ab, evaluate.run_ab),
    "diff": Command(versions.add_diff, configured(versions.run_diff)),
    "map": Command(versions.add_map, configured(versions.run_map)),
    "cache": Command(cache.add_cache, cache.run_cache),
    "presets": Command(presets.add_presets, presets.run_presets),
    "lessons": Command(lessons.add_lessons, lessons.run_lessons),
    "index": Command(index.add_index, configured(index.run_index)),
    "convert": Command(convert.add_convert, convert.run_convert),
}
"""Every command by name, in the order ``--help`` lists them."""


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="python -m explorer", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    for command in COMMANDS.values():
        command.add(sub)
    return parser


def run(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return COMMANDS[args.command].run(args, sys.stdout)


def main(argv: Sequence[str] | None = None) -> int:
    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(encoding="utf-8")
    try:
        with warnings.catch_warnings():
            warnings.showwarning = _store_warning_line(warnings.showwarning)
            return run(argv)
    except ExplorerError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. piped into `head`
        return 0
    except KeyboardInterrupt:
        return 130


def _store_warning_line(show: Any) -> Any:
    """``show`` (warnings.showwarning), except that a StoreWarning is one ``warning:`` line, as
    a document's warnings are."""
    from explorer.retrieval.store import StoreWarning

    def inner(message: Warning | str, category: type[Warning], *args: Any, **kw: Any) -> None:
        if issubclass(category, StoreWarning):
            print(f"warning: {message}", file=sys.stderr)
        else:
            show(message, category, *args, **kw)

    return inner
