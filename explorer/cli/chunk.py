"""``text``, ``chunk`` and ``audit``: a document's text as offsets see it, its chunks as JSON
Lines, and the integrity audit of its chunking."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, TextIO

from explorer.chunking.adapters import LIBRARY_SPLITTERS
from explorer.chunking.edits import load_edits
from explorer.cli.options import Subparsers, config_options, edits_option
from explorer.cli.stderr import load_document
from explorer.config import Config
from explorer.documents.model import Document
from explorer.export import chunk_record, jsonl_line, records
from explorer.workspace import Workspace


def add_text(sub: Subparsers) -> None:
    text = sub.add_parser("text", help="print the document text exactly as offsets see it")
    text.add_argument("path")


def run_text(args: argparse.Namespace, out: TextIO) -> int:
    out.write(load_document(args.path).text)
    return 0


def add_chunk(sub: Subparsers) -> None:
    chunk = sub.add_parser("chunk", help="print chunks as JSON Lines")
    chunk.add_argument("path")
    edits_option(chunk)
    config_options(chunk)


def run_chunk(args: argparse.Namespace, config: Config, out: TextIO) -> int:
    ws = Workspace()
    doc = load_document(args.path, ws)
    settings = config.chunking
    edits = load_edits(args.edits) if args.edits else ()
    if settings.splitter in LIBRARY_SPLITTERS and not edits:
        for record in library_records(doc, config, ws):
            out.write(jsonl_line(record))
        return 0
    for record in records(doc, config, ws.chunks(doc, config, edits=edits), edits=edits):
        out.write(jsonl_line(record))
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


def add_audit(sub: Subparsers) -> None:
    audit = sub.add_parser(
        "audit",
        help="the integrity audit of a splitter on a document: offsets reported wrong, chunks not "
        "found, text dropped or repeated, chunks over their limit, overlap asked and given; and "
        "its tables: split, rows cut, continuations without the header row, cohesion",
    )
    audit.add_argument("path")
    audit.add_argument("--json", action="store_true", help="print one JSON object")
    config_options(audit)


def run_audit(args: argparse.Namespace, config: Config, out: TextIO) -> int:
    from explorer.chunking.adapters import audit_ours
    from explorer.chunking.tables import table_audit

    ws = Workspace()
    doc = load_document(args.path, ws)
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
