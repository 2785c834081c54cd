"""The options several commands share: the configuration's (and :func:`config_from`, the one
place the command line builds a :class:`Config`), the lasting embedding index's, ``--edits``,
and the lists of hits and budgets. A command's own options stand beside the function that runs
it, in its module."""

from __future__ import annotations

import argparse
from typing import Any, NoReturn, TypeAlias

from explorer.chunking.adapters import LIBRARY_SPLITTERS
from explorer.chunking.measures import UNITS
from explorer.chunking.records import SPLITTERS
from explorer.config import CONTEXT_HEADERS, DENSE_SOURCES, RETRIEVERS, Config
from explorer.errors import SettingsError
from explorer.evaluation.compare import parse_int_list
from explorer.evaluation.coverage import DEFAULT_BUDGETS, DEFAULT_KS

SWITCHES = ("heading_prefix", "section", "merge", "table_headers", "fill")
"""The on/off settings, each an option taking ``on`` or ``off``."""


class Parser(argparse.ArgumentParser):
    """A parser whose usage error is one line that points to ``--help``."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see --help)\n")


Subparsers: TypeAlias = "argparse._SubParsersAction[Parser]"
"""Where each command registers its parser (``sub.add_parser(NAME, ...)``)."""


def config_options(p: argparse.ArgumentParser) -> None:
    """The options of :class:`Config`; each left out keeps the recommended value."""
    d = Config()
    c = d.chunking
    g = p.add_argument_group("configuration (each defaults to the recommended one)")
    g.add_argument(
        "--preset",
        metavar="NAME",
        help="start from a published baseline's settings (see `presets`); the options given "
        "here override it",
    )
    g.add_argument(
        "--splitter",
        choices=[*SPLITTERS, *LIBRARY_SPLITTERS],
        help=f"ours, or another library's (default {c.splitter})",
    )
    g.add_argument(
        "--options",
        help="a library splitter's own options as a JSON object, "
        'e.g. \'{"keep_separator": "end"}\'',
    )
    g.add_argument("--unit", choices=UNITS, help=f"the size measure (default {c.unit})")
    g.add_argument("--size", type=int, help=f"the size limit in --unit (default {c.size})")
    g.add_argument(
        "--overlap",
        type=int,
        help=f"units shared by neighbours (default {c.overlap}; a quarter of --size when the "
        "splitter, unit or size is given without it, 0 for a splitter that takes no overlap)",
    )
    g.add_argument("--encoding", help=f"tiktoken encoding (default {c.encoding})")
    g.add_argument("--retriever", choices=RETRIEVERS, help=f"default {d.retriever}")
    g.add_argument(
        "--dense",
        choices=DENSE_SOURCES,
        help="where dense scores come from: the document's passages (sentences, each inside "
        f"the model's window) or each chunk embedded whole (default {d.dense})",
    )
    g.add_argument("--model", help=f"embedding model (default {d.model})")
    g.add_argument(
        "--context-header",
        choices=CONTEXT_HEADERS,
        help="the document's title and heading path before what is embedded (embed), or also "
        f"before what BM25 indexes (embed+bm25) (default {d.context_header})",
    )
    g.add_argument(
        "--carry",
        type=float,
        help="each chunk's score gains this share of the previous chunk's score "
        f"(default {d.carry:g}; 0 for none)",
    )
    g.add_argument(
        "--neighbours",
        type=int,
        help=f"each hit brings this many chunks on each side (default {d.neighbours})",
    )
    helps = {
        "heading_prefix": "embed each chunk after its heading path",
        "section": "each hit brings its whole section",
        "merge": "send overlapping or touching pieces of context once",
        "table_headers": "a hit on a table's rows brings the table's header rows",
        "fill": "with a budget, spend the tokens the hits leave on the text around them",
    }
    for name in SWITCHES:
        default = "on" if getattr(d, name) else "off"
        g.add_argument(
            "--" + name.replace("_", "-"),
            choices=("on", "off"),
            help=f"{helps[name]} (default {default})",
        )
    cache_options(p)


def cache_options(p: argparse.ArgumentParser, *, switch: bool = True) -> None:
    """``--cache-dir`` (and, with ``switch``, ``--no-cache``): where embeddings are kept."""
    g = p.add_argument_group("the lasting embedding index")
    g.add_argument(
        "--cache-dir",
        metavar="DIR",
        type=_folder,
        help="keep embeddings in DIR between runs (default: $CHUNK_EXPLORER_CACHE, else "
        "~/.cache/chunk-explorer)",
    )
    if switch:
        g.add_argument(
            "--no-cache", action="store_true", help="keep embeddings in memory for this run only"
        )


def _folder(value: str) -> str:
    """``--cache-dir``'s value, refused when empty (it would be the working folder)."""
    if not value.strip():
        raise argparse.ArgumentTypeError(
            "an empty folder name would put the cache in the working folder; give a folder, "
            "e.g. --cache-dir ~/.cache/chunk-explorer"
        )
    return value


def config_from(args: argparse.Namespace) -> Config:
    """The recommended configuration with whatever the options change (the one place the
    command line builds a configuration)."""
    given: dict[str, Any] = {}
    keys = ("splitter", "unit", "size", "overlap", "encoding", "options", "retriever", "dense")
    for key in (*keys, "model", "context_header"):
        if getattr(args, key, None) is not None:
            given[key] = getattr(args, key)
    if getattr(args, "carry", None) is not None:
        given["carry"] = args.carry
    if getattr(args, "neighbours", None) is not None:
        given["neighbours"] = args.neighbours
    for name in SWITCHES:
        if getattr(args, name, None) is not None:
            given[name] = getattr(args, name) == "on"
    if getattr(args, "preset", None) is not None:
        from explorer.evaluation.presets import preset_config

        return preset_config(args.preset, given)
    return Config.from_json(given)


def edits_option(
    p: argparse.ArgumentParser, *, by_document: bool = False, ab: bool = False
) -> None:
    """``--edits FILE``: what-if edits to the chunking (``by_document`` for a query set's
    documents; ``ab`` as the second configuration of ``ab``)."""
    what = (
        'by document, {"doc.md": [{"merge": 3}]}, or a list when one document is searched'
        if by_document
        else 'a list such as [{"merge": 3}, {"split": 1250}, {"drop": 7}]'
    )
    p.add_argument(
        "--edits",
        metavar="FILE",
        default=None,
        help=(
            "compare A against A + these what-if edits (instead of --b): a JSON file of edits "
            + what
            if ab
            else "what-if edits applied to the chunking, in order: a JSON file of edits " + what
        ),
    )


def ints(minimum: int) -> Any:
    """An argparse ``type`` reading a list of whole numbers of at least ``minimum``."""

    def parse(value: str) -> tuple[int, ...]:
        try:
            return parse_int_list(value, name="the list", minimum=minimum)
        except SettingsError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    return parse


def ks_and_budgets(p: argparse.ArgumentParser, *, k_help: str) -> None:
    """``--k`` and ``--budget`` as lists (a query set's evaluation at several of each)."""
    p.add_argument("--k", type=ints(1), default=DEFAULT_KS, help=k_help)
    p.add_argument(
        "--budget",
        type=ints(1),
        default=DEFAULT_BUDGETS,
        help='token budgets (default "512,1024")',
    )
