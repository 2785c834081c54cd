"""``python -m explorer diff OLD NEW`` and ``map DOC``: two views of what a configuration does
to a document — what a new version changes (chunks, verdicts, and the churn under a set of
splitters) and where its chunks lie in the embedding space.

The work is in :mod:`explorer.chunking.diff`, :mod:`explorer.chunking.churn` and
:mod:`explorer.retrieval.embedding_map`; this module reads the options and prints.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any, TextIO

from explorer.answer import DEFAULT_K
from explorer.cli.options import Subparsers, config_options
from explorer.cli.stderr import load_document
from explorer.config import Config
from explorer.errors import SettingsError
from explorer.evaluation.queries import load_queries
from explorer.workspace import Workspace


def add_diff(sub: Subparsers) -> None:
    df = sub.add_parser(
        "diff",
        help="what changed between two versions of a document: unchanged, changed, added and "
        "removed chunks (and, with --queries, the questions whose verdict changes)",
    )
    df.add_argument("old")
    df.add_argument("new")
    df.add_argument(
        "--queries",
        default=None,
        help="a query set; its questions about either version are answered on both",
    )
    df.add_argument(
        "--k", type=int, default=DEFAULT_K, help=f"hits per answer (default {DEFAULT_K})"
    )
    df.add_argument("--budget", type=int, default=None, help="a token budget for the answers")
    df.add_argument(
        "--splitters",
        default=None,
        metavar="A,B,…",
        help="also the churn under each of these splitters (ours or a library's, at the "
        "configuration's size, unit and overlap): the share of new chunks to embed again",
    )
    df.add_argument("--json", action="store_true", help="print one JSON object")
    config_options(df)


def run_diff(args: argparse.Namespace, config: Config, out: TextIO) -> int:
    from explorer.chunking.churn import parse_splitters
    from explorer.chunking.diff import diff_chunks
    from explorer.config import splitter_config

    splitters = parse_splitters(args.splitters) if args.splitters is not None else ()
    for name in splitters:  # an unknown splitter fails before any document is read
        splitter_config(config, name)
    ws = Workspace()
    old, new = load_document(args.old, ws), load_document(args.new, ws)
    old_chunks, new_chunks = ws.chunks(old, config), ws.chunks(new, config)
    diff = diff_chunks(old, old_chunks, new, new_chunks)
    result: dict[str, Any] = {
        "old": {"name": old.name, "sha256": old.sha256, "chunks": len(old_chunks)},
        "new": {"name": new.name, "sha256": new.sha256, "chunks": len(new_chunks)},
        "config": config.to_json(),
        **diff.to_json(),
    }
    if args.queries:
        from explorer.evaluation.versions import version_verdicts

        names = {old.name, new.name, Path(args.old).name, Path(args.new).name}
        asked = [q for q in load_queries(args.queries) if q.doc in names]
        verdicts = [
            {
                "id": v.query.id,
                "question": v.query.query,
                "old": None if v.before is None else v.before.sentence(),
                "new": None if v.after is None else v.after.sentence(),
                "changed": v.changed,
            }
            for v in version_verdicts(
                ws, old, new, asked, config=config, k=args.k, budget=args.budget
            )
        ]
        result["verdicts"] = verdicts
        result["verdict_changes"] = [v["id"] for v in verdicts if v["changed"]]
    churn = ws.churn(old, new, config, splitters) if splitters else {}
    if splitters:
        result["churn"] = {name: c.to_json() for name, c in churn.items()}
    if args.json:
        out.write(json.dumps(result, ensure_ascii=False) + "\n")
        return 0
    counts = result["counts"]
    out.write(
        f"{old.name} → {new.name}: {counts['unchanged']} unchanged, {counts['changed']} changed, "
        f"{counts['added']} added, {counts['removed']} removed; {counts['stale']} stale records "
        f"to delete, {counts['reembed']} texts to embed\n"
    )
    for v in result.get("verdicts", []):
        if v["changed"]:
            out.write(f"  {v['id']}: {v['old']} → {v['new']}\n")
    for name, c in churn.items():
        out.write(
            f"  {name:<24} {c.share:6.1%} re-embedded ({c.reembedded} of {c.new_chunks} new "
            f"chunks; {c.old_chunks} old)\n"
        )
    return 0


def add_map(sub: Subparsers) -> None:
    emap = sub.add_parser(
        "map",
        help="a map of the embedding space: each chunk as a point on the first two principal "
        "axes of the chunk vectors, the question's point and its hits",
    )
    emap.add_argument("path")
    emap.add_argument("--question", default=None, help="a question to place among the chunks")
    emap.add_argument(
        "--k", type=int, default=DEFAULT_K, help=f"hits per answer (default {DEFAULT_K})"
    )
    emap.add_argument("--budget", type=int, default=None, help="a token budget for the answer")
    emap.add_argument("--json", action="store_true", help="print one JSON object")
    config_options(emap)


def run_map(args: argparse.Namespace, config: Config, out: TextIO) -> int:
    if args.k < 1:
        raise SettingsError(f"--k must be at least 1, got {args.k}")
    if args.budget is not None and args.budget < 1:
        raise SettingsError(f"--budget must be at least 1, got {args.budget}")
    ws = Workspace()
    doc = load_document(args.path, ws)
    question = (args.question or "").strip() or None
    made = ws.embedding_map(doc, question, config=config, k=args.k, budget=args.budget)
    if args.json:
        out.write(json.dumps({**made.to_json(), "config": config.to_json()}, ensure_ascii=False))
        out.write("\n")
    else:
        out.write("\n".join(made.listing()) + "\n")
    return 0
