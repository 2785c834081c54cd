"""``query``: answer a question from one document, or from every document given with ``--docs``
— the hits, the context an LLM receives, the evidence, the verdict (and, when the answer is
incomplete, the repair that would complete it)."""

from __future__ import annotations

import argparse
import json
from typing import Any, TextIO

from explorer.answer import DEFAULT_K
from explorer.budget import budget_use
from explorer.chunking.edits import describe, edits_for, edits_json, load_edits
from explorer.cli.options import Subparsers, config_options, edits_option
from explorer.cli.stderr import load_document, print_skipped, warn
from explorer.config import Config
from explorer.documents.model import display_name
from explorer.errors import DocumentError, SettingsError
from explorer.export import manifest
from explorer.workspace import Workspace


def add_query(sub: Subparsers) -> None:
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
        help="retrieve from all these documents at once (a folder: every file below it, its "
        "folders' too, each named by its path in it, as the app's --docs; files that cannot be "
        "used are listed on stderr); the question may follow the paths",
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
    edits_option(query)
    config_options(query)


def run_query(args: argparse.Namespace, config: Config, out: TextIO) -> int:
    out.write(json.dumps(query_json(args, config), ensure_ascii=False, indent=1) + "\n")
    return 0


def query_json(args: argparse.Namespace, config: Config) -> dict[str, Any]:
    """What ``query`` prints: the answer as JSON, with the document (or documents) it read."""
    if args.k < 1:
        raise SettingsError(f"--k must be at least 1, got {args.k}")
    if args.budget is not None and args.budget < 1:
        raise SettingsError(f"--budget must be at least 1, got {args.budget}")
    path, question = _query_what(args)
    if path is None:
        return corpus_query_json(args, config, question)
    edits = load_edits(args.edits) if args.edits else ()
    ws = Workspace()
    doc = load_document(path, ws)
    answer = ws.ask(
        doc, question, args.evidence, config=config, k=args.k, budget=args.budget, edits=edits
    )
    chunks = ws.chunks(doc, config, edits=edits)
    out = answer.to_json(chunks)
    out["document"] = manifest(doc, config, chunks)["document"]
    out["chunks"] = len(chunks)
    corpus = ws.corpus(config, [doc], edits={doc.name: edits} if edits else None)
    out["budget_use"] = budget_use(corpus, answer).to_json()
    out["edits"] = edits_json(edits)
    if edits:
        out["chunking"] = describe(config.to_spec() or "recommended", edits)
    if answer.verdict is not None and not answer.complete:
        from explorer.repair import repair_or_move

        repair = repair_or_move(
            ws, doc, question, args.evidence, config=config, edits=edits, k=args.k,
            budget=args.budget,
        )  # fmt: skip
        out["repair"] = None if repair is None else repair.to_json()
    return out


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


def corpus_query_json(args: argparse.Namespace, config: Config, question: str) -> dict[str, Any]:
    """``query --docs``: the question answered from every document that loads."""
    ws = Workspace()
    loaded = ws.load_paths(args.docs, recursive=True)
    print_skipped(loaded.skipped)
    for doc in loaded.documents:
        warn(doc)
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
    out["budget_use"] = budget_use(corpus, answer).to_json()
    out["edits"] = {name: edits_json(e) for name, e in edits.items()}
    return out
