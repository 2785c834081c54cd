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
import contextlib
import json
import sys
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, NoReturn, TextIO

from explorer import cli_index, cli_versions
from explorer.answer import DEFAULT_K
from explorer.chunking.adapters import LIBRARY_SPLITTERS
from explorer.chunking.edits import Edits, describe, edits_for, edits_json, load_edits
from explorer.chunking.measures import UNITS
from explorer.chunking.splitters import SPLITTERS
from explorer.cli_convert import add_parser as add_convert_parser
from explorer.cli_convert import run_convert
from explorer.config import CONTEXT_HEADERS, DENSE_SOURCES, RETRIEVERS, Config
from explorer.documents.folder import Skipped
from explorer.documents.load import load_path
from explorer.documents.model import Document, display_name
from explorer.errors import DocumentError, EmbeddingError, ExplorerError, SettingsError
from explorer.evaluation.compare import parse_int_list
from explorer.evaluation.coverage import (
    DEFAULT_BUDGETS,
    DEFAULT_KS,
    SCOPES,
    EvalReport,
    evaluate,
    summary_row,
    sweep,
)
from explorer.evaluation.queries import load_queries
from explorer.evaluation.reach import DocumentReach, retrieval_map, retrieval_map_json
from explorer.export import chunk_record, manifest, records
from explorer.progress import timed
from explorer.workspace import Workspace

SWITCHES = ("heading_prefix", "section", "merge", "table_headers", "fill")
"""The on/off settings, each an option taking ``on`` or ``off``."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see --help)\n")


def _config_options(p: argparse.ArgumentParser) -> None:
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
    _cache_options(p)


def _cache_options(p: argparse.ArgumentParser, *, switch: bool = True) -> None:
    g = p.add_argument_group("the lasting embedding index")
    g.add_argument(
        "--cache-dir",
        metavar="DIR",
        help="keep embeddings in DIR between runs (default: $CHUNK_EXPLORER_CACHE, else "
        "~/.cache/chunk-explorer)",
    )
    if switch:
        g.add_argument(
            "--no-cache", action="store_true", help="keep embeddings in memory for this run only"
        )


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


def _ints(minimum: int) -> Any:
    def parse(value: str) -> tuple[int, ...]:
        try:
            return parse_int_list(value, name="the list", minimum=minimum)
        except SettingsError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    return parse


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m explorer", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    text = sub.add_parser("text", help="print the document text exactly as offsets see it")
    text.add_argument("path")
    chunk = sub.add_parser("chunk", help="print chunks as JSON Lines")
    chunk.add_argument("path")
    _edits_option(chunk)
    _config_options(chunk)
    audit = sub.add_parser(
        "audit",
        help="the integrity audit of a splitter on a document: offsets reported wrong, chunks not "
        "found, text dropped or repeated, chunks over their limit, overlap asked and given; and "
        "its tables: split, rows cut, continuations without the header row, cohesion",
    )
    audit.add_argument("path")
    audit.add_argument("--json", action="store_true", help="print one JSON object")
    _config_options(audit)

    query = sub.add_parser(
        "query",
        help="answer a question: hits, the context an LLM receives, the evidence, the verdict",
    )
    query.add_argument(
        "args",
        nargs="*",
        metavar="[PATH] QUESTION",
        help="the document and the question; with --docs, the question only",
    )
    query.add_argument(
        "--docs",
        nargs="+",
        metavar="FOLDER_OR_PATH",
        help="retrieve from all these documents at once (folders: every file in them; files "
        "that cannot be used are listed on stderr); the question may follow the paths",
    )
    query.add_argument(
        "--evidence",
        action="append",
        default=[],
        metavar="PHRASE",
        help="a phrase the answer needs (repeat for several)",
    )
    query.add_argument(
        "--k", type=int, default=DEFAULT_K, help=f"the most hits taken (default {DEFAULT_K})"
    )
    query.add_argument(
        "--budget",
        type=int,
        default=None,
        help="the context's token budget: hits are taken while they fit (default: none)",
    )
    _edits_option(query)
    _config_options(query)

    ev = sub.add_parser("eval", help="coverage of a query set's evidence (for documentation CI)")
    _eval_options(ev)
    ev.add_argument(
        "--min-coverage",
        type=float,
        default=None,
        help="exit with status 1 when coverage@max(k) is below this (0-1)",
    )
    _edits_option(ev, by_document=True)
    sw = sub.add_parser("sweep", help="evaluate a grid of sizes and overlaps for one splitter")
    _eval_options(sw)
    sw.add_argument("--sizes", type=_ints(1), required=True, help='e.g. "128,256,512"')
    sw.add_argument("--overlaps", type=_ints(0), default=(0,), help='e.g. "0,32" (default 0)')

    ab = sub.add_parser(
        "ab",
        help="two configurations on one query set: flips, an exact paired test, a 95%% interval",
        description="Each SPEC is comma-separated key=value settings applied to the recommended "
        "configuration (left out: the recommended configuration itself), e.g. "
        '"splitter=fixed,unit=chars,size=500,overlap=0".',
    )
    ab.add_argument(
        "--queries", required=True, help="query set (JSON list of id/doc/query/evidence)"
    )
    ab.add_argument("--docs", required=True, help="the folder the queries' doc names refer to")
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
    ab.add_argument("--k", type=_ints(1), default=DEFAULT_KS, help='e.g. "1,3,5" (default)')
    ab.add_argument(
        "--budget",
        type=_ints(1),
        default=DEFAULT_BUDGETS,
        help='token budgets (default "512,1024")',
    )
    ab.add_argument("--json", action="store_true", help="print one JSON object")
    _edits_option(ab, by_document=True, ab=True)

    cli_versions.add_parsers(sub, _config_options)
    cache = sub.add_parser("cache", help="the lasting embedding index: its size, or empty it")
    what = cache.add_mutually_exclusive_group(required=True)
    what.add_argument("--stats", action="store_true", help="print where it is and what it holds")
    what.add_argument("--clear", action="store_true", help="empty it (a damaged file is removed)")
    cache.add_argument("--json", action="store_true", help="--stats as one JSON object")
    _cache_options(cache, switch=False)
    presets = sub.add_parser(
        "presets", help="the published baselines --preset names: settings, source and claim"
    )
    presets.add_argument("--json", action="store_true", help="print one JSON list")
    lessons = sub.add_parser(
        "lessons",
        help="check the boundary lessons: each incomplete at its failing setting, complete after "
        "each repair (and still incomplete after each move that should not help); or print them "
        "as a query set",
    )
    lessons.add_argument("action", choices=("check", "queries"))
    lessons.add_argument("--lessons", default=None, help="the lessons folder (default: bundled)")
    lessons.add_argument("--docs", default=None, help="their documents (default: the samples)")
    lessons.add_argument("--json", action="store_true", help="check: print one JSON object")
    cli_index.add_parser(sub, _config_options)
    add_convert_parser(sub)
    return parser


def _edits_option(
    p: argparse.ArgumentParser, *, by_document: bool = False, ab: bool = False
) -> None:
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


def _eval_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--queries", required=True, help="query set (JSON list of id/doc/query/evidence)"
    )
    p.add_argument("--docs", required=True, help="the folder the queries' doc names refer to")
    p.add_argument(
        "--scope",
        choices=SCOPES,
        default="document",
        help="document: each question retrieves from the document it names (default); corpus: "
        "from every document in --docs at once",
    )
    p.add_argument(
        "--k", type=_ints(1), default=DEFAULT_KS, help='hits at most, e.g. "1,3,5" (default)'
    )
    p.add_argument(
        "--budget",
        type=_ints(1),
        default=DEFAULT_BUDGETS,
        help='token budgets (default "512,1024")',
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    _config_options(p)


def _load(path: str, workspace: Workspace | None = None) -> Document:
    """Load the document at ``path``, printing each of its warnings as one line on stderr."""
    doc = workspace.load_path(path) if workspace is not None else load_path(path)
    for warning in doc.warnings:
        print(f"warning: {doc.name}: {warning}", file=sys.stderr)
    return doc


def _skipped(skipped: Sequence[Skipped]) -> None:
    """One ``skipped:`` line on stderr per file that could not be used, with its reason."""
    for s in skipped:
        print(f"skipped: {s.reason}", file=sys.stderr)


def _query_what(args: argparse.Namespace) -> tuple[str | None, str]:
    """The path (None with --docs) and the question of ``query``'s positional arguments."""
    rest = list(args.args)
    if args.docs is not None:
        if not rest and len(args.docs) > 1:  # --docs took the question too: it is the last
            rest = [args.docs.pop()]
        if len(rest) != 1:
            raise SettingsError(
                "with --docs, give the question once, e.g. "
                'query --docs queries/docs "How long is the refund window?"'
            )
        return None, rest[0]
    if len(rest) != 2:
        raise SettingsError('give the document and the question, e.g. query doc.md "question"')
    return rest[0], rest[1]


def run_query(args: argparse.Namespace, config: Config) -> dict[str, Any]:
    if args.k < 1:
        raise SettingsError(f"--k must be at least 1, got {args.k}")
    if args.budget is not None and args.budget < 1:
        raise SettingsError(f"--budget must be at least 1, got {args.budget}")
    path, question = _query_what(args)
    if path is None:
        return run_corpus_query(args, config, question)
    edits = load_edits(args.edits) if args.edits else ()
    ws = Workspace()
    doc = _load(path, ws)
    answer = ws.ask(
        doc, question, args.evidence, config=config, k=args.k, budget=args.budget, edits=edits
    )
    chunks = ws.chunks(doc, config, edits=edits)
    out = answer.to_json(chunks)
    out["document"] = manifest(doc, config, chunks)["document"]
    out["chunks"] = len(chunks)
    out["edits"] = edits_json(edits)
    if edits:
        out["chunking"] = describe(config.to_spec() or "recommended", edits)
    if answer.verdict is not None and not answer.complete:
        from explorer.repair import suggest_repair

        repair = suggest_repair(
            ws, doc, question, args.evidence, config=config, edits=edits, k=args.k,
            budget=args.budget,
        )  # fmt: skip
        out["repair"] = None if repair is None else repair.to_json()
    return out


def run_corpus_query(args: argparse.Namespace, config: Config, question: str) -> dict[str, Any]:
    """``query --docs``: the question answered from every document that loads."""
    ws = Workspace()
    loaded = ws.load_paths(args.docs)
    _skipped(loaded.skipped)
    for doc in loaded.documents:
        for warning in doc.warnings:
            print(f"warning: {doc.name}: {warning}", file=sys.stderr)
    if not loaded.documents:
        raise DocumentError("none of the files given could be used as a document (see above)")
    for doc in loaded.documents:
        ws.add(doc)
    edits = edits_for(args.edits, loaded.names) if args.edits else {}
    corpus = ws.corpus(config, loaded.names, edits=edits)
    answer = ws.answer(
        question,
        args.evidence,
        config=config,
        names=loaded.names,
        edits=edits,
        k=args.k,
        budget=args.budget,
    )
    out = answer.to_json(corpus.chunks)
    out["documents"] = [
        {**manifest(d, config, corpus.chunks[d.name])["document"], "path": display_name(p)}
        for d, p in zip(loaded.documents, loaded.paths, strict=True)
    ]
    out["skipped"] = [{"path": display_name(s.path), "reason": s.reason} for s in loaded.skipped]
    out["chunks"] = corpus.size
    out["edits"] = {name: edits_json(e) for name, e in edits.items()}
    return out


def _progress(fraction: float, message: str) -> None:
    if sys.stderr.isatty():
        print(f"\r{fraction:4.0%} {message[:100]:100s}", end="", file=sys.stderr, flush=True)
        if fraction >= 1:
            print(file=sys.stderr)


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


@contextlib.contextmanager
def _lasting_index(args: argparse.Namespace, config: Config) -> Iterator[None]:
    """The shared embedders use the store the options choose while the command runs. A store
    named by ``--cache-dir`` that cannot be used is an error; the default one, a warning."""
    from explorer.retrieval.store import open_store
    from explorer.workspace import shared_workspace

    store = None
    if config.needs_model and not args.no_cache:
        try:
            store = open_store(args.cache_dir)
        except EmbeddingError as exc:
            if args.cache_dir is not None:
                raise
            print(f"warning: {exc}; embeddings are kept in memory for this run", file=sys.stderr)
    try:
        with shared_workspace().using_store(store):
            yield
    finally:
        if store is not None:
            store.close()


@contextlib.contextmanager
def _embedding_count(config: Config) -> Iterator[None]:
    """Say on stderr how many texts the command embedded, and how many came from the store."""
    if not config.needs_model:
        yield
        return
    emb = Workspace().embedder(config.model)
    encoded, stored = emb.encoded, emb.from_store
    yield
    new, hits = emb.encoded - encoded, emb.from_store - stored
    where = f"{hits:,} from the cache in {emb.store.folder}" if emb.store else "no cache"
    print(f"embedded {new:,} new texts ({where})", file=sys.stderr)


def run_cache(args: argparse.Namespace, out: TextIO) -> int:
    from explorer.retrieval.store import Store, cache_dir, open_store

    folder = Path(args.cache_dir) if args.cache_dir is not None else cache_dir()
    if folder is None:
        raise EmbeddingError(
            "the lasting embedding index is turned off (CHUNK_EXPLORER_CACHE=off); give "
            "--cache-dir DIR to look at one"
        )
    try:
        store = open_store(folder)
    except EmbeddingError:
        if not args.clear:
            raise
        Store.remove(folder)  # damaged beyond reading: start again
        out.write(f"removed the damaged embedding cache in {folder}\n")
        return 0
    assert store is not None
    with store:
        if args.clear:
            rows = store.clear()
            out.write(f"emptied the embedding cache in {folder}: {rows:,} vectors removed\n")
            return 0
        st = store.stats()
    if args.json:
        out.write(json.dumps(st.to_json(), ensure_ascii=False) + "\n")
        return 0
    models = ", ".join(f"{m} ({n:,})" for m, n in st.models) or "none"
    out.write(
        f"{st.path}\n{st.rows:,} vectors, {st.bytes / 1e6:,.1f} MB of "
        f"{st.max_bytes / 1e6:,.1f} MB (the file: {st.file_bytes / 1e6:,.1f} MB)\n"
        f"models: {models}\n"
    )
    return 0


def _query_edits(args: argparse.Namespace, queries: Sequence[Any]) -> dict[str, Edits]:
    """``--edits`` of ``eval`` and ``ab``, by document (a list edits the one document asked
    about)."""
    if not args.edits:
        return {}
    return edits_for(args.edits, sorted({q.doc for q in queries}))


def run_eval(args: argparse.Namespace, config: Config, out: TextIO) -> int:
    queries = load_queries(args.queries)
    edits = _query_edits(args, queries)
    workspace = Workspace(Path(args.docs))
    if args.scope == "corpus":
        workspace.names()  # read the folder now, to list what is skipped before the work
        _skipped(workspace.skipped)
    with _embedding_count(config):
        report = evaluate(
            queries,
            workspace,
            config,
            ks=args.k,
            budgets=args.budget,
            progress=timed(_progress),
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


def run_sweep(args: argparse.Namespace, config: Config, out: TextIO) -> int:
    queries = load_queries(args.queries)
    workspace = Workspace(Path(args.docs))
    with _embedding_count(config):
        reports = sweep(
            queries, workspace, config, sizes=args.sizes, overlaps=args.overlaps, ks=args.k,
            budgets=args.budget, progress=timed(_progress), scope=args.scope,
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
    queries = load_queries(args.queries)
    edits = _query_edits(args, queries)
    workspace = Workspace(Path(args.docs))
    ra = evaluate(queries, workspace, a, ks=args.k, budgets=args.budget, progress=timed(_progress))
    rb = evaluate(
        queries,
        workspace,
        b,
        ks=args.k,
        budgets=args.budget,
        progress=timed(_progress),
        edits=edits,
    )
    comparisons = paired(ra, rb)
    side = ab_measures(ra, rb, workspace)
    claim = presets.judge(a, b, comparisons, k=max(args.k))
    result = {
        "a": a.to_json(),
        "b": b.to_json(),
        "b_edits": {name: edits_json(e) for name, e in edits.items()},
        "questions": len(queries),
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
    out.write(f"A: {args.a or 'recommended'}\nB: {label_b}\n")
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


def library_records(doc: Document, config: Config, workspace: Workspace) -> list[dict[str, Any]]:
    """A library splitter's chunks as JSON Lines records, each with the start the library
    reported (``library_start``, or null) and its audit flags (``audit``); a chunk that could
    not be found in the document is a record without a span."""
    result = workspace.chunking(doc, config).library
    assert result is not None  # a library splitter's chunking holds what the library returned
    for message in result.messages:
        print(f"warning: {result.library}: {message}", file=sys.stderr)
    out = []
    for item in result.items:
        if item.chunk is not None:
            record = chunk_record(doc, config, item.chunk)
        else:
            record = {"id": None, "doc": doc.name, "text": item.text, "start": None, "end": None}
        record["library_index"] = item.index
        record["library_start"] = item.library_start
        record["audit"] = list(item.audit.flags)
        out.append(record)
    return out


def _tables_json(report: Any, workspace: Workspace) -> dict[str, int | float]:
    """The table audit of every document the evaluation searched, as one."""
    from explorer.evaluation.side_by_side import table_summary

    return table_summary(report, workspace)


def run_audit(args: argparse.Namespace, config: Config, out: TextIO) -> int:
    from explorer.chunking.adapters import audit_ours
    from explorer.chunking.tables import table_audit

    ws = Workspace()
    doc = _load(args.path, ws)
    settings = config.chunking
    made = ws.chunking(doc, config)
    if made.library is not None:
        summary = made.library.audit.summary()
        summary["mapping"] = dict(made.library.mapping)
    else:
        summary = audit_ours(doc, made.chunks, settings).summary()
    summary["tables"] = table_audit(doc, made.chunks).summary()
    summary["config"] = config.to_json()
    if args.json:
        out.write(json.dumps(summary, ensure_ascii=False) + "\n")
        return 0
    for key, value in summary.items():
        if key == "tables":
            t = value
            out.write(
                f"{'tables':>18}: {t['tables']} ({t['split']} split, {t['rows_cut']} of "
                f"{t['rows']} rows cut, {t['without_header']} continuations without the header, "
                f"cohesion {t['cohesion']})\n"
            )
        elif key not in ("snippet", "config", "mapping"):
            out.write(f"{key:>18}: {value}\n")
    out.write(f"\nreproduce it:\n{summary['snippet']}\n")
    return 0


def run_lessons(args: argparse.Namespace, out: TextIO) -> int:
    """``lessons check``: every lesson through the answer path; status 1 if one misbehaves.
    ``lessons queries``: the lessons as a query set (for ``eval --queries``)."""
    from explorer.evaluation.lessons import check_lesson, load_lessons
    from explorer.resources import samples_dir

    found = load_lessons(args.lessons)
    if args.action == "queries":
        out.write(json.dumps([a.query().to_json() for a in found], indent=1) + "\n")
        return 0
    docs = Path(args.docs) if args.docs else samples_dir()
    ws = Workspace(docs)
    outcomes = [o for a in found for o in check_lesson(a, ws.document(a.doc), workspace=ws)]
    bad = [o for o in outcomes if not o.ok]
    if args.json:
        report = {"lessons": len(found), "ok": not bad, "checks": [o.to_json() for o in outcomes]}
        out.write(json.dumps(report, ensure_ascii=False, indent=1) + "\n")
    else:
        for o in outcomes:
            mark = "ok  " if o.ok else "FAIL"
            verdict = o.answer.verdict.kind if o.answer.verdict is not None else ""
            out.write(f"{mark} {o.lesson:<40} {o.step:<10} {verdict:<10} {o.label}\n")
        out.write(
            f"{len(found)} lessons, {len(outcomes) - len(bad)} of {len(outcomes)} as expected\n"
        )
    return 1 if bad else 0


def run(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    out = sys.stdout
    if args.command == "text":
        out.write(_load(args.path).text)
        return 0
    if args.command == "ab":
        return run_ab(args, out)
    if args.command == "cache":
        return run_cache(args, out)
    if args.command == "lessons":
        return run_lessons(args, out)
    if args.command == "convert":
        return run_convert(args, out)
    if args.command == "presets":
        from explorer.evaluation import presets

        if args.json:
            out.write(json.dumps(presets.presets_json(), ensure_ascii=False) + "\n")
        else:
            out.write(presets.presets_text())
        return 0
    config = config_from(args)  # bad settings fail before any document is read
    with _lasting_index(args, config):
        return _run_configured(args, config, out)


def _run_configured(args: argparse.Namespace, config: Config, out: TextIO) -> int:
    if args.command == "eval":
        return run_eval(args, config, out)
    if args.command == "sweep":
        return run_sweep(args, config, out)
    if args.command == "query":
        out.write(json.dumps(run_query(args, config), ensure_ascii=False, indent=1) + "\n")
        return 0
    if args.command == "diff":
        return cli_versions.run_diff(args, config, out, _load)
    if args.command == "index":
        return cli_index.run_index(args, config, out)
    if args.command == "audit":
        return run_audit(args, config, out)
    if args.command == "map":
        return cli_versions.run_map(args, config, out, _load)
    ws = Workspace()
    doc = _load(args.path, ws)
    settings = config.chunking
    edits = load_edits(args.edits) if args.edits else ()
    if settings.splitter in LIBRARY_SPLITTERS and not edits:
        for record in library_records(doc, config, ws):
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
        return 0
    for record in records(doc, config, ws.chunks(doc, config, edits=edits), edits=edits):
        out.write(json.dumps(record, ensure_ascii=False) + "\n")
    return 0


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


if __name__ == "__main__":
    sys.exit(main())
