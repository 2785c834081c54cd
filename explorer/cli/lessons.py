"""``lessons``: check the boundary lessons through the answer path, or print them as a query set
(:mod:`explorer.evaluation.lessons`)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TextIO

from explorer.cli.options import Subparsers
from explorer.cli.site import site, site_document


def add_lessons(sub: Subparsers) -> None:
    lessons = sub.add_parser(
        "lessons",
        help="check the boundary lessons: each incomplete at its failing setting, complete after "
        "each repair (and still incomplete after each move that should not help); or print them "
        "as a query set",
    )
    lessons.add_argument("action", choices=("check", "queries"))
    lessons.add_argument("--lessons", default=None, help="the lessons folder (default: bundled)")
    lessons.add_argument(
        "--docs",
        default=None,
        metavar="FOLDER",
        help="their documents (default: the samples): every file below the folder, named by its "
        "path in it; a lesson's doc matches by that path, else by a unique file name",
    )
    lessons.add_argument("--json", action="store_true", help="check: print one JSON object")


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
    ws = site(docs)
    outcomes = [
        o
        for a in found
        for o in check_lesson(a, ws.document(site_document(a.doc, ws)), workspace=ws)
    ]
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
